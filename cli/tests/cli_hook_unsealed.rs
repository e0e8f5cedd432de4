//! Without a seal, the configuration the session's first start found decides (issue 47, item 2,
//! H-58): the real `warden hook`, in direct mode and through `warden serve`, on the example
//! project unsealed; the agent's shell empties the protected list (`sed -i`), then the main
//! session writes a protected file through `Write`. A session whose start Warden never saw has
//! nothing to decide its tool calls with (H-59).

#![expect(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "test code: a failed unwrap or index is a failed test"
)]

use std::io::Write;
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

mod bounded;
mod support;

use support::committed_example;

const WARDEN: &str = env!("CARGO_BIN_EXE_warden");
const SESSION: &str = "unsealed-session";

struct Project {
    dir: tempfile::TempDir,
    root: PathBuf,
    store: PathBuf,
}

impl Project {
    fn new() -> Project {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap().join("project");
        committed_example(&root);
        let store = root.parent().unwrap().join("store/audit");
        Project { dir, root, store }
    }

    fn socket(&self) -> PathBuf {
        self.dir.path().join("run/warden.sock")
    }
}

/// A running `warden serve`, killed when dropped (a failed assertion included).
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn served(p: &Project) -> Server {
    let child = Command::new(WARDEN)
        .arg("--store")
        .arg(&p.store)
        .args(["serve", "--config", "agentwarden.toml", "--socket"])
        .arg(p.socket())
        .current_dir(&p.root)
        .env_remove("CLAUDECODE")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while UnixStream::connect(p.socket()).is_err() {
        assert!(started.elapsed() < Duration::from_secs(20), "the server never answered");
        std::thread::sleep(Duration::from_millis(10));
    }
    Server(child)
}

/// How the hook reaches its decider.
#[derive(Clone, Copy, Debug)]
enum Mode {
    /// `warden hook` opens the store itself.
    Direct,
    /// `warden hook --server SOCKET` asks the resident service.
    Server,
}

/// The hook's answer to `input`: (exit code, stdout JSON or Null, stderr).
fn hook(p: &Project, mode: Mode, input: &Value) -> (i32, Value, String) {
    let socket = p.socket().display().to_string();
    let mut command = Command::new(WARDEN);
    match mode {
        Mode::Direct => {
            command.arg("--store").arg(&p.store).args(["hook", "--config", "agentwarden.toml"]);
        }
        Mode::Server => {
            command.args(["hook", "--config", "agentwarden.toml", "--server", &socket]);
        }
    }
    let mut child = command
        .current_dir(&p.root)
        .env_remove("CLAUDECODE")
        .env_remove("AGENTWARDEN_SERVER")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _ = child.stdin.take().unwrap().write_all(input.to_string().as_bytes());
    let out: Output = bounded::bounded(child, Duration::from_secs(60));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let json = if stdout.trim().is_empty() { Value::Null } else { serde_json::from_str(&stdout).unwrap() };
    (out.status.code().unwrap(), json, String::from_utf8(out.stderr).unwrap())
}

fn event(p: &Project, session: &str, name: &str, extra: Value) -> Value {
    let mut event = json!({
        "session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": p.root.display().to_string(),
        "permission_mode": "acceptEdits", "hook_event_name": name,
    });
    for (k, v) in extra.as_object().unwrap() {
        event[k] = v.clone();
    }
    event
}

fn tool(p: &Project, session: &str, name: &str, id: &str, input: Value) -> Value {
    event(p, session, "PreToolUse", json!({"tool_name": name, "tool_use_id": id, "tool_input": input}))
}

fn write_okr(p: &Project, session: &str) -> Value {
    let path = p.root.join("okrs/q4.md").display().to_string();
    tool(p, session, "Write", "toolu_w", json!({"file_path": path, "content": "x"}))
}

/// Whether the answer lets the call run: exit 0, and no deny in it.
fn lets_through(answer: &(i32, Value, String)) -> bool {
    answer.0 == 0 && answer.1["hookSpecificOutput"]["permissionDecision"] != "deny"
}

/// The agent's shell: `sed -i 's/^protected = .*/protected = []/' agentwarden.toml`.
fn empty_the_list(p: &Project) {
    let path = p.root.join("agentwarden.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("protected = [\"okrs\"]"), "the example protects okrs/");
    std::fs::write(&path, text.replacen("protected = [\"okrs\"]", "protected = []", 1)).unwrap();
}

/// The attack of issue 47, item 2, on an unsealed project, in direct mode.
#[test]
fn an_unsealed_configuration_edited_mid_session_decides_nothing_in_direct_mode() {
    the_attack_fails(Mode::Direct);
}

/// The same through the resident service.
#[test]
fn an_unsealed_configuration_edited_mid_session_decides_nothing_through_the_server() {
    the_attack_fails(Mode::Server);
}

/// The attack in `mode`: the write is denied, naming the edited file, a call that writes
/// nothing protected still proceeds, and a call of a session with no recorded start fails
/// (H-58, H-59).
fn the_attack_fails(mode: Mode) {
    let p = Project::new();
    let _server = matches!(mode, Mode::Server).then(|| served(&p));
    let start = hook(&p, mode, &event(&p, SESSION, "SessionStart", json!({"source": "startup"})));
    assert_eq!(start.0, 0, "{mode:?}: SessionStart: {start:?}");
    let bash = hook(&p, mode, &tool(&p, SESSION, "Bash", "toolu_b", json!({"command": "ls"})));
    assert!(lets_through(&bash), "{mode:?}: a Bash call before the edit: {bash:?}");
    empty_the_list(&p);
    let answer = hook(&p, mode, &write_okr(&p, SESSION));
    assert!(!lets_through(&answer), "{mode:?}: the protected write after the edit: {answer:?}");
    let reason = answer.1["hookSpecificOutput"]["permissionDecisionReason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("okrs") && reason.contains("changed since the session started"),
        "{mode:?}: denied as protected, the edited file named: {answer:?}"
    );
    let bash = hook(&p, mode, &tool(&p, SESSION, "Bash", "toolu_b2", json!({"command": "ls"})));
    assert!(lets_through(&bash), "{mode:?}: a Bash call after the edit: {bash:?}");
    let unseen = hook(&p, mode, &write_okr(&p, "unseen-session"));
    assert_eq!(unseen.0, 2, "{mode:?}: no recorded start: exit 2: {unseen:?}");
    assert!(unseen.2.contains("session_rules_missing"), "{mode:?}: {unseen:?}");
}
