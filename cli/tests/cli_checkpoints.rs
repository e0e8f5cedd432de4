//! Signed checkpoints, proofs and the witness through the real binary (issue 37, item 5): what
//! they must catch — a rewritten and re-hashed log, an older copy of the store, a proof of an
//! event not in the tree, a checkpoint signed by another key, a truncated archive segment, a
//! witness shown a rollback or a fork — and that nothing valid is refused.

#![expect(clippy::unwrap_used, reason = "test code: a failed unwrap is a failed test")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const ORIGIN: &str = "test.example/warden/audit";

struct Log {
    dir: tempfile::TempDir,
    store: PathBuf,
    key: PathBuf,
    verifier: String,
}

fn warden(store: &Path, args: &[&str]) -> Output {
    warden_in(store, args, None)
}

fn warden_in(store: &Path, args: &[&str], stdin: Option<&str>) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_warden"))
        .arg("--store")
        .arg(store)
        .args(args)
        .env_remove("AGENTWARDEN_STORE")
        .env_remove("RUST_LOG")
        .env("XDG_CONFIG_HOME", "/nonexistent-config")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    if let Some(text) = stdin {
        input.write_all(text.as_bytes()).unwrap();
    }
    drop(input);
    child.wait_with_output().unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

fn ok(output: Output) -> String {
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    stdout(&output)
}

/// Exit `code`, and stderr names `reason_code`.
fn refused(output: &Output, code: i32, reason_code: &str) {
    assert_eq!(output.status.code(), Some(code), "{}{}", stdout(output), stderr(output));
    assert!(stderr(output).contains(reason_code), "{}", stderr(output));
}

fn notes(store: &Path, from: usize, to: usize) {
    for i in from..to {
        ok(warden(store, &["audit", "note", &format!("note {i}")]));
    }
}

fn log() -> Log {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("audit");
    let key = dir.path().join("keys").join("log.key");
    let verifier =
        ok(warden(&store, &["audit", "keygen", "--origin", ORIGIN, "--out", key.to_str().unwrap()]));
    Log { store, key, verifier: verifier.trim_end().to_owned(), dir }
}

impl Log {
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// A checkpoint of the log now, saved as `name`.
    fn checkpoint(&self, name: &str) -> PathBuf {
        let note = ok(warden(&self.store, &["audit", "checkpoint", "--key", self.key.to_str().unwrap()]));
        let path = self.path(name);
        std::fs::write(&path, note).unwrap();
        path
    }

    /// A copy of the log's key in a directory of its own, without the key's kept checkpoint
    ///
    fn key_copy(&self) -> PathBuf {
        let copy = self.path("copied-key").join("log.key");
        std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
        std::fs::copy(&self.key, &copy).unwrap();
        copy
    }

    fn verify(&self, checkpoint: &Path) -> Output {
        warden(
            &self.store,
            &["audit", "verify", "--checkpoint", checkpoint.to_str().unwrap(), "--verifier", &self.verifier],
        )
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

#[test]
fn a_checkpoint_is_a_signed_note_and_the_log_that_grows_extends_it() {
    let log = log();
    assert!(log.verifier.starts_with(&format!("{ORIGIN}+")), "{}", log.verifier);
    notes(&log.store, 0, 5);
    let checkpoint = log.checkpoint("five.txt");
    let text = std::fs::read_to_string(&checkpoint).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(&lines[..2], &[ORIGIN, "5"], "{text}");
    assert_eq!(lines[3], "");
    assert!(lines[4].starts_with(&format!("— {ORIGIN} ")), "{text}");

    notes(&log.store, 5, 9);
    let out = ok(log.verify(&checkpoint));
    assert!(out.contains("intact: 9 events"), "{out}");
    assert!(out.contains("consistent: the log extends"), "{out}");
    let json = ok(warden(
        &log.store,
        &[
            "audit",
            "verify",
            "--checkpoint",
            checkpoint.to_str().unwrap(),
            "--verifier",
            &log.verifier,
            "--json",
        ],
    ));
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json["checkpoint"]["consistent"], true);
    assert_eq!(json["checkpoint"]["size"], 5);

    // The --json form carries the note and the chain's checkpoint; verify reads it too.
    let object =
        ok(warden(&log.store, &["audit", "checkpoint", "--key", log.key.to_str().unwrap(), "--json"]));
    let value: serde_json::Value = serde_json::from_str(&object).unwrap();
    assert_eq!((value["size"].as_u64(), value["seq"].as_u64()), (Some(9), Some(9)));
    let path = log.path("nine.json");
    std::fs::write(&path, &object).unwrap();
    ok(log.verify(&path));
    // A signed checkpoint without the key to check it with is a usage error.
    let out = warden(&log.store, &["audit", "verify", "--checkpoint", checkpoint.to_str().unwrap()]);
    refused(&out, 2, "--verifier");
}

#[test]
fn every_event_is_proven_and_checked_with_no_store() {
    let log = log();
    notes(&log.store, 0, 13);
    let checkpoint = log.checkpoint("cp.txt");
    notes(&log.store, 13, 15);
    let nowhere = log.path("no-store-here");
    for seq in 1..=13 {
        let proof = ok(warden(
            &log.store,
            &["audit", "prove", &seq.to_string(), "--checkpoint", checkpoint.to_str().unwrap()],
        ));
        assert!(
            proof.starts_with(&format!("agentwarden/inclusion-proof/v1\nseq {seq}\nsize 13\nevent ")),
            "{proof}"
        );
        let path = log.path(&format!("{seq}.proof"));
        std::fs::write(&path, &proof).unwrap();
        let args = [
            "audit",
            "verify-proof",
            "--proof",
            path.to_str().unwrap(),
            "--checkpoint",
            checkpoint.to_str().unwrap(),
            "--verifier",
            &log.verifier,
        ];
        let out = ok(warden(&nowhere, &args));
        assert!(
            out.starts_with(&format!("valid: event {seq} (operator_note) is in {ORIGIN}'s log of 13 events")),
            "{out}"
        );
    }
    assert!(!nowhere.exists(), "verify-proof opened no store");

    // A proof for an event not in the tree.
    let out = warden(&log.store, &["audit", "prove", "14", "--checkpoint", checkpoint.to_str().unwrap()]);
    refused(&out, 1, "proof_invalid");
    // An event changed in the proof, or moved to another position.
    let proof = std::fs::read_to_string(log.path("4.proof")).unwrap();
    let rows = [
        (proof.replace("note 3", "note 9"), 1, "proof_invalid", "another event's text"),
        (proof.replace("seq 4\n", "seq 5\n"), 2, "proof_malformed", "another seq than the event's"),
        (proof.replace("size 13\n", "size 14\n"), 1, "proof_invalid", "another tree's size"),
        (
            proof.lines().take(5).map(|l| format!("{l}\n")).collect::<String>(),
            1,
            "proof_invalid",
            "a path cut short",
        ),
        ("junk\n".to_owned(), 2, "proof_malformed", "not a proof"),
    ];
    for (text, code, reason, why) in rows {
        let path = log.path("bad.proof");
        std::fs::write(&path, text).unwrap();
        let args = [
            "audit",
            "verify-proof",
            "--proof",
            path.to_str().unwrap(),
            "--checkpoint",
            checkpoint.to_str().unwrap(),
            "--verifier",
            &log.verifier,
        ];
        let out = warden(&nowhere, &args);
        assert_eq!(out.status.code(), Some(code), "{why}: {}", stderr(&out));
        assert!(stderr(&out).contains(reason), "{why}: {}", stderr(&out));
    }
    // The JSON form carries the proof's text.
    let object = ok(warden(
        &log.store,
        &["audit", "prove", "2", "--checkpoint", checkpoint.to_str().unwrap(), "--json"],
    ));
    let value: serde_json::Value = serde_json::from_str(&object).unwrap();
    assert!(value["proof"].as_str().unwrap().starts_with("agentwarden/inclusion-proof/v1\nseq 2\n"));
}

#[test]
fn a_whole_log_rewritten_and_rehashed_after_a_checkpoint_is_found() {
    let log = log();
    notes(&log.store, 0, 6);
    let checkpoint = log.checkpoint("cp.txt");
    // Another history of more events, every chain hash recomputed: a valid chain.
    let forged = log.path("forged");
    for i in 0..8 {
        let text = if i == 2 { "nothing happened here".to_owned() } else { format!("note {i}") };
        ok(warden(&forged, &["audit", "note", &text]));
    }
    std::fs::remove_dir_all(&log.store).unwrap();
    copy_dir(&forged, &log.store);
    ok(warden(&log.store, &["audit", "verify"]));
    let out = log.verify(&checkpoint);
    refused(&out, 1, "checkpoint_inconsistent");
    assert!(stderr(&out).contains("rewritten"), "{}", stderr(&out));
    let out = warden(&log.store, &["audit", "prove", "1", "--checkpoint", checkpoint.to_str().unwrap()]);
    refused(&out, 1, "checkpoint_inconsistent");
}

/// A log rewritten under the Merkle tree the store kept for the old one: the tree alone
/// would still prove the checkpoint; `verify --checkpoint` holds it to the events and refuses.
#[test]
fn a_log_rewritten_under_its_old_kept_tree_is_found() {
    let log = log();
    notes(&log.store, 0, 64);
    let checkpoint = log.checkpoint("cp.txt");
    let kept: Vec<(sled::IVec, sled::IVec)> = {
        let db = sled::open(&log.store).unwrap();
        db.open_tree("merkle").unwrap().iter().map(Result::unwrap).collect()
    };
    assert!(!kept.is_empty(), "the store keeps nodes of 64 events");
    let forged = log.path("forged");
    for i in 0..64 {
        let text = if i == 2 { "nothing happened here".to_owned() } else { format!("note {i}") };
        ok(warden(&forged, &["audit", "note", &text]));
    }
    {
        let db = sled::open(&forged).unwrap();
        let tree = db.open_tree("merkle").unwrap();
        tree.clear().unwrap();
        for (key, value) in kept {
            tree.insert(key, value).unwrap();
        }
        db.flush().unwrap();
    }
    std::fs::remove_dir_all(&log.store).unwrap();
    copy_dir(&forged, &log.store);
    ok(warden(&log.store, &["audit", "verify"]));
    let out = log.verify(&checkpoint);
    refused(&out, 1, "checkpoint_inconsistent");
    assert!(
        stderr(&out).contains("the Merkle tree the store keeps is not the one its first 64 events make"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn the_store_swapped_for_an_older_copy_is_found() {
    let log = log();
    notes(&log.store, 0, 3);
    let older = log.path("older");
    copy_dir(&log.store, &older);
    notes(&log.store, 3, 7);
    let checkpoint = log.checkpoint("cp.txt");
    std::fs::remove_dir_all(&log.store).unwrap();
    copy_dir(&older, &log.store);
    ok(warden(&log.store, &["audit", "verify"]));
    let out = log.verify(&checkpoint);
    refused(&out, 1, "checkpoint_inconsistent");
    assert!(stderr(&out).contains("holds 3 events, fewer than the 7"), "{}", stderr(&out));
    let json = warden(
        &log.store,
        &[
            "audit",
            "verify",
            "--checkpoint",
            checkpoint.to_str().unwrap(),
            "--verifier",
            &log.verifier,
            "--json",
        ],
    );
    let value: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap();
    assert_eq!(value["checkpoint"]["consistent"], false);
    assert_eq!(value["checkpoint"]["code"], "checkpoint_inconsistent");
}

#[test]
fn a_checkpoint_signed_by_another_key_is_refused() {
    let log = log();
    notes(&log.store, 0, 3);
    let other_key = log.path("other.key");
    ok(warden(&log.store, &["audit", "keygen", "--origin", ORIGIN, "--out", other_key.to_str().unwrap()]));
    let note = ok(warden(&log.store, &["audit", "checkpoint", "--key", other_key.to_str().unwrap()]));
    let checkpoint = log.path("other.txt");
    std::fs::write(&checkpoint, note).unwrap();
    refused(&log.verify(&checkpoint), 1, "checkpoint_signature_invalid");
    let out = warden(
        &log.store,
        &["audit", "prove", "1", "--checkpoint", checkpoint.to_str().unwrap(), "--verifier", &log.verifier],
    );
    refused(&out, 1, "checkpoint_signature_invalid");
    // A note edited after signing.
    let good = std::fs::read_to_string(log.checkpoint("good.txt")).unwrap();
    std::fs::write(&checkpoint, good.replacen("\n3\n", "\n2\n", 1)).unwrap();
    refused(&log.verify(&checkpoint), 1, "checkpoint_signature_invalid");
}

/// Table: the key's rules, each refused with `log_key_unusable` (exit 2) before the store
/// is opened; `keygen` never overwrites a key.
#[test]
fn an_unusable_key_is_refused_with_its_reason() {
    use std::os::unix::fs::PermissionsExt;
    let log = log();
    notes(&log.store, 0, 1);
    let mode = std::fs::metadata(&log.key).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let open_key = log.path("open.key");
    std::fs::copy(&log.key, &open_key).unwrap();
    std::fs::set_permissions(&open_key, std::fs::Permissions::from_mode(0o644)).unwrap();
    let witness_key = log.path("witness.key");
    ok(warden(&log.store, &["witness", "keygen", "--name", ORIGIN, "--out", witness_key.to_str().unwrap()]));
    let rows: [(&Path, &str, &str); 4] = [
        (&open_key, "open to group or others", "readable by others"),
        (&log.path("missing.key"), "does not exist", "missing"),
        (&witness_key, "not Ed25519", "a witness's key"),
        (&log.dir.path().join("keys"), "not a regular file", "a directory"),
    ];
    for (key, why_text, why) in rows {
        let out = warden(&log.store, &["audit", "checkpoint", "--key", key.to_str().unwrap()]);
        refused(&out, 2, "log_key_unusable");
        assert!(stderr(&out).contains(why_text), "{why}: {}", stderr(&out));
    }
    // No --key: the default place, here missing.
    refused(&warden(&log.store, &["audit", "checkpoint"]), 2, "/nonexistent-config/agentwarden/log.key");
    let out =
        warden(&log.store, &["audit", "keygen", "--origin", ORIGIN, "--out", log.key.to_str().unwrap()]);
    refused(&out, 2, "never overwritten");
}

/// A segment of the archive cut short after a checkpoint: the log does not verify, and the
/// checkpoint is not confirmed.
#[test]
fn a_truncated_archive_segment_is_found() {
    use std::os::unix::fs::PermissionsExt;
    let log = log();
    {
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let config = agentwarden::store::SledConfig::new(&log.store).archive_sizes(4, 8);
        let store = agentwarden::store::SledEventStore::open(&config).unwrap();
        runtime.block_on(async {
            use agentwarden::audit::{Actor, Correlation, EventDraft, Timestamp};
            use agentwarden::events::{AuditEvent, OperatorNote};
            use agentwarden::store::EventStore;
            for i in 0..40 {
                let event = AuditEvent::OperatorNote(OperatorNote { message: format!("note {i}") });
                let at = Timestamp::from_unix_millis(i).unwrap();
                let draft =
                    EventDraft::new(at, Actor::new("t").unwrap(), Correlation::default(), &event).unwrap();
                store.append(agentwarden::store::Expected::Any, vec![draft]).await.unwrap();
            }
        });
    }
    let checkpoint = log.checkpoint("cp.txt");
    ok(log.verify(&checkpoint));
    let segments: Vec<PathBuf> =
        std::fs::read_dir(log.store.join("archive")).unwrap().map(|e| e.unwrap().path()).collect();
    assert!(!segments.is_empty(), "the store archived segments");
    let segment = segments.iter().min().unwrap();
    std::fs::set_permissions(segment, std::fs::Permissions::from_mode(0o600)).unwrap();
    let length = std::fs::metadata(segment).unwrap().len();
    std::fs::OpenOptions::new().write(true).open(segment).unwrap().set_len(length - 10).unwrap();
    let out = log.verify(&checkpoint);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("is not the") && stderr(&out).contains(".seg"), "{}", stderr(&out));
    // Proofs against the checkpoint cannot be made from it either.
    let out = warden(&log.store, &["audit", "prove", "1", "--checkpoint", checkpoint.to_str().unwrap()]);
    assert_ne!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(!stdout(&out).contains("consistent"), "{}", stdout(&out));
}

/// The witness cosigns a log that grows, and refuses a rollback and a fork: two readers shown
/// different histories are found by the witness that saw one of them.
#[test]
fn the_witness_cosigns_growth_and_refuses_rollback_and_fork() {
    let log = log();
    let witness_key = log.path("w.key");
    let witness_vkey = ok(warden(
        &log.store,
        &["witness", "keygen", "--name", "witness.example/w1", "--out", witness_key.to_str().unwrap()],
    ));
    assert!(witness_vkey.starts_with("witness.example/w1+"), "{witness_vkey}");
    let state = log.path("witness-state");
    let add = |request: &str| {
        warden_in(
            &log.store,
            &[
                "witness",
                "add-checkpoint",
                "--key",
                witness_key.to_str().unwrap(),
                "--log",
                &log.verifier,
                "--state",
                state.to_str().unwrap(),
            ],
            Some(request),
        )
    };
    let request = |store: &Path, old: u64, checkpoint: &Path| {
        ok(warden(
            store,
            &[
                "audit",
                "witness-request",
                "--old",
                &old.to_string(),
                "--checkpoint",
                checkpoint.to_str().unwrap(),
            ],
        ))
    };
    notes(&log.store, 0, 4);
    let first = log.checkpoint("4.txt");
    let line = ok(add(&request(&log.store, 0, &first)));
    assert!(line.starts_with("— witness.example/w1 "), "{line}");
    notes(&log.store, 4, 9);
    let second = log.checkpoint("9.txt");
    ok(add(&request(&log.store, 4, &second)));
    // The same checkpoint again is cosigned again.
    ok(add(&request(&log.store, 9, &second)));

    // A rollback: the first checkpoint again.
    refused(&add(&request(&log.store, 0, &first)), 1, "witness_rollback");
    // A stale old size.
    notes(&log.store, 9, 11);
    let third = log.checkpoint("11.txt");
    refused(&add(&request(&log.store, 4, &third)), 1, "witness_conflict");

    // A fork: another history signed by the same key, shown to this witness.
    let forked = log.path("forked");
    for i in 0..12 {
        ok(warden(&forked, &["audit", "note", &format!("other {i}")]));
    }
    // The key's kept history refuses to sign it: the fork is signed by a copy of the key
    // elsewhere, whose history starts anew (the residual A-44 names).
    let note = ok(warden(&forked, &["audit", "checkpoint", "--key", log.key_copy().to_str().unwrap()]));
    let fork = log.path("fork.txt");
    std::fs::write(&fork, note).unwrap();
    refused(&add(&request(&forked, 9, &fork)), 1, "witness_fork");
    // And the witness goes on with the real log.
    ok(add(&request(&log.store, 9, &third)));
    // Its state, tampered with, stops it: it refuses rather than start again from nothing.
    for entry in std::fs::read_dir(&state).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "checkpoint") {
            std::fs::write(&path, "junk").unwrap();
        }
    }
    refused(&add(&request(&log.store, 11, &third)), 2, "checkpoint_invalid");
}

/// `verify --witness VKEY… --quorum K` holds the checkpoint to K distinct given witness
/// keys' cosignatures: met with two of three, unmet with one, and a cosignature by a key not
/// given does not count, however many there are.
#[test]
fn a_quorum_of_given_witnesses_must_cosign() {
    let log = log();
    notes(&log.store, 0, 3);
    let checkpoint = log.checkpoint("3.txt");
    let request = ok(warden(
        &log.store,
        &["audit", "witness-request", "--old", "0", "--checkpoint", checkpoint.to_str().unwrap()],
    ));
    let mut witnesses = Vec::new();
    for name in ["w1", "w2", "w3", "stranger"] {
        let key = log.path(&format!("{name}.key"));
        let vkey = ok(warden(
            &log.store,
            &[
                "witness",
                "keygen",
                "--name",
                &format!("witness.example/{name}"),
                "--out",
                key.to_str().unwrap(),
            ],
        ));
        let state = log.path(&format!("{name}-state"));
        let line = ok(warden_in(
            &log.store,
            &[
                "witness",
                "add-checkpoint",
                "--key",
                key.to_str().unwrap(),
                "--log",
                &log.verifier,
                "--state",
                state.to_str().unwrap(),
            ],
            Some(&request),
        ));
        witnesses.push((vkey.trim_end().to_owned(), line));
    }
    let note = std::fs::read_to_string(&checkpoint).unwrap();
    let cosigned = |by: &[usize], name: &str| {
        let lines: String = by.iter().map(|&i| witnesses[i].1.clone()).collect();
        let path = log.path(name);
        std::fs::write(&path, format!("{note}{lines}")).unwrap();
        path
    };
    let verify = |file: &Path, quorum: &str| {
        let mut args = vec![
            "audit".to_owned(),
            "verify".to_owned(),
            "--checkpoint".to_owned(),
            file.to_str().unwrap().to_owned(),
            "--verifier".to_owned(),
            log.verifier.clone(),
            "--quorum".to_owned(),
            quorum.to_owned(),
        ];
        for (vkey, _) in witnesses.iter().take(3) {
            args.extend(["--witness".to_owned(), vkey.clone()]);
        }
        warden(&log.store, &args.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let two = cosigned(&[0, 1], "two.txt");
    assert!(ok(verify(&two, "2")).contains("consistent"));
    refused(&verify(&two, "3"), 1, "witness_quorum_unmet");
    let one = cosigned(&[0], "one.txt");
    refused(&verify(&one, "2"), 1, "witness_quorum_unmet");
    // The stranger's cosignature is valid, but its key was not given: it does not count.
    let stranger = cosigned(&[0, 3], "stranger.txt");
    refused(&verify(&stranger, "2"), 1, "witness_quorum_unmet");
    refused(&verify(&two, "4"), 2, "checkpoint_invalid");
}

/// A `warden witness serve` child, killed when dropped, and where it listens.
struct WitnessServer {
    child: std::process::Child,
    addr: String,
}

impl Drop for WitnessServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn witness_serve(log: &Log, key: &Path, state: &Path) -> WitnessServer {
    use std::io::BufRead;
    let mut child = Command::new(env!("CARGO_BIN_EXE_warden"))
        .args(["witness", "serve", "--listen", "127.0.0.1:0", "--key"])
        .arg(key)
        .arg("--state")
        .arg(state)
        .args(["--log", &log.verifier])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let addr = line.trim().trim_start_matches("witnessing on http://").trim_end_matches("/add-checkpoint");
    WitnessServer { addr: addr.to_owned(), child }
}

/// POSTs `body` to the witness: (status, content type, body).
fn post(witness: &WitnessServer, body: &str) -> (u16, String, String) {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(&witness.addr).unwrap();
    write!(
        stream,
        "POST /add-checkpoint HTTP/1.1\r\nHost: w\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap();
    let status = head.get(9..12).unwrap().parse().unwrap();
    let kind = head.lines().find_map(|l| l.strip_prefix("Content-Type: ")).unwrap_or_default().to_owned();
    (status, kind, body.to_owned())
}

/// The witness over HTTP answers as C2SP `tlog-witness` says: 200 and the cosignature
/// line for growth (which then meets a quorum of one), 409 with its size as
/// `text/x.tlog.size` for a rollback or a stale old size, 422 for a fork shown to it, 403 for a
/// checkpoint signed by another key, 404 for a log it does not witness.
#[test]
fn the_witness_over_http_cosigns_growth_and_refuses_as_the_spec_says() {
    let log = log();
    let key = log.path("w.key");
    let vkey = ok(warden(
        &log.store,
        &["witness", "keygen", "--name", "witness.example/http", "--out", key.to_str().unwrap()],
    ));
    let witness = witness_serve(&log, &key, &log.path("http-state"));
    let request = |store: &Path, old: u64, checkpoint: &Path| {
        ok(warden(
            store,
            &[
                "audit",
                "witness-request",
                "--old",
                &old.to_string(),
                "--checkpoint",
                checkpoint.to_str().unwrap(),
            ],
        ))
    };
    notes(&log.store, 0, 4);
    let four = log.checkpoint("4.txt");
    let (status, kind, line) = post(&witness, &request(&log.store, 0, &four));
    assert_eq!((status, kind.as_str()), (200, "text/x.tlog.cosignature"), "{line}");
    let cosigned = log.path("4-cosigned.txt");
    std::fs::write(&cosigned, format!("{}{line}", std::fs::read_to_string(&four).unwrap())).unwrap();
    let verified = ok(warden(
        &log.store,
        &[
            "audit",
            "verify",
            "--checkpoint",
            cosigned.to_str().unwrap(),
            "--verifier",
            &log.verifier,
            "--witness",
            vkey.trim_end(),
        ],
    ));
    assert!(verified.contains("consistent"), "{verified}");

    notes(&log.store, 4, 9);
    let nine = log.checkpoint("9.txt");
    assert_eq!(post(&witness, &request(&log.store, 4, &nine)).0, 200);
    // A rollback, and a stale old size: the witness's size, as the spec's 409.
    assert_eq!(
        post(&witness, &request(&log.store, 0, &four)),
        (409, "text/x.tlog.size".into(), "9\n".into())
    );
    notes(&log.store, 9, 11);
    let eleven = log.checkpoint("11.txt");
    assert_eq!(post(&witness, &request(&log.store, 4, &eleven)).0, 409);

    // A fork: another history of 12 events under the same key, proven from the witness's 9.
    let forked = log.path("forked");
    for i in 0..12 {
        ok(warden(&forked, &["audit", "note", &format!("other {i}")]));
    }
    let fork = log.path("fork.txt");
    std::fs::write(
        &fork,
        ok(warden(&forked, &["audit", "checkpoint", "--key", log.key_copy().to_str().unwrap()])),
    )
    .unwrap();
    let (status, _, why) = post(&witness, &request(&forked, 9, &fork));
    assert_eq!(status, 422, "{why}");
    assert!(why.starts_with("witness_fork"), "{why}");

    // Another key under the log's name: 403; another log: 404.
    let other_key = log.path("other.key");
    ok(warden(&forked, &["audit", "keygen", "--origin", ORIGIN, "--out", other_key.to_str().unwrap()]));
    let foreign = log.path("foreign.txt");
    std::fs::write(
        &foreign,
        ok(warden(&forked, &["audit", "checkpoint", "--key", other_key.to_str().unwrap()])),
    )
    .unwrap();
    assert_eq!(post(&witness, &request(&forked, 9, &foreign)).0, 403);
    let stranger_key = log.path("stranger.key");
    ok(warden(
        &forked,
        &["audit", "keygen", "--origin", "elsewhere.example/log", "--out", stranger_key.to_str().unwrap()],
    ));
    let stranger = log.path("stranger.txt");
    std::fs::write(
        &stranger,
        ok(warden(&forked, &["audit", "checkpoint", "--key", stranger_key.to_str().unwrap()])),
    )
    .unwrap();
    assert_eq!(post(&witness, &request(&forked, 0, &stranger)).0, 404);
    // And the real log still grows under it.
    assert_eq!(post(&witness, &request(&log.store, 9, &eleven)).0, 200);
}

/// A key signs a tree only after a consistency proof from the last checkpoint it signed, kept
/// beside it: a log that grows is signed again; a rewritten log, an older copy, or a kept
/// note the key did not sign refuses, nothing is printed, and the kept note stays the last.
#[test]
fn a_key_signs_only_a_tree_that_extends_the_last_one_it_signed() {
    let log = log();
    let kept = log.key.with_file_name("log.key.checkpoint");
    let checkpoint =
        |log: &Log| warden(&log.store, &["audit", "checkpoint", "--key", log.key.to_str().unwrap()]);
    notes(&log.store, 0, 2);
    let older = log.path("older");
    copy_dir(&log.store, &older);
    let first = ok(checkpoint(&log));
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), first, "the note signed is kept beside the key");
    notes(&log.store, 2, 5);
    let second = ok(checkpoint(&log));
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), second, "a log that grows is signed, and kept");
    assert!(second.contains("\n5\n"), "{second}");

    // (what the store becomes, the exit, the code, why)
    let rewritten = log.path("rewritten");
    let fresh = log.path("fresh-store");
    notes(&fresh, 0, 7);
    copy_dir(&fresh, &rewritten);
    let cases: [(&Path, i32, &str, &str); 2] = [
        (&older, 1, "checkpoint_inconsistent", "an older copy: a rollback"),
        (&rewritten, 1, "checkpoint_inconsistent", "a longer log whose first events are others: a fork"),
    ];
    for (store, exit, code, why) in cases {
        std::fs::remove_dir_all(&log.store).unwrap();
        copy_dir(store, &log.store);
        let out = checkpoint(&log);
        refused(&out, exit, code);
        assert!(stderr(&out).contains("A-44"), "{why}: {}", stderr(&out));
        assert_eq!(stdout(&out), "", "{why}: nothing is printed");
        assert_eq!(std::fs::read_to_string(&kept).unwrap(), second, "{why}: the kept note is unchanged");
    }

    // A kept note another key signed is no history of this key's.
    let other = log.path("other.key");
    ok(warden(&log.store, &["audit", "keygen", "--origin", ORIGIN, "--out", other.to_str().unwrap()]));
    let foreign = ok(warden(&log.store, &["audit", "checkpoint", "--key", other.to_str().unwrap()]));
    std::fs::write(&kept, foreign).unwrap();
    refused(&checkpoint(&log), 2, "checkpoint_invalid");
}
