//! The subagent gate on an arbitrary request, with a fixed persona and agents: never a panic,
//! and never an allow unless a small reference check of every gate holds on the parsed input.
#![no_main]

mod reference;

use agentwarden_domain::governance::{Decision, FileRead};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

const PERSONA: &str = "---\nsubagents: [PREPARATION, REVIEW, BAD]\n---\n";
const GOOD: &str = "---\nAGENT_TYPE: 2\nAGENT_CLASS: TASK\n---\n";
const BAD: &str = "---\nAGENT_TYPE: \"2\"\n---\n";

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let report = reference::gate(text, PERSONA, |name| match name {
        "PREPARATION" | "REVIEW" => FileRead::Text(GOOD.into()),
        "BAD" => FileRead::Text(BAD.into()),
        _ => FileRead::Missing,
    });
    if report.decision == Decision::Allow {
        let parsed: Value = serde_json::from_str(text).expect("an allowed request is JSON");
        assert!(reference::allows(&parsed), "allowed without every gate's check: {text}");
        assert!(report.gates.iter().all(|g| g.verdict.passed()));
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
