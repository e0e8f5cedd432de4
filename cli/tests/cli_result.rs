//! `warden result validate` through the real binary: exit codes, pointers, the size limit,
//! invalid UTF-8, and the recorded `result_validated` event.

#![expect(clippy::unwrap_used, reason = "test code: a failed unwrap is a failed test")]

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

fn warden(store: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warden")).arg("--store").arg(store).args(args).output().unwrap()
}

fn validate(store: &Path, file: &Path, extra: &[&str]) -> (Option<i32>, Value) {
    let mut args = vec!["result", "validate", file.to_str().unwrap(), "--json"];
    args.extend(extra);
    let out = warden(store, &args);
    (out.status.code(), serde_json::from_slice(&out.stdout).unwrap_or(Value::Null))
}

const VALID: &str = r#"{"schema_version":"1.0","summary":"Did it","proposed_changes":["a"],
    "kr_targets":["kr-1"],"kr_impact_claim":"+3%"}"#;

#[test]
fn valid_invalid_and_unreadable_results() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("audit");
    let file = dir.path().join("result.json");

    std::fs::write(&file, VALID).unwrap();
    let (code, r) = validate(&store, &file, &["--item", "ITEM-1", "--run", "20260117T223000Z"]);
    assert_eq!((code, r["valid"].as_bool()), (Some(0), Some(true)), "{r}");

    std::fs::write(&file, r#"{"schema_version":1.0,"summary":"","proposed_changes":["a",null],"x":1}"#)
        .unwrap();
    let (code, r) = validate(&store, &file, &[]);
    assert_eq!(code, Some(1));
    let pointers: Vec<&str> =
        r["problems"].as_array().unwrap().iter().map(|p| p["pointer"].as_str().unwrap()).collect();
    assert_eq!(
        pointers,
        ["/proposed_changes/1", "/schema_version", "/summary", "/x", "/kr_targets", "/kr_impact_claim"]
    );

    // Exactly 1 MiB is read; one byte more is not.
    let limit = dir.path().join("limit.json");
    std::fs::write(&limit, format!("{VALID}{}", " ".repeat(1024 * 1024 - VALID.len()))).unwrap();
    let (code, r) = validate(&store, &limit, &[]);
    assert_eq!((code, r["valid"].as_bool()), (Some(0), Some(true)), "{r}");

    let big = dir.path().join("big.json");
    std::fs::write(&big, vec![b' '; 1024 * 1024 + 1]).unwrap();
    let (code, r) = validate(&store, &big, &[]);
    assert_eq!((code, r["problems"][0]["code"].as_str()), (Some(1), Some("result_unreadable")), "{r}");

    // 100 MB (sparse): refused by size before a byte is read.
    let huge = dir.path().join("huge.json");
    std::fs::File::create(&huge).unwrap().set_len(100 * 1024 * 1024).unwrap();
    let (code, r) = validate(&store, &huge, &[]);
    assert_eq!((code, r["problems"][0]["code"].as_str()), (Some(1), Some("result_unreadable")), "{r}");
    assert!(r["problems"][0]["message"].as_str().unwrap().contains("104857600 bytes"), "{r}");

    let binary = dir.path().join("binary.json");
    std::fs::write(&binary, [b'{', 0xff, b'}']).unwrap();
    let (code, r) = validate(&store, &binary, &[]);
    assert_eq!((code, r["problems"][0]["code"].as_str()), (Some(1), Some("result_unreadable")), "{r}");

    let (code, _) = validate(&store, &dir.path().join("missing.json"), &[]);
    assert_eq!(code, Some(1));

    let log = warden(&store, &["audit", "log", "--json"]);
    let events: Vec<Value> =
        String::from_utf8(log.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(events.len(), 7, "every verdict is recorded");
    assert!(events.iter().all(|e| e["event_type"] == "result_validated"));
    assert_eq!(events[0]["item"], "ITEM-1");
    assert_eq!(events[0]["run"], "20260117T223000Z");
    assert_eq!(events[0]["payload"]["validation"]["valid"], true);
    assert_eq!(events[0]["payload"]["digest"].as_str().map(str::len), Some(64));
}

#[test]
fn a_bad_correlation_id_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("result.json");
    std::fs::write(&file, VALID).unwrap();
    let out =
        warden(&dir.path().join("audit"), &["result", "validate", file.to_str().unwrap(), "--item", ""]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_duplicate_key_is_reported_with_every_other_problem() {
    // The duplicate no longer hides the rest of the file (R-30).
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("audit");
    let file = dir.path().join("result.json");
    std::fs::write(&file, r#"{"schema_version":"1.1","summary":"a","summary":"b","kr_targets":[""]}"#)
        .unwrap();
    let (code, report) = validate(&store, &file, &[]);
    assert_eq!(code, Some(1));
    let problems: Vec<(&str, &str)> = report["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["pointer"].as_str().unwrap(), p["code"].as_str().unwrap()))
        .collect();
    assert_eq!(
        problems,
        [
            ("/summary", "duplicate_key"),
            ("/kr_targets/0", "empty_string"),
            ("/schema_version", "wrong_version"),
            ("/proposed_changes", "missing_field"),
            ("/kr_impact_claim", "missing_field"),
        ]
    );
}
