//! `warden-hook`, the resident service's hook client (V-34): the same answers as `warden hook`
//! through the server for a table of hook events, and exit 2 — never a decision of its own —
//! when the server is down, silent, or answers nonsense, or when no server is configured. The
//! real binaries, the example project in a fresh git repository; every child is bounded in time.

#![expect(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "test code: a failed unwrap or index is a failed test"
)]

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

mod bounded;
mod client_bin;
mod support;

use client_bin::client;
use support::{EXAMPLE, committed_example};

const WARDEN: &str = env!("CARGO_BIN_EXE_warden");
const BOUND: Duration = Duration::from_secs(60);

struct Project {
    dir: tempfile::TempDir,
    root: PathBuf,
    store: PathBuf,
}

impl Project {
    fn new() -> Project {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project");
        committed_example(&root);
        Project { store: dir.path().join("audit"), root, dir }
    }

    fn socket(&self) -> PathBuf {
        self.dir.path().join("run/warden.sock")
    }
}

/// Waits for `child` at most [`BOUND`] (killed past it), with its output.
fn bounded(child: Child) -> Output {
    bounded::bounded(child, BOUND)
}

/// Runs `bin ARGS` in the project with `stdin`, the kill switch on in its environment (only
/// the server's counts, V-4), no server named by the environment.
fn run(bin: &str, p: &Project, args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(bin)
        .args(args)
        .current_dir(&p.root)
        .env_remove("CLAUDECODE")
        .env_remove("AGENTWARDEN_SERVER")
        .env("AGENTWARDEN_ENABLE_SUBAGENTS", "true")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    bounded(child)
}

/// A running `warden serve`, killed when dropped (a failed assertion included).
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Seals and approves on the project's store, then serves it (kill switch on).
fn served(p: &Project) -> Server {
    let store = p.store.display().to_string();
    for args in [
        &["--store", &store, "seal", "--by", "alice"][..],
        &["--store", &store, "approve", "--ref", "GATE-2026-11-22-001", "--by", "alice"],
    ] {
        let out = run(WARDEN, p, args, "");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
    let child = Command::new(WARDEN)
        .args(["--store", &store, "serve", "--config", "agentwarden.toml", "--socket"])
        .arg(p.socket())
        .current_dir(&p.root)
        .env_remove("CLAUDECODE")
        .env("AGENTWARDEN_ENABLE_SUBAGENTS", "true")
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

/// SIGTERM (the server drains and exits), then a kill past 20 s.
fn stop(mut server: Server) {
    let _ = Command::new("kill").args(["-TERM", &server.0.id().to_string()]).status();
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(20) {
        if let Ok(Some(_)) = server.0.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn event(name: &str) -> String {
    std::fs::read_to_string(Path::new(EXAMPLE).join("events").join(format!("{name}.json"))).unwrap()
}

/// A tool call of the agent `agent` (of type `kind`) in the example's session.
fn subagent_call(agent: &str, kind: &str, tool: &str, input: &Value) -> String {
    serde_json::json!({
        "session_id": "demo-session", "hook_event_name": "PreToolUse", "cwd": ".",
        "tool_name": tool, "tool_use_id": format!("toolu_{agent}_{tool}"),
        "agent_id": agent, "agent_type": kind, "tool_input": input,
    })
    .to_string()
}

fn kinds(p: &Project) -> Vec<(String, Value)> {
    let store = p.store.display().to_string();
    let out = run(WARDEN, p, &["--store", &store, "audit", "export", "--format", "jsonl"], "");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .map(|e| (e["event_type"].as_str().unwrap().to_owned(), e["payload"]["decision"].clone()))
        .collect()
}

#[test]
fn the_client_answers_as_warden_hook_does_through_the_server_and_the_same_events_are_recorded() {
    // Two projects, each with its own server: one asked by `warden hook`, one by `warden-hook`.
    let (ours, theirs) = (Project::new(), Project::new());
    let (our_server, their_server) = (served(&ours), served(&theirs));
    let hook = |bin: &str, p: &Project, input: &str| {
        let socket = p.socket().display().to_string();
        let args = ["--lock-timeout-ms", "5000", "hook", "--config", "agentwarden.toml", "--server", &socket];
        let out = run(bin, p, &args, input);
        // Each project has its own directory: named alike in the answers.
        let root = std::fs::canonicalize(p.dir.path()).unwrap().display().to_string();
        let text = |b: &[u8]| String::from_utf8_lossy(b).replace(&root, "DIR");
        (out.status.code(), text(&out.stdout), text(&out.stderr))
    };
    // (input, what it is)
    let table = [
        (event("pre-task-main-planner"), "a spawn the gate allows"),
        (event("start-planner"), "the planner starts: tracked"),
        (event("pre-bash"), "a main-session call nothing governs"),
        (
            subagent_call(
                "agent-planner-1",
                "planner",
                "Read",
                &serde_json::json!({"file_path": "README.md"}),
            ),
            "a subagent's call its rules grant",
        ),
        (
            subagent_call(
                "agent-planner-1",
                "planner",
                "Edit",
                &serde_json::json!({"file_path": "docs/x.md", "old_string": "a", "new_string": "b"}),
            ),
            "a subagent's call its rules refuse",
        ),
        (event("pre-agent-planner-coder"), "a nested spawn"),
        (event("start-coder"), "the coder starts"),
        (event("pre-task-coder-researcher"), "a spawn past the depth"),
        (
            subagent_call("agent-unknown", "coder", "Read", &serde_json::json!({"file_path": "README.md"})),
            "an untracked agent's call",
        ),
        ("not json".to_owned(), "garbage on stdin"),
        (event("stop-coder"), "the coder stops"),
    ];
    for (input, why) in &table {
        let direct = hook(WARDEN, &theirs, input);
        let client = hook(&client(), &ours, input);
        assert_eq!(client.0, direct.0, "{why}: the same exit code ({client:?} / {direct:?})");
        assert_eq!(client.1, direct.1, "{why}: the same answer");
        assert!(matches!(client.0, Some(0 | 2)), "{why}: {client:?}");
        if client.0 == Some(2) {
            assert!(!client.2.is_empty() && client.1.is_empty(), "{why}: a reason, no answer");
        }
    }
    let refused = hook(&client(), &ours, &table[4].0);
    assert!(refused.1.contains("deny"), "the refused call is a deny: {refused:?}");
    stop(our_server);
    stop(their_server);
    let (mine, yours) = (kinds(&ours), kinds(&theirs));
    assert_eq!(mine[..yours.len()], yours[..], "the same events, in the same order");
    assert!(mine.iter().any(|(kind, _)| kind == "tool_call_authorized"), "{mine:?}");
}

/// A fake server on `socket` that runs `behave` on each connection.
fn fake_server(socket: &Path, behave: fn(UnixStream)) {
    std::fs::create_dir_all(socket.parent().unwrap()).unwrap();
    let listener = std::os::unix::net::UnixListener::bind(socket).unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || behave(stream));
        }
    });
}

fn answer_with(mut stream: UnixStream, body: &[u8]) {
    let mut header = [0_u8; 4];
    if stream.read_exact(&mut header).is_err() {
        return;
    }
    let mut request = vec![0_u8; usize::try_from(u32::from_be_bytes(header)).unwrap()];
    if stream.read_exact(&mut request).is_err() {
        return;
    }
    let mut frame = u32::try_from(body.len()).unwrap().to_be_bytes().to_vec();
    frame.extend_from_slice(body);
    let _ = stream.write_all(&frame);
}

#[test]
fn a_server_that_is_down_silent_or_talking_nonsense_or_none_at_all_is_exit_2() {
    let p = Project::new();
    let spawn = event("pre-task-main-planner");
    type Case<'a> = (&'a str, Option<fn(UnixStream)>, &'a str);
    let cases: [Case<'_>; 6] = [
        ("down", None, "server_unavailable"),
        ("garbage", Some(|s| answer_with(s, b"allow")), "server_answer_invalid"),
        (
            "a rendering, not a decision (V-52)",
            Some(|s| {
                answer_with(s, br#"{"version":2,"kind":"hook","exit_code":1,"stdout":null,"stderr":null}"#)
            }),
            "server_answer_invalid",
        ),
        (
            "version 1",
            Some(|s| answer_with(s, br#"{"version":1,"kind":"hook","decision":"proceed","reason":null}"#)),
            "server_answer_invalid",
        ),
        (
            "a reason beside proceed",
            Some(|s| {
                answer_with(s, br#"{"version":2,"kind":"hook","decision":"proceed","reason":"{}\n{}"}"#)
            }),
            "server_answer_invalid",
        ),
        (
            "silent",
            Some(|s| {
                let _ = s;
                std::thread::sleep(Duration::from_secs(30));
            }),
            "",
        ),
    ];
    for (i, (name, behave, code)) in cases.into_iter().enumerate() {
        let socket = p.dir.path().join(format!("fake{i}.sock"));
        if let Some(behave) = behave {
            fake_server(&socket, behave);
        }
        let socket = socket.display().to_string();
        let started = Instant::now();
        let args = ["hook", "--config", "agentwarden.toml", "--server", &socket, "--deadline-ms", "1500"];
        let out = run(&client(), &p, &args, &spawn);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {stderr}");
        assert!(out.stdout.is_empty(), "{name}: nothing on stdout");
        assert!(stderr.contains(code), "{name}: {stderr}");
        if name == "silent" {
            assert!(
                stderr.contains("deadline_passed") || stderr.contains("server_unavailable"),
                "{name}: {stderr}"
            );
        }
        assert!(started.elapsed() < Duration::from_secs(10), "{name}: within the deadline");
    }
    // No server on the line: it does not decide by itself, and opens no store.
    let out = run(&client(), &p, &["hook", "--config", "agentwarden.toml"], &spawn);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no `--server`"));
    // A store named, an unknown option: exit 2.
    for args in [&["--store", "x", "hook", "--server", "/s"][..], &["hook", "--json"], &[]] {
        let out = run(&client(), &p, args, &spawn);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    // An option given twice is refused as `warden hook` refuses it, not read as its last (V-72).
    let twice = ["hook", "--server", "/s", "--deadline-ms", "1000", "--deadline-ms", "2000"];
    for bin in [client().as_str(), WARDEN] {
        let out = run(bin, &p, &twice, &spawn);
        assert_eq!(out.status.code(), Some(2), "{bin}");
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(said.contains("--deadline-ms") && !said.contains("server_unavailable"), "{bin}: {said}");
    }
    assert!(!p.root.join(".agentwarden").exists() && !p.store.exists(), "the client opened no store");
}

/// On a stop's line (`--halt-on-failure`) the same failures — a server down, talking nonsense,
/// silent past the deadline, none named, a line it cannot read — are the harness's halt, exit 0
/// with `continue: false` and the failure's code in the reason, for every harness, through
/// `warden-hook` and `warden hook --server` alike (H-57; a block stays a block: `harness.rs`).
#[test]
fn on_a_stops_line_every_failure_of_the_client_is_the_halt() {
    let p = Project::new();
    let stop = format!(
        r#"{{"session_id":"s-halt","transcript_path":"/t","cwd":{},"hook_event_name":"Stop","stop_hook_active":false}}"#,
        Value::from(p.root.to_str().unwrap())
    );
    type Case<'a> = (&'a str, Option<fn(UnixStream)>, &'a str);
    let cases: [Case<'_>; 3] = [
        ("down", None, "server_unavailable"),
        ("garbage", Some(|s| answer_with(s, b"allow")), "server_answer_invalid"),
        (
            "silent",
            Some(|s| {
                let _ = s;
                std::thread::sleep(Duration::from_secs(30));
            }),
            "",
        ),
    ];
    let halted = |out: &Output, words: &str, why: &str| {
        assert_eq!(out.status.code(), Some(0), "{why}: {}", String::from_utf8_lossy(&out.stderr));
        let answer: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{why}: {e}: {}", String::from_utf8_lossy(&out.stdout)));
        assert_eq!(answer["continue"], Value::Bool(false), "{why}: {answer}");
        let reason = answer["stopReason"].as_str().unwrap_or_default();
        assert!(
            reason.starts_with("Agent Warden stopped the session: ") && reason.contains(words),
            "{why}: {reason}"
        );
    };
    for (i, (name, behave, code)) in cases.into_iter().enumerate() {
        let socket = p.dir.path().join(format!("halt{i}.sock"));
        if let Some(behave) = behave {
            fake_server(&socket, behave);
        }
        let socket = socket.display().to_string();
        for harness in ["claude-code", "codex", "gemini"] {
            let args = [
                "hook",
                "--config",
                "agentwarden.toml",
                "--server",
                &socket,
                "--deadline-ms",
                "1500",
                "--harness",
                harness,
                "--halt-on-failure",
            ];
            let out = run(&client(), &p, &args, &stop);
            halted(&out, code, &format!("{name}, {harness}"));
            if name == "down" {
                let out = run(WARDEN, &p, &args, &stop);
                halted(&out, code, &format!("{name}, {harness}, warden hook --server"));
            }
        }
    }
    let out = run(&client(), &p, &["hook", "--config", "agentwarden.toml", "--halt-on-failure"], &stop);
    halted(&out, "server_unavailable", "no server named");
    let out = run(&client(), &p, &["hook", "--json", "--halt-on-failure"], &stop);
    halted(&out, "usage_invalid", "a line it cannot read");
    let out = run(WARDEN, &p, &["hook", "--harness", "no-such-harness", "--halt-on-failure"], &stop);
    halted(&out, "usage_invalid", "a line warden cannot read");
}

#[test]
fn init_with_a_server_installs_the_client_binary_beside_warden() {
    let p = Project::new();
    let socket = p.socket().display().to_string();
    let root = p.root.display().to_string();
    let out = run(WARDEN, &p, &["init", "claude-code", "--project", &root, "--server", &socket], "");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let settings: Value =
        serde_json::from_str(&std::fs::read_to_string(p.root.join(".claude/settings.json")).unwrap())
            .unwrap();
    let line = settings["hooks"]["PreToolUse"].as_array().unwrap().last().unwrap()["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .to_owned();
    let client = std::fs::canonicalize(client()).unwrap().display().to_string();
    assert!(line.starts_with(&format!("'{client}' ")), "{line}");
    assert!(line.contains(&format!("--server '{socket}'")), "{line}");
    // Claude Code runs it with `sh -c`: the server down, exit 2.
    let out = bounded(
        Command::new("sh")
            .arg("-c")
            .arg(&line)
            .current_dir(&p.root)
            .env("CLAUDE_PROJECT_DIR", &p.root)
            .env_remove("AGENTWARDEN_SERVER")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    // `warden doctor` reads the line back: the binary exists, the tail fails closed.
    let out = run(WARDEN, &p, &["doctor", "--project", &root], "");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(&format!("`{client}` exists and is executable")), "{text}");
}
