//! Gate-level tests: the combination rules of G-1, G-8, G-9, and the property that an allow
//! implies every gate passed and the delegated set is declared ∩ registered ∩ requested.

use std::collections::BTreeMap;

use proptest::prelude::*;
use serde_json::json;

use super::*;

const POOL: [&str; 4] = ["PREPARATION", "4_DOCUMENTS", "REVIEW", "OTHER"];

fn inputs(env: &str, persona: &str, agents: &[(&str, &str)], request: serde_json::Value) -> GateInputs {
    let request = Request::from_json(&request.to_string());
    let persona = match &request.persona {
        Ok(raw) => read_persona(raw, Some(&FileRead::Text(persona.to_owned()))),
        Err(v) => PersonaReading::Invalid(v.clone()),
    };
    let files: BTreeMap<&str, &str> = agents.iter().copied().collect();
    let agents = candidates_to_read(&request, &persona)
        .into_iter()
        .map(|name| {
            let file =
                files.get(name.as_str()).map_or(FileRead::Missing, |t| FileRead::Text((*t).to_owned()));
            (name, read_agent(&file))
        })
        .collect();
    GateInputs {
        env_var: "ENABLE".into(),
        env: EnvValue::Set(env.into()),
        request,
        persona,
        agents,
        recorded: None,
    }
}

fn governance() -> serde_json::Value {
    json!({"contextSealed": true, "pipelineRunApproved": true, "approvalRef": "GATE-1"})
}

const TYPE_2: &str = "---\nAGENT_TYPE: 2\nAGENT_CLASS: TASK\n---\n";

#[test]
fn every_gate_is_evaluated_and_reported_in_order_even_after_a_failure() {
    let request = json!({"persona": "M", "opts": {"subagentGovernance": {"contextSealed": "true"}}});
    let evaluation = evaluate(&inputs("TRUE", "---\nsubagents: [A]\n---\n", &[("A", TYPE_2)], request));
    let report = &evaluation.report;
    let gates: Vec<&str> = report.gates.iter().map(|g| g.gate.as_str()).collect();
    assert_eq!(
        gates,
        [
            "environment",
            "persona_allowlist",
            "metadata_presence",
            "context_sealed",
            "pipeline_run_approved",
            "approval_ref"
        ]
    );
    let failed: Vec<&str> = report.failures.iter().map(|f| f.gate.as_str()).collect();
    assert_eq!(failed, ["environment", "context_sealed", "pipeline_run_approved", "approval_ref"]);
    assert_eq!(report.first_failure.as_ref().map(|f| f.gate.as_str()), Some("environment"));
    assert_eq!(report.decision, Decision::Deny);
    assert!(evaluation.delegation().is_none());
    // The candidate is eligible in itself, but not delegated.
    assert_eq!(report.candidates[0].code.as_deref(), Some("gates_failed"));
}

#[test]
fn given_all_gates_pass_when_evaluated_then_a_grant_names_the_eligible_subagents() {
    let request =
        json!({"persona": "M", "subagents": ["A", "B", "C"], "opts": {"subagentGovernance": governance()}});
    let persona = "---\nsubagents: [A, B]\n---\n";
    let evaluation =
        evaluate(&inputs("true", persona, &[("A", TYPE_2), ("B", "---\nAGENT_TYPE: 3\n---\n")], request));
    let grant = evaluation.delegation().unwrap();
    assert_eq!(grant.subagents(), [Name::new("A").unwrap()]);
    assert_eq!(grant.approval_ref(), "GATE-1");
    assert_eq!(grant.persona().as_str(), "M");
    let codes: Vec<Option<&str>> = evaluation.report.candidates.iter().map(|c| c.code.as_deref()).collect();
    assert_eq!(codes, [None, Some("agent_type_not_2"), Some("not_declared")]);
    let undeclared = &evaluation.report.candidates[2].reason;
    assert!(undeclared.contains("does not declare `C`; it declares `A`, `B`"), "N-6: {undeclared}");
}

/// A request naming only names the persona does not declare is told what it declares (N-6).
#[test]
fn a_mistyped_subagent_is_told_what_the_persona_declares() {
    let request =
        json!({"persona": "M", "subagents": ["plannr"], "opts": {"subagentGovernance": governance()}});
    let evaluation = evaluate(&inputs("true", "---\nsubagents: [planner, coder]\n---\n", &[], request));
    let failure = evaluation.report.failures.last().unwrap();
    assert_eq!(failure.code, "no_candidate_delegated");
    assert!(
        failure.reason.ends_with("(`plannr`: not_declared); it declares `planner`, `coder`"),
        "{}",
        failure.reason
    );
}

#[test]
fn the_same_inputs_give_the_same_report() {
    let make = || {
        let request = json!({"persona": "M", "opts": {"subagentGovernance": {"approvalRef": 0, "x": 1}}});
        evaluate(&inputs("yes", "---\nsubagents: [A]\n---\n", &[("A", TYPE_2)], request)).report
    };
    assert_eq!(make(), make());
}

#[test]
fn an_allow_that_cannot_be_recorded_becomes_a_deny() {
    let request = json!({"persona": "M", "opts": {"subagentGovernance": governance()}});
    let evaluation = evaluate(&inputs("true", "---\nsubagents: [A]\n---\n", &[("A", TYPE_2)], request));
    assert_eq!(evaluation.report.decision, Decision::Allow);
    let report = evaluation.audit_failed(Code::AuditUnavailable, "disk full");
    assert_eq!(report.decision, Decision::Deny);
    assert!(report.delegated.is_empty());
    assert!(report.candidates.iter().all(|c| !c.delegated));
    let first = report.first_failure.unwrap();
    assert_eq!((first.gate.as_str(), first.code.as_ref()), ("audit", "audit_unavailable"));
}

#[test]
fn records_that_cannot_be_read_put_audit_first_whatever_else_failed() {
    // The request fails its metadata gates too; the store is still the first failure (G-23).
    let request = json!({"persona": "M"});
    let evaluation = evaluate(&inputs("true", "---\nsubagents: [A]\n---\n", &[("A", TYPE_2)], request));
    let before = evaluation.report.failures.len();
    assert!(before > 0);
    let report = evaluation.records_unavailable(Code::AuditUnavailable, "no store");
    assert_eq!(report.decision, Decision::Deny);
    let first = report.first_failure.clone().unwrap();
    assert_eq!((first.gate.as_str(), first.code.as_ref()), ("audit", "audit_unavailable"));
    assert_eq!(report.failures.len(), before + 1);
    assert_eq!(report.failures[0], first);
}

#[test]
fn the_report_round_trips_through_json_as_the_event_payload() {
    let request = json!({"persona": "M", "opts": {"subagentGovernance": governance()}, "extra": 1});
    let report = evaluate(&inputs("true", "---\nsubagents: [A]\n---\n", &[("A", TYPE_2)], request)).report;
    let text = serde_json::to_string(&report).unwrap();
    let back: GateReport = serde_json::from_str(&text).unwrap();
    assert_eq!(back, report);
    assert!(report.metadata_digest.is_some());
    assert_eq!(report.warnings, ["unknown request field `extra` (ignored)"]);
}

fn any_env() -> impl Strategy<Value = String> {
    prop::sample::select(vec!["true", "TRUE", "1", " true", ""]).prop_map(str::to_owned)
}

fn any_flag() -> impl Strategy<Value = serde_json::Value> {
    prop::sample::select(vec![json!(true), json!(false), json!("true"), json!(1), json!(null), json!([true])])
}

fn any_agent() -> impl Strategy<Value = Option<&'static str>> {
    prop::sample::select(vec![
        Some(TYPE_2),
        Some("---\nAGENT_TYPE: \"2\"\n---\n"),
        Some("AGENT_TYPE: 2\n"),
        Some("---\nAGENT_TYPE: 3\n---\n"),
        Some("---\nname: x\n---\n"),
        None,
    ])
}

proptest! {
    #[test]
    fn allow_implies_every_gate_passed_and_delegated_is_declared_registered_requested(
        env in any_env(),
        declared in prop::sample::subsequence(POOL.to_vec(), 0..=4),
        requested in prop::option::of(prop::sample::subsequence(POOL.to_vec(), 0..=4)),
        agents in prop::collection::vec(any_agent(), 4),
        sealed in any_flag(),
        approved in any_flag(),
        approval in prop::sample::select(vec![json!("GATE-1"), json!(""), json!(0), json!(null)]),
    ) {
        let persona = format!("---\nsubagents: [{}]\n---\n", declared.join(", "));
        let files: Vec<(&str, &str)> =
            POOL.iter().zip(&agents).filter_map(|(name, text)| text.map(|t| (*name, t))).collect();
        let mut request = json!({"persona": "M", "opts": {"subagentGovernance":
            {"contextSealed": sealed, "pipelineRunApproved": approved, "approvalRef": approval}}});
        if let Some(requested) = &requested {
            request["subagents"] = json!(requested);
        }
        let evaluation = evaluate(&inputs(&env, &persona, &files, request));
        let report = &evaluation.report;
        prop_assert_eq!(report.gates.len(), 6);
        prop_assert_eq!(report.decision == Decision::Allow, evaluation.delegation().is_some());
        if report.decision == Decision::Allow {
            prop_assert!(report.gates.iter().all(|g| g.verdict.passed()));
            prop_assert!(report.first_failure.is_none());
            prop_assert!(!report.delegated.is_empty());
            for name in &report.delegated {
                prop_assert!(declared.contains(&name.as_str()));
                prop_assert!(requested.as_ref().is_none_or(|r| r.contains(&name.as_str())));
                let file = files.iter().find(|(n, _)| n == name).map(|(_, t)| *t);
                prop_assert!(
                    matches!(file, Some(t) if t == TYPE_2 || t == "AGENT_TYPE: 2\n"),
                    "{} must be registered with AGENT_TYPE 2, found {:?}", name, file
                );
            }
        } else {
            prop_assert!(report.delegated.is_empty());
            prop_assert!(report.first_failure.is_some());
        }
    }
}

#[test]
fn an_approval_ref_of_256_characters_passes_and_257_do_not() {
    assert!(check_approval_ref(&"é".repeat(256)).passed(), "the limit counts characters, not bytes");
    let long = check_approval_ref(&"a".repeat(257));
    assert_eq!(long.code().map(|c| c.as_str()), Some("approval_ref_too_long"));
    assert!(long.reason().contains("257 characters"), "{}", long.reason());
}

#[test]
fn a_file_read_is_its_text_or_says_why_not() {
    assert_eq!(FileRead::Text("x".into()).into_text("persona file `p.md`"), Ok("x".to_owned()));
    assert_eq!(
        FileRead::Missing.into_text("persona file `p.md`").map_err(|e| e.to_string()),
        Err("persona file `p.md` does not exist".to_owned())
    );
    assert_eq!(
        FileRead::Unreadable("is not UTF-8".into()).into_text("agent file `a.md`").map_err(|e| e.to_string()),
        Err("agent file `a.md` is not UTF-8".to_owned())
    );
}

#[test]
fn reasons_say_the_json_type_and_value_seen() {
    let rows = [
        (json!(null), "null"),
        (json!(false), "boolean false"),
        (json!(1), "number 1"),
        (json!("true"), "string `true`"),
        (json!([true, 1]), "array of 2 element(s)"),
        (json!({"value": true}), "object with 1 field(s)"),
    ];
    for (value, said) in rows {
        assert_eq!(metadata::describe(&value), said);
    }
}

/// The report a moved-out report leaves behind is a deny that delegates nothing.
#[test]
fn the_default_report_is_a_deny_that_delegates_nothing() {
    let report = GateReport::default();
    assert_eq!(report.decision, Decision::Deny);
    assert!(report.delegated.is_empty() && report.candidates.is_empty());
}
