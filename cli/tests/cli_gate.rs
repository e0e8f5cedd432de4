//! `warden gate` through the real binary, on the bundled example project: the spec's
//! Examples 1–4, exit codes, and one audit event per evaluation.

#![expect(clippy::unwrap_used, clippy::panic, reason = "test code: a failed unwrap is a failed test")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples")
}

fn warden(store: &Path, args: &[&str], enabled: Option<&str>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_warden"));
    command
        .arg("--store")
        .arg(store)
        .args(args)
        .env_remove("CHIRALITY_ENABLE_SUBAGENTS")
        .env_remove("RUST_LOG");
    if let Some(value) = enabled {
        command.env("CHIRALITY_ENABLE_SUBAGENTS", value);
    }
    command.output().unwrap()
}

fn gate(store: &Path, request: &str, enabled: Option<&str>) -> (Option<i32>, Value) {
    let request = examples().join("requests").join(request);
    let config = examples().join("agentwarden.toml");
    let out = warden(
        store,
        &["gate", "--request", request.to_str().unwrap(), "--config", config.to_str().unwrap(), "--json"],
        enabled,
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let report = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    (out.status.code(), report)
}

#[test]
fn the_spec_examples_give_the_spec_answers() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("audit");

    let (code, r) = gate(&store, "example-1-allow.json", Some("true"));
    assert_eq!(code, Some(0), "{r}");
    assert_eq!(r["decision"], "allow");
    assert_eq!(r["delegated"], serde_json::json!(["PREPARATION"]));
    assert_eq!(r["approval_ref"], "GATE-2026-02-21-001");
    assert_eq!(r["approved_by"], "ryan");
    assert_eq!(r["first_failure"], Value::Null);
    assert_eq!(r["gates"].as_array().unwrap().len(), 6);
    assert!(r["gates"].as_array().unwrap().iter().all(|g| g["passed"] == true));
    assert_eq!(r["audit"]["seq"], 1);
    assert!(r["evaluation_us"].as_u64().is_some());

    let (code, r) = gate(&store, "example-2-missing-metadata.json", Some("true"));
    assert_eq!(code, Some(1));
    assert_eq!(r["first_failure"]["gate"], "metadata_presence");
    assert_eq!(r["first_failure"]["reason"], "subagentGovernance field missing");
    assert_eq!(r["delegated"], serde_json::json!([]));

    let (code, r) = gate(&store, "example-3-context-not-sealed.json", Some("true"));
    assert_eq!(code, Some(1));
    assert_eq!(r["first_failure"]["gate"], "context_sealed");
    assert_eq!(r["first_failure"]["reason"], "contextSealed is boolean false, expected boolean true");

    let (code, r) = gate(&store, "example-4-type-coercion.json", Some("true"));
    assert_eq!(code, Some(1));
    assert_eq!(r["first_failure"]["gate"], "context_sealed");
    assert_eq!(r["first_failure"]["reason"], "contextSealed is string `true`, expected boolean true");
    let failed: Vec<&str> =
        r["failures"].as_array().unwrap().iter().map(|f| f["gate"].as_str().unwrap()).collect();
    assert_eq!(failed, ["context_sealed", "pipeline_run_approved"], "all failures are reported (G-1)");

    // One event per evaluation, in order, with the decision; the chain verifies.
    let log = warden(&store, &["audit", "log", "--json"], None);
    let events: Vec<Value> =
        String::from_utf8(log.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let decisions: Vec<&str> = events.iter().map(|e| e["payload"]["decision"].as_str().unwrap()).collect();
    assert_eq!(decisions, ["allow", "deny", "deny", "deny"]);
    assert!(
        events.iter().all(|e| e["event_type"] == "delegation_evaluated" && e["session"] == "example-session")
    );
    assert_eq!(events[0]["turn"], "turn-1");
    assert_eq!(warden(&store, &["audit", "verify"], None).status.code(), Some(0));
}

#[test]
fn the_kill_switch_must_be_exactly_true() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("audit");
    for value in [None, Some("TRUE"), Some("1"), Some(" true")] {
        let (code, r) = gate(&store, "example-1-allow.json", value);
        assert_eq!(code, Some(1), "{value:?}");
        assert_eq!(r["first_failure"]["gate"], "environment", "{value:?}");
        assert_eq!(r["first_failure"]["code"], "env_not_enabled", "{value:?}");
    }
}

#[test]
fn an_unreadable_request_is_denied_and_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("audit");
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"persona\": ").unwrap();
    let config = examples().join("agentwarden.toml");
    for request in [bad.to_str().unwrap(), "/nonexistent/request.json"] {
        let out = warden(
            &store,
            &["gate", "--request", request, "--config", config.to_str().unwrap()],
            Some("true"),
        );
        assert_eq!(out.status.code(), Some(1), "{request}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.starts_with("DENY"), "{text}");
    }
    let stats = warden(&store, &["audit", "stats", "--json"], None);
    let stats: Value = serde_json::from_slice(&stats.stdout).unwrap();
    assert_eq!(stats["by_decision"]["deny"], 2);
}

#[test]
fn usage_errors_exit_2_and_record_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("audit");
    let bad_config = dir.path().join("agentwarden.toml");
    std::fs::write(&bad_config, "[subagents]\nenable_envv = \"X\"\n").unwrap();
    let request = examples().join("requests/example-1-allow.json");
    let request = request.to_str().unwrap();
    for args in [
        &["gate"][..],
        &["gate", "--request"],
        &["gate", "--request", request, "--config", bad_config.to_str().unwrap()],
        &["gate", "--request", request, "--config", "/nonexistent/agentwarden.toml"],
    ] {
        let out = warden(&store, args, Some("true"));
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
    let out = warden(&store, &["gate", "--request", request, "--config", bad_config.to_str().unwrap()], None);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("agentwarden.toml:2"), "file and line: {stderr}");
    assert!(!store.exists(), "a usage error records nothing");
}

#[test]
fn no_store_no_allow() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("audit");
    std::fs::create_dir_all(&store).unwrap(); // exists, but is not a store
    let request = examples().join("requests/example-1-allow.json");
    let config = examples().join("agentwarden.toml");
    let out = warden(
        &store,
        &["gate", "--request", request.to_str().unwrap(), "--config", config.to_str().unwrap()],
        Some("true"),
    );
    assert_eq!(out.status.code(), Some(1));
    // The deny is reported like any other, failing first at `audit` (G-23, A-22).
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.starts_with("DENY  MANAGER: audit (audit_unavailable)"), "{stdout}");
    assert!(stdout.contains("is not a Warden store (a directory that holds no Warden store)"), "{stdout}");
}

#[test]
fn a_request_of_exactly_1_mib_is_read_and_one_byte_more_is_denied() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("audit");
    let example = std::fs::read_to_string(examples().join("requests/example-1-allow.json")).unwrap();
    let config = examples().join("agentwarden.toml");
    let run = |len: usize| {
        let file = dir.path().join(format!("request-{len}.json"));
        std::fs::write(&file, format!("{example}{}", " ".repeat(len - example.len()))).unwrap();
        let args =
            ["gate", "--request", file.to_str().unwrap(), "--config", config.to_str().unwrap(), "--json"];
        let out = warden(&store, &args, Some("true"));
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        (out.status.code(), report)
    };
    let (code, r) = run(1024 * 1024);
    assert_eq!((code, r["decision"].as_str()), (Some(0), Some("allow")), "{r}");
    let (code, r) = run(1024 * 1024 + 1);
    assert_eq!((code, r["decision"].as_str()), (Some(1), Some("deny")), "{r}");
    assert_eq!(r["first_failure"]["code"], "request_unreadable", "{r}");
    assert!(r["first_failure"]["reason"].as_str().unwrap().contains("more than the 1048576 allowed"), "{r}");
}
