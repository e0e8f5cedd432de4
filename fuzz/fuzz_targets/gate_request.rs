//! The subagent gate on an arbitrary request, with a fixed persona and agents: never a panic,
//! and never an allow unless a small reference check of every gate holds on the parsed input.
#![no_main]

mod reference;

use std::collections::BTreeMap;

use agentwarden_domain::governance::{
    Decision, EnvValue, FileRead, GateInputs, candidates_to_read, evaluate, parse_request, read_agent,
    read_persona,
};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

const PERSONA: &str = "---\nsubagents: [PREPARATION, REVIEW, BAD]\n---\n";
const GOOD: &str = "---\nAGENT_TYPE: 2\nAGENT_CLASS: TASK\n---\n";
const BAD: &str = "---\nAGENT_TYPE: \"2\"\n---\n";

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let request = parse_request(text);
    let persona = match &request.persona {
        Ok(raw) if raw == "MANAGER" => read_persona(raw, Some(&FileRead::Text(PERSONA.into()))),
        Ok(raw) => read_persona(raw, Some(&FileRead::Missing)),
        Err(v) => agentwarden_domain::governance::PersonaReading::Invalid(v.clone()),
    };
    let agents: BTreeMap<_, _> = candidates_to_read(&request, &persona)
        .into_iter()
        .map(|name| {
            let file = match name.as_str() {
                "PREPARATION" | "REVIEW" => FileRead::Text(GOOD.into()),
                "BAD" => FileRead::Text(BAD.into()),
                _ => FileRead::Missing,
            };
            (name, read_agent(&file))
        })
        .collect();
    let inputs = GateInputs {
        env_var: "E".into(),
        env: EnvValue::Set("true".into()),
        request,
        persona,
        agents,
        recorded: None,
    };
    let report = evaluate(&inputs).report;
    if report.decision == Decision::Allow {
        let parsed: Value = serde_json::from_str(text).expect("an allowed request is JSON");
        assert!(reference::allows(&parsed), "allowed without every gate's check: {text}");
        assert!(report.gates.iter().all(|g| g.verdict.passed));
        assert!(!report.delegated.is_empty());
        assert!(
            report.delegated.iter().all(|d| d == "PREPARATION" || d == "REVIEW"),
            "{:?}",
            report.delegated
        );
    } else {
        assert!(report.delegated.is_empty());
        assert!(report.first_failure.is_some());
    }
});
