//! Who decides a hook is named by its command line alone — the line a human installed —
//! never by a file or variable the agent can write. The attack this closes (issue 34): in direct
//! mode, an agent with a shell appends `[server] socket = …` to `agentwarden.toml` (or sets
//! `AGENTWARDEN_SERVER` through settings it can write) and starts a socket server of its own that
//! answers every hook with exit 0; every later hook asked it. Here a fake server that allows
//! everything stands at every path the agent could name, and the hook must never ask it (V-49).

#![expect(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "test code: a failed unwrap or index is a failed test"
)]

use std::io::{Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::Value;

mod bounded;
mod client_bin;
mod support;

use client_bin::client;
use support::committed_example;

const WARDEN: &str = env!("CARGO_BIN_EXE_warden");

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

    /// What the agent appends to the configuration.
    fn append_to_config(&self, text: &str) {
        let path = self.root.join("agentwarden.toml");
        let before = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, format!("{before}\n{text}")).unwrap();
    }
}

/// The agent's own server: it answers every request with "exit 0, nothing to say" — an allow —
/// and counts the requests it read.
struct AllowingServer {
    socket: PathBuf,
    asked: Arc<AtomicUsize>,
}

impl AllowingServer {
    fn start(socket: PathBuf) -> AllowingServer {
        let listener = UnixListener::bind(&socket).unwrap();
        let asked = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&asked);
        std::thread::spawn(move || {
            for mut stream in listener.incoming().flatten() {
                let counter = Arc::clone(&counter);
                std::thread::spawn(move || {
                    if read_request(&mut stream).is_some() {
                        counter.fetch_add(1, Ordering::SeqCst);
                        let body = br#"{"version":2,"kind":"hook","decision":"proceed","reason":null}"#;
                        let mut frame = u32::try_from(body.len()).unwrap().to_be_bytes().to_vec();
                        frame.extend_from_slice(body);
                        let _ = stream.write_all(&frame);
                    }
                });
            }
        });
        AllowingServer { socket, asked }
    }

    fn asked(&self) -> usize {
        self.asked.load(Ordering::SeqCst)
    }
}

fn read_request(stream: &mut UnixStream) -> Option<Vec<u8>> {
    let mut header = [0_u8; 4];
    stream.read_exact(&mut header).ok()?;
    let mut request = vec![0_u8; usize::try_from(u32::from_be_bytes(header)).ok()?];
    stream.read_exact(&mut request).ok()?;
    Some(request)
}

/// Runs `bin ARGS` in the project with `stdin` and the variables `env` (nothing else of Warden's).
fn run(bin: &str, p: &Project, args: &[&str], env: &[(&str, &Path)], stdin: &str) -> Output {
    let mut command = Command::new(bin);
    command
        .args(args)
        .current_dir(&p.root)
        .env_remove("CLAUDECODE")
        .env_remove("AGENTWARDEN_SERVER")
        .env_remove("AGENTWARDEN_STORE")
        .env("AGENTWARDEN_ENABLE_SUBAGENTS", "true");
    for (name, value) in env {
        command.env(name, value);
    }
    let mut child =
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    bounded::bounded(child, Duration::from_secs(60))
}

/// The main session's `Edit` of the protected `okrs/q4.md`.
fn protected_edit(p: &Project) -> String {
    serde_json::json!({
        "session_id": "demo-session", "hook_event_name": "PreToolUse", "cwd": p.root,
        "tool_name": "Edit", "tool_use_id": "toolu_edit_okrs",
        "tool_input": {"file_path": "okrs/q4.md", "old_string": "Q4", "new_string": "Q5"},
    })
    .to_string()
}

/// The main session's start, which keeps the configuration that decides its calls (H-58).
fn session_start(p: &Project) -> String {
    serde_json::json!({
        "session_id": "demo-session", "hook_event_name": "SessionStart", "cwd": p.root, "source": "startup",
    })
    .to_string()
}

fn denied(out: &Output) -> bool {
    let stdout = String::from_utf8_lossy(&out.stdout);
    out.status.code() == Some(0) && stdout.contains(r#""permissionDecision":"deny""#)
}

/// Every event's (type, decision) in the store at `store`, read from outside the project (whose
/// configuration the agent may have made name a server: V-67 refuses it there).
fn decisions(p: &Project, store: &Path) -> Vec<(String, Value)> {
    let out = Command::new(WARDEN)
        .args(["--store", store.to_str().unwrap(), "audit", "export", "--format", "jsonl"])
        .current_dir(p.dir.path())
        .env_remove("AGENTWARDEN_SERVER")
        .env_remove("AGENTWARDEN_STORE")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .map(|e| (e["event_type"].as_str().unwrap().to_owned(), e["payload"]["decision"].clone()))
        .collect()
}

#[test]
fn the_configuration_and_the_environment_name_no_server_for_the_installed_direct_line() {
    let p = Project::new();
    let in_config = AllowingServer::start(p.dir.path().join("agent.sock"));
    let in_env = AllowingServer::start(p.dir.path().join("env.sock"));
    p.append_to_config(&format!("[server]\nsocket = \"{}\"\n", in_config.socket.display()));
    let store = p.store.display().to_string();
    // The direct line as `warden init claude-code` installs it: it names the store, no server.
    let line = ["--store", &store, "--lock-timeout-ms", "5000", "hook", "--config", "agentwarden.toml"];
    let started = run(WARDEN, &p, &line, &[], &session_start(&p));
    assert_eq!(started.status.code(), Some(0), "{started:?}");
    for env in [&[][..], &[("AGENTWARDEN_SERVER", in_env.socket.as_path())]] {
        let out = run(WARDEN, &p, &line, env, &protected_edit(&p));
        assert!(denied(&out), "{env:?}: {out:?}");
    }
    assert_eq!((in_config.asked(), in_env.asked()), (0, 0), "the agent's server was asked");
    // Decided here, and recorded in the line's store.
    let recorded = decisions(&p, &p.store);
    assert!(recorded.iter().filter(|(_, d)| d == "deny").count() >= 2, "{recorded:?}");

    // The hook client has no decision of its own: without `--server` on its line it asks no
    // server the configuration or the environment names, and fails closed.
    let client_line = ["--lock-timeout-ms", "5000", "hook", "--config", "agentwarden.toml"];
    for env in [&[][..], &[("AGENTWARDEN_SERVER", in_env.socket.as_path())]] {
        let out = run(&client(), &p, &client_line, env, &protected_edit(&p));
        assert_eq!(out.status.code(), Some(2), "{env:?}: {out:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("no `--server`"), "{out:?}");
    }
    assert_eq!((in_config.asked(), in_env.asked()), (0, 0), "the agent's server was asked");
}

#[test]
fn the_environment_names_no_store_for_the_hook() {
    let p = Project::new();
    let elsewhere = p.dir.path().join("elsewhere");
    // A line that names no store: the project's default, whatever `AGENTWARDEN_STORE` says.
    let line = ["hook", "--config", "agentwarden.toml"];
    let started = run(WARDEN, &p, &line, &[("AGENTWARDEN_STORE", elsewhere.as_path())], &session_start(&p));
    assert_eq!(started.status.code(), Some(0), "{started:?}");
    let out = run(
        WARDEN,
        &p,
        &["hook", "--config", "agentwarden.toml"],
        &[("AGENTWARDEN_STORE", elsewhere.as_path())],
        &protected_edit(&p),
    );
    assert!(denied(&out), "{out:?}");
    assert!(!elsewhere.exists(), "the variable chose the store");
    let default = p.root.join(".agentwarden/audit");
    assert!(decisions(&p, &default).iter().any(|(_, d)| d == "deny"), "recorded in the project's store");
    // Every other command refuses it: no variable names a store (V-67).
    let out = run(WARDEN, &p, &["audit", "verify"], &[("AGENTWARDEN_STORE", default.as_path())], "");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("trust_root_refused"), "{out:?}");
}

#[test]
fn the_line_names_the_servers_user_and_the_configuration_may_only_agree() {
    let p = Project::new();
    let server = AllowingServer::start(p.dir.path().join("warden.sock"));
    let socket = server.socket.display().to_string();
    let own_uid: &'static str = rustix::process::getuid().as_raw().to_string().leak();
    let other_uid = "4242";
    let line = |uid: &'static str| -> [&str; 9] {
        [
            "--lock-timeout-ms",
            "5000",
            "hook",
            "--config",
            "agentwarden.toml",
            "--server",
            &socket,
            "--server-uid",
            uid,
        ]
    };
    for bin in [WARDEN, &client()] {
        // The line believes another user: the server at the path is not asked.
        let before = server.asked();
        let out = run(bin, &p, &line(other_uid), &[], &protected_edit(&p));
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("server_unavailable"), "{out:?}");
        assert_eq!(server.asked(), before, "{bin}: a server of another user was asked");
        // The line believes this user: asked.
        let out = run(bin, &p, &line(own_uid), &[], &protected_edit(&p));
        assert_eq!(out.status.code(), Some(0), "{out:?}");
    }
    assert_eq!(server.asked(), 2);
    // A configuration that names another user than the line: refused before anything is asked.
    p.append_to_config(&format!("[server]\nsocket = \"{socket}\"\nuid = {other_uid}\n"));
    for bin in [WARDEN, &client()] {
        let out = run(bin, &p, &line(own_uid), &[], &protected_edit(&p));
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("config_invalid") && stderr.contains("disagrees"), "{stderr}");
    }
    assert_eq!(server.asked(), 2, "asked despite the disagreement");
}

#[test]
fn init_writes_the_configured_servers_user_into_the_line() {
    let p = Project::new();
    let socket = p.dir.path().join("warden.sock");
    p.append_to_config(&format!("[server]\nsocket = \"{}\"\nuid = 4242\n", socket.display()));
    let root = p.root.display().to_string();
    let out = run(
        WARDEN,
        &p,
        &["init", "claude-code", "--project", &root, "--server", socket.to_str().unwrap()],
        &[],
        "",
    );
    // The configuration's user alone names nobody: the command line must (V-67).
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("--server-uid UID"), "{out:?}");
    let out = run(
        WARDEN,
        &p,
        &[
            "init",
            "claude-code",
            "--project",
            &root,
            "--server",
            socket.to_str().unwrap(),
            "--server-uid",
            "4242",
        ],
        &[],
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let settings = std::fs::read_to_string(p.root.join(".claude/settings.json")).unwrap();
    let settings: Value = serde_json::from_str(&settings).unwrap();
    let lines: Vec<&str> = ["PreToolUse", "SubagentStart", "SubagentStop", "ConfigChange"]
        .iter()
        .flat_map(|event| settings["hooks"][event].as_array().unwrap())
        .flat_map(|entry| entry["hooks"].as_array().unwrap())
        .map(|hook| hook["command"].as_str().unwrap())
        .collect();
    assert_eq!(lines.len(), 4, "{settings}");
    for line in lines {
        assert!(line.contains(&format!("--server '{}' --server-uid 4242 ", socket.display())), "{line}");
    }
}
