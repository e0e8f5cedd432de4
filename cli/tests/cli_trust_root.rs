//! Who decides, which log, which key: from the command line alone, for every command (V-67).
//!
//! The agent under guard has the user's shell. It can append `[server] socket` (and `uid`,
//! `log_key`) or `[store] url` to any `agentwarden.toml`, set `AGENTWARDEN_SERVER` and
//! `AGENTWARDEN_STORE` in what it starts, point `HOME` and `XDG_*` at its own files, and listen on
//! a Unix socket of its own that answers "allow" (issue 47: `warden gate` of a request the gate
//! denies printed `ALLOW MANAGER -> PREPARATION` from such a server). Here every subcommand of the
//! command-line definition — walked from `agentwarden_cli::command()`, so a new one without a row
//! fails this test — runs as the real `warden` binary against each of those inputs, and:
//!
//! - the agent's socket is never connected to, and its PostgreSQL address never reached;
//! - the agent's store directory is never created;
//! - a command that asks a server or opens a store refuses (exit 2, `trust_root_refused`) an input
//!   that would have chosen one, and every other command answers as it does without it.

#![expect(clippy::unwrap_used, reason = "test code: a failed unwrap is a failed test")]

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

mod bounded;
#[expect(dead_code, reason = "the shared test support; this test copies, it does not commit")]
mod support;

const WARDEN: &str = env!("CARGO_BIN_EXE_warden");
const EXAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples");

/// How a command meets the trust root (V-67).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Asks a server, opens a store or signs: a configured server or store refuses it.
    Resolves,
    /// `warden hook`: its line names its server (V-49); a configured store refuses it, and the
    /// variables are ignored.
    Hook,
    /// `warden serve`: an implicit configuration naming its socket, key or store refuses it.
    Serve,
    /// Opens no store and asks no server: only the variables refuse it.
    Free,
}

/// One invocation per subcommand, by its path under `warden`. In the arguments, `{tmp}` is a
/// scratch directory of the run, `{key}` the operator's log key, `{warden}` the binary. The
/// working directory is the project's root (an `agentwarden.toml` there; the repository's
/// examples under `examples/`).
const ROWS: &[(&str, Kind, &[&str], &str)] = &[
    (
        "gate",
        Kind::Resolves,
        &[
            "gate",
            "--config",
            "examples/agentwarden.toml",
            "--request",
            "examples/requests/example-3-context-not-sealed.json",
        ],
        "",
    ),
    (
        "lineage check",
        Kind::Resolves,
        &[
            "lineage",
            "check",
            "--config",
            "examples/agentwarden.toml",
            "--lineage",
            "examples/lineage/three-levels.json",
        ],
        "",
    ),
    (
        "authorize",
        Kind::Resolves,
        &[
            "authorize",
            "--config",
            "examples/agentwarden.toml",
            "--request",
            "examples/lineage/authorize-escalation.json",
        ],
        "",
    ),
    (
        "fanout plan",
        Kind::Resolves,
        &[
            "fanout",
            "plan",
            "--config",
            "examples/fanout/agentwarden.toml",
            "--items",
            "examples/fanout/items.json",
            "--phase",
            "tests",
        ],
        "",
    ),
    (
        "fanout run",
        Kind::Resolves,
        &[
            "fanout",
            "run",
            "--config",
            "examples/fanout/agentwarden.toml",
            "--items",
            "examples/fanout/items.json",
            "--phase",
            "tests",
            "--",
            "true",
        ],
        "",
    ),
    ("fanout merge", Kind::Free, &["fanout", "merge", "{tmp}/no-chunk.json"], ""),
    ("guard snapshot", Kind::Resolves, &["guard", "snapshot", "--out", "{tmp}/before.json"], ""),
    (
        "guard run",
        Kind::Resolves,
        &["guard", "run", "--item", "ITEM-1", "--run", "R-1", "--artifacts", "{tmp}/out", "--", "true"],
        "",
    ),
    (
        "guard check",
        Kind::Resolves,
        &[
            "guard",
            "check",
            "--snapshot",
            "{tmp}/no-snapshot.json",
            "--item",
            "ITEM-1",
            "--run",
            "R-1",
            "--artifacts",
            "{tmp}/out",
        ],
        "",
    ),
    (
        "result validate",
        Kind::Resolves,
        &["result", "validate", "{tmp}/no-result.json", "--item", "ITEM-1", "--run", "R-1"],
        "",
    ),
    ("audit log", Kind::Resolves, &["audit", "log"], ""),
    ("audit explain", Kind::Resolves, &["audit", "explain", "1"], ""),
    ("audit replay", Kind::Resolves, &["audit", "replay", "--projection", "denials"], ""),
    ("audit timeline", Kind::Resolves, &["audit", "timeline", "--session", "s-1"], ""),
    ("audit show", Kind::Resolves, &["audit", "show", "1"], ""),
    ("audit verify", Kind::Resolves, &["audit", "verify"], ""),
    ("audit checkpoint", Kind::Resolves, &["audit", "checkpoint", "--key", "{key}"], ""),
    (
        "audit keygen",
        Kind::Free,
        &["audit", "keygen", "--origin", "example.com/log", "--out", "{tmp}/new.key"],
        "",
    ),
    ("audit prove", Kind::Resolves, &["audit", "prove", "1", "--checkpoint", "{tmp}/no-checkpoint.txt"], ""),
    (
        "audit verify-proof",
        Kind::Free,
        &[
            "audit",
            "verify-proof",
            "--proof",
            "{tmp}/no.proof",
            "--checkpoint",
            "{tmp}/no-checkpoint.txt",
            "--verifier",
            "x+1+AA",
        ],
        "",
    ),
    (
        "audit witness-request",
        Kind::Resolves,
        &["audit", "witness-request", "--old", "0", "--checkpoint", "{tmp}/no-checkpoint.txt"],
        "",
    ),
    ("audit export", Kind::Resolves, &["audit", "export", "--format", "jsonl"], ""),
    ("audit stats", Kind::Resolves, &["audit", "stats"], ""),
    ("audit copy", Kind::Resolves, &["audit", "copy", "--from", "{tmp}/no-store", "--to", "{tmp}/copy"], ""),
    (
        "audit report",
        Kind::Resolves,
        &["audit", "report", "--session", "s-1", "--out", "{tmp}/report.html"],
        "",
    ),
    ("audit note", Kind::Resolves, &["audit", "note", "maintenance", "--actor", "alice"], ""),
    ("hook", Kind::Hook, &["hook"], "protected-edit"),
    ("seal", Kind::Resolves, &["seal", "--by", "alice"], ""),
    ("approve", Kind::Resolves, &["approve", "--ref", "GATE-1", "--by", "alice"], ""),
    ("revoke", Kind::Resolves, &["revoke", "--ref", "GATE-1", "--by", "alice"], ""),
    ("approvals", Kind::Resolves, &["approvals"], ""),
    ("release", Kind::Resolves, &["release", "--session", "s-1", "--by", "alice"], ""),
    ("init claude-code", Kind::Resolves, &["init", "claude-code", "--warden", "{warden}"], ""),
    (
        "init codex",
        Kind::Resolves,
        &["init", "codex", "--warden", "{warden}", "--codex-home", "{tmp}/codex"],
        "",
    ),
    ("init gemini", Kind::Resolves, &["init", "gemini", "--warden", "{warden}"], ""),
    ("init copilot", Kind::Resolves, &["init", "copilot", "--warden", "{warden}"], ""),
    ("doctor", Kind::Resolves, &["doctor"], ""),
    // The socket's directory is a file: the start fails at once where nothing refuses it.
    ("serve", Kind::Serve, &["serve", "--socket", "{tmp}/a-file/w.sock"], ""),
    ("status", Kind::Resolves, &["status"], ""),
    (
        "witness keygen",
        Kind::Free,
        &["witness", "keygen", "--name", "w.example.com/w1", "--out", "{tmp}/w.key"],
        "",
    ),
    (
        "witness add-checkpoint",
        Kind::Free,
        &[
            "witness",
            "add-checkpoint",
            "--key",
            "{tmp}/no-w.key",
            "--log",
            "x+1+AA",
            "--state",
            "{tmp}/state",
        ],
        "",
    ),
    (
        "witness serve",
        Kind::Free,
        &[
            "witness",
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--key",
            "{tmp}/no-w.key",
            "--state",
            "{tmp}/state",
            "--log",
            "x+1+AA",
        ],
        "",
    ),
    ("completions", Kind::Free, &["completions", "bash"], ""),
    ("manpages", Kind::Free, &["manpages", "{tmp}/man"], ""),
];

/// Every leaf subcommand's path under `warden`, hidden ones too.
fn leaves(command: &clap::Command, prefix: &str, into: &mut BTreeSet<String>) {
    for sub in command.get_subcommands() {
        let path = if prefix.is_empty() {
            sub.get_name().to_owned()
        } else {
            format!("{prefix} {}", sub.get_name())
        };
        if sub.get_subcommands().next().is_none() {
            into.insert(path);
        } else {
            leaves(sub, &path, into);
        }
    }
}

/// A listener of the agent's that counts every connection and answers "allow".
struct Trap {
    connections: Arc<AtomicUsize>,
}

impl Trap {
    fn count(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }

    /// A Unix socket server answering every frame with a hook's proceed.
    fn unix(path: &Path) -> Trap {
        let listener = UnixListener::bind(path).unwrap();
        let connections = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&connections);
        std::thread::spawn(move || {
            for mut stream in listener.incoming().flatten() {
                counter.fetch_add(1, Ordering::SeqCst);
                std::thread::spawn(move || {
                    let mut header = [0_u8; 4];
                    if stream.read_exact(&mut header).is_ok() {
                        let mut body =
                            vec![0_u8; usize::try_from(u32::from_be_bytes(header).min(1 << 20)).unwrap()];
                        let _ = stream.read_exact(&mut body);
                        let answer = br#"{"version":2,"kind":"hook","decision":"proceed","reason":null}"#;
                        let mut frame = u32::try_from(answer.len()).unwrap().to_be_bytes().to_vec();
                        frame.extend_from_slice(answer);
                        let _ = stream.write_all(&frame);
                    }
                });
            }
        });
        Trap { connections }
    }

    /// A TCP listener where the agent's PostgreSQL "store" would be.
    fn tcp() -> (Trap, u16) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let connections = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&connections);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                counter.fetch_add(1, Ordering::SeqCst);
                drop(stream);
            }
        });
        (Trap { connections }, port)
    }
}

/// What the agent can write, one at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Input {
    /// Nothing: what the command does on its own.
    Baseline,
    /// `[server] socket`, `uid` and `log_key` appended to every `agentwarden.toml`.
    ConfigServer,
    /// `[store] url` naming a directory of the agent's.
    ConfigStoreDir,
    /// `[store] url` naming a PostgreSQL server of the agent's.
    ConfigStorePg,
    /// `AGENTWARDEN_SERVER`.
    EnvServer,
    /// `AGENTWARDEN_STORE` naming a directory of the agent's.
    EnvStoreDir,
    /// `AGENTWARDEN_STORE` naming a PostgreSQL server of the agent's.
    EnvStorePg,
    /// `HOME`, `XDG_CONFIG_HOME`, `XDG_DATA_HOME` at the agent's files.
    Home,
}

const INPUTS: [Input; 7] = [
    Input::ConfigServer,
    Input::ConfigStoreDir,
    Input::ConfigStorePg,
    Input::EnvServer,
    Input::EnvStoreDir,
    Input::EnvStorePg,
    Input::Home,
];

/// What a command must do with `input` (V-67, V-49).
fn refused(kind: Kind, input: Input) -> bool {
    match input {
        Input::Baseline | Input::Home => false,
        Input::EnvServer | Input::EnvStoreDir | Input::EnvStorePg => kind != Kind::Hook,
        Input::ConfigServer => matches!(kind, Kind::Resolves | Kind::Serve),
        Input::ConfigStoreDir | Input::ConfigStorePg => kind != Kind::Free,
    }
}

/// The agent: its socket, its PostgreSQL trap, its files.
struct Agent {
    dir: tempfile::TempDir,
    socket: Trap,
    postgres: Trap,
    port: u16,
}

impl Agent {
    fn new() -> Agent {
        let dir = tempfile::Builder::new().prefix("agent").tempdir_in("/tmp").unwrap();
        let socket = Trap::unix(&dir.path().join("a.sock"));
        let (postgres, port) = Trap::tcp();
        let home = dir.path().join("home");
        std::fs::create_dir_all(home.join(".config/agentwarden")).unwrap();
        std::fs::create_dir_all(home.join(".local/share")).unwrap();
        std::fs::write(home.join("agentwarden.toml"), Self::config_server_text(dir.path())).unwrap();
        Agent { dir, socket, postgres, port }
    }

    fn config_server_text(dir: &Path) -> String {
        // SAFETY of the test's meaning: the uid is the test's own, so a client checking the peer
        // would believe the agent's server.
        let uid = rustix_uid();
        format!(
            "\n[server]\nsocket = \"{}\"\nuid = {uid}\nlog_key = \"{}\"\n",
            dir.join("a.sock").display(),
            dir.join("home/.config/agentwarden/log.key").display()
        )
    }

    fn store_dir(&self) -> PathBuf {
        self.dir.path().join("store")
    }

    fn store_url(&self) -> String {
        format!("postgres://agent@127.0.0.1:{}/agent", self.port)
    }
}

fn rustix_uid() -> u32 {
    let out = Command::new("id").arg("-u").output().unwrap();
    String::from_utf8(out.stdout).unwrap().trim().parse().unwrap()
}

/// The operator's log key, made once (mode 600: `std::fs::copy` keeps it).
fn operator_key() -> &'static Path {
    static KEY: std::sync::OnceLock<(tempfile::TempDir, PathBuf)> = std::sync::OnceLock::new();
    &KEY.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let key = dir.path().join("operator.key");
        let out = Command::new(WARDEN)
            .args(["audit", "keygen", "--origin", "example.com/log", "--out"])
            .arg(&key)
            .env_remove("AGENTWARDEN_STORE")
            .env_remove("AGENTWARDEN_SERVER")
            .output()
            .unwrap();
        assert!(out.status.success(), "keygen: {}", String::from_utf8_lossy(&out.stderr));
        (dir, key)
    })
    .1
}

/// A fresh project: the Claude Code example at its root, the repository's examples under
/// `examples/`, the operator's log key beside it.
fn project(scratch: &Path) -> (PathBuf, PathBuf) {
    let root = scratch.join("project");
    support::copy_dir(Path::new(support::EXAMPLE), &root);
    support::copy_dir(Path::new(EXAMPLES), &root.join("examples"));
    std::fs::write(scratch.join("a-file"), "").unwrap();
    let key = scratch.join("operator.key");
    std::fs::copy(operator_key(), &key).unwrap();
    (root, key)
}

/// Every `agentwarden.toml` under `dir`.
fn configs(dir: &Path, into: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if entry.file_type().unwrap().is_dir() {
            configs(&path, into);
        } else if path.file_name().is_some_and(|n| n == "agentwarden.toml") {
            into.push(path);
        }
    }
}

fn append(path: &Path, text: &str) {
    let before = std::fs::read_to_string(path).unwrap();
    std::fs::write(path, format!("{before}\n{text}\n")).unwrap();
}

/// The main session's `Edit` of the protected `okrs/q4.md`.
fn protected_edit(root: &Path) -> String {
    serde_json::json!({
        "session_id": "demo-session", "hook_event_name": "PreToolUse", "cwd": root,
        "tool_name": "Edit", "tool_use_id": "toolu_edit_okrs",
        "tool_input": {"file_path": "okrs/q4.md", "old_string": "Q4", "new_string": "Q5"},
    })
    .to_string()
}

/// Runs one row with one input, in a fresh project.
fn run(agent: &Agent, row: &(&str, Kind, &[&str], &str), input: Input) -> Output {
    let scratch = tempfile::tempdir().unwrap();
    let (root, key) = project(scratch.path());
    let tmp = scratch.path().display().to_string();
    let args: Vec<String> = row
        .2
        .iter()
        .map(|a| {
            a.replace("{tmp}", &tmp).replace("{key}", &key.display().to_string()).replace("{warden}", WARDEN)
        })
        .collect();
    let mut command = Command::new(WARDEN);
    command
        .args(&args)
        .current_dir(&root)
        .env_remove("CLAUDECODE")
        .env_remove("CODEX_THREAD_ID")
        .env_remove("GEMINI_CLI")
        .env_remove("AGENTWARDEN_SERVER")
        .env_remove("AGENTWARDEN_STORE")
        .env_remove("AGENTWARDEN_ENABLE_SUBAGENTS")
        .env_remove("CHIRALITY_ENABLE_SUBAGENTS")
        .env_remove("RUST_LOG")
        .env("HOME", scratch.path())
        .env("XDG_CONFIG_HOME", scratch.path().join(".config"))
        .env("XDG_DATA_HOME", scratch.path().join(".local/share"));
    let mut all = Vec::new();
    configs(&root, &mut all);
    let store_dir = agent.store_dir().display().to_string();
    match input {
        Input::Baseline => {}
        Input::ConfigServer => {
            all.iter().for_each(|c| append(c, &Agent::config_server_text(agent.dir.path())))
        }
        Input::ConfigStoreDir => {
            all.iter().for_each(|c| append(c, &format!("[store]\nurl = \"{store_dir}\"")))
        }
        Input::ConfigStorePg => {
            all.iter().for_each(|c| append(c, &format!("[store]\nurl = \"{}\"", agent.store_url())))
        }
        Input::EnvServer => {
            command.env("AGENTWARDEN_SERVER", agent.dir.path().join("a.sock"));
        }
        Input::EnvStoreDir => {
            command.env("AGENTWARDEN_STORE", &store_dir);
        }
        Input::EnvStorePg => {
            command.env("AGENTWARDEN_STORE", agent.store_url());
        }
        Input::Home => {
            let home = agent.dir.path().join("home");
            command
                .env("HOME", &home)
                .env("XDG_CONFIG_HOME", home.join(".config"))
                .env("XDG_DATA_HOME", home.join(".local/share"));
        }
    }
    let stdin = match row.3 {
        "protected-edit" => protected_edit(&root),
        _ => String::new(),
    };
    let mut child =
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    bounded::bounded(child, Duration::from_secs(60))
}

#[test]
fn every_subcommand_has_a_row() {
    let mut walked = BTreeSet::new();
    leaves(&agentwarden_cli::command(), "", &mut walked);
    let rows: BTreeSet<String> = ROWS.iter().map(|r| r.0.to_owned()).collect();
    let missing: Vec<_> = walked.difference(&rows).collect();
    assert!(missing.is_empty(), "subcommands without a row in ROWS (add one): {missing:?}");
    let stale: Vec<_> = rows.difference(&walked).collect();
    assert!(stale.is_empty(), "rows for no subcommand: {stale:?}");
}

/// The issue's example, exactly: the gate's denial stays a denial with the agent's server
/// configured and listening (kill switch off).
#[test]
fn a_configured_server_never_turns_the_gates_denial_into_an_allow() {
    let agent = Agent::new();
    let gate = ROWS.iter().find(|r| r.0 == "gate").unwrap();
    let out = run(&agent, gate, Input::ConfigServer);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stdout.contains("ALLOW"), "{stdout}");
    assert_eq!(out.status.code(), Some(2), "refused: {stderr}");
    assert!(stderr.contains("trust_root_refused") && stderr.contains("--server PATH"), "{stderr}");
    assert_eq!(agent.socket.count(), 0, "the agent's server was never asked");
}

#[test]
fn nothing_the_agent_writes_chooses_the_decider_or_the_log_of_any_command() {
    let agent = Agent::new();
    let mut failures = Vec::new();
    for row in ROWS {
        let baseline = run(&agent, row, Input::Baseline);
        for input in INPUTS {
            let before = (agent.socket.count(), agent.postgres.count());
            let out = run(&agent, row, input);
            let stderr = String::from_utf8_lossy(&out.stderr);
            let stdout = String::from_utf8_lossy(&out.stdout);
            let mut fail = |why: String| failures.push(format!("`warden {}` with {input:?}: {why}", row.0));
            if agent.socket.count() != before.0 {
                fail("connected to the agent's socket".into());
            }
            if agent.postgres.count() != before.1 {
                fail("reached the agent's PostgreSQL address".into());
            }
            if agent.store_dir().exists() {
                fail("created the agent's store".into());
                let _ = std::fs::remove_dir_all(agent.store_dir());
            }
            if stdout.contains("ALLOW") && !String::from_utf8_lossy(&baseline.stdout).contains("ALLOW") {
                fail(format!("allowed: {stdout}"));
            }
            if refused(row.1, input) {
                if out.status.code() != Some(2) || !stderr.contains("trust_root_refused") {
                    fail(format!("not refused (exit {:?}): {stderr}", out.status.code()));
                }
                if stderr.lines().count() != 1 {
                    fail(format!("the refusal is not one line: {stderr}"));
                }
            } else if out.status.code() != baseline.status.code() {
                fail(format!(
                    "exit {:?}, without it {:?}: {stderr}",
                    out.status.code(),
                    baseline.status.code()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}
