//! Checkpoints and proofs through a running server (V-65, V-66): a real `warden serve` holds a
//! sled store (its lock keeps every other process out), and `warden audit checkpoint` and
//! `audit prove` ask it, printing the bytes the direct form prints; the proof verifies with
//! `audit verify-proof` and no store. An older copy of the store behind the server is caught as
//! the direct form catches it.

#![expect(clippy::unwrap_used, reason = "test code: a failed unwrap is a failed test")]

use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

mod bounded;

const ORIGIN: &str = "test.example/warden/audit";
const BIN: &str = env!("CARGO_BIN_EXE_warden");

/// `warden ARGS` in `dir` (no configuration there), with `--server` naming `server` when
/// given (V-67).
fn warden(dir: &Path, server: Option<&Path>, args: &[&str]) -> Output {
    let mut command = Command::new(BIN);
    if let Some(server) = server {
        command.arg("--server").arg(server);
    }
    command
        .args(args)
        .current_dir(dir)
        .env_remove("AGENTWARDEN_STORE")
        .env_remove("AGENTWARDEN_SERVER")
        .env_remove("CLAUDECODE")
        .env_remove("RUST_LOG")
        .env("XDG_CONFIG_HOME", "/nonexistent-config")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    bounded::bounded(command.spawn().unwrap(), Duration::from_secs(60))
}

fn ok(output: Output) -> String {
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

/// A running `warden serve` on `store`, killed when dropped.
struct Server(Child);

impl Server {
    fn start(dir: &Path, store: &Path, socket: &Path) -> Server {
        let child = Command::new(BIN)
            .arg("--store")
            .arg(store)
            .args(["serve", "--socket"])
            .arg(socket)
            .current_dir(dir)
            .env_remove("CLAUDECODE")
            .env_remove("AGENTWARDEN_SERVER")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        Server::adopt(child, socket)
    }

    /// `child`, once it answers at `socket`.
    fn adopt(child: Child, socket: &Path) -> Server {
        let started = Instant::now();
        while UnixStream::connect(socket).is_err() {
            assert!(started.elapsed() < Duration::from_secs(20), "the server never answered");
            std::thread::sleep(Duration::from_millis(10));
        }
        Server(child)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

struct Setup {
    dir: tempfile::TempDir,
    store: PathBuf,
    key: PathBuf,
    verifier: String,
}

impl Setup {
    fn new(events: usize) -> Setup {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("audit");
        let key = dir.path().join("keys/log.key");
        let verifier = ok(warden(
            dir.path(),
            None,
            &[
                "--store",
                store.to_str().unwrap(),
                "audit",
                "keygen",
                "--origin",
                ORIGIN,
                "--out",
                key.to_str().unwrap(),
            ],
        ))
        .trim_end()
        .to_owned();
        let setup = Setup { dir, store, key, verifier };
        setup.notes(0, events);
        setup
    }

    fn notes(&self, from: usize, to: usize) {
        for i in from..to {
            ok(self.direct(&["audit", "note", &format!("note {i}")]));
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn direct(&self, args: &[&str]) -> Output {
        let mut all = vec!["--store", self.store.to_str().unwrap()];
        all.extend_from_slice(args);
        warden(self.dir.path(), None, &all)
    }

    /// [`Setup::direct`] where the configuration names the server at `socket`: the command line
    /// names it too, or the command is refused (V-67); `audit verify` is not served and opens
    /// the store `--store` names.
    fn direct_beside(&self, socket: &Path, args: &[&str]) -> Output {
        let mut all = vec!["--store", self.store.to_str().unwrap()];
        all.extend_from_slice(args);
        warden(self.dir.path(), Some(socket), &all)
    }

    fn served(&self, socket: &Path, args: &[&str]) -> Output {
        warden(self.dir.path(), Some(socket), args)
    }

    fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.path(name);
        std::fs::write(&path, text).unwrap();
        path
    }
}

/// While the server holds the store, the direct form cannot open it; through the server,
/// `checkpoint` (text and `--json`) and `prove` print exactly what the direct form printed before
/// the server started, and the proof verifies with no store (V-65).
#[test]
fn a_checkpoint_and_a_proof_through_the_server_are_the_direct_forms_bytes() {
    let s = Setup::new(70);
    let key = s.key.to_str().unwrap();
    let note = ok(s.direct(&["audit", "checkpoint", "--key", key]));
    let json = ok(s.direct(&["audit", "checkpoint", "--key", key, "--json"]));
    let checkpoint = s.write("checkpoint", &note);
    let checkpoint = checkpoint.to_str().unwrap();
    let witness_requests: Vec<String> = ["0", "30", "70"]
        .iter()
        .map(|old| ok(s.direct(&["audit", "witness-request", "--old", old, "--checkpoint", checkpoint])))
        .collect();
    let proofs: Vec<String> = ["1", "42", "64", "70"]
        .iter()
        .map(|seq| {
            ok(s.direct(&["audit", "prove", seq, "--checkpoint", checkpoint, "--verifier", &s.verifier]))
        })
        .collect();

    let socket = s.path("run/warden.sock");
    std::fs::create_dir_all(s.path("run")).unwrap();
    let _server = Server::start(s.dir.path(), &s.store, &socket);
    let locked = s.direct(&["--lock-timeout-ms", "100", "audit", "checkpoint", "--key", key]);
    assert_ne!(locked.status.code(), Some(0), "the server holds the store: the direct form cannot read it");

    assert_eq!(ok(s.served(&socket, &["audit", "checkpoint", "--key", key])), note);
    assert_eq!(ok(s.served(&socket, &["audit", "checkpoint", "--key", key, "--json"])), json);
    for (seq, direct) in ["1", "42", "64", "70"].iter().zip(&proofs) {
        let proof = ok(s.served(
            &socket,
            &["audit", "prove", seq, "--checkpoint", checkpoint, "--verifier", &s.verifier],
        ));
        assert_eq!(&proof, direct, "event {seq}");
        let file = s.write(&format!("proof-{seq}"), &proof);
        let valid = ok(warden(
            s.dir.path(),
            None,
            &[
                "audit",
                "verify-proof",
                "--proof",
                file.to_str().unwrap(),
                "--checkpoint",
                checkpoint,
                "--verifier",
                &s.verifier,
            ],
        ));
        assert!(valid.starts_with(&format!("valid: event {seq} ")), "{valid}");
    }
    for (old, direct) in ["0", "30", "70"].iter().zip(&witness_requests) {
        let served =
            ok(s.served(&socket, &["audit", "witness-request", "--old", old, "--checkpoint", checkpoint]));
        assert_eq!(&served, direct, "the witness request from {old}");
    }
    let missing = s.served(&socket, &["audit", "prove", "71", "--checkpoint", checkpoint]);
    assert_eq!(missing.status.code(), Some(1), "{}", String::from_utf8_lossy(&missing.stderr));
}

/// A checkpoint of more events than the store behind it holds (an
/// older copy put in its place) is `checkpoint_inconsistent`, never a proof (A-33, through the server).
#[test]
fn a_server_on_an_older_copy_of_the_store_refuses_a_later_checkpoint() {
    let s = Setup::new(10);
    let older = s.path("older");
    let copied = Command::new("cp").arg("-a").arg(&s.store).arg(&older).status().unwrap();
    assert!(copied.success());
    s.notes(10, 12);
    let note = ok(s.direct(&["audit", "checkpoint", "--key", s.key.to_str().unwrap()]));
    let checkpoint = s.write("checkpoint", &note);

    let socket = s.path("warden.sock");
    let _server = Server::start(s.dir.path(), &older, &socket);
    let refused = s.served(&socket, &["audit", "prove", "3", "--checkpoint", checkpoint.to_str().unwrap()]);
    assert_eq!(refused.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("checkpoint_inconsistent") && stderr.contains("fewer"), "{stderr}");
    let request = s.served(
        &socket,
        &["audit", "witness-request", "--old", "0", "--checkpoint", checkpoint.to_str().unwrap()],
    );
    assert_eq!(request.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&request.stderr).contains("checkpoint_inconsistent"));
}

/// A store rewritten under the checkpoint (another history of as many
/// events) is refused by `prove` and `witness-request`, never proven against (A-33, through the server).
#[test]
fn a_server_on_a_rewritten_store_refuses_the_checkpoint() {
    let s = Setup::new(6);
    let note = ok(s.direct(&["audit", "checkpoint", "--key", s.key.to_str().unwrap()]));
    let checkpoint = s.write("checkpoint", &note);
    let checkpoint = checkpoint.to_str().unwrap();
    let other = s.path("other");
    for i in 0..6 {
        ok(warden(
            s.dir.path(),
            None,
            &["--store", other.to_str().unwrap(), "audit", "note", &format!("other {i}")],
        ));
    }
    let socket = s.path("warden.sock");
    let _server = Server::start(s.dir.path(), &other, &socket);
    for args in [
        &["audit", "prove", "3", "--checkpoint", checkpoint][..],
        &["audit", "witness-request", "--old", "2", "--checkpoint", checkpoint],
    ] {
        let refused = s.served(&socket, args);
        assert_eq!(refused.status.code(), Some(1), "{args:?}");
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert!(
            stderr.contains("checkpoint_inconsistent") && stderr.contains("rewritten"),
            "{args:?}: {stderr}"
        );
    }
}

/// A project in `s`'s directory whose configuration names the socket and the log key.
fn keyed_config(s: &Setup) -> PathBuf {
    let config = s.path("agentwarden.toml");
    let text = "[server]\nsocket = \"run/warden.sock\"\nlog_key = \"keys/log.key\"\n";
    std::fs::create_dir_all(s.path("run")).unwrap();
    std::fs::write(&config, text).unwrap();
    config
}

fn serve_with_config(s: &Setup, config: &Path) -> Child {
    Command::new(BIN)
        .arg("--store")
        .arg(&s.store)
        .args(["serve", "--config"])
        .arg(config)
        .current_dir(s.dir.path())
        .env_remove("CLAUDECODE")
        .env_remove("AGENTWARDEN_SERVER")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// With `[server] log_key`, the server's note is signed for the store at start, and moves
/// with each group that appended: once a decision's answer is back, the note already covers
/// its event (signed after the sync, before the answer). The note verifies against the log
/// with the key's verifier once the server is stopped.
#[test]
fn the_server_signs_a_checkpoint_before_a_groups_answers_leave() {
    let s = Setup::new(5);
    let config = keyed_config(&s);
    let socket = s.path("run/warden.sock");
    let server = Server::adopt(serve_with_config(&s, &config), &socket);
    let note = |s: &Setup| ok(s.served(&socket, &["audit", "checkpoint", "--server-note"]));
    let first = note(&s);
    assert!(first.starts_with(&format!("{ORIGIN}\n5\n")), "{first}");
    for (asked, size) in [(1, 6), (2, 7)] {
        let request = s.path(&format!("missing-{asked}.json"));
        let gate = warden(
            s.dir.path(),
            Some(&socket),
            &["gate", "--request", request.to_str().unwrap(), "--config", config.to_str().unwrap()],
        );
        let stdout = String::from_utf8_lossy(&gate.stdout);
        assert_eq!(gate.status.code(), Some(1), "{}", String::from_utf8_lossy(&gate.stderr));
        assert!(stdout.contains(&format!("audit: seq {size}")), "recorded by the server: {stdout}");
        let now = note(&s);
        assert!(now.starts_with(&format!("{ORIGIN}\n{size}\n")), "after decision {asked}: {now}");
    }
    let last = note(&s);
    drop(server);
    let file = s.write("server-note", &last);
    let verified = s.direct_beside(
        &socket,
        &["audit", "verify", "--checkpoint", file.to_str().unwrap(), "--verifier", &s.verifier],
    );
    let text = ok(verified);
    assert!(text.contains("consistent: the log extends"), "{text}");
}

/// A log key the server cannot use refuses its start; a server without one signs
/// nothing and says so.
#[test]
fn a_server_with_an_unusable_key_does_not_start_and_one_without_signs_nothing() {
    use std::os::unix::fs::PermissionsExt;
    let s = Setup::new(1);
    let config = keyed_config(&s);
    std::fs::set_permissions(&s.key, std::fs::Permissions::from_mode(0o644)).unwrap();
    let refused = bounded::bounded(serve_with_config(&s, &config), Duration::from_secs(30));
    assert_ne!(refused.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("log_key_unusable"), "{stderr}");

    std::fs::remove_file(&config).unwrap();
    let socket = s.path("plain.sock");
    let _server = Server::start(s.dir.path(), &s.store, &socket);
    let none = s.served(&socket, &["audit", "checkpoint", "--server-note"]);
    assert_eq!(none.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&none.stderr).contains("signs no checkpoint"));
}

/// A server whose configuration names witnesses and no log key does not start: a witness
/// never fed is a silent gap.
#[test]
fn a_server_with_witnesses_and_no_log_key_does_not_start() {
    let s = Setup::new(1);
    let config = s.path("agentwarden.toml");
    std::fs::create_dir_all(s.path("run")).unwrap();
    let text = "[server]\nsocket = \"run/warden.sock\"\nwitnesses = [\"http://127.0.0.1:9 w.example/w1+01234567+AQ\"]\n";
    std::fs::write(&config, text).unwrap();
    let refused = bounded::bounded(serve_with_config(&s, &config), Duration::from_secs(30));
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("no log key is given") && stderr.contains("nothing would be signed"), "{stderr}");
    assert!(!s.path("run/warden.sock").exists(), "it never listened");
}

/// A `warden witness serve` on a port of its own, killed when dropped.
struct WitnessProcess(Child, String);

impl Drop for WitnessProcess {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A witness of `s`'s log: its verifier key, and the process serving it.
fn witness(s: &Setup, name: &str) -> (String, WitnessProcess) {
    use std::io::BufRead;
    let key = s.path(&format!("{name}.key"));
    let vkey = ok(warden(
        s.dir.path(),
        None,
        &["witness", "keygen", "--name", &format!("witness.example/{name}"), "--out", key.to_str().unwrap()],
    ));
    let mut child = Command::new(BIN)
        .args(["witness", "serve", "--listen", "127.0.0.1:0", "--key"])
        .arg(&key)
        .arg("--state")
        .arg(s.path(&format!("{name}-state")))
        .args(["--log", &s.verifier])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let url = line.trim().trim_start_matches("witnessing on ").trim_end_matches("/add-checkpoint").to_owned();
    (vkey.trim_end().to_owned(), WitnessProcess(child, url))
}

/// A project whose server signs and submits to `witnesses` (URLs and keys).
fn witnessed_config(s: &Setup, witnesses: &[(&str, &str)]) -> PathBuf {
    let config = s.path("agentwarden.toml");
    let list: Vec<String> = witnesses.iter().map(|(url, key)| format!("\"{url} {key}\"")).collect();
    let text = format!(
        "[server]\nsocket = \"run/warden.sock\"\nlog_key = \"keys/log.key\"\nwitnesses = [{}]\n",
        list.join(", ")
    );
    std::fs::create_dir_all(s.path("run")).unwrap();
    std::fs::write(&config, text).unwrap();
    config
}

/// Polls `what` for up to 20 s until `done` holds of it; the last value.
fn eventually(what: impl Fn() -> String, done: impl Fn(&str) -> bool) -> String {
    let started = Instant::now();
    loop {
        let now = what();
        if done(&now) || started.elapsed() > Duration::from_secs(20) {
            return now;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The server submits each note it signs to its witnesses from a task of its own; the
/// cosignature comes back with the note (`--server-note`), a later note is cosigned from the
/// earlier size, and the cosigned note meets a quorum in `audit verify` once the server stops.
#[test]
fn the_server_submits_its_notes_and_keeps_the_cosignatures() {
    let s = Setup::new(5);
    let (vkey, w) = witness(&s, "w1");
    let config = witnessed_config(&s, &[(&w.1, &vkey)]);
    let socket = s.path("run/warden.sock");
    let server = Server::adopt(serve_with_config(&s, &config), &socket);
    let note = || ok(s.served(&socket, &["audit", "checkpoint", "--server-note"]));
    let cosigned = |n: &str| n.lines().filter(|l| l.starts_with("— ")).count() == 2;
    let first = eventually(note, |n| cosigned(n));
    assert!(cosigned(&first) && first.starts_with(&format!("{ORIGIN}\n5\n")), "{first}");
    let request = s.path("missing.json");
    let gate = warden(
        s.dir.path(),
        Some(&socket),
        &["gate", "--request", request.to_str().unwrap(), "--config", config.to_str().unwrap()],
    );
    assert_eq!(gate.status.code(), Some(1));
    let second = eventually(note, |n| n.starts_with(&format!("{ORIGIN}\n6\n")) && cosigned(n));
    assert!(cosigned(&second) && second.starts_with(&format!("{ORIGIN}\n6\n")), "{second}");
    let status = ok(s.served(&socket, &["status"]));
    assert!(status.contains("cosigned 6 events"), "{status}");
    drop(server);
    let file = s.write("cosigned", &second);
    let verified = s.direct_beside(
        &socket,
        &[
            "audit",
            "verify",
            "--checkpoint",
            file.to_str().unwrap(),
            "--verifier",
            &s.verifier,
            "--witness",
            &vkey,
        ],
    );
    assert!(ok(verified).contains("consistent"));
}

/// A witness that saw another history of this log (a fork) refuses the server's note;
/// the server keeps answering, keeps no cosignature, and `warden status` says why.
#[test]
fn a_witness_shown_a_fork_refuses_and_the_server_says_so() {
    let s = Setup::new(5);
    let (vkey, w) = witness(&s, "w1");
    // Another history of 3 events under the same key, cosigned by the witness first.
    let other = s.path("other");
    let key_copy = s.path("copied-key/log.key");
    std::fs::create_dir_all(key_copy.parent().unwrap()).unwrap();
    std::fs::copy(&s.key, &key_copy).unwrap();
    for i in 0..3 {
        ok(warden(
            s.dir.path(),
            None,
            &["--store", other.to_str().unwrap(), "audit", "note", &format!("other {i}")],
        ));
    }
    let fork = s.write(
        "fork",
        &ok(warden(
            s.dir.path(),
            None,
            // A copy of the key elsewhere, whose history starts anew: the key itself keeps the
            // server's and would refuse to sign a fork.
            &["--store", other.to_str().unwrap(), "audit", "checkpoint", "--key", key_copy.to_str().unwrap()],
        )),
    );
    let body = ok(warden(
        s.dir.path(),
        None,
        &[
            "--store",
            other.to_str().unwrap(),
            "audit",
            "witness-request",
            "--old",
            "0",
            "--checkpoint",
            fork.to_str().unwrap(),
        ],
    ));
    assert_eq!(post_raw(&w.1, &body), "200", "the witness cosigned the other history");

    let config = witnessed_config(&s, &[(&w.1, &vkey)]);
    let socket = s.path("run/warden.sock");
    let _server = Server::adopt(serve_with_config(&s, &config), &socket);
    let status = eventually(|| ok(s.served(&socket, &["status"])), |t| t.contains("last submission failed"));
    assert!(status.contains("witness_fork") && status.contains("cosigned nothing yet"), "{status}");
    let note = ok(s.served(&socket, &["audit", "checkpoint", "--server-note"]));
    assert_eq!(note.lines().filter(|l| l.starts_with("— ")).count(), 1, "no cosignature kept: {note}");
}

/// `POST URL/add-checkpoint`: the status code.
fn post_raw(url: &str, body: &str) -> String {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(url.trim_start_matches("http://")).unwrap();
    write!(
        stream,
        "POST /add-checkpoint HTTP/1.1\r\nHost: w\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    answer.get(9..12).unwrap().to_owned()
}

/// The server's key follows the rule every signer does: it keeps the note it signed
/// beside the key, and a server restarted on a store swapped for another history signs nothing
/// — the checkpoint asked of it fails `checkpoint_inconsistent` — while it still serves.
#[test]
fn a_server_restarted_on_another_history_signs_nothing() {
    let s = Setup::new(5);
    let other = s.path("other");
    for i in 0..7 {
        let other = other.to_str().unwrap();
        ok(warden(s.dir.path(), None, &["--store", other, "audit", "note", &format!("other {i}")]));
    }
    let config = keyed_config(&s);
    let socket = s.path("run/warden.sock");
    let server = Server::adopt(serve_with_config(&s, &config), &socket);
    let first = ok(s.served(&socket, &["audit", "checkpoint", "--server-note"]));
    assert!(first.starts_with(&format!("{ORIGIN}\n5\n")), "{first}");
    let kept = s.key.with_file_name("log.key.checkpoint");
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), first, "the server keeps its note beside its key");
    drop(server);
    std::fs::remove_dir_all(&s.store).unwrap();
    std::fs::rename(&other, &s.store).unwrap();
    let server = Server::adopt(serve_with_config(&s, &config), &socket);
    let refused = s.served(&socket, &["audit", "checkpoint", "--server-note"]);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("checkpoint_inconsistent") && stderr.contains("A-44"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), first, "the kept note stays the last good one");
    let status = s.served(&socket, &["status"]);
    assert_eq!(status.status.code(), Some(0), "it still serves: {}", String::from_utf8_lossy(&status.stderr));
    drop(server);
}
