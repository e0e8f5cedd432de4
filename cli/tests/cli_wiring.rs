//! The wiring `warden init claude-code` installs, run the way Claude Code runs it (`sh -c` on
//! the exact line, `CLAUDE_PROJECT_DIR` set), and `warden doctor` reading it back: the real
//! binary, the example project copied into a fresh git repository.

#![expect(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failed unwrap or index is a failed test"
)]

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

#[expect(dead_code, reason = "the wiring tests make their own repositories")]
mod support;

mod doctor_report;

use doctor_report::{check, failed};

use support::{EXAMPLE, copy_dir, git};
const WARDEN: &str = env!("CARGO_BIN_EXE_warden");

struct Project {
    dir: tempfile::TempDir,
    root: PathBuf,
    /// Where the installed line keeps the log: `$CLAUDE_PROJECT_DIR/.agentwarden/audit`.
    store: PathBuf,
}

fn commit(root: &Path) {
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "--allow-empty", "-m", "step"]);
}

fn project(with_git: bool) -> Project {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap().join("project");
    copy_dir(Path::new(EXAMPLE), &root);
    if with_git {
        git(&root, &["init", "-q"]);
        commit(&root);
    }
    Project { store: root.join(".agentwarden/audit"), root, dir }
}

/// `warden ARGS` in the project, on its store, with `stdin`; the kill switch unset.
fn warden(p: &Project, args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(WARDEN)
        .arg("--store")
        .arg(&p.store)
        .args(args)
        .current_dir(&p.root)
        .env_remove("CLAUDECODE")
        .env_remove("AGENTWARDEN_ENABLE_SUBAGENTS")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

fn ok(out: &Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    stdout
}

fn init(p: &Project, extra: &[&str]) -> Output {
    let mut args = vec!["init", "claude-code", "--project", p.root.to_str().unwrap()];
    args.extend_from_slice(extra);
    warden(p, &args, "")
}

fn approve(p: &Project) {
    ok(&warden(p, &["seal", "--config", "agentwarden.toml", "--by", "alice"], ""));
    ok(&warden(p, &["approve", "--ref", "GATE-2026-11-22-001", "--by", "alice"], ""));
}

fn settings(p: &Project) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p.root.join(".claude/settings.json")).unwrap()).unwrap()
}

/// The installed line of the first `PreToolUse` entry.
fn installed(settings: &Value) -> String {
    settings["hooks"]["PreToolUse"].as_array().unwrap().last().unwrap()["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Runs `line` as Claude Code does: `sh -c`, `CLAUDE_PROJECT_DIR` set, `input` on stdin.
fn run_line(p: &Project, line: &str, input: &str, enabled: bool) -> Output {
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(line)
        .current_dir(&p.root)
        .env("CLAUDE_PROJECT_DIR", &p.root)
        .env("CLAUDECODE", "1");
    if enabled {
        command.env("AGENTWARDEN_ENABLE_SUBAGENTS", "true");
    } else {
        command.env_remove("AGENTWARDEN_ENABLE_SUBAGENTS");
    }
    let mut child =
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    // A stand-in that exits without reading its input closes the pipe early.
    let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
    child.wait_with_output().unwrap()
}

fn event(name: &str) -> String {
    std::fs::read_to_string(Path::new(EXAMPLE).join("events").join(format!("{name}.json"))).unwrap()
}

/// A stand-in `warden`: a shell script with `body`.
fn stand_in(p: &Project, name: &str, body: &str) -> PathBuf {
    let path = p.dir.path().join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

fn doctor(p: &Project, extra: &[&str]) -> (i32, Value) {
    let mut args = vec!["doctor", "--project", p.root.to_str().unwrap(), "--json"];
    args.extend_from_slice(extra);
    let out = warden(p, &args, "");
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code().unwrap(), report)
}

#[test]
fn the_installed_line_turns_every_exit_but_0_and_2_into_2() {
    let p = project(true);
    // (stand-in body, exit code Claude Code must see, why)
    let table = [
        ("cat >/dev/null; exit 0", 0, "an answer (allow, or a deny on stdout) stays 0"),
        ("cat >/dev/null; exit 2", 2, "Warden's own cannot-decide stays 2"),
        ("exit 1", 2, "a plain failure"),
        ("exit 101", 2, "a Rust panic's code"),
        ("kill -9 $$", 2, "killed by a signal (sh reports 137)"),
        ("exit 127", 2, "what a missing command reports"),
    ];
    for (body, expected, why) in table {
        let binary = stand_in(&p, "stand-in", body);
        ok(&init(&p, &["--warden", binary.to_str().unwrap()]));
        let line = installed(&settings(&p));
        let out = run_line(&p, &line, &event("pre-task-main-planner"), false);
        assert_eq!(out.status.code(), Some(expected), "{why}: {line}");
        if expected == 2 && body != "cat >/dev/null; exit 2" {
            assert!(String::from_utf8_lossy(&out.stderr).contains("blocked"), "{why}");
        }
    }
    // The binary removed after init (e.g. `cargo clean`): the shell's 127 becomes 2.
    let binary = stand_in(&p, "gone", "exit 0");
    ok(&init(&p, &["--warden", binary.to_str().unwrap()]));
    std::fs::remove_file(&binary).unwrap();
    let out = run_line(&p, &installed(&settings(&p)), &event("pre-task-main-planner"), false);
    assert_eq!(out.status.code(), Some(2), "a missing binary blocks");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("exited 127; blocked"), "{stderr}");

    // The real binary behind the line: a deny is exit 0 with the deny on stdout.
    ok(&init(&p, &[]));
    let out = run_line(&p, &installed(&settings(&p)), &event("pre-task-main-planner"), false);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny");
}

/// The installed line of `event`'s entry.
fn installed_for(settings: &Value, event: &str) -> String {
    settings["hooks"][event].as_array().unwrap().last().unwrap()["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// A stop's line says every failure — the binary missing, a crash, the configuration
/// unreadable — as Claude Code's halt (exit 0, `continue: false` with the reason), which ends
/// the session instead of a block Claude Code would answer by prompting the model again without
/// end; a tool call's line still denies on the same failures, never allows (H-57).
#[test]
fn a_stops_line_halts_on_every_failure_while_a_tool_calls_still_denies() {
    let p = project(true);
    let stop = format!(
        r#"{{"session_id":"s-halt","transcript_path":"/t","cwd":{},"hook_event_name":"Stop","stop_hook_active":false}}"#,
        Value::from(p.root.to_str().unwrap())
    );
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
    for event in ["Stop", "SubagentStop"] {
        ok(&init(&p, &[]));
        assert!(installed_for(&settings(&p), event).contains(" --halt-on-failure || "), "{event}");
    }
    // (stand-in body, the words of the halt's reason, why)
    let table = [
        ("cat >/dev/null; exit 2", "exited 2", "Claude Code's exit 2 at a stop is a block: halted"),
        ("exit 101", "exited 101", "a crash"),
        ("kill -9 $$", "exited 137", "killed by a signal"),
    ];
    for (body, words, why) in table {
        let binary = stand_in(&p, "stand-in", body);
        ok(&init(&p, &["--warden", binary.to_str().unwrap()]));
        halted(&run_line(&p, &installed_for(&settings(&p), "Stop"), &stop, false), words, why);
    }
    let binary = stand_in(&p, "gone", "exit 0");
    ok(&init(&p, &["--warden", binary.to_str().unwrap()]));
    std::fs::remove_file(&binary).unwrap();
    let s = settings(&p);
    halted(&run_line(&p, &installed_for(&s, "Stop"), &stop, false), "exited 127", "a missing binary");
    halted(
        &run_line(&p, &installed_for(&s, "SubagentStop"), &stop, false),
        "exited 127",
        "the same at a subagent's stop",
    );
    let pre = run_line(&p, &installed_for(&s, "PreToolUse"), &event("pre-task-main-planner"), false);
    assert_eq!(pre.status.code(), Some(2), "a tool call's line still denies on a missing binary");

    // The real binary, the configuration unreadable: the binary itself says the halt, with why.
    ok(&init(&p, &[]));
    let s = settings(&p);
    std::fs::write(p.root.join("agentwarden.toml"), "[guardrails\n").unwrap();
    halted(
        &run_line(&p, &installed_for(&s, "Stop"), &stop, false),
        "config_invalid",
        "a configuration it cannot read",
    );
    let pre = run_line(&p, &installed_for(&s, "PreToolUse"), &event("pre-task-main-planner"), false);
    assert_eq!(
        pre.status.code(),
        Some(2),
        "a tool call is still denied: {}",
        String::from_utf8_lossy(&pre.stdout)
    );
    assert!(pre.stdout.is_empty(), "no halt on a tool call's line");
}

#[test]
fn init_installs_every_tool_and_refuses_a_timeout_without_margin() {
    let p = project(true);
    let config_before = std::fs::read_to_string(p.root.join("agentwarden.toml")).unwrap();
    for (lock, timeout) in [("5000", "2"), ("5000", "7"), ("1000", "3")] {
        let out = warden(&p, &["--lock-timeout-ms", lock, "init", "claude-code", "--timeout", timeout], "");
        assert_eq!(out.status.code(), Some(2), "lock {lock} ms, timeout {timeout} s must be refused");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("leaves no margin") && stderr.contains("--timeout"), "{stderr}");
        assert!(!p.root.join(".claude/settings.json").exists(), "nothing written");
        assert_eq!(std::fs::read_to_string(p.root.join("agentwarden.toml")).unwrap(), config_before);
    }
    ok(&warden(&p, &["--lock-timeout-ms", "1000", "init", "claude-code", "--timeout", "4"], ""));
    let line = installed(&settings(&p));
    assert!(line.contains("--lock-timeout-ms 1000 ") && line.contains("--deadline-ms 2000 "), "{line}");
    ok(&init(&p, &["--timeout", "8"]));
    let s = settings(&p);
    let pre = s["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(pre.len(), 1, "replaced, not added: {pre:?}");
    assert_eq!(pre[0]["matcher"], "*", "every tool");
    assert_eq!(pre[0]["hooks"][0]["timeout"], 8);
    assert!(
        installed(&s).contains("--lock-timeout-ms 5000 ") && installed(&s).contains("--deadline-ms 6000 ")
    );
    for event in ["SubagentStart", "SubagentStop", "ConfigChange"] {
        // A stop's line is the same line, with the halt for its failures (H-57).
        let line = installed(&s);
        let expected = match event {
            "SubagentStop" => agentwarden_protocol::hook_line::halting(
                &line,
                agentwarden_protocol::hook_line::HALT_ON_ANY_EXIT,
            ),
            _ => line,
        };
        assert_eq!(s["hooks"][event][0]["hooks"][0]["command"], expected.as_str(), "{event}");
        assert!(s["hooks"][event][0].get("matcher").is_none(), "{event}");
    }
}

/// Starts `flock -o FILE cat`: another process holding the store's lock (`-o`: flock itself
/// holds it, not its `cat`, so killing flock by its PID releases it; `cat` ends when its stdin,
/// held by the returned child, is dropped).
#[expect(clippy::zombie_processes, reason = "the caller kills it by its PID and waits for it")]
fn hold_lock(file: &Path) -> std::process::Child {
    let child = Command::new("flock").arg("-o").arg(file).arg("cat").stdin(Stdio::piped()).spawn().unwrap();
    // Until flock holds it, a hook would get the lock: wait for it.
    let started = Instant::now();
    loop {
        let probe = Command::new("flock").args(["-n"]).arg(file).arg("true").status().unwrap();
        if !probe.success() || started.elapsed() > Duration::from_secs(10) {
            return child;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_locked_store_is_exit_2_before_the_deadline() {
    let p = project(true);
    approve(&p);
    let mut holder = hold_lock(&p.store.join("db"));
    let hook = |lock: &str, deadline: &str| {
        let started = Instant::now();
        let out = Command::new(WARDEN)
            .arg("--store")
            .arg(&p.store)
            .args([
                "--lock-timeout-ms",
                lock,
                "hook",
                "--config",
                "agentwarden.toml",
                "--deadline-ms",
                deadline,
            ])
            .current_dir(&p.root)
            .env("AGENTWARDEN_ENABLE_SUBAGENTS", "true")
            .stdin(std::fs::File::open(Path::new(EXAMPLE).join("events/pre-task-main-planner.json")).unwrap())
            .output()
            .unwrap();
        (out, started.elapsed())
    };
    // The lock wait longer than the deadline: the deadline answers, exit 2, on time.
    let (out, took) = hook("60000", "1500");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(out.stdout.is_empty());
    assert!(stderr.contains("deadline_passed"), "{stderr}");
    assert!(took >= Duration::from_millis(1500) && took < Duration::from_millis(4000), "{took:?}");
    // As installed (the lock wait inside the deadline): the store's own error, before it.
    let (out, took) = hook("300", "5000");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("store_unavailable"), "{stderr}");
    assert!(took < Duration::from_millis(5000), "{took:?}");
    holder.kill().unwrap();
    holder.wait().unwrap();
    drop(holder.stdin.take());
    // Released: the same call decides (the kill switch is set, the run approved).
    let (out, _) = hook("300", "5000");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn doctor_runs_the_canary_through_the_installed_line_and_names_every_gap() {
    let p = project(true);
    let (code, report) = doctor(&p, &[]);
    assert_eq!(code, 1);
    assert!(failed(&report).contains(&"form".to_owned()), "{report}");

    ok(&init(&p, &[]));
    // The settings deny the Bash commands that run Warden's human verbs (K-12).
    let settings = std::fs::read_to_string(p.root.join(".claude/settings.json")).unwrap();
    assert!(
        settings.contains("Bash(warden approve:*)") && settings.contains("Bash(warden release:*)"),
        "{settings}"
    );
    commit(&p.root);
    let (code, report) = doctor(&p, &[]);
    assert_eq!((code, failed(&report)), (1, vec!["seal".to_owned(), "approval".to_owned()]), "{report}");
    assert!(check(&report, "form")["detail"].as_str().unwrap().starts_with("project settings"), "{report}");
    approve(&p);
    let (code, report) = doctor(&p, &[]);
    assert_eq!((code, failed(&report)), (0, Vec::<String>::new()), "{report}");
    // Issue 21: healthy, but warned that the agent could approve itself, and told how not to.
    let keys = check(&report, "approval keys");
    assert_eq!(keys["ok"], true, "{report}");
    assert!(keys["fix"].as_str().unwrap().contains("allowed_signers"), "{report}");
    let canary = check(&report, "canary")["detail"].as_str().unwrap();
    assert!(canary.contains("denied a spawn without `AGENTWARDEN_ENABLE_SUBAGENTS`"), "{canary}");
    // The canary is in the real log, under its own session.
    let log = ok(&warden(&p, &["audit", "export", "--format", "jsonl"], ""));
    let canaries: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["session"].as_str().is_some_and(|s| s.starts_with("warden-doctor-canary-")))
        .collect();
    assert_eq!(canaries.len(), 2, "one canary per doctor run that reached it: {canaries:?}");

    // A timeout without margin, edited in by hand.
    let path = p.root.join(".claude/settings.json");
    let good = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, good.replace(r#""timeout": 30"#, r#""timeout": 2"#)).unwrap();
    let (_, report) = doctor(&p, &[]);
    assert_eq!(failed(&report), ["timeout"], "{report}");
    // The PreToolUse entry without `onFailure: "block"` (a timeout would let a call run) (H-18).
    std::fs::write(&path, good.replace(r#""onFailure": "block""#, r#""onFailure": "ignore""#)).unwrap();
    let (_, report) = doctor(&p, &[]);
    assert_eq!(failed(&report), ["timeout"], "{report}");
    assert!(report.to_string().contains("onFailure"), "{report}");
    // An install from before: Task|Agent only, no tail, no deadline.
    let old = r#"'WARDEN' --store "$CLAUDE_PROJECT_DIR/.agentwarden/audit" hook --config "$CLAUDE_PROJECT_DIR/agentwarden.toml""#
        .replace("WARDEN", WARDEN);
    let old = serde_json::json!({"hooks": {
        "PreToolUse": [{"matcher": "Task|Agent", "hooks": [{"type": "command", "command": old, "timeout": 30}]}],
        "SubagentStart": [{"hooks": [{"type": "command", "command": old, "timeout": 30}]}],
        "SubagentStop": [{"hooks": [{"type": "command", "command": old, "timeout": 30}]}],
    }});
    std::fs::write(&path, old.to_string()).unwrap();
    let (_, report) = doctor(&p, &[]);
    assert_eq!(failed(&report), ["hooks", "fail-closed", "timeout"], "{report}");
    std::fs::write(&path, &good).unwrap();

    // Hooks turned off in the local settings (Claude Code honours it for non-managed hooks).
    let local = p.root.join(".claude/settings.local.json");
    std::fs::write(&local, r#"{"disableAllHooks": true}"#).unwrap();
    let (_, report) = doctor(&p, &[]);
    assert_eq!(failed(&report), ["disabled", "form"], "{report}");
    std::fs::remove_file(&local).unwrap();

    // Another PreToolUse hook, which can answer `updatedInput` and replace a tool's input after
    // Warden approved it (H-55, H-56): named with its file, in the local settings or beside
    // Warden's own in the project's.
    let rogue = serde_json::json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "/tmp/rewrite.sh"}]}]}});
    std::fs::write(&local, rogue.to_string()).unwrap();
    let (_, report) = doctor(&p, &[]);
    assert_eq!(failed(&report), ["rewriting hooks"], "{report}");
    let detail = check(&report, "rewriting hooks")["detail"].as_str().unwrap().to_owned();
    assert!(detail.contains("/tmp/rewrite.sh") && detail.contains("settings.local.json"), "{detail}");
    std::fs::remove_file(&local).unwrap();
    let mut beside: Value = serde_json::from_str(&good).unwrap();
    beside["hooks"]["PreToolUse"].as_array_mut().unwrap().push(rogue["hooks"]["PreToolUse"][0].clone());
    std::fs::write(&path, beside.to_string()).unwrap();
    let (_, report) = doctor(&p, &[]);
    assert_eq!(failed(&report), ["rewriting hooks"], "beside Warden's: {report}");
    std::fs::write(&path, &good).unwrap();

    // `.agentwarden/` no longer ignored.
    std::fs::write(p.root.join(".gitignore"), "").unwrap();
    let (_, report) = doctor(&p, &[]);
    assert_eq!(failed(&report), ["ignored"], "{report}");
    std::fs::write(p.root.join(".gitignore"), ".agentwarden/\n").unwrap();

    // An agent file without `AGENT_TYPE: 2`.
    let coder = p.root.join(".claude/agents/coder.md");
    let agent = std::fs::read_to_string(&coder).unwrap();
    std::fs::write(&coder, "---\nname: coder\nsubagents: [researcher]\n---\n").unwrap();
    let (_, report) = doctor(&p, &[]);
    assert_eq!(failed(&report), ["agent", "seal"], "a sealed file changed too: {report}");
    std::fs::write(&coder, agent).unwrap();

    // A sealed file changed after the seal: every spawn would be denied at context_sealed.
    let manifests = p.root.join("manifests.toml");
    let sealed = std::fs::read_to_string(&manifests).unwrap();
    std::fs::write(&manifests, format!("{sealed}\n# edited\n")).unwrap();
    let (_, report) = doctor(&p, &[]);
    assert_eq!(failed(&report), ["seal"], "{report}");
    assert!(
        check(&report, "seal")["detail"].as_str().unwrap().contains("`manifests.toml` changed"),
        "{report}"
    );
    std::fs::write(&manifests, sealed).unwrap();

    // The approval revoked (with the seal).
    ok(&warden(&p, &["revoke", "--by", "alice"], ""));
    let (_, report) = doctor(&p, &[]);
    assert_eq!(failed(&report), ["seal", "approval"], "{report}");
}

#[test]
fn doctor_fails_a_missing_binary_a_silent_binary_and_no_repository() {
    let p = project(true);
    let copy = p.dir.path().join("warden-copy");
    std::fs::copy(WARDEN, &copy).unwrap();
    ok(&init(&p, &["--warden", copy.to_str().unwrap()]));
    approve(&p);
    std::fs::remove_file(&copy).unwrap();
    let (_, report) = doctor(&p, &[]);
    assert_eq!(failed(&report), ["binary", "canary"], "{report}");
    let canary = check(&report, "canary")["detail"].as_str().unwrap();
    assert!(canary.contains("blocks but cannot decide (exit 2)") && canary.contains("127"), "{canary}");
    assert!(check(&report, "binary")["fix"].as_str().unwrap().contains("--warden"), "{report}");

    // A binary that answers nothing and exits 0: the spawn would run.
    let silent = stand_in(&p, "silent", "cat >/dev/null; exit 0");
    ok(&init(&p, &["--warden", silent.to_str().unwrap()]));
    let (_, report) = doctor(&p, &[]);
    assert_eq!(failed(&report), ["canary"], "{report}");
    assert!(check(&report, "canary")["detail"].as_str().unwrap().contains("through"), "{report}");

    let bare = project(false);
    ok(&init(&bare, &[]));
    approve(&bare);
    let (_, report) = doctor(&bare, &[]);
    assert_eq!(failed(&report), ["git"], "{report}");
    assert!(check(&report, "git")["fix"].as_str().unwrap().contains("git -C"), "{report}");
}

#[test]
fn init_protects_the_guards_own_files_and_a_subagent_cannot_remove_the_hooks() {
    let p = project(true);
    let path = p.root.join("agentwarden.toml");
    let before = std::fs::read_to_string(&path).unwrap();
    ok(&init(&p, &[]));
    let after = std::fs::read_to_string(&path).unwrap();
    assert!(after.starts_with(before.lines().next().unwrap()), "the user's comments are kept");
    assert!(
        after.contains(
            r#"protected = ["okrs", ".claude/settings.json", ".claude/settings.local.json", ".claude/agents", ".claude/commands", ".claude/skills", ".claude/hooks", ".mcp.json", "agentwarden.toml", "manifests.toml"]"#
        ),
        "{after}"
    );
    ok(&init(&p, &[]));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), after, "a second init adds nothing");
    assert_eq!(std::fs::read_to_string(p.root.join(".gitignore")).unwrap(), ".agentwarden/\n", "H-17, once");
    commit(&p.root);
    approve(&p);

    // A subagent rewrites the settings (no hooks) and the configuration (nothing protected).
    let hook = |name: &str| run_line(&p, &installed(&settings(&p)), &event(name), true);
    for name in ["pre-task-main-planner", "start-planner", "pre-agent-planner-coder", "start-coder"] {
        let out = hook(name);
        assert_eq!((out.status.code(), out.stdout.is_empty()), (Some(0), true), "{name}");
    }
    let hooks = std::fs::read_to_string(p.root.join(".claude/settings.json")).unwrap();
    std::fs::write(p.root.join(".claude/settings.json"), "{}").unwrap();
    std::fs::write(&path, "[guardrails]\nprotected = []\n").unwrap();
    // A worktree subagent's work under `.claude/worktrees/` is not the guard's (H-19).
    let worktree = p.root.join(".claude/worktrees/agent-a0/src");
    std::fs::create_dir_all(&worktree).unwrap();
    std::fs::write(worktree.join("lib.rs"), "work\n").unwrap();
    let out = run_line(&p, &hooks_line(&hooks), &event("stop-coder"), true);
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["decision"], "block", "{answer}");
    let reason = answer["reason"].as_str().unwrap();
    assert!(reason.contains(".claude/settings.json") && reason.contains("agentwarden.toml"), "{reason}");
    assert_eq!(
        std::fs::read_to_string(p.root.join(".claude/settings.json")).unwrap(),
        hooks,
        "hooks restored"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), after, "configuration restored");
    assert!(!reason.contains("worktrees"), "{reason}");
    assert_eq!(
        std::fs::read_to_string(worktree.join("lib.rs")).unwrap(),
        "work\n",
        "a worktree is left alone"
    );
}

fn hooks_line(settings_text: &str) -> String {
    installed(&serde_json::from_str(settings_text).unwrap())
}

#[test]
fn a_managed_drop_in_holds_the_hooks_and_doctor_names_the_form() {
    let p = project(true);
    let drop_in = p.dir.path().join("50-agentwarden.json");
    let out = ok(&init(&p, &["--managed", drop_in.to_str().unwrap()]));
    assert!(out.contains("/etc/claude-code/managed-settings.d/"), "{out}");
    assert!(!p.root.join(".claude/settings.json").exists(), "the project's settings are not the form");
    let managed: Value = serde_json::from_str(&std::fs::read_to_string(&drop_in).unwrap()).unwrap();
    assert_eq!(managed["allowManagedHooksOnly"], true);
    assert_eq!(managed["hooks"]["PreToolUse"][0]["matcher"], "*");
    assert!(
        std::fs::read_to_string(p.root.join("agentwarden.toml"))
            .unwrap()
            .contains(r#"".claude/settings.json""#)
    );
    commit(&p.root);
    approve(&p);
    // A project settings file with a hook of its own changes nothing: managed hooks only.
    std::fs::write(p.root.join(".claude/settings.json"), r#"{"hooks":{}}"#).unwrap();
    let (code, report) = doctor(&p, &["--managed", drop_in.to_str().unwrap()]);
    assert_eq!((code, failed(&report)), (0, Vec::<String>::new()), "{report}");
    let form = check(&report, "form")["detail"].as_str().unwrap();
    assert!(form.starts_with("managed settings") && form.contains("allowManagedHooksOnly"), "{form}");
    assert!(check(&report, "canary")["ok"] == true);
    // Managed hooks only: the project's `disableAllHooks` cannot turn them off ...
    std::fs::write(p.root.join(".claude/settings.local.json"), r#"{"disableAllHooks": true}"#).unwrap();
    let (code, report) = doctor(&p, &["--managed", drop_in.to_str().unwrap()]);
    assert_eq!((code, failed(&report)), (0, Vec::<String>::new()), "{report}");
    // ... but the managed settings' own can.
    let mut off = managed.clone();
    off.as_object_mut().unwrap().insert("disableAllHooks".into(), Value::Bool(true));
    let off_file = p.dir.path().join("90-off.json");
    std::fs::write(&off_file, off.to_string()).unwrap();
    let (_, report) =
        doctor(&p, &["--managed", drop_in.to_str().unwrap(), "--managed", off_file.to_str().unwrap()]);
    assert_eq!(failed(&report), ["disabled"], "{report}");

    // Without allowManagedHooksOnly the project's settings could add or shadow hooks: said so.
    let mut loose = managed.clone();
    loose.as_object_mut().unwrap().remove("allowManagedHooksOnly");
    std::fs::write(&drop_in, loose.to_string()).unwrap();
    let (_, report) = doctor(&p, &["--managed", drop_in.to_str().unwrap()]);
    assert!(
        check(&report, "form")["detail"].as_str().unwrap().contains("without allowManagedHooksOnly"),
        "{report}"
    );
}

#[test]
fn init_writes_nothing_without_a_configuration_or_with_manifests_outside_the_project() {
    let p = project(true);
    let config = p.root.join("agentwarden.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::remove_file(&config).unwrap();
    let out = init(&p, &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("write it first"));
    assert!(!p.root.join(".claude/settings.json").exists());

    let outside = p.dir.path().join("manifests.toml");
    std::fs::copy(p.root.join("manifests.toml"), &outside).unwrap();
    let moved = text.replace(r#"manifests = "manifests.toml""#, r#"manifests = "../manifests.toml""#);
    assert_ne!(moved, text);
    std::fs::write(&config, &moved).unwrap();
    let out = init(&p, &[]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("outside the project") && stderr.contains("nothing written"), "{stderr}");
    assert!(!p.root.join(".claude/settings.json").exists());
    assert_eq!(std::fs::read_to_string(&config).unwrap(), moved);
}

/// `init claude-code` denies, in Claude Code's own permissions, the human verbs (by
/// name and by the installed binary's path, with options before the verb) and edits of the
/// store, the configuration and the key list; once each, however often it runs; `doctor` warns,
/// naming a rule that is gone (K-13, K-18).
#[test]
fn init_denies_the_human_verbs_and_edits_of_the_guards_records_and_keys() {
    let p = project(true);
    let config = p.root.join("agentwarden.toml");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str("\n[approvals]\nallowed_signers = \"allowed_signers\"\n");
    std::fs::write(&config, text).unwrap();
    std::fs::write(
        p.root.join("allowed_signers"),
        "alice ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAICBTpl5EwMQaftglvSQwtBQC9LrXWCh2cYt78/9jhzuH\n",
    )
    .unwrap();
    let first = ok(&init(&p, &[]));
    assert!(first.contains("permissions.deny: 23 rule(s) added, 23 in all"), "{first}");
    let again = ok(&init(&p, &[]));
    assert!(again.contains("permissions.deny: 0 rule(s) added"), "{again}");
    let deny: Vec<String> = settings(&p)["permissions"]["deny"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap().to_owned())
        .collect();
    let exe = std::fs::canonicalize(WARDEN).unwrap();
    let root = p.root.display();
    let wanted = [
        "Bash(warden seal:*)".to_owned(),
        "Bash(warden approve:*)".to_owned(),
        "Bash(warden revoke:*)".to_owned(),
        "Bash(warden release:*)".to_owned(),
        "Bash(*warden approve*)".to_owned(),
        // Options before the verb, and the binary's path anywhere in the command (K-18).
        "Bash(*warden --* approve*)".to_owned(),
        "Bash(*warden --* release*)".to_owned(),
        format!("Bash(*{} approve*)", exe.display()),
        format!("Bash(*{} --* seal*)", exe.display()),
        format!("Edit(/{root}/.agentwarden/**)"),
        format!("Edit(/{root}/agentwarden.toml)"),
        format!("Edit(/{root}/allowed_signers)"),
    ];
    for rule in &wanted {
        assert_eq!(deny.iter().filter(|r| *r == rule).count(), 1, "{rule} once in {deny:?}");
    }
    assert!(wanted.iter().all(|w| w.starts_with("Bash(") || w.starts_with("Edit(//")), "from the root");
    commit(&p.root);
    let (_, report) = doctor(&p, &[]);
    let rules = check(&report, "permission rules");
    assert!(rules["ok"] == true && rules.get("fix").is_none_or(Value::is_null), "{report}");

    // An agent (or a hand) removes the rule that keeps it off the key list: doctor says which.
    let path = p.root.join(".claude/settings.json");
    let mut edited = settings(&p);
    let signers_rule = format!("Edit(/{root}/allowed_signers)");
    edited["permissions"]["deny"]
        .as_array_mut()
        .unwrap()
        .retain(|r| r.as_str() != Some(signers_rule.as_str()));
    std::fs::write(&path, serde_json::to_string_pretty(&edited).unwrap()).unwrap();
    let (_, report) = doctor(&p, &[]);
    let rules = check(&report, "permission rules");
    assert_eq!(rules["ok"], true, "a warning: {report}");
    let detail = rules["detail"].as_str().unwrap();
    assert!(detail.contains("allowed_signers") && !detail.contains("agentwarden.toml"), "{detail}");
    assert!(rules["fix"].as_str().unwrap().contains("warden init claude-code"), "{report}");
    // Put back by the next init, once.
    ok(&init(&p, &[]));
    let (_, report) = doctor(&p, &[]);
    assert!(check(&report, "permission rules").get("fix").is_none_or(Value::is_null), "{report}");
}
