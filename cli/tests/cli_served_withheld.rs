//! An event's body goes only to the server's own user or root, end to end (V-66): with a
//! server run as root, a client running as a second OS user asks for an event's proof and gets
//! its path — the hashes — without the body, and `warden audit prove` says `event_withheld`
//! (exit 1), while root gets the whole proof. Needs root and `setpriv` (to make and be the
//! second user): elsewhere it says why and checks nothing, except under `CI=true`, where a skip
//! fails.

#![expect(clippy::unwrap_used, reason = "test code: a failed unwrap is a failed test")]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use agentwarden_protocol::{Answer, Request};

mod users;

use users::{as_user, ensure_user, is_root};

const BIN: &str = env!("CARGO_BIN_EXE_warden");
const AGENT_USER: &str = "awtest-agent";
/// Set, this test binary is the second user's raw client: it asks `RAW_SOCKET` for the proof.
const RAW_SOCKET: &str = "AWTEST_WITHHELD_SOCKET";

/// A server child, killed when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn direct(store: &Path, cwd: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .arg("--store")
        .arg(store)
        .args(args)
        .current_dir(cwd)
        .env_remove("AGENTWARDEN_SERVER")
        .env_remove("AGENTWARDEN_STORE")
        .env("XDG_CONFIG_HOME", "/nonexistent-config")
        .output()
        .unwrap()
}

fn ok(output: Output) -> String {
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

/// Whether this test may run here; a skip under `CI=true` fails.
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

/// The second user's side, when this binary is run as it with `RAW_SOCKET` set: the proof of
/// event 2 in a tree of 3, asked over the protocol, printed as `hashes N event BOOL`.
#[test]
fn raw_client() {
    let Ok(socket) = std::env::var(RAW_SOCKET) else { return };
    let answer = agentwarden_protocol::exchange(
        Path::new(&socket),
        None,
        &Request::InclusionProof { seq: 2, size: 3 },
        Duration::from_secs(10),
    )
    .unwrap();
    let Answer::InclusionProof { hashes, event, .. } = answer else { panic!("not a proof: {answer:?}") };
    println!("hashes {} event {}", hashes.len(), event.is_some());
}

#[test]
fn another_user_gets_the_proofs_path_and_not_the_events_body() {
    if !can_switch_users() {
        return;
    }
    ensure_user(AGENT_USER);
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let here = dir.path().to_path_buf();
    std::fs::create_dir_all(here.join(".git")).unwrap();
    let store = here.join("audit");
    let key = here.join("keys").join("log.key");
    let verifier = ok(direct(
        &store,
        &here,
        &["audit", "keygen", "--origin", "test.example/a", "--out", key.to_str().unwrap()],
    ));
    for i in 0..3 {
        ok(direct(&store, &here, &["audit", "note", &format!("note {i}")]));
    }
    let checkpoint: PathBuf = here.join("checkpoint.txt");
    std::fs::write(
        &checkpoint,
        ok(direct(&store, &here, &["audit", "checkpoint", "--key", key.to_str().unwrap()])),
    )
    .unwrap();
    std::fs::set_permissions(&checkpoint, std::fs::Permissions::from_mode(0o644)).unwrap();

    // The server, as root (this process's user); its socket open to the second user.
    let socket = here.join("warden.sock");
    let server = Server(
        Command::new(BIN)
            .arg("--store")
            .arg(&store)
            .args(["serve", "--socket-mode", "666", "--socket"])
            .arg(&socket)
            .current_dir(&here)
            .env_remove("AGENTWARDEN_SERVER")
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
    let served = |command: &mut Command| {
        command
            .current_dir(&here)
            .env_remove("AGENTWARDEN_SERVER")
            .env_remove("AGENTWARDEN_STORE")
            .env("XDG_CONFIG_HOME", "/nonexistent-config")
            .output()
            .unwrap()
    };
    let prove =
        ["audit", "prove", "2", "--checkpoint", checkpoint.to_str().unwrap(), "--verifier", verifier.trim()];

    // The second user: the path comes back, the body does not.
    let raw = served(
        as_user(AGENT_USER, std::env::current_exe().unwrap().to_str().unwrap())
            .args(["--exact", "raw_client", "--nocapture", "--test-threads", "1"])
            .env(RAW_SOCKET, &socket),
    );
    let said = String::from_utf8_lossy(&raw.stdout);
    assert!(raw.status.success(), "{said}{}", String::from_utf8_lossy(&raw.stderr));
    assert!(said.contains("hashes 2 event false"), "the path without the body: {said}");
    let withheld = served(as_user(AGENT_USER, BIN).args(prove).arg("--server").arg(&socket));
    let stderr = String::from_utf8_lossy(&withheld.stderr);
    assert_eq!(withheld.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("event_withheld"), "{stderr}");
    assert!(withheld.stdout.is_empty(), "no proof printed without its event");

    // Root, the server's own user: the whole proof.
    let whole = ok(served(Command::new(BIN).args(prove).arg("--server").arg(&socket)));
    assert!(whole.contains("agentwarden/inclusion-proof/v1") && whole.contains("\nevent {"), "{whole}");
    drop(server);
}
