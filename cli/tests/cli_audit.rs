//! `warden audit …` through the real binary: outputs, exit codes, and tamper detection.

#![expect(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "test code: a failed unwrap or index is a failed test"
)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

struct Store {
    _dir: tempfile::TempDir,
    path: PathBuf,
}

fn store() -> Store {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit");
    Store { _dir: dir, path }
}

fn warden(store: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warden"))
        .arg("--store")
        .arg(store)
        .args(args)
        .env_remove("AGENTWARDEN_STORE")
        .env_remove("RUST_LOG")
        .output()
        .unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

fn notes(store: &Path, n: usize) {
    for i in 1..=n {
        let out = warden(store, &["audit", "note", &format!("note {i}"), "--session", "s-1"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
}

fn tamper(store: &Path, seq: u64, offset: usize) {
    let db = sled::open(store).unwrap();
    let events = db.open_tree("events").unwrap();
    let mut value = events.get(seq.to_be_bytes()).unwrap().unwrap().to_vec();
    value[offset] ^= 0x20;
    events.insert(seq.to_be_bytes(), value).unwrap();
    db.flush().unwrap();
}

#[test]
fn note_log_show_verify_round_trip() {
    let s = store();
    let out = warden(&s.path, &["audit", "note", "hello"]);
    assert_eq!(out.status.code(), Some(0));
    let receipt: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(receipt["seq"], 1);
    notes(&s.path, 2);

    let log = warden(&s.path, &["audit", "log"]);
    assert_eq!(log.status.code(), Some(0));
    let text = stdout(&log);
    assert_eq!(text.lines().count(), 4, "header and three rows:\n{text}");
    assert!(text.lines().nth(3).unwrap().contains("operator_note"));

    let json = warden(&s.path, &["audit", "log", "--json", "--from", "2", "--limit", "1"]);
    let lines: Vec<serde_json::Value> =
        stdout(&json).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["seq"], 2);
    assert_eq!(lines[0]["session"], "s-1");
    assert_eq!(lines[0]["payload"]["message"], "note 1");
    assert_eq!(lines[0]["hash"].as_str().unwrap().len(), 64);

    let show = warden(&s.path, &["audit", "show", "3", "--json"]);
    let event: serde_json::Value = serde_json::from_str(stdout(&show).trim()).unwrap();
    assert_eq!(event["prev_hash"], lines[0]["hash"]);

    let verify = warden(&s.path, &["audit", "verify"]);
    assert_eq!(verify.status.code(), Some(0));
    assert!(stdout(&verify).starts_with("intact: 3 events"), "{}", stdout(&verify));
}

#[test]
fn export_is_jsonl_of_every_event_and_stats_count_them() {
    let s = store();
    notes(&s.path, 4);
    let export = warden(&s.path, &["audit", "export", "--format", "jsonl"]);
    assert_eq!(export.status.code(), Some(0));
    let seqs: Vec<u64> = stdout(&export)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["seq"].as_u64().unwrap())
        .collect();
    assert_eq!(seqs, [1, 2, 3, 4]);

    let stats = warden(&s.path, &["audit", "stats", "--json"]);
    let stats: serde_json::Value = serde_json::from_str(stdout(&stats).trim()).unwrap();
    assert_eq!(stats["events"], 4);
    assert_eq!(stats["by_type"]["operator_note"], 4);
}

#[test]
fn verify_names_the_first_broken_seq_and_exits_1() {
    let s = store();
    notes(&s.path, 5);
    tamper(&s.path, 3, 60);
    let out = warden(&s.path, &["audit", "verify", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let verdict: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(verdict["intact"], false);
    assert_eq!(verdict["seq"], 3);
    assert!(stderr(&out).contains("broken at seq 3"), "{}", stderr(&out));
}

#[test]
fn verify_reports_a_broken_head_found_on_open() {
    let s = store();
    notes(&s.path, 3);
    tamper(&s.path, 3, 40);
    let out = warden(&s.path, &["audit", "verify"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("broken at seq 3"), "{}", stderr(&out));
    // Other commands refuse a store that does not verify.
    assert_eq!(warden(&s.path, &["audit", "log"]).status.code(), Some(1));
}

#[test]
fn a_checkpoint_finds_a_truncated_log() {
    let s = store();
    notes(&s.path, 4);
    let key = s.path.with_file_name("log.key");
    let keygen =
        warden(&s.path, &["audit", "keygen", "--origin", "test.example/log", "--out", key.to_str().unwrap()]);
    assert_eq!(keygen.status.code(), Some(0), "{}", stderr(&keygen));
    let checkpoint = warden(&s.path, &["audit", "checkpoint", "--key", key.to_str().unwrap(), "--json"]);
    let cp_text = stdout(&checkpoint);
    let cp: serde_json::Value = serde_json::from_str(cp_text.trim()).unwrap();
    assert_eq!(cp["seq"], 4);
    // The unsigned form of the chain's checkpoint is still read.
    let unsigned = serde_json::json!({"seq": cp["seq"], "head_hash": cp["head_hash"]}).to_string();
    let cp_file = s.path.with_file_name("checkpoint.json");
    std::fs::write(&cp_file, &unsigned).unwrap();
    let cp_arg = cp_file.to_str().unwrap();
    assert_eq!(warden(&s.path, &["audit", "verify", "--checkpoint", cp_arg]).status.code(), Some(0));

    // Cut the last event: still a valid chain, but shorter than the checkpoint.
    {
        let db = sled::open(&s.path).unwrap();
        db.open_tree("events").unwrap().remove(4u64.to_be_bytes()).unwrap();
        db.flush().unwrap();
    }
    assert_eq!(warden(&s.path, &["audit", "verify"]).status.code(), Some(0));
    let out = warden(&s.path, &["audit", "verify", "--checkpoint", cp_arg]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("the log ends at seq 3, before the checkpoint"), "{}", stderr(&out));
}

#[test]
fn bad_input_is_a_usage_error_with_one_line() {
    let s = store();
    let garbage = s.path.with_file_name("garbage.json");
    std::fs::write(&garbage, "{\"seq\": 1}").unwrap();
    let cases: [&[&str]; 5] = [
        &["audit", "verify", "--checkpoint", garbage.to_str().unwrap()],
        &["audit", "verify", "--checkpoint", "/nonexistent/checkpoint.json"],
        &["audit", "frobnicate"],
        &["audit", "show", "not-a-number"],
        &["audit", "note", "   "],
    ];
    for args in cases {
        let out = warden(&s.path, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    let out = warden(&s.path, &["audit", "verify", "--checkpoint", garbage.to_str().unwrap()]);
    assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
}

#[test]
fn show_of_a_missing_event_exits_1() {
    let s = store();
    notes(&s.path, 1);
    let out = warden(&s.path, &["audit", "show", "9"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("there is no event 9"));
}

#[test]
fn a_locked_store_fails_after_the_wait_with_exit_3() {
    let s = store();
    notes(&s.path, 1);
    let _holder =
        agentwarden::store::SledEventStore::open(&agentwarden::store::SledConfig::new(&s.path)).unwrap();
    let out = warden(&s.path, &["--lock-timeout-ms", "200", "audit", "log"]);
    assert_eq!(out.status.code(), Some(3));
    assert!(stderr(&out).contains("locked by another process"), "{}", stderr(&out));
}

#[test]
fn diagnostics_go_to_stderr_and_never_into_json() {
    let s = store();
    notes(&s.path, 2);
    let out = Command::new(env!("CARGO_BIN_EXE_warden"))
        .arg("--store")
        .arg(&s.path)
        .args(["audit", "log", "--json"])
        .env("RUST_LOG", "debug")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("opened sled event store"), "{}", stderr(&out));
    for line in stdout(&out).lines() {
        serde_json::from_str::<serde_json::Value>(line).unwrap();
    }
}

/// No variable names the store: `AGENTWARDEN_STORE` set refuses the command, which writes
/// nowhere (V-67).
#[test]
fn the_store_never_comes_from_the_environment() {
    let s = store();
    let out = Command::new(env!("CARGO_BIN_EXE_warden"))
        .args(["audit", "note", "via env"])
        .env("AGENTWARDEN_STORE", &s.path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("trust_root_refused: `AGENTWARDEN_STORE` is set"), "{}", stderr(&out));
    assert!(!s.path.exists(), "the variable's store was not created");
}

#[test]
fn readers_never_create_a_store() {
    let s = store();
    let key = s.path.with_file_name("log.key");
    let keygen =
        warden(&s.path, &["audit", "keygen", "--origin", "test.example/log", "--out", key.to_str().unwrap()]);
    assert_eq!(keygen.status.code(), Some(0), "{}", stderr(&keygen));
    assert!(!s.path.exists(), "keygen created the store");
    let checkpoint = ["audit", "checkpoint", "--key", key.to_str().unwrap()];
    for args in [&["audit", "verify"][..], &["audit", "log"], &checkpoint, &["audit", "stats"]] {
        let out = warden(&s.path, args);
        assert_eq!(out.status.code(), Some(3), "{args:?}");
        assert!(stderr(&out).contains("there is no event store at"), "{}", stderr(&out));
        assert!(!s.path.exists(), "{args:?} created the store");
    }
}

#[test]
fn a_reader_that_leaves_early_is_not_an_error() {
    use std::io::{BufRead, BufReader};
    let s = store();
    {
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let store =
            agentwarden::store::SledEventStore::open(&agentwarden::store::SledConfig::new(&s.path)).unwrap();
        runtime.block_on(async {
            use agentwarden::audit::{Actor, Correlation, EventDraft, Timestamp};
            use agentwarden::events::{AuditEvent, OperatorNote};
            use agentwarden::store::EventStore;
            let event = AuditEvent::OperatorNote(OperatorNote { message: "x".repeat(200) });
            let at = Timestamp::from_unix_millis(0).unwrap();
            let draft =
                EventDraft::new(at, Actor::new("t").unwrap(), Correlation::default(), &event).unwrap();
            store.append(agentwarden::store::Expected::Any, vec![draft; 2000]).await.unwrap();
        });
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_warden"))
        .arg("--store")
        .arg(&s.path)
        .args(["audit", "export", "--format", "jsonl"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    assert!(first.starts_with("{\"seq\":1,"), "{first}");
    // The reader is dropped here: warden's next write meets a closed pipe.
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(out.stderr.is_empty(), "{}", stderr(&out));
}
