//! The gate checked against recorded seals and approvals. Given these records,
//! when this request, then this gate fails with this code — and without records, the spec's gate (G-20 and
//! G-21).

use std::collections::BTreeMap;

use serde_json::json;

use super::*;
use super::{ApprovalGranted, ApprovalRevoked, ContextSealed};
use crate::audit::Timestamp;
use crate::events::AuditEvent;

const PERSONA: &str = "---\nsubagents: [PREPARATION, REVIEW]\n---\n";
const AGENT: &str = "---\nAGENT_TYPE: 2\nAGENT_CLASS: TASK\n---\n";

fn at(millis: i64) -> Timestamp {
    Timestamp::from_unix_millis(millis).unwrap()
}

fn grant(reference: &str, expires_at: Option<i64>, scope: Scope) -> AuditEvent {
    AuditEvent::ApprovalGranted(ApprovalGranted {
        approval_ref: reference.into(),
        approved_by: Some("alice".into()),
        expires_at: expires_at.map(at),
        scope,
        signature: None,
    })
}

fn revoke(reference: Option<&str>) -> AuditEvent {
    AuditEvent::ApprovalRevoked(ApprovalRevoked {
        approval_ref: reference.map(str::to_owned),
        by: None,
        signature: None,
    })
}

fn seal(files: &[(&str, &str)]) -> AuditEvent {
    let files = files.iter().map(|(p, d)| ((*p).to_owned(), (*d).to_owned())).collect();
    AuditEvent::ContextSealed(ContextSealed {
        by: None,
        files,
        signature: None,
        key_list: None,
        texts: Default::default(),
    })
}

fn records(events: &[AuditEvent]) -> Approvals {
    let mut approvals = Approvals::default();
    for (i, event) in events.iter().enumerate() {
        approvals.apply(crate::audit::Head::EMPTY, i as u64 + 1, event);
    }
    approvals
}

fn gate(reference: &str, subagents: &[&str], recorded: Option<Recorded>) -> GateReport {
    let request = json!({"persona": "M", "subagents": subagents, "opts": {"subagentGovernance":
        {"contextSealed": true, "pipelineRunApproved": true, "approvalRef": reference}}});
    let request = Request::from_json(&request.to_string());
    let persona = read_persona("M", Some(&FileRead::Text(PERSONA.into())));
    let agents = candidates_to_read(&request, &persona)
        .into_iter()
        .map(|name| (name, read_agent(&FileRead::Text(AGENT.into()))))
        .collect();
    let inputs = GateInputs {
        env_var: "E".into(),
        env: EnvValue::Set("true".into()),
        request,
        persona,
        agents,
        recorded,
    };
    evaluate(&inputs).report
}

fn read(files: &[(&str, Option<&str>)]) -> ReadDigests {
    files.iter().map(|(p, d)| ((*p).to_owned(), d.map(str::to_owned))).collect()
}

fn recorded(events: &[AuditEvent], files: &[(&str, Option<&str>)], now: i64) -> Option<Recorded> {
    Some(Recorded { require: true, approvals: records(events), read: read(files), now: at(now) })
}

fn failed(report: &GateReport) -> Vec<(&'static str, String)> {
    report
        .gates
        .iter()
        .filter(|g| !g.verdict.passed())
        .map(|g| (g.gate.as_str(), g.verdict.code().map(|c| c.as_str()).unwrap_or("?").to_owned()))
        .collect()
}

#[test]
fn approvals_table() {
    let sealed = seal(&[("personas/AGENT_M.md", "d1")]);
    let files = [("personas/AGENT_M.md", Some("d1"))];
    let only_prep = Scope { personas: vec![], subagents: vec!["PREPARATION".into()] };
    let other_persona = Scope { personas: vec!["OTHER".into()], subagents: vec![] };
    type Row<'a> = (&'a str, Vec<AuditEvent>, &'a str, &'a [&'a str], i64, Option<&'a str>);
    let rows: Vec<Row<'_>> = vec![
        ("valid", vec![sealed.clone(), grant("G", None, Scope::default())], "G", &["PREPARATION"], 5, None),
        (
            "unknown ref",
            vec![sealed.clone(), grant("G", None, Scope::default())],
            "H",
            &["PREPARATION"],
            5,
            Some("approval_not_recorded"),
        ),
        (
            "revoked",
            vec![sealed.clone(), grant("G", None, Scope::default()), revoke(Some("G"))],
            "G",
            &["PREPARATION"],
            5,
            Some("approval_revoked"),
        ),
        (
            "expired",
            vec![sealed.clone(), grant("G", Some(10), Scope::default())],
            "G",
            &["PREPARATION"],
            10,
            Some("approval_expired"),
        ),
        (
            "not yet expired",
            vec![sealed.clone(), grant("G", Some(10), Scope::default())],
            "G",
            &["PREPARATION"],
            9,
            None,
        ),
        (
            "another persona",
            vec![sealed.clone(), grant("G", None, other_persona)],
            "G",
            &["PREPARATION"],
            5,
            Some("approval_out_of_scope"),
        ),
        (
            "subagent in scope",
            vec![sealed.clone(), grant("G", None, only_prep.clone())],
            "G",
            &["PREPARATION"],
            5,
            None,
        ),
        (
            "subagent out of scope",
            vec![sealed.clone(), grant("G", None, only_prep)],
            "G",
            &["PREPARATION", "REVIEW"],
            5,
            Some("approval_out_of_scope"),
        ),
        (
            "re-granted after revoke",
            vec![
                sealed.clone(),
                grant("G", None, Scope::default()),
                revoke(Some("G")),
                grant("G", None, Scope::default()),
            ],
            "G",
            &["PREPARATION"],
            5,
            None,
        ),
        (
            "revoke all",
            vec![sealed, grant("G", None, Scope::default()), revoke(None)],
            "G",
            &["PREPARATION"],
            5,
            Some("approval_revoked"),
        ),
    ];
    for (why, events, reference, subagents, now, expected) in rows {
        let report = gate(reference, subagents, recorded(&events, &files, now));
        let approval = report.gates.iter().find(|g| g.gate.as_str() == "approval_ref").unwrap();
        assert_eq!(
            approval.verdict.code().map(|c| c.as_str()),
            expected,
            "{why}: {}",
            approval.verdict.reason()
        );
        assert_eq!(report.decision == Decision::Allow, expected.is_none() && why != "revoke all", "{why}");
        let summary = report.recorded.unwrap();
        assert!(summary.required, "{why}");
    }
}

#[test]
fn the_seal_names_every_file_read_that_differs_from_it() {
    let approval = grant("G", None, Scope::default());
    let sealed = seal(&[("a.md", "1"), ("b.md", "2"), ("c.md", "3")]);
    let events = [sealed, approval];
    let ok = gate("G", &["PREPARATION"], recorded(&events, &[("a.md", Some("1")), ("b.md", Some("2"))], 0));
    assert_eq!(failed(&ok), [], "unread sealed files do not matter");
    let report = gate(
        "G",
        &["PREPARATION"],
        recorded(&events, &[("a.md", Some("9")), ("b.md", None), ("new.md", Some("4"))], 0),
    );
    assert_eq!(failed(&report), [("context_sealed", "sealed_file_changed".to_owned())]);
    let reason = &report.gates[3].verdict.reason();
    for named in ["`a.md` changed", "`b.md` is missing", "`new.md` was not sealed"] {
        assert!(reason.contains(named), "{reason}");
    }
    assert_eq!(report.decision, Decision::Deny);
}

#[test]
fn required_records_need_a_seal_and_without_records_the_gate_is_the_specs() {
    let approval = grant("G", None, Scope::default());
    let unsealed = gate("G", &["PREPARATION"], recorded(std::slice::from_ref(&approval), &[], 0));
    assert_eq!(failed(&unsealed), [("context_sealed", "seal_not_recorded".to_owned())]);
    let optional =
        Some(Recorded { require: false, approvals: records(&[]), read: ReadDigests::new(), now: at(0) });
    let spec_like = gate("NEVER-GRANTED", &["PREPARATION"], optional);
    assert_eq!(spec_like.decision, Decision::Allow, "not required: the metadata decides, as in the spec");
    let without = gate("NEVER-GRANTED", &["PREPARATION"], None);
    assert_eq!(without.decision, Decision::Allow);
    assert_eq!(without.recorded, None, "the report is the spec's");
    // A seal in force is checked even when records are not required.
    let sealed_only = Some(Recorded {
        require: false,
        approvals: records(&[seal(&[("a.md", "1")])]),
        read: read(&[("a.md", Some("2"))]),
        now: at(0),
    });
    assert_eq!(
        failed(&gate("G", &["PREPARATION"], sealed_only)),
        [("context_sealed", "sealed_file_changed".to_owned())]
    );
}

#[test]
fn seal_changes_compares_only_what_was_read() {
    let sealed: BTreeMap<String, String> = [("x".to_owned(), "1".to_owned())].into();
    assert!(seal_changes(&sealed, &read(&[("x", Some("1"))])).is_empty());
    assert!(seal_changes(&sealed, &read(&[("y", None)])).is_empty(), "a file neither sealed nor present");
    assert_eq!(seal_changes(&sealed, &read(&[("x", Some("2"))])), ["`x` changed"]);
}

#[test]
fn an_out_of_scope_approval_says_what_it_covers() {
    let sealed = seal(&[("personas/AGENT_M.md", "d1")]);
    let files = [("personas/AGENT_M.md", Some("d1"))];
    let reason = |scope: Scope| {
        let report =
            gate("G", &["PREPARATION"], recorded(&[sealed.clone(), grant("G", None, scope)], &files, 5));
        let gate = report
            .gates
            .iter()
            .find(|g| g.verdict.code().map(|c| c.as_str()) == Some("approval_out_of_scope"))
            .unwrap();
        gate.verdict.reason().to_string()
    };
    assert_eq!(
        reason(Scope { personas: vec!["OTHER".into(), "X".into()], subagents: vec![] }),
        "approval `G` covers personas OTHER, X; subagents any, not persona `M` delegating PREPARATION"
    );
    assert_eq!(
        reason(Scope { personas: vec![], subagents: vec!["REVIEW".into()] }),
        "approval `G` covers personas any; subagents REVIEW, not persona `M` delegating PREPARATION"
    );
}

/// The seals that may pin a key list: every signed one, a repeat of the list before it
/// included (that one may have been refused); unsigned seals are not (K-14).
#[test]
fn signed_seals_that_change_the_key_list_are_kept_in_log_order() {
    let signed = |list: Option<&str>| {
        AuditEvent::ContextSealed(ContextSealed {
            by: None,
            files: BTreeMap::new(),
            signature: Some(crate::governance::RecordSignature {
                principal: "alice".into(),
                head_seq: 0,
                head_hash: String::new(),
                sshsig: String::new(),
            }),
            key_list: list.map(str::to_owned),
            texts: Default::default(),
        })
    };
    let approvals = records(&[
        seal(&[]),
        signed(Some("A")),
        signed(Some("A")),
        seal(&[]),
        signed(Some("B")),
        signed(Some("A")),
    ]);
    let kept: Vec<(u64, Option<&str>)> =
        approvals.key_lists.iter().map(|pin| (pin.seq, pin.key_list.as_deref())).collect();
    assert_eq!(kept, [(2, Some("A")), (3, Some("A")), (5, Some("B")), (6, Some("A"))]);
}
