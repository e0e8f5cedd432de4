//! A `SubagentStop` while another process holds the store's lock (issue 34, item 4: a
//! planner appends to `okrs/q4.md`, then runs `flock -x .agentwarden/audit/db sleep 65` in the
//! background and stops). The revert does not wait for the log: the file is back at once, the
//! session quarantined, and the violation recorded exactly once when the log can be written (H-33).

#![expect(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "test code: a failed unwrap or index is a failed test"
)]
#![allow(clippy::zombie_processes, reason = "every lock holder is killed and waited for by `unlock`")]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

mod store_lock;
mod support;

use store_lock::{lock_store, unlock};
use support::{EXAMPLE, committed_example, copy_dir, git};

const SESSION: &str = "demo-session";
const AGENT: &str = "agent-planner-1";
const ORIGINAL: &str = "objectives, as the humans wrote them\n";

struct Project {
    _dir: tempfile::TempDir,
    root: PathBuf,
    store: PathBuf,
}

impl Project {
    fn okrs(&self) -> PathBuf {
        self.root.join("okrs/q4.md")
    }

    fn pending_dir(&self) -> PathBuf {
        self.store.parent().unwrap().join("pending").join(SESSION)
    }
}

/// The example project, approved, with the planner spawned and started (its snapshot taken).
fn started_planner() -> Project {
    started_planner_with(|_| {})
}

/// [`started_planner`], with `before_start` run on the project's root before the planner starts.
fn started_planner_with(before_start: impl FnOnce(&Path)) -> Project {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap().join("project");
    committed_example(&root);
    std::fs::write(root.join("okrs/q4.md"), ORIGINAL).unwrap();
    git(&root, &["commit", "-q", "-am", "the objectives"]);
    let p = Project { store: root.parent().unwrap().join("store/audit"), root, _dir: dir };
    for args in
        [&["seal", "--by", "alice"][..], &["approve", "--ref", "GATE-2026-11-22-001", "--by", "alice"]]
    {
        let out = run(&p, args, "");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
    before_start(&p.root);
    for name in ["pre-task-main-planner", "start-planner"] {
        let (code, answer, stderr) = hook(&p, &fixture(name));
        assert_eq!((code, answer), (0, Value::Null), "{name}: {stderr}");
    }
    p
}

fn run(p: &Project, args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_warden"))
        .arg("--store")
        .arg(&p.store)
        .args(args)
        .current_dir(&p.root)
        .env_remove("CLAUDECODE")
        .env("AGENTWARDEN_ENABLE_SUBAGENTS", "true")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

/// Runs the hook with a short lock wait; returns (exit code, stdout JSON or Null, stderr).
fn hook(p: &Project, input: &str) -> (i32, Value, String) {
    let out = run(p, &["--lock-timeout-ms", "100", "hook", "--config", "agentwarden.toml"], input);
    let stdout = String::from_utf8(out.stdout).unwrap();
    let json = if stdout.trim().is_empty() { Value::Null } else { serde_json::from_str(&stdout).unwrap() };
    (out.status.code().unwrap(), json, String::from_utf8(out.stderr).unwrap())
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(Path::new(EXAMPLE).join("events").join(format!("{name}.json"))).unwrap()
}

fn stop() -> String {
    fixture("stop-coder").replace("agent-coder-1", AGENT).replace(r#""coder""#, r#""planner""#)
}

fn bash(p: &Project) -> String {
    json!({
        "session_id": SESSION, "cwd": p.root.display().to_string(), "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "tool_use_id": "toolu_x", "tool_input": {"command": "ls"},
    })
    .to_string()
}

fn release(p: &Project) -> Output {
    run(p, &["release", "--session", SESSION, "--by", "alice", "--config", "agentwarden.toml"], "")
}

fn events(p: &Project) -> Vec<Value> {
    let out = run(p, &["audit", "export", "--format", "jsonl"], "");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn of_type<'a>(log: &'a [Value], kind: &str) -> Vec<&'a Value> {
    log.iter().filter(|e| e["event_type"] == kind).collect()
}

/// The planner appends to `okrs/q4.md`, locks the store and stops: the stop, blocked with exit
/// 2, has put the file back already and quarantined the session.
fn locked_stop(p: &Project) -> std::process::Child {
    std::fs::write(p.okrs(), format!("{ORIGINAL}- KR 4: whatever the planner likes\n")).unwrap();
    let holder = lock_store(&p.store);
    let (code, answer, stderr) = hook(p, &stop());
    assert_eq!((code, answer), (2, Value::Null), "the stop is blocked: {stderr}");
    assert!(stderr.contains("store_unavailable") && stderr.contains("quarantined"), "{stderr}");
    assert!(stderr.contains("put back: okrs/q4.md"), "the reason says what was put back: {stderr}");
    assert_eq!(std::fs::read_to_string(p.okrs()).unwrap(), ORIGINAL, "reverted while the lock is held");
    let (code, answer, _) = hook(p, &bash(p));
    let reason = answer["hookSpecificOutput"]["permissionDecisionReason"].as_str().unwrap_or_default();
    assert_eq!(code, 0);
    assert!(reason.contains("warden release --session demo-session"), "quarantined: {answer}");
    holder
}

fn violations(log: &[Value]) -> Vec<&Value> {
    of_type(log, "guardrail_violation")
}

#[test]
fn a_stop_under_a_held_lock_reverts_at_once_and_the_next_hook_records_the_violation_once() {
    let p = started_planner();
    let holder = locked_stop(&p);
    unlock(holder);
    assert!(violations(&events(&p)).is_empty(), "not recorded while nothing has had the store");
    // The next hook of the session has the store: it records the quarantine and the violation.
    let (code, answer, _) = hook(&p, &bash(&p));
    assert_eq!(code, 0);
    assert!(answer["hookSpecificOutput"]["permissionDecision"] == "deny", "still quarantined: {answer}");
    let log = events(&p);
    let recorded = violations(&log);
    assert_eq!(recorded.len(), 1, "{recorded:?}");
    assert_eq!(recorded[0]["session"], SESSION);
    assert_eq!(recorded[0]["payload"]["details"]["changed_files"], json!(["okrs/q4.md"]));
    assert_eq!(recorded[0]["payload"]["details"]["reverted"], true);
    let quarantined = of_type(&log, "session_quarantined");
    assert_eq!(quarantined.len(), 1);
    assert_eq!(quarantined[0]["payload"]["code"], "store_unavailable");
    assert!(!p.pending_dir().exists(), "the pending record is gone once recorded");
    // Neither another hook nor the release records it again.
    hook(&p, &bash(&p));
    let out = release(&p);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(violations(&events(&p)).len(), 1, "exactly once");
}

#[test]
fn a_release_records_the_pending_violation_before_it_releases() {
    let p = started_planner();
    let holder = locked_stop(&p);
    // While the lock is held, nothing is released: the store is needed to record.
    let out = release(&p);
    assert_ne!(out.status.code(), Some(0), "no release while the log cannot be written");
    assert!(p.pending_dir().exists(), "still pending");
    unlock(holder);
    let out = release(&p);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let log = events(&p);
    let kinds: Vec<&str> = log
        .iter()
        .filter(|e| e["session"] == SESSION)
        .map(|e| e["event_type"].as_str().unwrap())
        .filter(|k| ["session_quarantined", "guardrail_violation", "session_released"].contains(k))
        .collect();
    assert_eq!(kinds, ["session_quarantined", "guardrail_violation", "session_released"]);
    assert_eq!(std::fs::read_to_string(p.okrs()).unwrap(), ORIGINAL);
}

#[test]
fn a_pending_record_the_agent_removes_or_edits_is_recorded_as_lost_and_the_session_stays_quarantined() {
    for tamper in ["remove", "edit"] {
        let p = started_planner();
        let holder = locked_stop(&p);
        let pending: Vec<PathBuf> =
            std::fs::read_dir(p.pending_dir()).unwrap().map(|e| e.unwrap().path()).collect();
        assert_eq!(pending.len(), 1, "{pending:?}");
        match tamper {
            "remove" => std::fs::remove_dir_all(p.pending_dir()).unwrap(),
            _ => {
                let text = std::fs::read_to_string(&pending[0]).unwrap().replace("okrs/q4.md", "okrs/x.md");
                std::fs::write(&pending[0], text).unwrap();
            }
        }
        unlock(holder);
        let (_, answer, _) = hook(&p, &bash(&p));
        assert!(answer["hookSpecificOutput"]["permissionDecision"] == "deny", "{tamper}: {answer}");
        let log = events(&p);
        assert!(violations(&log).is_empty(), "{tamper}: nothing the agent wrote is recorded as found");
        let lost: Vec<_> = of_type(&log, "session_quarantined")
            .into_iter()
            .filter(|e| e["payload"]["code"] == "violation_record_lost")
            .collect();
        assert_eq!(lost.len(), 1, "{tamper}: {log:?}");
        hook(&p, &bash(&p));
        let again = events(&p);
        let lost_again = of_type(&again, "session_quarantined")
            .into_iter()
            .filter(|e| e["payload"]["code"] == "violation_record_lost")
            .count();
        assert_eq!(lost_again, 1, "{tamper}: recorded once");
    }
}

#[test]
fn a_pending_record_without_its_marker_still_quarantines_the_session() {
    let p = started_planner();
    let holder = locked_stop(&p);
    std::fs::remove_file(p.store.parent().unwrap().join("quarantine").join(SESSION)).unwrap();
    let (_, answer, _) = hook(&p, &bash(&p));
    unlock(holder);
    assert!(answer["hookSpecificOutput"]["permissionDecision"] == "deny", "{answer}");
    let (_, answer, _) = hook(&p, &bash(&p));
    assert!(answer["hookSpecificOutput"]["permissionDecision"] == "deny", "{answer}");
    assert_eq!(violations(&events(&p)).len(), 1);
}

#[test]
fn a_revert_that_fails_under_a_held_lock_is_exit_2_naming_what_is_still_changed() {
    // A FIFO in the protected tree at the start cannot be put back (U-10): no revert of that
    // tree is ever done, and the stop says so.
    let p = started_planner_with(|root| {
        let made = Command::new("mkfifo").arg(root.join("okrs/pipe")).status().unwrap();
        assert!(made.success());
    });
    let holder = lock_store(&p.store);
    let (code, _, stderr) = hook(&p, &stop());
    unlock(holder);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("quarantined") && stderr.contains("revert_failed"), "{stderr}");
    assert!(stderr.contains("okrs/pipe"), "names the entry: {stderr}");
    hook(&p, &bash(&p));
    let log = events(&p);
    let recorded = violations(&log);
    assert_eq!(recorded.len(), 1);
    assert_eq!(recorded[0]["payload"]["details"]["reverted"], false);
}

#[test]
fn a_snapshot_copy_the_agent_points_elsewhere_reverts_a_decoy_and_the_store_reverts_the_project_later() {
    let p = started_planner();
    let copy = p.store.parent().unwrap().join("snapshots").join(SESSION).join(AGENT);
    let bytes = std::fs::read(&copy).unwrap();
    let newline = bytes.iter().position(|b| *b == b'\n').unwrap();
    assert_eq!(serde_json::from_slice::<String>(&bytes[..newline]).unwrap(), p.root.display().to_string());
    // The planner copies the project to a decoy and points the copy's root at it.
    let decoy = p.root.parent().unwrap().join("decoy");
    copy_dir(&p.root.join("okrs"), &decoy.join("okrs"));
    let mut forged = serde_json::to_vec(&decoy.display().to_string()).unwrap();
    forged.extend_from_slice(&bytes[newline..]);
    std::fs::write(&copy, forged).unwrap();
    std::fs::write(p.okrs(), "rewritten\n").unwrap();
    std::fs::write(decoy.join("okrs/q4.md"), "decoy\n").unwrap();
    let holder = lock_store(&p.store);
    let (code, _, stderr) = hook(&p, &stop());
    unlock(holder);
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(
        std::fs::read_to_string(p.okrs()).unwrap(),
        "rewritten\n",
        "the forged copy reverted the decoy"
    );
    // The store's own snapshot is the reference: the next hook puts the project back.
    hook(&p, &bash(&p));
    assert_eq!(std::fs::read_to_string(p.okrs()).unwrap(), ORIGINAL);
    assert_eq!(violations(&events(&p)).len(), 2, "the kept one, and the one the store's snapshot found");
}
