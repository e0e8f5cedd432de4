//! No single event weakens protection (issue 47, item 3; H-52, H-53): the agent, with the user's
//! shell, sends the hook a `SessionEnd` of its own session, changes `okrs/q4.md` again, then a
//! `SessionStart` — events that cannot be told from the harness's. The session's first snapshot
//! stays its reference: the forged end puts the file back and keeps it, the forged start
//! compares against it and puts the second change back, and the real `Stop` finds the third.
//!
//! In direct mode (`warden hook` with the forged event on stdin) and in the isolated deployment
//! (`warden serve` as root here, every hook frame sent by a second OS user as the harness and the
//! agent both run as one). The second needs root and `setpriv`: elsewhere it says why and checks
//! nothing, except under `CI=true`, where a skip fails.

#![expect(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "test code: a failed unwrap or index is a failed test"
)]

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

mod bounded;
mod support;
mod users;

use support::committed_example;
use users::{as_user, ensure_user, is_root};

const BIN: &str = env!("CARGO_BIN_EXE_warden");
const AGENT_USER: &str = "awtest-agent";
const SESSION: &str = "forged-session";
const ORIGINAL: &str = "objectives, as the humans wrote them\n";

/// One hook event of the session, as Claude Code writes it.
fn event(name: &str, extra: Value) -> String {
    let mut object = json!({ "session_id": SESSION, "hook_event_name": name, "cwd": "." });
    if let (Some(object), Value::Object(extra)) = (object.as_object_mut(), extra) {
        object.extend(extra);
    }
    object.to_string()
}

/// The example project in a fresh git repository, `okrs/q4.md` committed as [`ORIGINAL`].
fn project(dir: &Path) -> PathBuf {
    let root = dir.join("project");
    committed_example(&root);
    std::fs::write(root.join("okrs/q4.md"), ORIGINAL).unwrap();
    support::git(&root, &["commit", "-q", "-am", "the objectives"]);
    root
}

/// Runs `command` with `stdin`, bounded.
fn run(command: &mut Command, stdin: &str) -> Output {
    let mut child: Child =
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    bounded::bounded(child, Duration::from_secs(60))
}

/// The audit log's events of `store`, read by the operator.
fn events(root: &Path, store: &Path) -> Vec<Value> {
    let out = run(
        Command::new(BIN)
            .arg("--store")
            .arg(store)
            .args(["audit", "export", "--format", "jsonl"])
            .current_dir(root)
            .env_remove("AGENTWARDEN_SERVER"),
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// The attack, through `hook` (one hook call: the event's JSON in, exit code and output out)
/// and `write` (the agent's shell writing `okrs/q4.md`): the forged end, a change, the forged
/// start, a change, the real stop and end. Every change ends put back and recorded.
fn attack(root: &Path, hook: &dyn Fn(&str) -> Output, write: &dyn Fn(&str)) {
    let q4 = root.join("okrs/q4.md");
    let said = |out: &Output| {
        format!(
            "exit {:?}\n{}{}",
            out.status.code(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    };
    let start = hook(&event("SessionStart", json!({ "source": "startup" })));
    assert_eq!(start.status.code(), Some(0), "the real start: {}", said(&start));

    write("changed before the forged end\n");
    let forged_end = hook(&event("SessionEnd", json!({ "reason": "other" })));
    assert!(
        said(&forged_end).contains("okrs/q4.md"),
        "the end names what it put back: {}",
        said(&forged_end)
    );
    assert_eq!(std::fs::read_to_string(&q4).unwrap(), ORIGINAL, "the forged end puts it back");

    write("changed between the forged end and the forged start\n");
    let forged_start = hook(&event("SessionStart", json!({ "source": "resume" })));
    assert!(
        said(&forged_start).contains("okrs/q4.md"),
        "a later start compares against the first snapshot: {}",
        said(&forged_start)
    );
    assert_eq!(std::fs::read_to_string(&q4).unwrap(), ORIGINAL, "the forged start puts it back");

    write("changed after the forged start\n");
    let stop = hook(&event("Stop", json!({ "stop_hook_active": false })));
    assert_eq!(stop.status.code(), Some(0), "{}", said(&stop));
    let answer: Value = serde_json::from_slice(&stop.stdout).unwrap_or(Value::Null);
    assert_eq!(answer["decision"], "block", "the real stop finds the change: {}", said(&stop));
    assert!(answer["reason"].as_str().unwrap_or_default().contains("okrs/q4.md"), "{answer}");
    assert_eq!(std::fs::read_to_string(&q4).unwrap(), ORIGINAL, "the real stop puts it back");
    let end = hook(&event("SessionEnd", json!({ "reason": "prompt_input_exit" })));
    assert_eq!(end.status.code(), Some(0), "a clean real end: {}", said(&end));
    assert_eq!(std::fs::read_to_string(&q4).unwrap(), ORIGINAL);
}

/// What the log says of [`attack`]: each change recorded once, both starts and both ends.
fn recorded(root: &Path, store: &Path) {
    let events = events(root, store);
    let of = |t: &str| events.iter().filter(|e| e["event_type"] == t).count();
    assert_eq!(of("guardrail_violation"), 3, "each change recorded once: {events:#?}");
    assert_eq!(of("session_started"), 2, "both starts recorded");
    assert_eq!(of("session_ended"), 2, "both ends recorded");
    let starts: Vec<&Value> = events.iter().filter(|e| e["event_type"] == "session_started").collect();
    assert_eq!(starts[1]["payload"]["kept"], true, "the later start kept the first snapshot: {}", starts[1]);
    assert_eq!(starts[1]["payload"]["changed_files"], json!(["okrs/q4.md"]), "{}", starts[1]);
}

/// Direct mode: the agent runs `warden hook` itself with the forged events on stdin.
#[test]
fn a_forged_end_then_start_in_direct_mode_launders_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = project(&std::fs::canonicalize(dir.path()).unwrap());
    let store = root.parent().unwrap().join("store/audit");
    let hook = |input: &str| {
        run(
            Command::new(BIN)
                .arg("--store")
                .arg(&store)
                .args(["hook", "--config", "agentwarden.toml"])
                .current_dir(&root)
                .env_remove("CLAUDECODE")
                .env_remove("AGENTWARDEN_SERVER"),
            input,
        )
    };
    let write = |text: &str| std::fs::write(root.join("okrs/q4.md"), text).unwrap();
    attack(&root, &hook, &write);
    recorded(&root, &store);
}

/// Whether the isolated test may run here; a skip under `CI=true` fails.
fn can_switch_users() -> bool {
    let why = if !is_root() {
        "needs root to make a second user and switch to it"
    } else if Command::new("setpriv").arg("--help").output().is_err() {
        "needs setpriv to switch users"
    } else {
        return true;
    };
    assert!(std::env::var("CI").as_deref() != Ok("true"), "CI must run this test, but it {why}");
    eprintln!("skipped: {why}");
    false
}

/// A server child, killed when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The isolated deployment: the server as its own user (root here) owns the store and the
/// hook's files; every frame — the harness's and the forged alike — comes from the agent's user,
/// which can write the project's `okrs/q4.md` and nothing of the server's.
#[test]
fn a_forged_end_then_start_through_the_server_from_the_agents_user_launders_nothing() {
    if !can_switch_users() {
        return;
    }
    ensure_user(AGENT_USER);
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::set_permissions(&base, std::fs::Permissions::from_mode(0o755)).unwrap();
    let root = project(&base);
    // The agent's user may write the protected file, as the user the agent runs as can.
    std::fs::set_permissions(root.join("okrs"), std::fs::Permissions::from_mode(0o777)).unwrap();
    std::fs::set_permissions(root.join("okrs/q4.md"), std::fs::Permissions::from_mode(0o666)).unwrap();
    let state = base.join("state");
    std::fs::create_dir_all(&state).unwrap();
    std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o700)).unwrap();
    let store = state.join("audit");
    let run_dir = base.join("run");
    std::fs::create_dir_all(&run_dir).unwrap();
    let socket = run_dir.join("warden.sock");
    let server = Server(
        Command::new(BIN)
            .arg("--store")
            .arg(&store)
            .args(["serve", "--config", "agentwarden.toml", "--socket-mode", "666", "--socket"])
            .arg(&socket)
            .current_dir(&root)
            .env_remove("AGENTWARDEN_SERVER")
            .env_remove("CLAUDECODE")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let started = Instant::now();
    while std::os::unix::net::UnixStream::connect(&socket).is_err() {
        assert!(started.elapsed() < Duration::from_secs(20), "the server never answered");
        std::thread::sleep(Duration::from_millis(10));
    }
    let hook = |input: &str| {
        run(
            as_user(AGENT_USER, BIN)
                .args(["hook", "--config", "agentwarden.toml", "--server"])
                .arg(&socket)
                .current_dir(&root)
                .env("XDG_CONFIG_HOME", "/nonexistent-config"),
            input,
        )
    };
    let write = |text: &str| {
        let out = run(
            as_user(AGENT_USER, "sh")
                .args(["-c", &format!("printf '%s' '{text}' > okrs/q4.md")])
                .current_dir(&root),
            "",
        );
        assert!(out.status.success(), "the agent's shell writes: {}", String::from_utf8_lossy(&out.stderr));
    };
    // The agent's user cannot reach the server's store or its snapshots.
    let reach = run(as_user(AGENT_USER, "ls").arg(&state), "");
    assert!(!reach.status.success(), "the store's directory is the server's alone");
    attack(&root, &hook, &write);
    drop(server);
    recorded(&root, &store);
}
