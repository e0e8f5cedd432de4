//! The witness policy of the sealed configuration through the real binary (issue 37, A-41):
//! `[audit] witnesses`/`quorum` hold `audit verify --checkpoint` only as the human sealed them —
//! a policy never sealed, or a configuration changed since the seal (the agent dropping the
//! policy), refuses; a policy that cannot be used refuses; flags add a check, never replace the
//! policy; and a valid sealed policy with enough cosignatures passes.

#![expect(clippy::unwrap_used, reason = "test code: a failed unwrap is a failed test")]
#![expect(
    clippy::indexing_slicing,
    reason = "test code: the witnesses are made above; a bad index is a failed test"
)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const ORIGIN: &str = "test.example/warden/audit";

struct Project {
    dir: tempfile::TempDir,
    root: PathBuf,
    store: PathBuf,
}

impl Project {
    fn new() -> Project {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project");
        std::fs::create_dir_all(root.join(".git")).unwrap();
        Project { store: dir.path().join("audit"), root, dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `warden ARGS` from `cwd` (the project's root unless said), `stdin` given.
    fn run_in(&self, cwd: &Path, args: &[&str], stdin: Option<&str>) -> Output {
        use std::io::Write;
        let mut command = Command::new(env!("CARGO_BIN_EXE_warden"));
        command
            .arg("--store")
            .arg(&self.store)
            .args(args)
            .current_dir(cwd)
            .env_remove("AGENTWARDEN_STORE")
            .env_remove("AGENTWARDEN_SERVER")
            .env_remove("RUST_LOG")
            .env("XDG_CONFIG_HOME", "/nonexistent-config")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (var, _) in agentwarden::human::AGENT_SESSION_ENVS {
            command.env_remove(var);
        }
        let mut child = command.spawn().unwrap();
        let mut input = child.stdin.take().unwrap();
        if let Some(text) = stdin {
            input.write_all(text.as_bytes()).unwrap();
        }
        drop(input);
        child.wait_with_output().unwrap()
    }

    fn run(&self, args: &[&str]) -> Output {
        self.run_in(&self.root, args, None)
    }

    fn config(&self, text: &str) {
        std::fs::write(self.root.join("agentwarden.toml"), text).unwrap();
    }
}

fn ok(output: Output) -> String {
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

/// Exit `code`, and one line on stderr naming `reason_code`.
fn refused(output: &Output, code: i32, reason_code: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(code), "{}{stderr}", String::from_utf8_lossy(&output.stdout));
    assert!(stderr.contains(reason_code), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
}

/// A log of three notes, its verifier key, a checkpoint and three witnesses' cosignature lines
/// of it (w1, w2, and a stranger's).
struct Witnessed {
    verifier: String,
    note: String,
    /// (verifier key, cosignature line), for w1, w2, stranger.
    witnesses: Vec<(String, String)>,
}

fn witnessed(p: &Project) -> Witnessed {
    let key = p.path("log.key");
    let verifier = ok(p.run(&["audit", "keygen", "--origin", ORIGIN, "--out", key.to_str().unwrap()]));
    let verifier = verifier.trim_end().to_owned();
    for i in 0..3 {
        ok(p.run(&["audit", "note", &format!("note {i}")]));
    }
    let note = ok(p.run(&["audit", "checkpoint", "--key", key.to_str().unwrap()]));
    let checkpoint = p.path("checkpoint.txt");
    std::fs::write(&checkpoint, &note).unwrap();
    let request =
        ok(p.run(&["audit", "witness-request", "--old", "0", "--checkpoint", checkpoint.to_str().unwrap()]));
    let mut witnesses = Vec::new();
    for name in ["w1", "w2", "stranger"] {
        let key = p.path(&format!("{name}.key"));
        let vkey = ok(p.run(&[
            "witness",
            "keygen",
            "--name",
            &format!("witness.example/{name}"),
            "--out",
            key.to_str().unwrap(),
        ]));
        let state = p.path(&format!("{name}-state"));
        let line = ok(p.run_in(
            &p.root,
            &[
                "witness",
                "add-checkpoint",
                "--key",
                key.to_str().unwrap(),
                "--log",
                &verifier,
                "--state",
                state.to_str().unwrap(),
            ],
            Some(&request),
        ));
        witnesses.push((vkey.trim_end().to_owned(), line));
    }
    Witnessed { verifier, note, witnesses }
}

impl Witnessed {
    /// The checkpoint with the cosignatures of `by` (indices), saved as `name`.
    fn cosigned(&self, p: &Project, by: &[usize], name: &str) -> PathBuf {
        let lines: String = by.iter().map(|&i| self.witnesses[i].1.clone()).collect();
        let path = p.path(name);
        std::fs::write(&path, format!("{}{lines}", self.note)).unwrap();
        path
    }

    fn policy(&self, quorum: usize) -> String {
        format!(
            "[audit]\nwitnesses = [\"{}\", \"{}\"]\nquorum = {quorum}\n",
            self.witnesses[0].0, self.witnesses[1].0
        )
    }
}

fn verify_in(p: &Project, w: &Witnessed, cwd: &Path, file: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["audit", "verify", "--checkpoint", file.to_str().unwrap(), "--verifier", &w.verifier];
    args.extend_from_slice(extra);
    p.run_in(cwd, &args, None)
}

/// A sealed policy of two of two witnesses: met by both cosignatures, unmet by one, unmet by
/// one plus a stranger the flags name with a lower quorum, and gone the moment the agent edits
/// the configuration to drop it — then back when the sealed bytes are.
#[test]
fn a_sealed_policy_holds_verify_and_dropping_it_after_the_seal_refuses() {
    let p = Project::new();
    let w = witnessed(&p);
    let sealed = w.policy(2);
    p.config(&sealed);
    let both = w.cosigned(&p, &[0, 1], "both.txt");
    let one = w.cosigned(&p, &[0], "one.txt");
    let bare = w.cosigned(&p, &[], "bare.txt");
    // Not sealed yet: the policy is nobody's.
    refused(&verify_in(&p, &w, &p.root, &both, &[]), 1, "witness_policy_unsealed");
    ok(p.run(&["seal"]));
    let passed = ok(verify_in(&p, &w, &p.root, &both, &[]));
    assert!(passed.contains("consistent: the log extends"), "{passed}");
    refused(&verify_in(&p, &w, &p.root, &one, &[]), 1, "witness_quorum_unmet");
    // The flags add a check; they never lower or replace the sealed one.
    let stranger = w.witnesses[2].0.clone();
    let by_stranger = w.cosigned(&p, &[0, 2], "stranger.txt");
    refused(
        &verify_in(&p, &w, &p.root, &by_stranger, &["--witness", &stranger, "--quorum", "1"]),
        1,
        "witness_quorum_unmet",
    );
    ok(verify_in(&p, &w, &p.root, &both, &["--witness", &w.witnesses[0].0, "--quorum", "1"]));
    // The agent drops the policy after the seal: the bare checkpoint is refused, not passed.
    p.config("");
    refused(&verify_in(&p, &w, &p.root, &bare, &[]), 1, "witness_policy_unsealed");
    // …or lowers its quorum.
    p.config(&w.policy(1));
    refused(&verify_in(&p, &w, &p.root, &one, &[]), 1, "witness_policy_unsealed");
    // Verifying from a directory without the configuration does not shed it.
    p.config(&sealed);
    let elsewhere = p.path("elsewhere");
    std::fs::create_dir_all(elsewhere.join(".git")).unwrap();
    refused(&verify_in(&p, &w, &elsewhere, &bare, &[]), 1, "witness_policy_unsealed");
    // The sealed bytes back: nothing valid is refused.
    ok(verify_in(&p, &w, &p.root, &both, &[]));
}

/// A policy that cannot be checked refuses with its reason (exit 2), before any store is
/// read, sealed or not.
#[test]
fn a_policy_that_cannot_be_used_refuses_to_verify() {
    let p = Project::new();
    let w = witnessed(&p);
    let both = w.cosigned(&p, &[0, 1], "both.txt");
    for (config, why) in [
        (w.policy(3), "a quorum above its keys"),
        (w.policy(0), "a quorum of none"),
        ("[audit]\nwitnesses = [\"not a key\"]\n".to_owned(), "a key that does not parse"),
        (format!("[audit]\nwitnesses = [\"{}\"]\n", w.verifier), "the log's key, not a witness's"),
        ("[audit]\nquorum = 1\n".to_owned(), "a quorum without witnesses"),
    ] {
        p.config(&config);
        let output = verify_in(&p, &w, &p.root, &both, &[]);
        assert_eq!(output.status.code(), Some(2), "{why}: {}", String::from_utf8_lossy(&output.stderr));
        refused(&output, 2, "witness_policy_invalid");
    }
}

/// With no seal and no policy, `verify --checkpoint` is as before: the flags alone.
#[test]
fn no_seal_and_no_policy_verifies_as_before() {
    let p = Project::new();
    let w = witnessed(&p);
    p.config("");
    let one = w.cosigned(&p, &[0], "one.txt");
    ok(verify_in(&p, &w, &p.root, &one, &[]));
    ok(verify_in(&p, &w, &p.root, &one, &["--witness", &w.witnesses[0].0]));
}
