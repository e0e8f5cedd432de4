//! The whole audit vocabulary on a real log: `testdata/log.jsonl` was exported (`warden audit
//! export --format jsonl`) from the real binary running the bundled examples — the gate's
//! Examples 1–4, lineage and tool-call checks, a fan-out run, two guardrail violations (one
//! reverted), a result validation, and a harness session with a seal, a scoped approval,
//! spawns allowed and denied, starts, a stop and a revoke: one event of every type.
//!
//! Every event decodes, re-encodes to the bytes it was stored with, and explains to what
//! `testdata/explained.json` says; every projection folds the log to what
//! `testdata/replayed.json` says. A failure prints the new text to review and put in the file.

use serde_json::{Value, json};

use super::{Envelope, EnvelopeRef};
use crate::events::projections::{
    Approvals, Decisions, Denials, FanOutRuns, Projection, Recorded, SpawnTrees, Timeline, Violations,
};
use crate::events::{AuditEvent, decode, explain};

const LOG: &str = include_str!("testdata/log.jsonl");

fn events() -> Vec<(Envelope, AuditEvent)> {
    LOG.lines()
        .map(|line| {
            let envelope: Envelope = serde_json::from_str(line).unwrap();
            let event = decode(&envelope).unwrap_or_else(|e| panic!("seq {}: {e}", envelope.seq));
            (envelope, event)
        })
        .collect()
}

/// `expected` is the golden file's text (`include_str!`: the domain reads no files, even in
/// tests). On a difference the message holds the new text to review and paste into the file.
fn golden(name: &str, expected: &str, actual: &Value) {
    let text = serde_json::to_string_pretty(actual).unwrap() + "\n";
    assert!(expected == text, "testdata/{name} differs; review this text and put it there:\n{text}");
}

#[test]
fn the_log_holds_every_event_type_and_each_re_encodes_to_its_stored_payload() {
    let events = events();
    let mut types: Vec<&str> = events.iter().map(|(_, e)| e.event_type()).collect();
    types.sort_unstable();
    types.dedup();
    assert_eq!(types.len(), 15, "{types:?}");
    for (envelope, event) in &events {
        assert_eq!(event.event_type(), envelope.event_type, "seq {}", envelope.seq);
        assert_eq!(event.event_version(), envelope.event_version, "seq {}", envelope.seq);
        let stored: Value = serde_json::from_str(envelope.payload.get()).unwrap();
        let encoded: Value = serde_json::from_str(event.to_payload().unwrap().get()).unwrap();
        assert_eq!(encoded, stored, "seq {} re-encodes to what was stored", envelope.seq);
    }
}

#[test]
fn every_event_explains_as_the_golden_file_says() {
    let explained: Vec<Value> = events()
        .iter()
        .map(|(envelope, event)| json!({"seq": envelope.seq, "explanation": explain(envelope, event)}))
        .collect();
    golden("explained.json", include_str!("testdata/explained.json"), &Value::Array(explained));
}

fn replay<P: Projection>(projection: &P) -> Value {
    let events = events();
    let mut state = P::State::default();
    for (envelope, event) in &events {
        let view = EnvelopeRef::from(envelope);
        if projection.wants(&view) {
            projection.apply(&mut state, Recorded { envelope: &view, event });
        }
    }
    serde_json::to_value(&state).unwrap()
}

#[test]
fn every_projection_replays_the_log_as_the_golden_file_says() {
    let replayed = json!({
        "approvals": replay(&Approvals),
        "decisions": replay(&Decisions),
        "denials": replay(&Denials),
        "fan_out": replay(&FanOutRuns),
        "spawn_tree": replay(&SpawnTrees),
        "violations": replay(&Violations),
        "timeline_demo_session": replay(&Timeline { session: "demo-session".into() }),
        "timeline_example_session": replay(&Timeline { session: "example-session".into() }),
    });
    golden("replayed.json", include_str!("testdata/replayed.json"), &replayed);
}

/// Seq 19 of the log (the main session's allowed spawn of `planner`) with `edit` applied to its
/// payload: for what a real log has no example of.
fn spawn_19(edit: impl FnOnce(&mut Value)) -> (Envelope, AuditEvent) {
    let line = LOG.lines().nth(18).unwrap();
    let mut body: Value = serde_json::from_str(line).unwrap();
    assert_eq!(
        (body["seq"].as_u64(), body["event_type"].as_str()),
        (Some(19), Some("subagent_spawn_evaluated"))
    );
    edit(&mut body["payload"]);
    let envelope: Envelope = serde_json::from_value(body).unwrap();
    let event = decode(&envelope).unwrap();
    (envelope, event)
}

fn fold_one<P: Projection>(projection: &P, (envelope, event): &(Envelope, AuditEvent)) -> P::State {
    let mut state = P::State::default();
    let view = EnvelopeRef::from(envelope);
    assert!(projection.wants(&view));
    projection.apply(&mut state, Recorded { envelope: &view, event });
    state
}

#[test]
fn a_spawn_the_gate_allowed_but_the_lineage_denied_did_not_run_under_the_approval() {
    let allowed = fold_one(&Approvals, &spawn_19(|_| {}));
    let record = &allowed.by_ref["GATE-2026-11-22-001"];
    assert_eq!((record.allowed, record.denied), (1, 0));
    assert_eq!(record.evaluations[0].delegated, ["planner"]);

    let denied = fold_one(&Approvals, &spawn_19(|p| p["decision"] = json!("deny")));
    let record = &denied.by_ref["GATE-2026-11-22-001"];
    assert_eq!((record.allowed, record.denied), (0, 1));
    assert!(record.subagents.is_empty() && record.evaluations[0].delegated.is_empty());
    assert_eq!(record.evaluations[0].decision, crate::verdict::Decision::Deny);
}

#[test]
fn a_lineage_too_long_to_record_is_counted_not_drawn() {
    let line = LOG.lines().nth(4).unwrap();
    let mut body: Value = serde_json::from_str(line).unwrap();
    assert_eq!(body["event_type"], "lineage_checked");
    body["payload"]["lineage"] = Value::Null;
    let envelope: Envelope = serde_json::from_value(body).unwrap();
    let event = decode(&envelope).unwrap();
    let state = fold_one(&SpawnTrees, &(envelope, event));
    let tree = state.sessions.get("example-session").unwrap();
    assert_eq!(tree.unrecorded, 1);
    assert_eq!(tree.roots().count(), 0);
}
