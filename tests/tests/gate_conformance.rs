//! Runs every case of `conformance/gate/` through the real `Warden`: real files in a temporary
//! directory, a fixed environment, an in-memory event store.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use agentwarden::audit::{Envelope, Timestamp};
use agentwarden::config::{Config, SubagentConfig};
use agentwarden::events::{AuditEvent, decode};
use agentwarden::governance::Decision;
use agentwarden::{
    Warden,
    store::{EventStore, MemoryEventStore},
    wiring::{FixedEnvironment, SteppingClock},
};
use serde_json::Value;

fn corpus() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance/gate");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

fn texts(case: &Value, field: &str) -> BTreeMap<String, String> {
    case[field]
        .as_object()
        .map(|m| m.iter().map(|(k, v)| (k.clone(), v.as_str().unwrap().to_owned())).collect())
        .unwrap_or_default()
}

async fn run_case(path: &Path) -> Result<(), String> {
    let case: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut subagents = SubagentConfig {
        personas_dir: dir.path().join("personas"),
        agents_dir: dir.path().join("agents"),
        ..SubagentConfig::default()
    };
    if let Some(var) = case["enable_env"].as_str() {
        subagents.enable_env = var.to_owned();
    }
    for (field, sub) in [("personas", &subagents.personas_dir), ("agents", &subagents.agents_dir)] {
        std::fs::create_dir_all(sub).unwrap();
        for (name, text) in texts(&case, field) {
            std::fs::write(sub.join(format!("AGENT_{name}.md")), text).unwrap();
        }
    }
    let env: BTreeMap<String, String> = texts(&case, "env");
    let store = Arc::new(MemoryEventStore::new());
    let warden = Warden::builder()
        .store(store.clone())
        .clock(Arc::new(SteppingClock::new(Timestamp::from_unix_millis(1_771_666_200_000).unwrap(), 1)))
        .environment(Arc::new(FixedEnvironment(env)))
        .config(Config { subagents, ..Config::default() })
        .build()
        .unwrap();
    let request = match case.get("request_text") {
        Some(text) => text.as_str().unwrap().to_owned(),
        None => serde_json::to_string(&case["request"]).unwrap(),
    };
    let outcome = warden.evaluate_delegation(agentwarden::governance::Request::from_json(&request)).await;
    let report = &outcome.report;
    let expect = &case["expect"];
    let mut problems = Vec::new();
    let decision = match report.decision {
        Decision::Allow => "allow",
        Decision::Deny => "deny",
    };
    if expect["decision"] != decision {
        problems.push(format!("decision {decision}, expected {}", expect["decision"]));
    }
    if expect["delegated"] != serde_json::json!(report.delegated) {
        problems.push(format!("delegated {:?}, expected {}", report.delegated, expect["delegated"]));
    }
    let first =
        report.first_failure.as_ref().map(|f| serde_json::json!({"gate": f.gate.as_str(), "code": f.code}));
    if expect["first_failure"] != first.clone().unwrap_or(Value::Null) {
        problems.push(format!("first failure {first:?}, expected {}", expect["first_failure"]));
    }
    if let Some(codes) = expect.get("candidate_codes").and_then(Value::as_object) {
        for (name, code) in codes {
            match report.candidates.iter().find(|c| &c.name == name) {
                Some(c) if serde_json::json!(c.code) == *code => {}
                other => problems.push(format!("candidate {name}: {other:?}, expected code {code}")),
            }
        }
    }
    if let Some(wanted) = expect.get("warnings_contain").and_then(Value::as_array) {
        let all: Vec<&String> =
            report.warnings.iter().chain(report.candidates.iter().flat_map(|c| &c.warnings)).collect();
        for w in wanted {
            let w = w.as_str().unwrap();
            if !all.iter().any(|have| have.contains(w)) {
                problems.push(format!("no warning contains `{w}` in {all:?}"));
            }
        }
    }
    if (report.decision == Decision::Allow) != outcome.grant.is_some() {
        problems.push("a grant exists exactly when the decision is allow".into());
    }
    // Exactly one event, recorded before the answer, carrying the same report.
    let records = store.read(1, 10).await.unwrap();
    match (records.as_slice(), outcome.audit) {
        ([record], Some(head)) if record.hash == head.hash => {
            let envelope = Envelope::parse(record).unwrap();
            match decode(&envelope) {
                Ok(AuditEvent::DelegationEvaluated(recorded)) if *recorded == *report => {}
                other => problems.push(format!("the event does not carry the report: {other:?}")),
            }
        }
        _ => problems.push(format!("expected exactly one recorded event, found {}", records.len())),
    }
    if problems.is_empty() { Ok(()) } else { Err(problems.join("; ")) }
}

#[tokio::test]
async fn every_conformance_case_holds() {
    let files = corpus();
    assert!(files.len() >= 40, "the corpus has only {} cases", files.len());
    let mut failed = Vec::new();
    for path in &files {
        if let Err(why) = run_case(path).await {
            failed.push(format!("{}: {why}", path.file_name().unwrap().to_string_lossy()));
        }
    }
    assert!(failed.is_empty(), "{} of {} cases failed:\n{}", failed.len(), files.len(), failed.join("\n"));
}
