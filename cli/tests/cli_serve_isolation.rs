//! Issue 20's isolation (V-11): the server runs as its own OS user that owns the store and the
//! hook's files; a process of the agent's user can connect to the socket but cannot lock,
//! remove or edit the store, and the hooks keep answering. Needs root (to create the two users
//! and switch to them, as CI runs); elsewhere it says so and checks nothing.

#![expect(clippy::unwrap_used, reason = "test code: a failed unwrap is a failed test")]

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

#[expect(dead_code, reason = "the isolation test copies the example and needs no git")]
mod support;

mod users;

use support::{EXAMPLE, copy_dir};
use users::{as_user, ensure_user, is_root};
const BIN: &str = env!("CARGO_BIN_EXE_warden");
const SERVER_USER: &str = "awtest-warden";
const AGENT_USER: &str = "awtest-agent";

fn run(command: &mut Command, stdin: &str) -> Output {
    let mut child =
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn the_agents_user_can_ask_the_server_but_cannot_lock_remove_or_edit_its_store() {
    if !is_root() || Command::new("setpriv").arg("--help").output().is_err() {
        eprintln!("skipped: needs root and setpriv to create and switch users");
        return;
    }
    ensure_user(SERVER_USER);
    ensure_user(AGENT_USER);
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let root = dir.path().join("project");
    copy_dir(Path::new(EXAMPLE), &root);
    let state = dir.path().join("state");
    let run_dir = dir.path().join("run");
    let store = state.join("audit");
    let socket = run_dir.join("warden.sock");
    // The client reads answers only from the server's user (V-12).
    let uid =
        String::from_utf8(Command::new("id").args(["-u", SERVER_USER]).output().unwrap().stdout).unwrap();
    let config = std::fs::read_to_string(root.join("agentwarden.toml")).unwrap();
    std::fs::write(
        root.join("agentwarden.toml"),
        format!("{config}\n[server]\nuid = {}\nsocket = \"../run/warden.sock\"\n", uid.trim()),
    )
    .unwrap();
    // Sealed and approved by the operator, then the state handed to the server's user.
    for args in [&["seal", "--by", "ops"][..], &["approve", "--ref", "GATE-2026-11-23-001", "--by", "ops"]] {
        let out = run(
            // The configuration names the server and its user: so does every command line (V-67).
            Command::new(BIN)
                .arg("--store")
                .arg(&store)
                .arg("--server")
                .arg(&socket)
                .args(["--server-uid", uid.trim()])
                .args(args)
                .current_dir(&root)
                .env_remove("CLAUDECODE"),
            "",
        );
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
    std::fs::create_dir_all(&run_dir).unwrap();
    for d in [&state, &run_dir] {
        let out = Command::new("chown")
            .args(["-R", &format!("{SERVER_USER}:{SERVER_USER}")])
            .arg(d)
            .output()
            .unwrap();
        assert!(out.status.success());
    }
    std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o700)).unwrap();
    std::fs::set_permissions(&run_dir, std::fs::Permissions::from_mode(0o755)).unwrap();

    let mut server = as_user(SERVER_USER, BIN)
        .arg("--store")
        .arg(&store)
        .args(["serve", "--socket-mode", "666", "--socket"])
        .arg(&socket)
        .arg("--config")
        .arg(root.join("agentwarden.toml"))
        .current_dir(&root)
        .env("AGENTWARDEN_ENABLE_SUBAGENTS", "true")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while std::os::unix::net::UnixStream::connect(&socket).is_err() {
        if started.elapsed() > Duration::from_secs(20) || server.try_wait().unwrap().is_some() {
            let _ = server.kill();
            let out = server.wait_with_output().unwrap();
            panic!("the server never answered: {}", String::from_utf8_lossy(&out.stderr));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let spawn =
        std::fs::read_to_string(Path::new(EXAMPLE).join("events/pre-task-main-planner.json")).unwrap();
    let hook = |input: &str| {
        run(
            // The installed line names the server and its user (V-49).
            as_user(AGENT_USER, BIN)
                .args(["hook", "--config"])
                .arg(root.join("agentwarden.toml"))
                .arg("--server")
                .arg(&socket)
                .args(["--server-uid", uid.trim()])
                .current_dir(&root),
            input,
        )
    };
    let out = hook(&spawn);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stdout.is_empty(), "allowed: {}", String::from_utf8_lossy(&out.stdout));

    // The agent's user attacks the store: lock it, remove it, write into it.
    let shell = |script: &str| {
        run(as_user(AGENT_USER, "sh").arg("-c").arg(script).arg("sh").arg(&store).current_dir(&root), "")
    };
    assert!(store.join("db").is_file(), "sled's file, the one its lock is on");
    // The same attack by the store's owner is what the permissions stop (not a missing file).
    let owner = run(as_user(SERVER_USER, "sh").arg("-c").arg(r#"test -w "$1/db""#).arg("sh").arg(&store), "");
    assert!(owner.status.success(), "the server's user can write its store");
    let locked = shell(r#"flock -n -x "$1/db" true"#);
    assert!(!locked.status.success(), "flock on the store must fail");
    let removed = shell(r#"rm -rf "$1""#);
    assert!(!removed.status.success(), "rm -rf must fail");
    let edited = shell(r#"echo x >> "$1/db""#);
    assert!(!edited.status.success(), "an edit must fail");
    assert!(store.exists());
    // The hooks keep answering, and a spawn is still decided by the records.
    let again = hook(&spawn.replace("toolu_01", "toolu_02"));
    assert_eq!(again.status.code(), Some(0), "{}", String::from_utf8_lossy(&again.stderr));
    // The decision commands are served to the agent's user (V-13), but never a path into the
    // store (V-15), and the human verbs refuse while the server answers (V-17).
    let served = |args: &[&str]| {
        run(
            as_user(AGENT_USER, BIN)
                .args(args)
                .arg("--config")
                .arg(root.join("agentwarden.toml"))
                .arg("--server")
                .arg(&socket)
                .args(["--server-uid", uid.trim()])
                .current_dir(&root),
            "",
        )
    };
    let approvals = served(&["approvals", "--json"]);
    assert_eq!(approvals.status.code(), Some(0), "{}", String::from_utf8_lossy(&approvals.stderr));
    assert!(String::from_utf8_lossy(&approvals.stdout).contains("GATE-2026-11-23-001"));
    let into_store = served(&["gate", "--request", store.join("db").to_str().unwrap()]);
    assert_eq!(into_store.status.code(), Some(1), "denied");
    assert!(String::from_utf8_lossy(&into_store.stderr).contains("path_refused"));
    let approve = served(&["approve", "--ref", "GATE-2026-11-23-002"]);
    assert_eq!(approve.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&approve.stderr).contains("server_holds_store"));

    Command::new("kill").args(["-TERM", &server.id().to_string()]).status().unwrap();
    let out = server.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    // Nor can it take the socket's lock file while the server is down, to keep it from
    // starting again.
    let lock = run(
        as_user(AGENT_USER, "sh").arg("-c").arg(r#"flock -n -s "$1.lock" true"#).arg("sh").arg(&socket),
        "",
    );
    assert!(!lock.status.success(), "the lock file is the server's alone");
    let log =
        run(Command::new(BIN).arg("--store").arg(&store).args(["audit", "export", "--format", "jsonl"]), "");
    let text = String::from_utf8(log.stdout).unwrap();
    assert_eq!(text.matches("subagent_spawn_evaluated").count(), 2, "{text}");
    // Each event the server recorded names the agent's uid (V-18).
    let agent =
        String::from_utf8(Command::new("id").args(["-u", AGENT_USER]).output().unwrap().stdout).unwrap();
    let peer = format!("warden-serve peer uid={} pid=", agent.trim());
    let spawns: Vec<&str> = text.lines().filter(|l| l.contains("subagent_spawn_evaluated")).collect();
    assert!(spawns.iter().all(|l| l.contains(&peer)), "{peer}: {spawns:?}");
}
