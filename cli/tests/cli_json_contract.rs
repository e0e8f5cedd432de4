//! `--json` prints exactly one object, whatever happens (A-22, A-23), and arguments are checked
//! before any store is opened (A-14, A-24): through the real binary.

#![expect(clippy::unwrap_used, clippy::panic, reason = "test code: a failed unwrap is a failed test")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples")
}

fn example(path: &str) -> String {
    examples().join(path).to_str().unwrap().to_owned()
}

fn warden(store: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warden"))
        .arg("--store")
        .arg(store)
        .args(args)
        .env("CHIRALITY_ENABLE_SUBAGENTS", "true")
        .env_remove("AGENTWARDEN_STORE")
        .env_remove("RUST_LOG")
        .output()
        .unwrap()
}

/// The one JSON object on stdout; fails the test if there are none or several.
fn one_object(out: &Output, what: &str) -> Value {
    let values: Vec<Value> = serde_json::Deserializer::from_slice(&out.stdout)
        .into_iter::<Value>()
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| {
            panic!("{what}: stdout is not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout))
        });
    assert_eq!(
        values.len(),
        1,
        "{what}: expected one object, got {}: {}",
        values.len(),
        String::from_utf8_lossy(&out.stdout)
    );
    let value = values.into_iter().next().unwrap();
    assert!(value.is_object(), "{what}: {value}");
    value
}

/// A store that cannot be used: the path exists and is not a store.
fn unusable_store(dir: &Path) -> PathBuf {
    let store = dir.join("not-a-store");
    std::fs::write(&store, "garbage").unwrap();
    store
}

#[test]
fn gate_json_on_an_unusable_store_is_one_deny_object_failing_at_audit() {
    let dir = tempfile::tempdir().unwrap();
    let store = unusable_store(dir.path());
    let config = example("agentwarden.toml");
    // A request that would be allowed, and one that fails its own gates too: either way the
    // store is the first failure (G-23).
    for request in ["requests/example-1-allow.json", "requests/example-2-missing-metadata.json"] {
        let out = warden(&store, &["gate", "--request", &example(request), "--config", &config, "--json"]);
        assert_eq!(out.status.code(), Some(1), "{request}: {}", String::from_utf8_lossy(&out.stderr));
        let report = one_object(&out, request);
        assert_eq!(report["decision"], "deny", "{report}");
        assert_eq!(report["first_failure"]["gate"], "audit", "{report}");
        assert_eq!(report["first_failure"]["code"], "audit_unavailable", "{report}");
        assert_eq!(report["failures"][0], report["first_failure"]);
        assert_eq!(report["audit"], Value::Null);
    }
}

#[test]
fn every_json_command_prints_one_object_when_the_store_cannot_be_used() {
    let dir = tempfile::tempdir().unwrap();
    let store = unusable_store(dir.path());
    let config = example("agentwarden.toml");
    let result = dir.path().join("result.json");
    std::fs::write(&result, "{}").unwrap();
    let items = dir.path().join("items.json");
    std::fs::write(&items, r#"["tests/a.sh"]"#).unwrap();
    let result = result.to_str().unwrap();
    let items = items.to_str().unwrap();
    let lineage = example("lineage/three-levels.json");
    let authorize = example("lineage/authorize-write.json");
    let cases: [(&str, Vec<&str>, Option<i32>, &str); 5] = [
        (
            "lineage check",
            vec!["lineage", "check", "--lineage", &lineage, "--config", &config, "--json"],
            Some(1),
            "decision",
        ),
        (
            "authorize",
            vec!["authorize", "--request", &authorize, "--config", &config, "--json"],
            Some(1),
            "decision",
        ),
        ("result validate", vec!["result", "validate", result, "--json"], Some(1), "valid"),
        (
            "fanout run",
            vec!["fanout", "run", "--items", items, "--phase", "tests", "--json", "--", "true"],
            Some(2),
            "error",
        ),
        ("audit stats", vec!["audit", "stats", "--json"], Some(2), "error"),
    ];
    for (what, args, code, field) in cases {
        let out = warden(&store, &args);
        assert_eq!(out.status.code(), code, "{what}: {}", String::from_utf8_lossy(&out.stderr));
        let object = one_object(&out, what);
        assert!(object.get(field).is_some(), "{what}: no `{field}` in {object}");
        match field {
            "decision" => assert_eq!(object["decision"], "deny", "{what}: {object}"),
            "valid" => {
                assert_eq!(object["valid"], false);
                let codes: Vec<&str> = object["problems"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter_map(|p| p["code"].as_str())
                    .collect();
                assert!(codes.contains(&"audit_unavailable"), "{what}: {object}");
            }
            _ => assert!(
                object["error"]["reason"].as_str().unwrap().contains("is not a Warden store"),
                "{what}: {object}"
            ),
        }
    }
}

#[test]
fn a_json_command_that_fails_before_its_answer_prints_one_error_object() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("audit");
    // An input that cannot be read (exit 2), and arguments that cannot be parsed (exit 2).
    let missing = dir.path().join("missing.json");
    let out = warden(&store, &["fanout", "plan", "--items", missing.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let object = one_object(&out, "fanout plan");
    assert_eq!(object["error"]["exit"], 2);
    assert!(object["error"]["reason"].as_str().unwrap().contains("cannot read items"), "{object}");
    let out = warden(&store, &["gate", "--json", "--no-such-flag"]);
    assert_eq!(out.status.code(), Some(2));
    let object = one_object(&out, "a bad flag");
    assert!(object["error"]["reason"].as_str().unwrap().contains("--no-such-flag"), "{object}");
    // `--json` after `--` belongs to the agent's command line, not to Warden.
    let out = warden(&store, &["fanout", "run", "--items", "x", "--", "agent", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty(), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(!store.exists(), "a usage error created the store");
}

#[test]
fn an_empty_time_window_is_a_usage_error_before_the_store_is_opened() {
    // `--since 1h --until 2h` asks for events newer than an hour and older than two (A-14).
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing");
    let unusable = unusable_store(dir.path());
    for store in [&missing, &unusable] {
        for (since, until) in
            [("1h", "2h"), ("2026-02-21T10:00:00Z", "2026-02-21T09:00:00Z"), ("2h", "2020-01-01T00:00:00Z")]
        {
            let out = warden(store, &["audit", "log", "--since", since, "--until", until]);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "--since {since} --until {until}: {stderr}");
            assert!(stderr.contains("is after --until"), "{stderr}");
        }
    }
    assert!(!missing.exists(), "a usage error created the store");
    // A window that is not empty reaches the store: missing, so exit 3.
    let out = warden(&missing, &["audit", "log", "--since", "2h", "--until", "1h"]);
    assert_eq!(out.status.code(), Some(3), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn audit_copy_parses_both_locations_before_opening_either() {
    // A destination URL that cannot be parsed is a usage error even when the source is
    // missing (before: exit 3 for the source, the usage error never seen) (A-24).
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing");
    let out = Command::new(env!("CARGO_BIN_EXE_warden"))
        .args(["audit", "copy", "--from", missing.to_str().unwrap(), "--to", "postgres://u@h/d?bogus=1"])
        .env_remove("AGENTWARDEN_STORE")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!missing.exists());
}
