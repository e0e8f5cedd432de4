//! `warden serve` and the thin client (issue 20, V-1..V-9): the real binary, the example project
//! in a fresh git repository, the server on a socket in a temporary directory. Every child
//! process is bounded in time and killed at the end.

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
mod support;

use support::{EXAMPLE, committed_example, copy_dir, git};
const BIN: &str = env!("CARGO_BIN_EXE_warden");
/// The longest any child may run.
const BOUND: Duration = Duration::from_secs(60);

struct Project {
    dir: tempfile::TempDir,
    root: PathBuf,
    store: PathBuf,
}

impl Project {
    fn socket(&self) -> PathBuf {
        self.dir.path().join("run/warden.sock")
    }
}

fn project() -> Project {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    committed_example(&root);
    Project { store: dir.path().join("audit"), root, dir }
}

/// Waits for `child` at most [`BOUND`] (killed past it), with its output.
fn bounded(child: Child) -> Output {
    bounded::bounded(child, BOUND)
}

/// Runs `warden ARGS` in the project with `stdin`; the kill switch on when `enabled`.
fn warden(p: &Project, args: &[&str], stdin: &str, enabled: bool) -> Output {
    let mut command = Command::new(BIN);
    command.args(args).current_dir(&p.root).env_remove("CLAUDECODE").env_remove("AGENTWARDEN_SERVER");
    if enabled {
        command.env("AGENTWARDEN_ENABLE_SUBAGENTS", "true");
    } else {
        command.env_remove("AGENTWARDEN_ENABLE_SUBAGENTS");
    }
    let mut child =
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    bounded(child)
}

fn store_arg(p: &Project) -> String {
    p.store.display().to_string()
}

/// Seals and approves on the project's store (before its server holds it).
fn approve(p: &Project) {
    let store = store_arg(p);
    for args in [
        &["--store", &store, "seal", "--by", "alice"][..],
        &["--store", &store, "approve", "--ref", "GATE-2026-11-22-001", "--by", "alice"],
    ] {
        let out = warden(p, args, "", true);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

/// A running `warden serve`, killed when dropped.
struct Server {
    child: Option<Child>,
}

impl Server {
    fn start(p: &Project, enabled: bool) -> Server {
        let server = Server::spawn(p, enabled, &[]);
        wait_for(&p.socket());
        server
    }

    fn spawn(p: &Project, enabled: bool, extra: &[&str]) -> Server {
        let mut command = Command::new(BIN);
        command
            .args(["--store", &store_arg(p), "--lock-timeout-ms", "300", "serve", "--socket"])
            .arg(p.socket())
            .args(["--config", "agentwarden.toml"])
            .args(extra)
            .current_dir(&p.root)
            .env_remove("CLAUDECODE")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if enabled {
            command.env("AGENTWARDEN_ENABLE_SUBAGENTS", "true");
        } else {
            command.env_remove("AGENTWARDEN_ENABLE_SUBAGENTS");
        }
        Server { child: Some(command.spawn().unwrap()) }
    }

    fn pid(&self) -> u32 {
        self.child.as_ref().unwrap().id()
    }

    /// SIGTERM, then its exit (bounded).
    fn terminate(mut self) -> Output {
        let status = Command::new("kill").args(["-TERM", &self.pid().to_string()]).status().unwrap();
        assert!(status.success());
        bounded(self.child.take().unwrap())
    }

    /// SIGKILL, then reaped.
    fn kill(mut self) {
        let mut child = self.child.take().unwrap();
        child.kill().unwrap();
        child.wait().unwrap();
    }

    /// Its exit when it stops by itself (bounded).
    fn exited(mut self) -> Output {
        bounded(self.child.take().unwrap())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn wait_for(socket: &Path) {
    let started = Instant::now();
    while UnixStream::connect(socket).is_err() {
        assert!(started.elapsed() < Duration::from_secs(20), "the server never answered at {socket:?}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn event(name: &str) -> String {
    std::fs::read_to_string(Path::new(EXAMPLE).join("events").join(format!("{name}.json"))).unwrap()
}

/// The example session's start, which keeps the configuration that decides its calls while no
/// seal does (H-58).
fn session_start() -> String {
    r#"{"session_id":"demo-session","hook_event_name":"SessionStart","source":"startup","cwd":"."}"#
        .to_owned()
}

/// (exit code, stdout, stderr) of `warden hook` through the server at `socket`, with the kill
/// switch on in the client's environment.
fn via(p: &Project, socket: &Path, input: &str) -> (i32, String, String) {
    let socket = socket.display().to_string();
    // The client's kill switch is on: only the server's counts (V-4).
    let out = warden(p, &["hook", "--config", "agentwarden.toml", "--server", &socket], input, true);
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (out.status.code().unwrap(), text(out.stdout), text(out.stderr))
}

/// The same through the direct path on `store`.
fn direct(p: &Project, store: &Path, input: &str) -> (i32, String, String) {
    let store = store.display().to_string();
    let out = warden(p, &["--store", &store, "hook", "--config", "agentwarden.toml"], input, true);
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (out.status.code().unwrap(), text(out.stdout), text(out.stderr))
}

fn events(p: &Project, store: &Path) -> Vec<Value> {
    let store = store.display().to_string();
    let out = warden(p, &["--store", &store, "audit", "export", "--format", "jsonl"], "", false);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn verifies(p: &Project, store: &Path) {
    let store = store.display().to_string();
    let out = warden(p, &["--store", &store, "audit", "verify"], "", false);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
}

/// What a decision is, without the words: the exit code and the permission decision.
fn decision(answer: &(i32, String, String)) -> (i32, Option<String>) {
    let json: Option<Value> = serde_json::from_str(answer.1.trim()).ok();
    let decided = json.map(|j| j["hookSpecificOutput"]["permissionDecision"].as_str().unwrap().to_owned());
    (answer.0, decided)
}

#[test]
fn through_the_server_the_decisions_and_events_are_those_of_direct_mode() {
    let p = project();
    let direct_store = p.dir.path().join("direct");
    // The server's environment is the kill switch (V-4): off there, a deny however the client's.
    let server = Server::start(&p, false);
    let denied = via(&p, &p.socket(), &event("pre-task-main-planner"));
    assert_eq!(denied.0, 0, "{denied:?}");
    assert!(denied.1.contains("gate: environment (env_not_enabled)"), "{denied:?}");
    let out = server.terminate();
    assert_eq!(out.status.code(), Some(0), "SIGTERM: exit 0: {}", String::from_utf8_lossy(&out.stderr));
    assert!(!p.socket().exists(), "the socket is removed at exit");

    // Sealed and approved, kill switch on: the nested scenario, through the server and direct.
    approve(&p);
    let direct_project =
        Project { store: direct_store.clone(), root: p.root.clone(), dir: tempfile::tempdir().unwrap() };
    approve(&direct_project);
    let server = Server::start(&p, true);
    let steps = [
        "pre-task-main-planner",
        "start-planner",
        "pre-bash",
        "pre-agent-planner-coder",
        "start-coder",
        "pre-task-coder-researcher",
        "pre-agent-planner-researcher",
    ];
    let mut served = Vec::new();
    for step in steps {
        let via_server = via(&p, &p.socket(), &event(step));
        let directly = direct(&p, &direct_store, &event(step));
        assert_eq!(via_server.1, directly.1, "{step}: the same answer");
        assert_eq!(decision(&via_server), decision(&directly), "{step}");
        served.push(decision(&via_server));
    }
    assert_eq!(served[0], (0, None), "the planner is allowed");
    assert_eq!(served[3], (0, None), "the coder is allowed");
    assert_eq!(served[5], (0, Some("deny".to_owned())), "the researcher is past the depth");

    let status = warden(&p, &["status", "--server", &p.socket().display().to_string(), "--json"], "", false);
    assert_eq!(status.status.code(), Some(0));
    let status: Value = serde_json::from_slice(&status.stdout).unwrap();
    assert!(status["requests_served"].as_u64().unwrap() >= 7, "{status}");
    assert!(status["head"]["seq"].as_u64().unwrap() >= 7, "{status}");
    let out = server.terminate();
    assert_eq!(out.status.code(), Some(0));

    let kinds = |log: &[Value]| -> Vec<(String, Value)> {
        log.iter()
            .map(|e| (e["event_type"].as_str().unwrap().to_owned(), e["payload"]["decision"].clone()))
            .collect()
    };
    let (ours, theirs) = (events(&p, &p.store), events(&p, &direct_store));
    assert_eq!(ours[0]["payload"]["decision"], "deny", "the first server's deny is recorded");
    assert_eq!(kinds(&ours[1..]), kinds(&theirs), "the same events, in the same order");
    assert_eq!(ours.last().unwrap()["session"], "demo-session");
    assert_eq!(
        status["head"]["seq"].as_u64().unwrap(),
        ours.last().unwrap()["seq"].as_u64().unwrap(),
        "status gave the store's head"
    );
    verifies(&p, &p.store);
}

/// A fake server on `socket` that runs `behave` on each connection (a thread; it ends with the
/// test process).
fn fake_server(socket: &Path, behave: fn(UnixStream)) {
    std::fs::create_dir_all(socket.parent().unwrap()).unwrap();
    let listener = std::os::unix::net::UnixListener::bind(socket).unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || behave(stream));
        }
    });
}

fn frame(body: &[u8]) -> Vec<u8> {
    let mut frame = u32::try_from(body.len()).unwrap().to_be_bytes().to_vec();
    frame.extend_from_slice(body);
    frame
}

fn read_frame(stream: &mut UnixStream) -> Option<Value> {
    let mut header = [0_u8; 4];
    stream.read_exact(&mut header).ok()?;
    let mut body = vec![0_u8; usize::try_from(u32::from_be_bytes(header)).unwrap()];
    stream.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

#[test]
fn a_server_that_is_down_silent_or_talking_nonsense_is_exit_2() {
    let p = project();
    let spawn = event("pre-task-main-planner");
    // Down: nothing at the path.
    let (code, stdout, stderr) = via(&p, &p.socket(), &spawn);
    assert_eq!((code, stdout.as_str()), (2, ""), "{stderr}");
    assert!(stderr.contains("server_unavailable"), "{stderr}");
    let socket = p.socket().display().to_string();
    let out = warden(&p, &["status", "--server", &socket], "", false);
    assert_eq!(out.status.code(), Some(1), "status: a server that does not answer is exit 1");
    assert!(String::from_utf8_lossy(&out.stderr).contains("server_unavailable"));
    // Named by the configuration or by the variable only, the server is not the hook's: it
    // decides directly (V-49; `cli_hook_route` has the attack this closes).
    std::fs::write(
        p.root.join("agentwarden.toml"),
        format!(
            "{}\n[server]\nsocket = \"{}\"\n",
            std::fs::read_to_string(p.root.join("agentwarden.toml")).unwrap(),
            p.socket().display()
        ),
    )
    .unwrap();
    let mut command = Command::new(BIN);
    command
        .args(["--store", &p.store.display().to_string(), "hook", "--config", "agentwarden.toml"])
        .current_dir(&p.root)
        .env("AGENTWARDEN_SERVER", p.dir.path().join("elsewhere.sock"));
    let out =
        bounded(command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap());
    assert_eq!(out.status.code(), Some(2), "no input: exit 2, from the direct path");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("server_unavailable") && !stderr.contains("elsewhere.sock"), "{stderr}");
    assert!(p.store.exists(), "the direct path opened the line's store");

    // Nonsense, a wrong version, an exit 1, silence: exit 2 each.
    /// A name, what the fake server does, the code the hook names.
    type Case<'a> = (&'a str, fn(UnixStream), &'a str);
    let cases: [Case<'_>; 4] = [
        (
            "garbage",
            |mut s| {
                let _ = read_frame(&mut s);
                let _ = s.write_all(&frame(b"allow"));
            },
            "server_answer_invalid",
        ),
        (
            "a rendering, not a decision (V-52)",
            |mut s| {
                let _ = read_frame(&mut s);
                let _ = s.write_all(&frame(
                    br#"{"version":2,"kind":"hook","exit_code":1,"stdout":null,"stderr":null}"#,
                ));
            },
            "server_answer_invalid",
        ),
        (
            "version 1",
            |mut s| {
                let _ = read_frame(&mut s);
                let _ =
                    s.write_all(&frame(br#"{"version":1,"kind":"hook","decision":"proceed","reason":null}"#));
            },
            "server_answer_invalid",
        ),
        (
            "silent",
            |mut s| {
                let _ = read_frame(&mut s);
                std::thread::sleep(Duration::from_secs(30));
            },
            "server_unavailable",
        ),
    ];
    for (i, (name, behave, code)) in cases.into_iter().enumerate() {
        let socket = p.dir.path().join(format!("fake{i}.sock"));
        fake_server(&socket, behave);
        let started = Instant::now();
        let socket_arg = socket.display().to_string();
        let out = warden(
            &p,
            &["hook", "--config", "agentwarden.toml", "--server", &socket_arg, "--deadline-ms", "1500"],
            &spawn,
            true,
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {stderr}");
        assert!(out.stdout.is_empty(), "{name}");
        assert!(stderr.contains(code) || stderr.contains("deadline_passed"), "{name}: {stderr}");
        assert!(started.elapsed() < Duration::from_secs(10), "{name}: within the deadline");
    }
}

#[test]
fn garbage_oversized_and_silent_clients_get_errors_and_never_stall_the_others() {
    let p = project();
    let server = Server::spawn(&p, true, &["--request-timeout-ms", "3000"]);
    wait_for(&p.socket());
    // A client that sends half a header and stays.
    let mut silent = UnixStream::connect(p.socket()).unwrap();
    silent.write_all(&[0, 0]).unwrap();
    // A half-closed one.
    let half = UnixStream::connect(p.socket()).unwrap();
    half.shutdown(std::net::Shutdown::Write).unwrap();
    // Garbage in a frame: an error, and the connection still serves.
    let mut garbage = UnixStream::connect(p.socket()).unwrap();
    garbage.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    for body in [&b"not json"[..], br#"{"version":2,"kind":"reboot"}"#, br#"{"version":1,"kind":"status"}"#] {
        garbage.write_all(&frame(body)).unwrap();
        let answer = read_frame(&mut garbage).unwrap();
        assert_eq!(
            (answer["kind"].as_str(), answer["code"].as_str()),
            (Some("error"), Some("frame_invalid")),
            "{answer}"
        );
        assert_eq!(answer["version"], 2);
    }
    // A key declared twice is refused, naming it, and the connection still serves (V-50).
    garbage.write_all(&frame(br#"{"version":2,"kind":"status","kind":"status"}"#)).unwrap();
    let answer = read_frame(&mut garbage).unwrap();
    assert_eq!(
        (answer["code"].as_str(), answer["reason"].as_str().map(|r| r.contains("`/kind`"))),
        (Some("request_invalid"), Some(true)),
        "{answer}"
    );
    garbage.write_all(&frame(br#"{"version":2,"kind":"status"}"#)).unwrap();
    assert_eq!(read_frame(&mut garbage).unwrap()["kind"], "status");
    // Oversized: an error, then closed.
    let mut big = UnixStream::connect(p.socket()).unwrap();
    big.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    big.write_all(&(2_u32 << 20).to_be_bytes()).unwrap();
    let answer = read_frame(&mut big).unwrap();
    assert_eq!(answer["code"], "frame_too_large", "{answer}");
    let mut rest = Vec::new();
    assert_eq!(big.read_to_end(&mut rest).unwrap(), 0, "closed after it");
    // Meanwhile hooks are answered at once.
    assert_eq!(via(&p, &p.socket(), &session_start()).0, 0);
    let started = Instant::now();
    let answer = via(&p, &p.socket(), &event("pre-bash"));
    assert_eq!(answer.0, 0, "{answer:?}");
    assert!(started.elapsed() < Duration::from_secs(2), "not held up by the silent client");
    // A configuration that pins the server's user: this one runs as another (V-12).
    let pinned = p.dir.path().join("pinned.toml");
    std::fs::write(&pinned, "[server]\nsocket = \"x.sock\"\nuid = 4242\n").unwrap();
    let socket_arg = p.socket().display().to_string();
    let pinned_arg = pinned.display().to_string();
    let out =
        warden(&p, &["hook", "--config", &pinned_arg, "--server", &socket_arg], &event("pre-bash"), true);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("server_unavailable") && stderr.contains("not uid 4242"), "{stderr}");
    // A hook of another configuration is not decided by this server's (V-3).
    std::fs::copy(p.root.join("agentwarden.toml"), p.root.join("other.toml")).unwrap();
    let socket = p.socket().display().to_string();
    let out = warden(&p, &["hook", "--config", "other.toml", "--server", &socket], &event("pre-bash"), true);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("server_config_mismatch"), "{out:?}");
    // The silent client is told, after the request timeout.
    silent.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let answer = read_frame(&mut silent).unwrap();
    assert_eq!(answer["code"], "request_timeout", "{answer}");
    assert!(answer["reason"].as_str().unwrap().contains("read timeout (1000 ms)"), "V-51: {answer}");
    drop(half);
    let out = server.terminate();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
}

/// A spawn of the planner with its own tool-use id.
fn spawn_numbered(n: usize) -> String {
    event("pre-task-main-planner").replace("toolu_01", &format!("toolu_n{n}"))
}

#[test]
fn twenty_concurrent_clients_are_all_answered_and_recorded() {
    let p = project();
    approve(&p);
    let server = Server::start(&p, true);
    let handles: Vec<_> = (0..20)
        .map(|n| {
            let socket = p.socket();
            let root = p.root.clone();
            std::thread::spawn(move || {
                let mut child = Command::new(BIN)
                    .args(["hook", "--config", "agentwarden.toml", "--server"])
                    .arg(&socket)
                    .current_dir(&root)
                    .env_remove("AGENTWARDEN_SERVER")
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap();
                child.stdin.take().unwrap().write_all(spawn_numbered(n).as_bytes()).unwrap();
                bounded(child)
            })
        })
        .collect();
    for handle in handles {
        let out = handle.join().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    }
    assert_eq!(server.terminate().status.code(), Some(0));
    let log = events(&p, &p.store);
    let spawns: Vec<&Value> = log.iter().filter(|e| e["event_type"] == "subagent_spawn_evaluated").collect();
    assert_eq!(spawns.len(), 20);
    for n in 0..20 {
        let id = format!("toolu_n{n}");
        assert!(spawns.iter().any(|s| s["payload"]["tool_use_id"] == id.as_str()), "{id}");
    }
    verifies(&p, &p.store);
}

#[test]
fn a_second_server_on_the_same_socket_or_store_is_refused_and_a_stale_socket_replaced() {
    let p = project();
    let first = Server::start(&p, true);
    let second = Server::spawn(&p, true, &[]);
    let out = second.exited();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("another `warden serve` holds"), "{out:?}");
    let other = Project { store: p.store.clone(), root: p.root.clone(), dir: tempfile::tempdir().unwrap() };
    let out = Server::spawn(&other, true, &[]).exited();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("cannot open the store") && stderr.contains("locked"), "{stderr}");
    assert!(UnixStream::connect(p.socket()).is_ok(), "the first one still answers");
    // Not from inside a Claude Code session (V-4).
    let mut inside = Command::new(BIN);
    inside
        .args(["serve", "--socket"])
        .arg(p.dir.path().join("other.sock"))
        .current_dir(&p.root)
        .env("CLAUDECODE", "1");
    let out =
        bounded(inside.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap());
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("inside a Claude Code session"), "{out:?}");
    assert!(!p.dir.path().join("other.sock").exists());
    // Killed: its socket file stays behind, stale; the next server replaces it.
    first.kill();
    assert!(p.socket().exists());
    let next = Server::start(&p, true);
    assert_eq!(via(&p, &p.socket(), &session_start()).0, 0);
    assert_eq!(via(&p, &p.socket(), &event("pre-bash")).0, 0);
    assert_eq!(next.terminate().status.code(), Some(0));
    // A file that is not a socket is never removed.
    std::fs::write(p.socket(), "mine").unwrap();
    let out = Server::spawn(&p, true, &[]).exited();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not a socket"));
    assert_eq!(std::fs::read_to_string(p.socket()).unwrap(), "mine");
}

#[test]
fn sigkill_mid_stream_loses_no_answer_a_client_received() {
    let p = project();
    approve(&p);
    let mut answered: Vec<String> = Vec::new();
    for round in 0..20_usize {
        let server = Server::start(&p, true);
        let clients: Vec<_> = (0..8)
            .map(|i| {
                let socket = p.socket();
                let root = p.root.clone();
                std::thread::spawn(move || {
                    let mut got = Vec::new();
                    for k in 0..40 {
                        let n = round * 10_000 + i * 100 + k;
                        let mut child = Command::new(BIN)
                            .args([
                                "hook",
                                "--config",
                                "agentwarden.toml",
                                "--deadline-ms",
                                "5000",
                                "--server",
                            ])
                            .arg(&socket)
                            .current_dir(&root)
                            .env_remove("AGENTWARDEN_SERVER")
                            .stdin(Stdio::piped())
                            .stdout(Stdio::piped())
                            .stderr(Stdio::piped())
                            .spawn()
                            .unwrap();
                        child.stdin.take().unwrap().write_all(spawn_numbered(n).as_bytes()).unwrap();
                        let out = bounded(child);
                        match out.status.code() {
                            Some(0) => got.push(format!("toolu_n{n}")),
                            Some(2) => break,
                            other => panic!("exit {other:?}: {}", String::from_utf8_lossy(&out.stderr)),
                        }
                    }
                    got
                })
            })
            .collect();
        // Killed at a different moment each round.
        std::thread::sleep(Duration::from_millis(150 + 37 * u64::try_from(round % 10).unwrap()));
        server.kill();
        for client in clients {
            answered.extend(client.join().unwrap());
        }
        verifies(&p, &p.store);
    }
    assert!(!answered.is_empty(), "some answers came before the kills");
    let log = events(&p, &p.store);
    for id in &answered {
        assert!(
            log.iter().any(|e| e["event_type"] == "subagent_spawn_evaluated"
                && e["payload"]["tool_use_id"] == id.as_str()),
            "{id} was answered but is not in the log"
        );
    }
}

/// Runs the installed `line` as Claude Code does: `sh -c`, `CLAUDE_PROJECT_DIR` set.
fn run_line(p: &Project, line: &str, input: &str) -> Output {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(line)
        .current_dir(&p.root)
        .env("CLAUDE_PROJECT_DIR", &p.root)
        .env("CLAUDECODE", "1")
        .env_remove("AGENTWARDEN_SERVER")
        .env_remove("AGENTWARDEN_ENABLE_SUBAGENTS")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
    bounded(child)
}

/// The example project with the hooks `warden init claude-code --server` installs, and that
/// socket.
fn client_form_project() -> (Project, String) {
    let p = project();
    let socket = p.socket().display().to_string();
    let root = p.root.display().to_string();
    let out = warden(&p, &["init", "claude-code", "--project", &root, "--server", &socket], "", false);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    (p, socket)
}

#[test]
fn init_with_a_server_installs_the_client_form_which_fails_closed_when_the_server_is_down() {
    let (p, socket) = client_form_project();
    let settings: Value =
        serde_json::from_str(&std::fs::read_to_string(p.root.join(".claude/settings.json")).unwrap())
            .unwrap();
    let line = settings["hooks"]["PreToolUse"].as_array().unwrap().last().unwrap()["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(line.contains(&format!("--server '{socket}'")) && !line.contains("--store"), "{line}");
    // Down: exit 2, and no store was created in the project.
    let out = run_line(&p, &line, &event("pre-task-main-planner"));
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!p.root.join(".agentwarden/audit").exists(), "the client opened no store");
    // Up: the server decides (its kill switch off here: a deny with the gate's reason).
    let git = |args: &[&str]| git(&p.root, args);
    git(&["add", "-A"]);
    git(&["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "init"]);
    let server = Server::start(&p, false);
    let out = run_line(&p, &line, &event("pre-task-main-planner"));
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("env_not_enabled"));
    assert_eq!(server.terminate().status.code(), Some(0));
}

/// `warden doctor --server PATH` on a project whose hooks `init --server` installed: it asks
/// that server instead of opening the store it holds, and its canary, a spawn of a type no
/// persona declares, is denied by a server whose kill switch is on, as it is in service (V-48).
/// It asks, and runs the lines of, no server its own command line does not name (V-69).
#[test]
fn doctor_checks_the_client_form_against_the_server_its_lines_name() {
    let (p, socket) = client_form_project();
    git(&p.root, &["add", "-A"]);
    git(&p.root, &["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "init"]);
    approve(&p);
    let doctor = |extra: &[&str]| -> Value {
        let mut args = vec!["doctor", "--json"];
        args.extend_from_slice(extra);
        let out = warden(&p, &args, "", false);
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let check = |report: &Value, name: &str| -> Option<Value> {
        report["checks"].as_array().unwrap().iter().find(|c| c["check"] == name).cloned()
    };
    let named = ["--server", socket.as_str()];
    let down = doctor(&named);
    let asked = check(&down, "server").unwrap();
    assert_eq!(asked["ok"], false, "{down}");
    assert!(asked["fix"].as_str().unwrap().contains("warden serve"), "{down}");
    let server = Server::start(&p, true);
    let up = doctor(&named);
    let asked = check(&up, "server").unwrap();
    assert_eq!(asked["ok"], true, "{up}");
    assert!(asked["detail"].as_str().unwrap().contains("is not opened here"), "{up}");
    let canary = check(&up, "canary").unwrap();
    assert_eq!(canary["ok"], true, "{up}");
    assert!(canary["detail"].as_str().unwrap().contains("warden-doctor-canary"), "{up}");
    let switch = check(&up, "kill switch").unwrap();
    assert!(switch["detail"].as_str().unwrap().contains("server's environment"), "{up}");
    assert!(check(&up, "store").is_none(), "the server's store is not opened: {up}");
    assert_eq!(up["healthy"], true, "{up}");
    // Lines whose server doctor's command line does not name: a failure, and not run (V-69).
    let unnamed = doctor(&[]);
    let asked = check(&unnamed, "server").unwrap();
    assert_eq!(asked["ok"], false, "{unnamed}");
    assert!(asked["fix"].as_str().unwrap().contains("doctor --server"), "{unnamed}");
    assert!(check(&unnamed, "canary").is_none(), "the lines were run: {unnamed}");
    // Lines that ask another server than the one doctor names are a failure.
    let elsewhere = p.dir.path().join("elsewhere.sock").display().to_string();
    let other = doctor(&["--server", &elsewhere]);
    let asked = check(&other, "server").unwrap();
    assert_eq!(asked["ok"], false, "{other}");
    assert!(asked["detail"].as_str().unwrap().contains("elsewhere.sock"), "{other}");
    // A `--server-uid` the lines do not name (they believe any user) is a failure (V-49).
    let pinned = doctor(&["--server", &socket, "--server-uid", "4242"]);
    let asked = check(&pinned, "server").unwrap();
    assert_eq!(asked["ok"], false, "{pinned}");
    assert!(asked["detail"].as_str().unwrap().contains("uid"), "{pinned}");
    // A configuration naming the server while doctor's command line does not: refused (V-67).
    let config = p.root.join("agentwarden.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("{text}\n[server]\nsocket = \"{socket}\"\n")).unwrap();
    let out = warden(&p, &["doctor", "--json"], "", false);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("trust_root_refused"), "{out:?}");
    assert_eq!(check(&doctor(&named), "server").unwrap()["ok"], true, "named, the configuration agrees");
    drop(server);
    // Lines that ask no server while doctor names one: the hooks decide directly and never ask
    // it (V-49).
    std::fs::write(&config, &text).unwrap();
    let root = p.root.display().to_string();
    let out = warden(&p, &["init", "claude-code", "--project", &root], "", false);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let direct = doctor(&named);
    let asked = check(&direct, "server").unwrap();
    assert_eq!(asked["ok"], false, "{direct}");
    assert!(asked["detail"].as_str().unwrap().contains("ask none"), "{direct}");
}

#[test]
fn sigterm_answers_the_request_in_flight_before_it_exits() {
    let p = project();
    let server = Server::start(&p, true);
    let mut client = UnixStream::connect(p.socket()).unwrap();
    client.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let request = serde_json::json!({
        "version": 2, "kind": "hook", "deadline_ms": 10_000, "input": event("pre-task-main-planner"),
        "config": std::fs::canonicalize(p.root.join("agentwarden.toml")).unwrap(),
    });
    let whole = frame(request.to_string().as_bytes());
    let (first, rest) = whole.split_at(40);
    client.write_all(first).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let pid = server.pid().to_string();
    assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    std::thread::sleep(Duration::from_millis(300));
    assert!(UnixStream::connect(p.socket()).is_err(), "no new connection once stopping");
    client.write_all(rest).unwrap();
    let answer = read_frame(&mut client).unwrap();
    assert_eq!(answer["kind"].as_str(), Some("hook"), "{answer}");
    assert!(answer["decision"].as_str().is_some_and(|d| d != "failed"), "decided: {answer}");
    // The client keeps its connection open: idle now, it is closed, and the server does not
    // wait for it (its request timeout is 10 s).
    let answered = Instant::now();
    let out = server.exited();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(answered.elapsed() < Duration::from_secs(5), "stopped without waiting on an idle client");
    let log = events(&p, &p.store);
    assert_eq!(log.last().unwrap()["payload"]["tool_use_id"], "toolu_01", "the answer's event is recorded");
}

// ---- The decision commands through the server (V-13 … V-19) ----

const GATE_EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples");
const VALID_RESULT: &str = r#"{"schema_version":"1.0","summary":"Did it","proposed_changes":["a"],
    "kr_targets":["kr-1"],"kr_impact_claim":"+3%"}"#;

/// The gate's example project (requests, lineages, manifests) in a fresh git repository, with a
/// protected `okrs` and a valid and an invalid result.json.
fn gate_project() -> Project {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    for part in ["agents", "personas", "manifests", "requests", "lineage"] {
        copy_dir(&Path::new(GATE_EXAMPLE).join(part), &root.join(part));
    }
    std::fs::copy(Path::new(GATE_EXAMPLE).join("agentwarden.toml"), root.join("agentwarden.toml")).unwrap();
    std::fs::create_dir_all(root.join("okrs")).unwrap();
    std::fs::write(root.join("okrs/q1.md"), "grow\n").unwrap();
    std::fs::write(root.join("valid.json"), VALID_RESULT).unwrap();
    std::fs::write(root.join("invalid.json"), "{}").unwrap();
    git(&root, &["init", "-q"]);
    git(&root, &["add", "-A"]);
    git(&root, &["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "base"]);
    Project { store: dir.path().join("audit"), root, dir }
}

/// `warden ARGS` in `cwd`, the gate's kill switch on, with `env` set (and nothing else of
/// Warden's): the exit code, stdout, stderr and the child's pid.
/// `warden ARGS` in `cwd` with the variables `env`; a pair whose name is an option
/// (`("--server", PATH)`) goes on the command line instead, before the arguments (V-67).
fn run_in(cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String, u32) {
    let mut command = Command::new(BIN);
    for (option, value) in env.iter().filter(|(k, _)| k.starts_with("--")) {
        command.arg(option).arg(value);
    }
    command
        .args(args)
        .current_dir(cwd)
        .env_remove("CLAUDECODE")
        .env_remove("AGENTWARDEN_SERVER")
        .env_remove("AGENTWARDEN_STORE")
        .env("CHIRALITY_ENABLE_SUBAGENTS", "true");
    for (k, v) in env.iter().filter(|(k, _)| !k.starts_with("--")) {
        command.env(k, v);
    }
    let child = command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let pid = child.id();
    let out = bounded(child);
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (out.status.code().unwrap(), text(out.stdout), text(out.stderr), pid)
}

/// A server for the gate's example project, its kill switch on.
fn gate_server(p: &Project) -> Server {
    let mut command = Command::new(BIN);
    command
        .args(["--store", &store_arg(p), "serve", "--socket"])
        .arg(p.socket())
        .args(["--config", "agentwarden.toml"])
        .current_dir(&p.root)
        .env_remove("CLAUDECODE")
        .env("CHIRALITY_ENABLE_SUBAGENTS", "true")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let server = Server { child: Some(command.spawn().unwrap()) };
    wait_for(&p.socket());
    server
}

/// What may differ between two stores holding the same events: hashes and timings.
fn normalized(text: &str) -> String {
    let mut out = String::new();
    let mut hex = String::new();
    let flush = |hex: &mut String, out: &mut String| {
        out.push_str(if hex.len() >= 32 { "#" } else { hex.as_str() });
        hex.clear();
    };
    for c in text.chars() {
        if c.is_ascii_hexdigit() && !c.is_ascii_uppercase() {
            hex.push(c);
        } else {
            flush(&mut hex, &mut out);
            out.push(c);
        }
    }
    flush(&mut hex, &mut out);
    match out.find("\"evaluation_us\":") {
        Some(at) => {
            let start = at + "\"evaluation_us\":".len();
            let end = start + out[start..].find(|c: char| !c.is_ascii_digit()).unwrap_or(0);
            format!("{}0{}", &out[..start], &out[end..])
        }
        None => out,
    }
}

/// Touches the protected file again (the row before may have reverted it).
fn touch_okrs(p: &Project) {
    std::fs::write(p.root.join("okrs/q1.md"), "shrink\n").unwrap();
}

#[test]
fn every_served_command_answers_as_direct_mode_does_and_records_the_peer() {
    let p = gate_project();
    let snapshot = p.dir.path().join("snapshot.json");
    let out = run_in(
        &p.root,
        &["--store", &store_arg(&p), "guard", "snapshot", "--out", snapshot.to_str().unwrap()],
        &[],
    );
    assert_eq!(out.0, 0, "{out:?}");
    let snap = snapshot.to_str().unwrap();
    let direct_store = p.dir.path().join("direct").display().to_string();
    let server = gate_server(&p);
    let socket = p.socket().display().to_string();
    let c = ["--config", "agentwarden.toml"];
    // (arguments, expected exit, what it shows)
    let rows: Vec<(Vec<&str>, i32, &str)> = vec![
        (vec!["gate", "--request", "requests/example-1-allow.json", c[0], c[1]], 0, "gate allows"),
        (
            vec!["gate", "--request", "requests/example-2-missing-metadata.json", c[0], c[1], "--json"],
            1,
            "gate denies, --json",
        ),
        (
            vec!["gate", "--request", "requests/example-3-context-not-sealed.json", c[0], c[1]],
            1,
            "gate denies",
        ),
        (
            vec!["gate", "--request", "requests/missing.json", c[0], c[1], "--json"],
            1,
            "an unreadable request",
        ),
        (
            vec!["gate", "--request", "requests/example-1-allow.json", "--config", "nowhere.toml", "--json"],
            2,
            "a missing --config: A-23",
        ),
        (vec!["lineage", "check", "--lineage", "lineage/three-levels.json", c[0], c[1]], 0, "lineage allows"),
        (
            vec!["lineage", "check", "--lineage", "lineage/mid-chain-violation.json", c[0], c[1], "--json"],
            1,
            "lineage denies",
        ),
        (vec!["authorize", "--request", "lineage/authorize-write.json", c[0], c[1]], 0, "authorize allows"),
        (
            vec!["authorize", "--request", "lineage/authorize-escalation.json", c[0], c[1], "--json"],
            1,
            "authorize denies",
        ),
        (vec!["result", "validate", "valid.json", "--item", "i1", "--run", "r1"], 0, "a valid result"),
        (vec!["result", "validate", "invalid.json", "--json"], 1, "an invalid result"),
        (
            vec![
                "guard",
                "check",
                "--snapshot",
                snap,
                "--item",
                "i1",
                "--run",
                "r1",
                "--artifacts",
                "art",
                c[0],
                c[1],
                "--json",
            ],
            1,
            "a violation",
        ),
        (
            vec![
                "guard",
                "check",
                "--snapshot",
                snap,
                "--item",
                "i2",
                "--run",
                "r1",
                "--artifacts",
                "art",
                "--revert",
                c[0],
                c[1],
            ],
            1,
            "a violation reverted",
        ),
        (
            vec![
                "guard",
                "check",
                "--snapshot",
                "nowhere.json",
                "--item",
                "i3",
                "--run",
                "r1",
                "--artifacts",
                "art",
                c[0],
                c[1],
                "--json",
            ],
            2,
            "an unreadable snapshot: the reason, and A-23's object",
        ),
        (vec!["result", "validate", "nowhere.json", "--json"], 1, "an unreadable result"),
        (vec!["approvals", c[0], c[1]], 0, "approvals"),
        (vec!["approvals", c[0], c[1], "--json"], 0, "approvals, --json"),
        (vec!["seal", "--show", c[0], c[1]], 0, "the seal"),
        (vec!["seal", "--show", "--json", c[0], c[1]], 0, "the seal, --json"),
    ];
    let mut pids = Vec::new();
    for (args, exit, why) in &rows {
        touch_okrs(&p);
        let mut direct_args = vec!["--store", direct_store.as_str()];
        direct_args.extend(args);
        let directly = run_in(&p.root, &direct_args, &[]);
        touch_okrs(&p);
        let mut served_args = args.clone();
        served_args.extend(["--server", socket.as_str()]);
        let served = run_in(&p.root, &served_args, &[]);
        assert_eq!(directly.0, *exit, "{why}: direct: {directly:?}");
        assert_eq!(served.0, *exit, "{why}: served: {served:?}");
        assert_eq!(normalized(&served.1), normalized(&directly.1), "{why}: the same stdout");
        let line = |s: &str| s.lines().find(|l| l.starts_with("warden: ")).map(str::to_owned);
        assert_eq!(line(&served.2), line(&directly.2), "{why}: the same reason");
        pids.push(served.3);
    }
    assert_eq!(std::fs::read_to_string(p.root.join("okrs/q1.md")).unwrap(), "shrink\n");
    let status = run_in(&p.root, &["status", "--server", &socket, "--json"], &[]);
    let status: Value = serde_json::from_str(&status.1).unwrap();
    let out = server.terminate();
    assert_eq!(out.status.code(), Some(0));

    // The same events in the same order; each served one names its client's uid and pid (V-18).
    let (ours, theirs) = (events(&p, &p.store), events(&p, Path::new(&direct_store)));
    let kinds =
        |log: &[Value]| log.iter().map(|e| e["event_type"].as_str().unwrap().to_owned()).collect::<Vec<_>>();
    assert_eq!(kinds(&ours), kinds(&theirs));
    assert_eq!(status["head"]["seq"].as_u64().unwrap(), ours.last().unwrap()["seq"].as_u64().unwrap());
    let uid = String::from_utf8(Command::new("id").arg("-u").output().unwrap().stdout).unwrap();
    let log = run_in(&p.root, &["--store", &store_arg(&p), "audit", "log", "--json"], &[]);
    assert_eq!(log.0, 0, "{log:?}");
    let first: Value = serde_json::from_str(log.1.lines().next().unwrap()).unwrap();
    let actor = format!("warden-serve peer uid={} pid={}", uid.trim(), pids[0]);
    assert_eq!(first["actor"], actor.as_str(), "audit log --json shows the peer: {first}");
    for event in &ours {
        let actor = event["actor"].as_str().unwrap();
        assert!(actor.contains(&format!("warden-serve peer uid={} pid=", uid.trim())), "{event}");
    }
    let violation = ours.iter().find(|e| e["event_type"] == "guardrail_violation").unwrap();
    assert!(violation["actor"].as_str().unwrap().starts_with("daemon (warden-serve peer"), "{violation}");
    verifies(&p, &p.store);
}

#[test]
fn a_relative_path_resolves_against_the_clients_working_directory() {
    let p = gate_project();
    let server = gate_server(&p);
    let socket = p.socket().display().to_string();
    let sub = p.root.join("personas");
    let args = ["gate", "--request", "../requests/example-1-allow.json", "--config", "../agentwarden.toml"];
    let served = run_in(&sub, &args, &[("--server", &socket)]);
    assert_eq!(served.0, 0, "{served:?}");
    assert!(served.1.starts_with("ALLOW  MANAGER -> PREPARATION"), "{served:?}");
    let result = run_in(&sub, &["result", "validate", "../valid.json", "--server", &socket], &[]);
    // `result validate` has no --config: the project's configuration is found upward from the
    // subdirectory (N-1), so the server knows the project (V-16).
    assert_eq!(result.0, 0, "{result:?}");
    assert!(result.1.starts_with("VALID"), "{result:?}");
    let outside =
        run_in(p.dir.path(), &["result", "validate", "project/valid.json", "--server", &socket], &[]);
    // Outside any project the server cannot tell which one asks: invalid, never valid (V-16).
    assert_eq!(outside.0, 1, "{outside:?}");
    assert!(outside.2.contains("server_config_mismatch"), "{outside:?}");
    let direct_store = p.dir.path().join("direct").display().to_string();
    let mut direct_args = vec!["--store", direct_store.as_str()];
    direct_args.extend(args);
    let directly = run_in(&sub, &direct_args, &[]);
    assert_eq!(normalized(&served.1), normalized(&directly.1));
    // The next client, from the root, is served from the root.
    let again = run_in(
        &p.root,
        &[
            "gate",
            "--request",
            "requests/example-1-allow.json",
            "--config",
            "agentwarden.toml",
            "--server",
            &socket,
        ],
        &[],
    );
    assert_eq!(again.0, 0, "{again:?}");
    drop(server);
}

#[test]
fn an_unusable_server_denies_and_never_allows() {
    let p = gate_project();
    let socket = p.socket().display().to_string();
    let c = ["--config", "agentwarden.toml"];
    let snap = p.dir.path().join("snapshot.json");
    let other = p.dir.path().join("other").display().to_string();
    let made =
        run_in(&p.root, &["--store", &other, "guard", "snapshot", "--out", snap.to_str().unwrap()], &[]);
    assert_eq!(made.0, 0, "{made:?}");
    let snap = snap.to_str().unwrap();
    // Each would allow (or succeed) on a usable store.
    let rows: Vec<(Vec<&str>, i32)> = vec![
        (vec!["gate", "--request", "requests/example-1-allow.json", c[0], c[1]], 1),
        (vec!["lineage", "check", "--lineage", "lineage/three-levels.json", c[0], c[1]], 1),
        (vec!["authorize", "--request", "lineage/authorize-write.json", c[0], c[1]], 1),
        (vec!["result", "validate", "valid.json"], 1),
        (
            vec![
                "guard",
                "check",
                "--snapshot",
                snap,
                "--item",
                "i",
                "--run",
                "r",
                "--artifacts",
                "art",
                c[0],
                c[1],
            ],
            3,
        ),
        (vec!["approvals", c[0], c[1]], 3),
        (vec!["seal", "--show", c[0], c[1]], 3),
    ];
    let check = |label: &str, extra: &[&str], reason: &str| {
        for (args, exit) in &rows {
            let mut args = args.clone();
            args.extend(extra);
            let out = run_in(&p.root, &args, &[("--server", &socket)]);
            assert_eq!(out.0, *exit, "{label}: {args:?}: {out:?}");
            assert!(!out.1.starts_with("ALLOW") && !out.1.starts_with("VALID"), "{label}: {out:?}");
            assert!(out.1.contains(reason) || out.2.contains(reason), "{label}: {args:?}: {out:?}");
        }
        let json = run_in(
            &p.root,
            &["gate", "--request", "requests/example-1-allow.json", c[0], c[1], "--json"],
            &[("--server", &socket)],
        );
        let json: Value = serde_json::from_str(&json.1).unwrap();
        assert_eq!(json["decision"], "deny", "{label}");
        assert_eq!(json["first_failure"]["gate"], "audit", "{label}: {json}");
    };
    check("down", &[], "server_unavailable");
    // Talking nonsense, then silent.
    fake_server(&p.socket(), |mut s| {
        let _ = read_frame(&mut s);
        let _ = s.write_all(&frame(
            br#"{"version":2,"kind":"run","exit_code":0,"stdout":"ALLOW\n","stderr":null,"x":1}"#,
        ));
    });
    check("nonsense", &[], "server_answer_invalid");
    // A well-formed outcome, but of another command, is not the gate's answer (V-14).
    let other = p.dir.path().join("other.sock");
    fake_server(&other, |mut s| {
        let _ = read_frame(&mut s);
        let _ = s.write_all(&frame(
            br#"{"version":2,"kind":"decided","outcome":{"command":"approvals","seal":null,"approvals":[]}}"#,
        ));
    });
    let out = run_in(
        &p.root,
        &[
            "gate",
            "--request",
            "requests/example-1-allow.json",
            c[0],
            c[1],
            "--server",
            other.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(out.0, 1, "another command's outcome: {out:?}");
    assert!(out.1.contains("server_answer_invalid"), "{out:?}");
    let silent = p.dir.path().join("silent.sock");
    fake_server(&silent, |s| {
        std::thread::sleep(Duration::from_secs(30));
        drop(s);
    });
    let started = Instant::now();
    let out = run_in(
        &p.root,
        &[
            "gate",
            "--request",
            "requests/example-1-allow.json",
            c[0],
            c[1],
            "--server",
            silent.to_str().unwrap(),
            "--server-timeout-ms",
            "300",
        ],
        &[],
    );
    assert_eq!(out.0, 1, "{out:?}");
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(!p.store.exists(), "nothing fell back to the store");
}

/// One request frame to the server at `socket`, and its answer.
fn ask(socket: &Path, body: &Value) -> Value {
    let mut stream = UnixStream::connect(socket).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    stream.write_all(&frame(body.to_string().as_bytes())).unwrap();
    read_frame(&mut stream).unwrap()
}

#[test]
fn only_a_typed_question_is_answered_and_the_human_verbs_name_the_fix() {
    let p = gate_project();
    let server = gate_server(&p);
    let config = std::fs::canonicalize(p.root.join("agentwarden.toml")).unwrap().display().to_string();
    let root = p.root.display().to_string();
    let decide = |question: Value, config: Value| {
        ask(
            &p.socket(),
            &serde_json::json!({"version": 2, "kind": "decide", "question": question, "config": config, "deadline_ms": 5000}),
        )
    };
    // Only the decision commands' questions can be asked; a command line, another command,
    // a relative path or a field more is no request of this protocol (V-54).
    let argv = serde_json::json!({"version": 2, "kind": "run", "argv": ["gate", "--request", "r.json"], "cwd": root,
        "config": config, "deadline_ms": 5000});
    assert_eq!(ask(&p.socket(), &argv)["code"], "frame_invalid", "a command line is not a question");
    let request = format!("{root}/requests/example-1-allow.json");
    for (question, why) in [
        (serde_json::json!({"command": "approve", "reference": "GATE-2026-11-22-001"}), "a human verb"),
        (serde_json::json!({"command": "audit_log"}), "the log (V-20)"),
        (serde_json::json!({"command": "guard_run", "argv": ["true"]}), "a command to run"),
        (
            serde_json::json!({"command": "gate", "request": "requests/example-1-allow.json"}),
            "a relative path",
        ),
        (serde_json::json!({"command": "gate", "request": request, "cwd": "/"}), "a field more"),
    ] {
        let answer = decide(question, Value::from(config.as_str()));
        assert_eq!(answer["kind"], "error", "{why}: {answer}");
        assert_eq!(answer["code"], "frame_invalid", "{why}: {answer}");
    }
    let gate = serde_json::json!({"command": "gate", "request": request});
    assert_eq!(decide(gate.clone(), Value::Null)["code"], "frame_invalid", "no configuration (V-16)");
    let answer = decide(gate.clone(), Value::from("/elsewhere/agentwarden.toml"));
    assert_eq!(answer["code"], "server_config_mismatch", "another project's: {answer}");
    let store_file = p.store.join("db").display().to_string();
    let answer =
        decide(serde_json::json!({"command": "gate", "request": store_file}), Value::from(config.as_str()));
    assert_eq!(answer["code"], "path_refused", "{answer}");
    let guard = serde_json::json!({"command": "guard_check", "snapshot": format!("{root}/s.json"), "revert": false,
        "item": "i", "run": "r", "artifacts": p.store.display().to_string(), "root": root});
    let answer = decide(guard, Value::from(config.as_str()));
    assert_eq!(answer["code"], "path_refused", "{answer}");
    let answer = decide(gate, Value::from(config.as_str()));
    assert_eq!(answer["kind"], "decided", "{answer}");
    assert_eq!(answer["outcome"]["command"], "gate", "{answer}");
    assert_eq!(answer["outcome"]["report"]["decision"], "allow", "{answer}");

    // The human verbs are not served, and refuse while the server answers (V-17).
    let socket = p.socket().display().to_string();
    for args in [
        &["approve", "--ref", "GATE-2026-11-22-001", "--by", "alice"][..],
        &["revoke", "--by", "alice"],
        &["seal", "--by", "alice"],
        &["release", "--session", "s1"],
    ] {
        let out = run_in(&p.root, args, &[("--server", &socket)]);
        assert_eq!(out.0, 2, "{args:?}: {out:?}");
        assert!(out.2.contains("server_holds_store") && out.2.contains("stop the server"), "{out:?}");
    }
    let out = run_in(&p.root, &["--store", "elsewhere", "approvals", "--server", &socket], &[]);
    assert_eq!(out.0, 2, "--store with a server is refused: {out:?}");
    drop(server);
    let out = run_in(&p.root, &["--store", &store_arg(&p), "approvals", "--json"], &[]);
    assert_eq!(serde_json::from_str::<Value>(&out.1).unwrap()["approvals"], serde_json::json!([]), "{out:?}");
}

#[test]
fn doctor_asks_the_configured_server_and_fails_when_it_is_down() {
    let p = gate_project();
    let socket = p.socket().display().to_string();
    let doctor = |p: &Project| {
        let out = run_in(&p.root, &["doctor", "--json"], &[("--server", &socket)]);
        let report: Value = serde_json::from_str(&out.1).unwrap();
        report["checks"].as_array().unwrap().iter().find(|c| c["check"] == "server").cloned().unwrap()
    };
    let down = doctor(&p);
    assert_eq!(down["ok"], false, "{down}");
    assert!(down["fix"].as_str().unwrap().contains("warden serve"), "{down}");
    let server = gate_server(&p);
    let up = doctor(&p);
    assert_eq!(up["ok"], true, "{up}");
    assert!(up["detail"].as_str().unwrap().contains("is not opened here"), "{up}");
    drop(server);
}

/// The saved projection is in the store, which an agent with the user's shell can write.
/// One that forgets a revocation is what a one-shot hook process starts from (the residual
/// H-3 leaves, found by `doctor`); the resident service folds the log itself and is not misled (K-15).
#[tokio::test]
async fn the_server_folds_the_log_and_is_not_misled_by_a_forged_saved_projection() {
    use agentwarden::store::ProjectionStore;
    let p = project();
    approve(&p);
    let store = store_arg(&p);
    let out =
        warden(&p, &["--store", &store, "revoke", "--ref", "GATE-2026-11-22-001", "--by", "alice"], "", true);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let spawn = event("pre-task-main-planner");
    let revoked = direct(&p, &p.store, &spawn);
    assert_eq!(decision(&revoked), (0, Some("deny".to_owned())), "{revoked:?}");
    // Revoked: no approval in force, so the records' metadata says not approved.
    assert!(revoked.1.contains("pipelineRunApproved is boolean false"), "{revoked:?}");
    // The agent rewrites the saved projection: the revocation forgotten.
    {
        let sled =
            agentwarden::store::SledEventStore::open(&agentwarden::store::SledConfig::new(&p.store)).unwrap();
        let saved = sled.read_projection(agentwarden::RECORDS_PROJECTION).await.unwrap().unwrap();
        let mut state: agentwarden::sessions::SessionRecords = serde_json::from_slice(&saved).unwrap();
        for approval in state.governance.approvals.values_mut() {
            approval.revoked = None;
        }
        let forged = serde_json::to_vec(&state).unwrap();
        sled.write_projection(agentwarden::RECORDS_PROJECTION, forged).await.unwrap();
    }
    // A one-shot process starts from it (the documented residual): the forgery took.
    let misled = direct(&p, &p.store, &spawn);
    assert_eq!(decision(&misled), (0, None), "{misled:?}");
    // The server folds the log from its first event: the revocation stands.
    let server = Server::start(&p, true);
    let served = via(&p, &p.socket(), &spawn);
    assert_eq!(decision(&served), (0, Some("deny".to_owned())), "{served:?}");
    assert!(served.1.contains("pipelineRunApproved is boolean false"), "{served:?}");
    drop(server);
}

/// The saved records of the store at `store` (the server stopped): their head seq, and the log's.
fn saved_records(store: &Path) -> (Option<u64>, u64) {
    use agentwarden_ports::{EventStore, ProjectionStore};
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let store =
            agentwarden::store::SledEventStore::open(&agentwarden::store::SledConfig::new(store)).unwrap();
        let saved = store.read_projection(agentwarden::RECORDS_PROJECTION).await.unwrap();
        let saved = saved
            .map(|bytes| serde_json::from_slice::<Value>(&bytes).unwrap()["head"]["seq"].as_u64().unwrap());
        (saved, store.head().await.unwrap().seq)
    })
}

/// On a store whose records were never saved (`seal` and `approve` record without folding
/// the log), the server folds and saves them before it answers at all: killed with SIGKILL the
/// moment its socket answers, it has saved them at the log's head (V-33).
#[test]
fn the_server_catches_the_records_up_before_it_answers() {
    let p = project();
    approve(&p);
    let (saved, head) = saved_records(&p.store);
    assert_eq!((saved, head), (None, 2), "the direct commands saved no records");
    let server = Server::start(&p, true);
    server.kill();
    assert_eq!(saved_records(&p.store), (Some(2), 2));
}

/// The server keeps the manifests it parsed, by the digest of their bytes, but reads
/// them for every subagent call: a `manifests.toml` rewritten between two calls is judged by its
/// new bytes, and denied because they are not the sealed ones; put back, the same server allows
/// again. The same for `agentwarden.toml` (its parse is kept the same way) (V-36, T-11).
#[test]
fn a_file_rewritten_between_two_requests_is_judged_by_its_new_bytes() {
    let p = project();
    approve(&p);
    let server = Server::start(&p, true);
    let socket = p.socket();
    for name in ["pre-task-main-planner", "start-planner"] {
        assert_eq!(decision(&via(&p, &socket, &event(name))), (0, None), "{name}");
    }
    let read = serde_json::json!({
        "session_id": "demo-session", "hook_event_name": "PreToolUse", "cwd": p.root.display().to_string(),
        "tool_name": "Read", "tool_use_id": "toolu_r", "agent_id": "agent-planner-1",
        "agent_type": "planner", "tool_input": {"file_path": "x.md"},
    })
    .to_string();
    let denied = |answer: &(i32, String, String), file: &str| {
        assert_eq!(decision(answer), (0, Some("deny".to_owned())), "{answer:?}");
        assert!(
            answer.1.contains("sealed_file_changed") && answer.1.contains(&format!("`{file}` changed")),
            "{answer:?}"
        );
    };
    for (file, edit) in [
        ("manifests.toml", "\n# rewritten by an agent\n"),
        ("agentwarden.toml", "\n# rewritten by an agent\n"),
    ] {
        assert_eq!(decision(&via(&p, &socket, &read)), (0, None), "sealed: the Read runs");
        let path = p.root.join(file);
        let sealed = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, format!("{sealed}{edit}")).unwrap();
        denied(&via(&p, &socket, &read), file);
        std::fs::write(&path, &sealed).unwrap();
        assert_eq!(decision(&via(&p, &socket, &read)), (0, None), "{file} put back");
    }
    drop(server);
}

/// The environment variable that makes [`hold_silent_connections`] play the agent.
const HOLD: &str = "WARDEN_TEST_HOLD_SILENT";

/// Not a test by itself: in a process that
/// [`silent_connections_never_keep_out_status_a_hook_or_a_human_verb`] starts with [`HOLD`] set
/// to a socket, it plays the agent — it keeps four silent connections open to that socket,
/// opening a new one for each the server closes, until its stdin closes.
#[test]
fn hold_silent_connections() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let Some(socket) = std::env::var_os(HOLD) else { return };
    let done = std::sync::Arc::new(AtomicBool::new(false));
    let stdin_closed = std::sync::Arc::clone(&done);
    std::thread::spawn(move || {
        let _ = std::io::stdin().read_to_end(&mut Vec::new());
        stdin_closed.store(true, Ordering::SeqCst);
    });
    let mut held: Vec<UnixStream> = Vec::new();
    let mut announced = false;
    while !done.load(Ordering::SeqCst) {
        held.retain(|mut s| {
            let mut byte = [0_u8; 1];
            // Anything the server says (an error frame) or a close: that one is gone.
            matches!(s.read(&mut byte), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock)
        });
        while held.len() < 4 {
            let Ok(s) = UnixStream::connect(&socket) else { break };
            s.set_nonblocking(true).unwrap();
            held.push(s);
        }
        if !announced {
            println!("holding");
            announced = true;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// An agent that keeps opening silent connections from many processes, as many as the
/// server lets each hold, never keeps out `warden status`, a human verb's probe or a hook from
/// another process; a peer holds at most its share; every refusal and eviction is logged with
/// the peer's uid and pid (V-51).
#[test]
fn silent_connections_never_keep_out_status_a_hook_or_a_human_verb() {
    let p = project();
    approve(&p);
    let log = p.dir.path().join("server.log");
    let mut command = Command::new(BIN);
    command
        .args(["--store", &store_arg(&p), "--lock-timeout-ms", "300", "serve", "--socket"])
        .arg(p.socket())
        .args(["--config", "agentwarden.toml", "--max-connections", "16", "--max-connections-per-peer", "4"])
        // Long enough that only the admission (not the read timeout) can free a place.
        .args(["--read-timeout-ms", "60000"])
        .current_dir(&p.root)
        .env_remove("CLAUDECODE")
        .env("AGENTWARDEN_ENABLE_SUBAGENTS", "true")
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap());
    let _server = Server { child: Some(command.spawn().unwrap()) };
    wait_for(&p.socket());
    let socket = p.socket().display().to_string();

    // One process holds at most four: the fifth and sixth are closed unanswered.
    let mine: Vec<UnixStream> = (0..6).map(|_| UnixStream::connect(p.socket()).unwrap()).collect();
    let closed: Vec<bool> = mine
        .iter()
        .map(|mut s| {
            s.set_read_timeout(Some(Duration::from_millis(500))).unwrap();
            matches!(s.read(&mut [0_u8; 1]), Ok(0))
        })
        .collect();
    assert_eq!(closed, [false, false, false, false, true, true], "a peer's share is four");
    drop(mine);

    // The agent: eight processes of four silent connections each, reopened as they are closed.
    let exe = std::env::current_exe().unwrap();
    let holders: Vec<Child> = (0..8)
        .map(|_| {
            Command::new(&exe)
                .args(["--exact", "hold_silent_connections", "--nocapture", "--test-threads", "1"])
                .env(HOLD, p.socket())
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut holders: Vec<(u32, Child)> = holders.into_iter().map(|c| (c.id(), c)).collect();
    for (_, holder) in &mut holders {
        let mut out = std::io::BufReader::new(holder.stdout.take().unwrap());
        let mut line = String::new();
        while !line.contains("holding") {
            line.clear();
            assert!(std::io::BufRead::read_line(&mut out, &mut line).unwrap() > 0, "a holder ended");
        }
    }
    std::thread::sleep(Duration::from_millis(300));

    for round in 0..3 {
        let started = Instant::now();
        let status = warden(&p, &["status", "--server", &socket], "", false);
        assert_eq!(
            status.status.code(),
            Some(0),
            "round {round}: {}",
            String::from_utf8_lossy(&status.stderr)
        );
        let answer = via(&p, &p.socket(), &event("pre-bash"));
        assert_eq!(answer.0, 0, "round {round}: the hook was answered, not refused: {answer:?}");
        let human = warden(&p, &["seal", "--server", &socket, "--by", "alice"], "", false);
        let stderr = String::from_utf8_lossy(&human.stderr);
        assert!(
            stderr.contains("server_holds_store"),
            "round {round}: the human verb's probe was answered: {stderr}"
        );
        assert!(started.elapsed() < Duration::from_secs(10), "round {round}: {:?}", started.elapsed());
    }

    for (_, holder) in &mut holders {
        drop(holder.stdin.take());
    }
    for (_, holder) in holders.iter_mut() {
        let _ = holder.wait();
    }
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        text.contains(&format!("peer_pid=Some({})", std::process::id()))
            && text.contains("its peer already holds 4 connections"),
        "the refusal names the test's own pid: {text}"
    );
    let named = holders.iter().filter(|(pid, _)| text.contains(&format!("peer_pid=Some({pid})"))).count();
    assert!(named > 0, "the evictions name the agent's processes: {text}");
    assert!(text.contains("closed unanswered for a new one"), "{text}");
}

/// A `ConfigChange` is blocked and recorded alike directly and through the server (the
/// client prints the server's block: it is one of the four answers X-40 lets through) (H-43).
#[test]
fn a_settings_change_is_blocked_and_recorded_directly_and_through_the_server() {
    let change = serde_json::json!({
        "session_id": "demo-session", "hook_event_name": "ConfigChange", "cwd": ".",
        "source": "local_settings", "file_path": "/p/.claude/settings.local.json",
    })
    .to_string();
    let blocked = |(code, stdout, stderr): (i32, String, String)| {
        assert_eq!(code, 0, "{stderr}");
        let answer: Value = serde_json::from_str(stdout.trim()).unwrap();
        assert_eq!(answer["decision"], "block", "{stdout}");
        assert!(answer["reason"].as_str().unwrap().contains("config_change_blocked"), "{stdout}");
    };
    let recorded = |p: &Project, store: &Path| {
        let events = events(p, store);
        let changes: Vec<&Value> =
            events.iter().filter(|e| e["event_type"] == "config_change_blocked").collect();
        assert_eq!(changes.len(), 1, "{events:?}");
        assert_eq!(changes[0]["payload"]["source"], "local_settings");
        assert_eq!(changes[0]["session"], "demo-session");
    };
    let p = project();
    let direct_store = p.dir.path().join("direct");
    blocked(direct(&p, &direct_store, &change));
    recorded(&p, &direct_store);
    let server = Server::start(&p, true);
    blocked(via(&p, &p.socket(), &change));
    drop(server);
    recorded(&p, &p.store);
}
