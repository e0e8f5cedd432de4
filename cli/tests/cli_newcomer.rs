//! A newcomer's first hour (issue 23): messages that say what to do, one store per project
//! wherever a command runs (N-1 … N-7), and the help.

#![expect(clippy::unwrap_used, reason = "test code: a failed unwrap is a failed test")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples")
}

/// `warden ARGS` in `dir`, with no store or kill switch from the environment.
fn warden_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warden"))
        .args(args)
        .current_dir(dir)
        .env_remove("AGENTWARDEN_STORE")
        .env_remove("AGENTWARDEN_SERVER")
        .env_remove("CLAUDECODE")
        .env_remove("RUST_LOG")
        .output()
        .unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A copy of `examples/claude-code` in a fresh directory that is its own repository boundary
/// (a `.git` directory), so the upward search never leaves it.
fn claude_code_project() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    let status =
        Command::new("cp").arg("-r").arg(examples().join("claude-code")).arg(&root).status().unwrap();
    assert!(status.success());
    std::fs::create_dir(root.join(".git")).unwrap();
    (dir, root)
}

/// A fresh directory that is a repository boundary, holding nothing else.
fn empty_repository() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    dir
}

/// A `--store` that is a file, or a directory holding something else,
/// is a usage error (exit 2) with what to give instead, for every command that reads or writes
/// the log — never "chain broken at seq 0"; the decision commands keep their deny (A-22) (N-4, issue 34,
/// item 7).
#[test]
fn a_store_that_is_a_file_is_a_usage_error_not_a_broken_chain() {
    let dir = empty_repository();
    std::fs::write(dir.path().join("notes.txt"), "x").unwrap();
    std::fs::create_dir(dir.path().join("photos")).unwrap();
    std::fs::write(dir.path().join("photos/cat.jpg"), "x").unwrap();
    let config = examples().join("agentwarden.toml");
    let request = examples().join("requests/example-1-allow.json");
    let (config, request) = (config.to_str().unwrap(), request.to_str().unwrap());
    for (store, what) in [("notes.txt", "a file"), ("photos", "a directory that holds no Warden store")] {
        for command in [
            &["audit", "verify"][..],
            &["audit", "verify", "--json"],
            &["audit", "log"],
            &["audit", "replay", "--projection", "decisions"],
            &["audit", "timeline", "--session", "s"],
            &["audit", "export", "--format", "jsonl"],
            &["audit", "note", "x"],
            &["approvals", "--config", config],
        ] {
            let mut args = vec!["--store", store];
            args.extend_from_slice(command);
            let out = warden_in(dir.path(), &args);
            let said = format!("{}{}", stderr(&out), stdout(&out));
            assert_eq!(out.status.code(), Some(2), "{store} {command:?}: {said}");
            assert!(
                said.contains(&format!("`{store}` is not a Warden store ({what})")),
                "{command:?}: {said}"
            );
            assert!(said.contains("give --store the store's directory"), "says what to do: {said}");
            assert!(!said.contains("broken") && !said.contains("seq 0"), "no tampering implied: {said}");
        }
        // A decision still denies, in its own shape (A-22).
        let out =
            warden_in(dir.path(), &["--store", store, "gate", "--config", config, "--request", request]);
        assert_eq!(out.status.code(), Some(1), "{store}: {}", stderr(&out));
        assert!(stdout(&out).contains("audit_unavailable"), "{}", stdout(&out));
    }
}

#[test]
fn an_error_opening_the_store_names_its_path() {
    let dir = empty_repository();
    let out = warden_in(dir.path(), &["--store", "/proc/no-such-dir/audit", "audit", "note", "x"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("`/proc/no-such-dir/audit`"), "N-5: {}", stderr(&out));
}

#[test]
fn a_persona_or_agent_typo_lists_where_the_gate_looked_and_what_exists() {
    let dir = empty_repository();
    let request = std::fs::read_to_string(examples().join("requests/example-1-allow.json")).unwrap();
    std::fs::write(dir.path().join("r.json"), request.replace("\"MANAGER\"", "\"MANGER\"")).unwrap();
    let config = examples().join("agentwarden.toml");
    let out = warden_in(
        dir.path(),
        &["--store", "audit", "gate", "--config", config.to_str().unwrap(), "--request", "r.json"],
    );
    assert_eq!(out.status.code(), Some(1));
    let said = stdout(&out);
    assert!(said.contains("persona_missing"), "{said}");
    assert!(said.contains("looked for `") && said.contains("AGENT_MANGER.md`"), "N-6: {said}");
    assert!(said.contains("personas` holds: MANAGER"), "N-6: {said}");
}

#[test]
fn a_denied_candidate_is_not_said_to_be_not_delegated_twice() {
    let dir = empty_repository();
    let config = examples().join("agentwarden.toml");
    let request = examples().join("requests/example-3-context-not-sealed.json");
    let out = warden_in(
        dir.path(),
        &[
            "--store",
            "audit",
            "gate",
            "--config",
            config.to_str().unwrap(),
            "--request",
            request.to_str().unwrap(),
        ],
    );
    let said = stdout(&out);
    assert!(said.contains("not delegated (gates_failed): a gate failed"), "{said}");
    assert!(!said.contains("not delegated: not delegated"), "{said}");
}

#[test]
fn the_hook_tells_a_claude_code_user_to_seal_and_then_to_approve() {
    let (_dir, root) = claude_code_project();
    let event = std::fs::read(root.join("events/pre-task-main-planner.json")).unwrap();
    let hook = |root: &Path| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_warden"))
            .args(["hook", "--config", "agentwarden.toml"])
            .current_dir(root)
            .env("AGENTWARDEN_ENABLE_SUBAGENTS", "true")
            .env_remove("AGENTWARDEN_STORE")
            .env_remove("AGENTWARDEN_SERVER")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::io::Write::write_all(&mut child.stdin.take().unwrap(), &event).unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0));
        stdout(&out)
    };
    let unsealed = hook(&root);
    assert!(unsealed.contains("\"deny\"") && unsealed.contains("context_sealed"), "{unsealed}");
    assert!(
        unsealed.contains("no seal is in force") && unsealed.contains("`warden seal`"),
        "N-7: {unsealed}"
    );
    assert!(warden_in(&root, &["seal", "--by", "alice"]).status.success());
    let unapproved = hook(&root);
    assert!(unapproved.contains("no approval is active"), "N-7: {unapproved}");
    assert!(unapproved.contains("`warden approve --ref REF`"), "N-7: {unapproved}");
}

#[test]
fn clap_suggests_the_subcommand_or_flag_that_was_meant() {
    let dir = empty_repository();
    let out = warden_in(dir.path(), &["sael"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("similar subcommand exists: 'seal'"), "{}", stderr(&out));
    let out = warden_in(dir.path(), &["gate", "--requets", "r.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("similar argument exists: '--request'"), "{}", stderr(&out));
}

#[test]
fn every_command_run_in_a_subdirectory_uses_the_project_and_its_one_store() {
    let (_dir, root) = claude_code_project();
    let okrs = root.join("okrs");
    let deeper = okrs.join("q1");
    std::fs::create_dir_all(&deeper).unwrap();
    let sealed = warden_in(&okrs, &["seal", "--by", "alice"]);
    assert!(sealed.status.success(), "{}", stderr(&sealed));
    let approved = warden_in(&deeper, &["approve", "--ref", "GATE-1", "--by", "alice"]);
    assert!(approved.status.success(), "{}", stderr(&approved));
    assert!(root.join(".agentwarden/audit").is_dir(), "N-2: the project's store");
    assert!(!okrs.join(".agentwarden").exists(), "N-1: no second store inside a protected path");
    assert!(!deeper.join(".agentwarden").exists(), "N-1");
    let listed = warden_in(&deeper, &["approvals"]);
    let said = stdout(&listed);
    assert!(said.contains("GATE-1") && said.contains("seal: in force since seq 1"), "{said}");
    let log = warden_in(&okrs, &["audit", "log"]);
    assert!(stdout(&log).contains("approval_granted"), "{}", stdout(&log));
}

#[test]
fn the_upward_search_stops_at_the_repository_boundary() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("agentwarden.toml"), "[guardrails]\nprotected = [\"x\"]\n").unwrap();
    let repository = dir.path().join("inner");
    let sub = repository.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::create_dir(repository.join(".git")).unwrap();
    let out = warden_in(&sub, &["audit", "note", "hello"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(sub.join(".agentwarden/audit").is_dir(), "N-1: no configuration inside the repository: here");
    assert!(!dir.path().join(".agentwarden").exists(), "N-1: nothing above the repository is used");
}

#[test]
fn a_configuration_found_upward_that_cannot_be_read_is_an_error_not_the_defaults() {
    let dir = empty_repository();
    std::fs::create_dir(dir.path().join("agentwarden.toml")).unwrap(); // not a file
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    let out = warden_in(&sub, &["approvals"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("agentwarden.toml"), "N-1: the file is named: {}", stderr(&out));
    assert!(!sub.join(".agentwarden").exists() && !dir.path().join(".agentwarden").exists());
}

#[test]
fn a_seal_of_nothing_is_refused_and_creates_no_store() {
    let dir = empty_repository();
    let out = warden_in(dir.path(), &["seal", "--by", "alice"]);
    assert_eq!(out.status.code(), Some(2));
    let said = stderr(&out);
    assert!(said.contains("nothing to seal") && said.contains("agentwarden.toml"), "N-3: {said}");
    assert!(!dir.path().join(".agentwarden").exists(), "N-3: refused before any store is opened");
}

#[test]
fn the_global_options_are_listed_once_and_each_command_has_an_example() {
    let dir = empty_repository();
    let root = stdout(&warden_in(dir.path(), &["--help"]));
    for flag in ["--store <DIR|URL>", "--fsync", "--lock-timeout-ms <MS>"] {
        assert_eq!(root.matches(flag).count(), 1, "N-8: {flag} once: {root}");
    }
    for command in [&["seal"][..], &["audit", "log"], &["gate"], &["init", "claude-code"]] {
        let help = stdout(&warden_in(dir.path(), &[command, &["--help"]].concat()));
        assert!(
            !help.contains("--store <") && !help.contains("--lock-timeout-ms <"),
            "N-8: {command:?}: {help}"
        );
        assert!(help.contains("Example:\n  "), "N-8: {command:?}: {help}");
    }
    let hook = stdout(&warden_in(dir.path(), &["hook", "--help"]));
    assert!(hook.contains("Stdin: one Claude Code hook event"), "{hook}");
    assert!(hook.contains("examples/claude-code/events/"), "{hook}");
    // Still accepted after the command.
    let out = warden_in(dir.path(), &["audit", "note", "x", "--store", "s", "--lock-timeout-ms", "100"]);
    assert!(out.status.success() && dir.path().join("s").is_dir(), "{}", stderr(&out));
}

#[test]
fn fan_out_text_names_the_test_that_failed() {
    let dir = empty_repository();
    let store = dir.path().join("fanout");
    let out = warden_in(
        &examples().join(".."),
        &[
            "--store",
            store.to_str().unwrap(),
            "fanout",
            "run",
            "--config",
            "examples/fanout/agentwarden.toml",
            "--items",
            "examples/fanout/items.json",
            "--phase",
            "tests",
            "--",
            "sh",
            "examples/fanout/agent.sh",
        ],
    );
    let said = stdout(&out);
    assert!(said.contains("8 passed, 1 failed"), "{said}");
    assert!(said.contains("  failed: examples/fanout/tests/test_09.sh"), "the failing test is named: {said}");
    let replayed = stdout(&warden_in(
        dir.path(),
        &["--store", store.to_str().unwrap(), "audit", "replay", "--projection", "fan-out"],
    ));
    assert!(replayed.contains("  failed: examples/fanout/tests/test_09.sh"), "{replayed}");
    let log = stdout(&warden_in(
        dir.path(),
        &["--store", store.to_str().unwrap(), "audit", "log", "--type", "fan_out_merged"],
    ));
    let seq = log.lines().nth(1).and_then(|l| l.split_whitespace().next()).unwrap().to_owned();
    let explained =
        stdout(&warden_in(dir.path(), &["--store", store.to_str().unwrap(), "audit", "explain", &seq]));
    assert!(explained.contains("failed test: examples/fanout/tests/test_09.sh"), "{explained}");
}

#[test]
fn counts_agree_with_their_noun() {
    let dir = empty_repository();
    let result = r#"{"schema_version":"1.0","summary":"s","proposed_changes":[],"kr_targets":[],"kr_impact_claim":"x","extra":1}"#;
    std::fs::write(dir.path().join("result.json"), result).unwrap();
    assert_eq!(warden_in(dir.path(), &["result", "validate", "result.json"]).status.code(), Some(1));
    let explained = stdout(&warden_in(dir.path(), &["audit", "explain", "1"]));
    assert!(explained.contains("invalid (1 problem)"), "{explained}");
}

/// Every refusal of the key, seal and store commands for something that does not exist says
/// what to do next: the command that makes it, or where to write it (N-11). Each row is a
/// command on a fresh machine (no key, no store, no checkpoint) and the step its refusal must
/// name; every such refusal names one.
#[test]
fn a_refusal_for_something_missing_says_how_to_make_it() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let fresh = empty_repository();
    let missing = |name: &str| dir.path().join(name).display().to_string();
    // A project whose configuration names a key list that is there, and one whose key list is not.
    let (_signed_dir, signed) = claude_code_project();
    let key = dir.path().join("alice");
    let made =
        Command::new("ssh-keygen").args(["-q", "-t", "ed25519", "-N", "", "-f"]).arg(&key).status().unwrap();
    assert!(made.success());
    let public = std::fs::read_to_string(key.with_extension("pub")).unwrap();
    std::fs::write(signed.join("allowed_signers"), format!("alice {public}")).unwrap();
    let config = std::fs::read_to_string(signed.join("agentwarden.toml")).unwrap();
    let signers = format!("{config}\n[approvals]\nallowed_signers = \"allowed_signers\"\n");
    std::fs::write(signed.join("agentwarden.toml"), &signers).unwrap();
    let (_unlisted_dir, unlisted) = claude_code_project();
    std::fs::write(unlisted.join("agentwarden.toml"), &signers).unwrap();
    let (key_given, no_key) = (key.display().to_string(), missing("no-ssh-key"));
    let (no_log_key, no_witness_key) = (missing("no-log.key"), missing("no-witness.key"));
    let (no_checkpoint, no_proof) = (missing("no-checkpoint.txt"), missing("no-proof.txt"));
    // (where, arguments, what is missing, the step the refusal must name)
    let rows: Vec<(&Path, Vec<&str>, &str, &str)> = vec![
        (
            fresh.path(),
            vec!["audit", "checkpoint"],
            "does not exist",
            "`warden audit keygen --origin NAME --out ",
        ),
        (
            fresh.path(),
            vec!["audit", "checkpoint", "--key", &no_log_key],
            "does not exist",
            "`warden audit keygen",
        ),
        (
            fresh.path(),
            vec![
                "witness",
                "add-checkpoint",
                "--key",
                &no_witness_key,
                "--log",
                "l+1+A",
                "--state",
                &no_proof,
            ],
            "does not exist",
            "`warden witness keygen --name NAME --out ",
        ),
        (
            fresh.path(),
            vec![
                "witness",
                "serve",
                "--listen",
                "127.0.0.1:0",
                "--key",
                &no_witness_key,
                "--log",
                "l+1+A",
                "--state",
                &no_proof,
            ],
            "does not exist",
            "`warden witness keygen",
        ),
        (fresh.path(), vec!["audit", "log"], "no event store", "`warden seal` in the project makes it"),
        (fresh.path(), vec!["audit", "verify"], "no event store", "name it with --store"),
        (fresh.path(), vec!["audit", "stats"], "no event store", "`warden seal` in the project makes it"),
        (
            fresh.path(),
            vec!["audit", "verify", "--checkpoint", &no_checkpoint],
            "does not exist",
            "`warden audit checkpoint > ",
        ),
        (
            fresh.path(),
            vec![
                "audit",
                "verify-proof",
                "--proof",
                &no_proof,
                "--checkpoint",
                &no_checkpoint,
                "--verifier",
                "l+1+A",
            ],
            "does not exist",
            "`warden audit prove --checkpoint CHECKPOINT SEQ > ",
        ),
        (
            &signed,
            vec!["seal", "--by", "alice", "--key", &no_key],
            "does not exist",
            "`ssh-keygen -t ed25519 -f ",
        ),
        (
            &signed,
            vec!["approve", "--ref", "R-1", "--by", "alice", "--key", &no_key],
            "does not exist",
            "`ssh-keygen -t ed25519 -f ",
        ),
        (
            &unlisted,
            vec!["seal", "--by", "alice", "--key", &key_given],
            "does not exist",
            "write it, one `PRINCIPAL",
        ),
        (
            &unlisted,
            vec!["approve", "--ref", "R-1", "--by", "alice", "--key", &key_given],
            "does not exist",
            "write it, one `PRINCIPAL",
        ),
    ];
    for (dir, args, what, step) in rows {
        let out = Command::new(env!("CARGO_BIN_EXE_warden"))
            .args(&args)
            .current_dir(dir)
            .env("HOME", &home)
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("AGENTWARDEN_STORE")
            .env_remove("AGENTWARDEN_SERVER")
            .env_remove("CLAUDECODE")
            .env_remove("RUST_LOG")
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let said = stderr(&out);
        assert!(!out.status.success(), "warden {args:?} is refused: {said}");
        assert!(said.contains(what), "warden {args:?}: the refusal says what is missing: {said}");
        assert!(said.contains(step), "warden {args:?}: the refusal names `{step}`: {said}");
    }
}

/// A refusal of an argument given empty, or naming what the log does not hold, says what to
/// give instead (issue 49 item 6: every refusal says what to do next).
#[test]
fn a_refusal_of_an_empty_or_unknown_argument_says_what_to_give() {
    let dir = empty_repository();
    let noted = warden_in(dir.path(), &["audit", "note", "first"]);
    assert!(noted.status.success(), "{}", stderr(&noted));
    // (arguments, exit code, what is refused, what to do)
    let rows: [(&[&str], i32, &str, &str); 5] = [
        (&["audit", "note", "  "], 2, "the note is empty", "`warden audit note \"maintenance begins\"`"),
        (&["audit", "timeline", "--session", " "], 2, "--session is empty", "`warden audit log`"),
        (&["audit", "log", "--session", " "], 2, "--session is empty", "leave --session out"),
        (&["audit", "timeline", "--session", "nope"], 1, "session `nope`", "`warden audit log`"),
        (&["audit", "show", "9"], 1, "there is no event 9 (the log ends at seq 1", "`warden audit log`"),
    ];
    for (args, exit, what, step) in rows {
        let out = warden_in(dir.path(), args);
        let said = stderr(&out);
        assert_eq!(out.status.code(), Some(exit), "warden {args:?}: {said}");
        assert_eq!(said.lines().count(), 1, "warden {args:?}: one line: {said}");
        assert!(said.contains(what), "warden {args:?}: the refusal says what is refused: {said}");
        assert!(said.contains(step), "warden {args:?}: the refusal names `{step}`: {said}");
    }
}
