//! Chain, envelope and upcasting tests, including the properties of STYLE.md §9: a chain built
//! by `seal` always verifies, and any single-byte edit is found at the right `seq`.

use proptest::prelude::*;
use serde_json::json;

use super::*;
use crate::events::{
    AuditEvent, DecodeError, OperatorNote, Upcast, UpcastError, decode, decode_ref, decode_with,
};

fn draft(message: &str, millis: i64) -> EventDraft {
    EventDraft::new(
        Timestamp::from_unix_millis(millis).unwrap(),
        Actor::new("cli").unwrap(),
        Correlation { session: Some(CorrelationId::new("s-1").unwrap()), ..Correlation::default() },
        &AuditEvent::OperatorNote(OperatorNote { message: message.to_owned() }),
    )
    .unwrap()
}

fn chain(n: usize) -> Vec<StoredRecord> {
    let drafts: Vec<_> = (0..n).map(|i| draft(&format!("note {i}"), 1_771_666_200_000 + i as i64)).collect();
    seal_batch(&Head::EMPTY, &drafts).unwrap().0
}

#[test]
fn first_event_links_to_genesis_and_body_is_canonical() {
    let records = chain(1);
    let record = &records[0];
    assert_eq!(record.seq, 1);
    let body = std::str::from_utf8(&record.body).unwrap();
    assert_eq!(
        body,
        format!(
            "{{\"seq\":1,\"prev_hash\":\"{}\",\"recorded_at\":\"2026-02-21T09:30:00.000Z\",\"actor\":\"cli\",\
             \"session\":\"s-1\",\"event_type\":\"operator_note\",\"event_version\":1,\
             \"payload\":{{\"message\":\"note 0\"}}}}",
            "0".repeat(64)
        )
    );
    assert_eq!(record.hash, Hash::link(&Hash::GENESIS, &record.body));
}

#[test]
fn sealing_is_deterministic() {
    assert_eq!(chain(5), chain(5));
}

#[test]
fn envelope_parses_back_with_the_record_hash() {
    let records = chain(2);
    let envelope = Envelope::parse(&records[1]).unwrap();
    assert_eq!(envelope.seq, 2);
    assert_eq!(envelope.prev_hash, records[0].hash);
    assert_eq!(envelope.hash, records[1].hash);
    assert_eq!(envelope.session.as_deref(), Some("s-1"));
    assert_eq!(envelope.payload.get(), r#"{"message":"note 1"}"#);
    assert_eq!(
        decode(&envelope).unwrap(),
        AuditEvent::OperatorNote(OperatorNote { message: "note 1".into() })
    );
}

#[test]
fn envelope_parse_rejects_a_body_that_names_another_seq() {
    let mut record = chain(1).remove(0);
    record.seq = 7;
    assert_eq!(Envelope::parse(&record).unwrap_err(), EnvelopeError::SeqMismatch { seq: 7, declared: 1 });
}

#[test]
fn verify_names_gaps_reorders_and_removals() {
    let records = chain(4);
    let mut gap = records.clone();
    gap.remove(1);
    assert_eq!(verify(&gap).unwrap_err(), ChainBreak { seq: 2, why: BreakKind::Gap { found: 3 } });

    let mut swapped = records.clone();
    swapped.swap(2, 3);
    assert_eq!(verify(&swapped).unwrap_err().seq, 3);

    let first_missing: Vec<_> = records[1..].to_vec();
    assert_eq!(verify(&first_missing).unwrap_err().seq, 1);
}

#[test]
fn verify_finds_a_record_re_sealed_at_another_position() {
    // A body copied from seq 2 into seq 3 with a correct-looking hash for its bytes.
    let records = chain(3);
    let mut forged = records.clone();
    forged[2] = StoredRecord {
        seq: 3,
        hash: Hash::link(&records[1].hash, &records[1].body),
        body: records[1].body.clone(),
    };
    assert_eq!(verify(&forged).unwrap_err(), ChainBreak { seq: 3, why: BreakKind::Position });
}

#[test]
fn checkpoint_finds_truncation_and_rewrite() {
    let records = chain(5);
    let checkpoint = Checkpoint { seq: 4, head_hash: records[3].hash };

    let mut intact = ChainVerifier::with_checkpoint(checkpoint);
    records.iter().try_for_each(|r| intact.push(r)).unwrap();
    assert_eq!(intact.finish().unwrap().seq, 5);

    let mut truncated = ChainVerifier::with_checkpoint(checkpoint);
    records[..3].iter().try_for_each(|r| truncated.push(r)).unwrap();
    assert_eq!(truncated.finish().unwrap_err(), ChainBreak { seq: 4, why: BreakKind::Truncated { head: 3 } });

    // Rewritten from seq 3 on and re-sealed: a valid chain, but not the one checkpointed.
    let mut rewritten = records[..2].to_vec();
    let head = Head { seq: 2, hash: records[1].hash };
    let (tail, _) = seal_batch(&head, &[draft("forged", 1), draft("forged", 2), draft("forged", 3)]).unwrap();
    rewritten.extend(tail);
    assert!(verify(&rewritten).is_ok());
    let mut verifier = ChainVerifier::with_checkpoint(checkpoint);
    let err = rewritten.iter().try_for_each(|r| verifier.push(r)).unwrap_err();
    assert_eq!(err.seq, 4);
    assert!(matches!(err.why, BreakKind::CheckpointMismatch { .. }));
}

#[test]
fn checkpoint_round_trips_as_json() {
    let checkpoint = Checkpoint { seq: 3, head_hash: Hash::link(&Hash::GENESIS, b"x") };
    let text = serde_json::to_string(&checkpoint).unwrap();
    assert_eq!(text, format!("{{\"seq\":3,\"head_hash\":\"{}\"}}", checkpoint.head_hash));
    assert_eq!(serde_json::from_str::<Checkpoint>(&text).unwrap(), checkpoint);
    assert!(serde_json::from_value::<Checkpoint>(json!({"seq": 3, "head_hash": "zz"})).is_err());
}

#[test]
fn actor_and_ids_are_validated() {
    assert!(Actor::new("").is_err());
    assert!(Actor::new("  ").is_err());
    assert!(Actor::new("a\nb").is_err());
    assert!(Actor::new("x".repeat(129)).is_err());
    assert!(Actor::new("daemon").is_ok());
    assert!(CorrelationId::new("x".repeat(257)).is_err());
    assert!(CorrelationId::new("\u{0}").is_err());
}

fn note_envelope(version: u32, payload: serde_json::Value) -> Envelope {
    let mut envelope = Envelope::parse(&chain(1)[0]).unwrap();
    envelope.event_version = version;
    envelope.payload = serde_json::value::to_raw_value(&payload).unwrap();
    envelope
}

#[test]
fn upcasting_turns_old_versions_into_todays_type() {
    // A hypothetical version 0 of `operator_note` that called the field `text`.
    fn rename_text(mut v: serde_json::Value) -> Result<serde_json::Value, UpcastError> {
        let text = v
            .get_mut("text")
            .map(serde_json::Value::take)
            .ok_or(UpcastError::Missing { version: 0, field: "text" })?;
        Ok(json!({ "message": text }))
    }
    // The step of another type or version ran.
    fn wrong(_: serde_json::Value) -> Result<serde_json::Value, UpcastError> {
        Err(UpcastError::NotAnObject { event_type: "wrong" })
    }
    // Decoys first: a step is chosen by type and version together, never by one of them.
    let steps = [
        Upcast { event_type: "lineage_checked", from_version: 0, step: wrong },
        Upcast { event_type: "operator_note", from_version: 7, step: wrong },
        Upcast { event_type: "operator_note", from_version: 0, step: rename_text },
    ];
    let old = note_envelope(0, json!({"text": "hello"}));
    assert_eq!(
        decode_with(&steps, &old).unwrap(),
        AuditEvent::OperatorNote(OperatorNote { message: "hello".into() })
    );
    assert_eq!(
        decode(&old).unwrap_err(),
        DecodeError::NoUpcast { event_type: "operator_note".into(), version: 0 }
    );
    let broken = note_envelope(0, json!({"other": 1}));
    assert!(matches!(decode_with(&steps, &broken), Err(DecodeError::InvalidPayload { .. })));
}

#[test]
fn lineage_checked_version_1_is_upcast_and_malformed_ones_refused() {
    let lineage = json!([{"id": "o1", "type": "orchestrator", "spawn_depth": 0}]);
    let result = json!({"passed": true, "code": null, "reason": "ok", "pair": null});
    let v1 = |extra: serde_json::Value| {
        let mut payload =
            json!({"decision": "allow", "result": result, "lineage_digest": "d", "lineage": lineage});
        payload.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        let mut envelope = note_envelope(1, payload);
        envelope.event_type = "lineage_checked".into();
        envelope
    };
    // (version-1 payload's extra fields, decodes?, why)
    let rows = [
        (json!({"length": 1}), true, "the shape version 1 wrote"),
        (json!({"lineage_length": 1}), false, "version 1 never had `lineage_length`"),
        (json!({}), false, "version 1 always had `length`"),
        (json!({"length": 1, "lineage_length": 1}), false, "ambiguous: both names"),
    ];
    for (extra, ok, why) in rows {
        let decoded = decode(&v1(extra));
        assert_eq!(decoded.is_ok(), ok, "{why}: {decoded:?}");
        if let Ok(AuditEvent::LineageChecked(event)) = decoded {
            assert_eq!(event.lineage_length, 1);
        }
    }
}

#[test]
fn decode_refuses_future_versions_unknown_types_and_bad_payloads() {
    assert!(matches!(
        decode(&note_envelope(2, json!({"message": "x"}))),
        Err(DecodeError::FromTheFuture { .. })
    ));
    assert!(matches!(
        decode(&note_envelope(1, json!({"message": "x", "extra": 1}))),
        Err(DecodeError::InvalidPayload { .. })
    ));
    let mut unknown = note_envelope(1, json!({}));
    unknown.event_type = "launch_missiles".into();
    assert!(matches!(decode(&unknown), Err(DecodeError::UnknownType { .. })));
}

proptest! {
    #[test]
    fn a_sealed_chain_always_verifies(messages in proptest::collection::vec(".*", 0..20)) {
        let drafts: Vec<_> = messages.iter().map(|m| draft(m, 0)).collect();
        let (records, head) = seal_batch(&Head::EMPTY, &drafts).unwrap();
        prop_assert_eq!(verify(&records), Ok(head));
        prop_assert_eq!(head.seq, messages.len() as u64);
    }

    #[test]
    fn any_single_byte_edit_is_found_at_its_seq(
        n in 1usize..12,
        pick in any::<prop::sample::Index>(),
        offset in any::<prop::sample::Index>(),
        xor in 1u8..=255,
        in_hash in any::<bool>(),
    ) {
        let mut records = chain(n);
        let victim = pick.index(n);
        let record = &mut records[victim];
        if in_hash {
            let mut bytes = *record.hash.as_bytes();
            bytes[offset.index(32)] ^= xor;
            record.hash = Hash::from_bytes(bytes);
        } else {
            let at = offset.index(record.body.len());
            record.body[at] ^= xor;
        }
        let err = verify(&records).unwrap_err();
        prop_assert_eq!(err.seq, victim as u64 + 1);
    }
}

proptest! {
    /// The replay's borrowed reading says exactly what the owned one says, escapes included.
    #[test]
    fn a_borrowed_envelope_reads_like_an_owned_one(
        actor in "[^\\p{Cc}]{1,20}",
        session in proptest::option::of("[^\\p{Cc}]{1,20}"),
        turn in proptest::option::of("[a-z0-9-]{1,12}"),
        run in proptest::option::of("[a-z0-9-]{1,12}"),
        item in proptest::option::of("[a-z0-9-]{1,12}"),
        message in ".*",
    ) {
        let id = |text: Option<String>| text.and_then(|t| CorrelationId::new(t).ok());
        let draft = EventDraft::new(
            Timestamp::from_unix_millis(1_771_666_200_123).unwrap(),
            Actor::new(actor.clone()).unwrap_or_else(|_| Actor::new("x").unwrap()),
            Correlation { session: id(session), turn: id(turn), run: id(run), item: id(item) },
            &AuditEvent::OperatorNote(OperatorNote { message }),
        )
        .unwrap();
        let record = seal(&Head::EMPTY, &draft).unwrap();
        let owned = Envelope::parse(&record).unwrap();
        let borrowed = EnvelopeRef::parse(&record).unwrap();
        prop_assert_eq!(borrowed.seq, owned.seq);
        prop_assert_eq!(borrowed.recorded_at, owned.recorded_at);
        prop_assert_eq!(borrowed.hash, owned.hash);
        prop_assert_eq!(borrowed.actor(), owned.actor.as_str());
        prop_assert_eq!(borrowed.session(), owned.session.as_deref());
        prop_assert_eq!(borrowed.turn(), owned.turn.as_deref());
        prop_assert_eq!(borrowed.run(), owned.run.as_deref());
        prop_assert_eq!(borrowed.item(), owned.item.as_deref());
        prop_assert_eq!(borrowed.event_type(), owned.event_type.as_str());
        prop_assert_eq!(borrowed.payload(), owned.payload.get());
        prop_assert_eq!(decode_ref(&borrowed), decode(&owned));
    }
}

#[test]
fn a_borrowed_envelope_refuses_what_the_owned_one_refuses() {
    let mut record = chain(2).remove(1);
    record.seq = 7;
    assert!(matches!(EnvelopeRef::parse(&record), Err(EnvelopeError::SeqMismatch { seq: 7, declared: 2 })));
    record.body = br#"{"seq":7,"prev_hash":"x","recorded_at":"2026-02-21T09:30:00.000Z","actor":"a","event_type":"t","event_version":1,"payload":{},"extra":1}"#.to_vec();
    assert!(matches!(EnvelopeRef::parse(&record), Err(EnvelopeError::Malformed { seq: 7, .. })));
}

#[test]
fn a_checkpoint_at_the_head_passes_and_one_at_the_empty_log_must_be_genesis() {
    let records = chain(3);
    let finish = |checkpoint: Checkpoint, upto: usize| {
        let mut verifier = ChainVerifier::with_checkpoint(checkpoint);
        records[..upto].iter().try_for_each(|r| verifier.push(r)).unwrap();
        verifier.finish()
    };
    let at_head = Checkpoint { seq: 3, head_hash: records[2].hash };
    assert_eq!(finish(at_head, 3).unwrap(), Head { seq: 3, hash: records[2].hash });
    let empty = Checkpoint { seq: 0, head_hash: Hash::GENESIS };
    assert_eq!(finish(empty, 0).unwrap(), Head::EMPTY);
    assert_eq!(finish(empty, 3).unwrap().seq, 3);
    let forged_empty = Checkpoint { seq: 0, head_hash: records[0].hash };
    let err = finish(forged_empty, 3).unwrap_err();
    assert_eq!(err.seq, 0);
    assert_eq!(err.why, BreakKind::CheckpointMismatch { expected: records[0].hash, found: Hash::GENESIS });
}

#[test]
fn a_tail_verifies_after_its_verified_head_and_nowhere_else() {
    let records = chain(5);
    let mut fresh = ChainVerifier::new();
    assert_eq!(fresh.head(), Head::EMPTY);
    assert_eq!(fresh.push(&records[2]).unwrap_err(), ChainBreak { seq: 1, why: BreakKind::Gap { found: 3 } });

    let mut tail = ChainVerifier::after(Head { seq: 2, hash: records[1].hash });
    records[2..].iter().try_for_each(|r| tail.push(r)).unwrap();
    assert_eq!(tail.head(), Head { seq: 5, hash: records[4].hash });

    let mut wrong_hash = ChainVerifier::after(Head { seq: 2, hash: records[0].hash });
    assert_eq!(wrong_hash.push(&records[2]).unwrap_err().why, BreakKind::Position);
}

#[test]
fn a_record_debugs_with_its_body_as_text() {
    let shown = format!("{:?}", chain(1)[0]);
    assert!(shown.starts_with("StoredRecord { seq: 1, hash: "), "{shown}");
    assert!(shown.contains(r#"body: "{\"seq\":1,\"prev_hash\":"#), "{shown}");
    assert!(shown.contains("note 0"), "{shown}");
}

#[test]
fn a_draft_names_its_event_type_and_text_limits_are_inclusive() {
    assert_eq!(draft("x", 1).event_type(), "operator_note");
    assert!(Actor::new("a".repeat(128)).is_ok(), "128 characters is the limit, allowed");
    assert!(Actor::new("a".repeat(129)).is_err());
}

proptest! {
    /// The body written by hand is, byte for byte, what `serde_json` writes of the body's
    /// fields, whatever text the actor, the ids and the payload hold; and the payload's bytes
    /// are [`AuditEvent::to_payload`]'s.
    #[test]
    fn the_hand_written_body_is_what_serde_writes(
        message in any::<String>(),
        actor in "[^\\p{Cc}]{1,20}",
        ids in proptest::collection::vec(proptest::option::of("[^\\p{Cc}]{1,12}"), 4),
        seq in any::<u64>(),
        millis in 0i64..253_402_300_799_999,
        prev in any::<[u8; 32]>(),
    ) {
        prop_assume!(!actor.trim().is_empty());
        let id = |i: usize| ids[i].as_ref().filter(|t| !t.trim().is_empty()).map(|t| CorrelationId::new(t.clone()).unwrap());
        let event = AuditEvent::OperatorNote(OperatorNote { message });
        let draft = EventDraft::new(
            Timestamp::from_unix_millis(millis).unwrap(),
            Actor::new(actor).unwrap(),
            Correlation { session: id(0), turn: id(1), run: id(2), item: id(3) },
            &event,
        )
        .unwrap();
        let prev = Hash::from_bytes(prev);
        let (mut by_hand, mut by_serde) = (Vec::new(), Vec::new());
        draft.write_body(seq, &prev, &mut by_hand).unwrap();
        draft.write_body_serde(seq, &prev, &mut by_serde).unwrap();
        prop_assert_eq!(String::from_utf8(by_hand).unwrap(), String::from_utf8(by_serde).unwrap());
        let mut payload = Vec::new();
        event.write_payload(&mut payload).unwrap();
        let raw = event.to_payload().unwrap();
        prop_assert_eq!(payload.as_slice(), raw.get().as_bytes());
    }
}

/// A gate's result is written as `#[serde(flatten)]` of its verdict wrote it: the gate, then
/// `passed`, `code`, `reason`.
#[test]
fn a_gate_result_is_written_as_the_flattened_verdict_was() {
    use crate::governance::{Gate, GateResult};
    use crate::verdict::{Code, Verdict};
    #[derive(serde::Serialize)]
    struct Flattened<'a> {
        gate: Gate,
        #[serde(flatten)]
        verdict: &'a Verdict,
    }
    let verdicts = [
        Verdict::Pass { reason: "the kill switch is `true`".into() },
        Verdict::Fail { code: Code::InternalError, reason: "a \"quoted\"\nreason".to_owned().into() },
    ];
    for verdict in verdicts {
        for gate in Gate::ORDER {
            let result = GateResult { gate, verdict: verdict.clone() };
            let flattened = serde_json::to_string(&Flattened { gate, verdict: &verdict }).unwrap();
            assert_eq!(serde_json::to_string(&result).unwrap(), flattened);
            let back: GateResult = serde_json::from_str(&flattened).unwrap();
            assert_eq!(back, result);
        }
    }
}
