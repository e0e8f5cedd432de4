//! `warden hook` as Claude Code runs it: the real binary, the example project copied into a
//! fresh git repository, the fixture events of `examples/claude-code/events/` on stdin.

#![expect(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "test code: a failed unwrap or index is a failed test"
)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

mod support;

use support::{EXAMPLE, committed_example};

struct Project {
    _dir: tempfile::TempDir,
    root: PathBuf,
    store: PathBuf,
}

fn project() -> Project {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    committed_example(&root);
    Project { store: dir.path().join("audit"), root, _dir: dir }
}

fn warden(p: &Project, args: &[&str], stdin: &str, enabled: bool) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_warden"));
    command.arg("--store").arg(&p.store).args(args).current_dir(&p.root).env_remove("CLAUDECODE");
    if enabled {
        command.env("AGENTWARDEN_ENABLE_SUBAGENTS", "true");
    } else {
        command.env_remove("AGENTWARDEN_ENABLE_SUBAGENTS");
    }
    let mut child =
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

fn event(name: &str) -> String {
    std::fs::read_to_string(Path::new(EXAMPLE).join("events").join(format!("{name}.json"))).unwrap()
}

/// Runs the hook on a fixture; returns (exit code, stdout JSON or Null, stderr).
fn hook_text(p: &Project, input: &str, enabled: bool) -> (i32, Value, String) {
    let out = warden(p, &["hook", "--config", "agentwarden.toml"], input, enabled);
    let stdout = String::from_utf8(out.stdout).unwrap();
    let json = if stdout.trim().is_empty() { Value::Null } else { serde_json::from_str(&stdout).unwrap() };
    (out.status.code().unwrap(), json, String::from_utf8(out.stderr).unwrap())
}

fn hook(p: &Project, name: &str) -> (i32, Value, String) {
    hook_text(p, &event(name), true)
}

/// The main session `session` starts: its configuration is kept, which decides its tool calls
/// while no seal does (H-58).
fn session_start(p: &Project, session: &str) {
    let start = serde_json::json!({"session_id": session, "hook_event_name": "SessionStart",
        "source": "startup", "cwd": p.root.display().to_string()});
    let (code, _, stderr) = hook_text(p, &start.to_string(), true);
    assert_eq!(code, 0, "{session}'s start: {stderr}");
}

fn approve(p: &Project) {
    for args in
        [&["seal", "--by", "alice"][..], &["approve", "--ref", "GATE-2026-11-22-001", "--by", "alice"]]
    {
        let out = warden(p, args, "", true);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

fn deny_reason(answer: &Value) -> &str {
    assert_eq!(answer["hookSpecificOutput"]["hookEventName"], "PreToolUse", "{answer}");
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny", "{answer}");
    answer["hookSpecificOutput"]["permissionDecisionReason"].as_str().unwrap()
}

fn allowed(result: &(i32, Value, String)) {
    assert_eq!((result.0, &result.1), (0, &Value::Null), "an allow is exit 0 and silent: {}", result.2);
}

/// Runs `command` (the binary, or a wrapper that execs the arguments after it) as the hook on
/// the main session's `Task` spawn of `planner`.
fn hook_with(p: &Project, mut command: Command) -> Output {
    command
        .arg("--store")
        .arg(&p.store)
        .args(["hook", "--config", "agentwarden.toml"])
        .current_dir(&p.root)
        .env_remove("CLAUDECODE")
        .env("AGENTWARDEN_ENABLE_SUBAGENTS", "true")
        .stdin(std::fs::File::open(Path::new(EXAMPLE).join("events/pre-task-main-planner.json")).unwrap())
        .output()
        .unwrap()
}

fn events(p: &Project) -> Vec<Value> {
    let out = warden(p, &["audit", "export", "--format", "jsonl"], "", true);
    String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn the_nested_scenario_allows_within_the_manifests_and_denies_past_them() {
    let p = project();
    approve(&p);
    allowed(&hook(&p, "pre-task-main-planner"));
    allowed(&hook(&p, "start-planner"));
    allowed(&hook(&p, "pre-agent-planner-coder"));
    allowed(&hook(&p, "start-coder"));
    let (code, answer, _) = hook(&p, "pre-task-coder-researcher");
    assert_eq!(code, 0);
    let reason = deny_reason(&answer);
    assert!(reason.contains("lineage (depth_exceeded)"), "{reason}");
    let (code, answer, _) = hook(&p, "pre-agent-planner-researcher");
    assert_eq!(code, 0);
    assert!(deny_reason(&answer).contains("lineage (spawn_not_allowed)"), "{answer}");

    let log = events(&p);
    let spawns: Vec<&Value> = log.iter().filter(|e| e["event_type"] == "subagent_spawn_evaluated").collect();
    assert_eq!(spawns.len(), 4);
    for spawn in &spawns {
        assert_eq!(spawn["session"], "demo-session");
        assert!(spawn["payload"]["tool_use_id"].as_str().unwrap().starts_with("toolu_"));
    }
    assert_eq!(spawns[1]["payload"]["agent_id"], "agent-planner-1");
    let depths: Vec<u64> = spawns[2]["payload"]["lineage_agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["spawn_depth"].as_u64().unwrap())
        .collect();
    assert_eq!(depths, [0, 1, 2, 3], "main → planner → coder → researcher");
    let started: Vec<&Value> = log.iter().filter(|e| e["event_type"] == "subagent_started").collect();
    assert_eq!(started[1]["payload"]["tool_use_id"], "toolu_03", "matched to the planner's spawn");
    assert_eq!(started[1]["payload"]["parent"], "agent-planner-1");
    let verify = warden(&p, &["audit", "verify"], "", true);
    assert_eq!(verify.status.code(), Some(0));

    // The investigation side sees the same tree and the denials.
    let out = warden(&p, &["audit", "replay", "--projection", "spawn-tree", "--json"], "", true);
    let tree = String::from_utf8(out.stdout).unwrap();
    for id in ["agent-planner-1", "agent-coder-1", "toolu_04"] {
        assert!(tree.contains(id), "{id} in {tree}");
    }
    let out = warden(&p, &["audit", "replay", "--projection", "denials", "--json"], "", true);
    let denials: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(denials["by_layer"]["lineage"], 2, "{denials}");
}

#[test]
fn each_kind_of_deny_names_its_gate() {
    let p = project();
    // Kill switch off.
    let (code, answer, _) = hook_text(&p, &event("pre-task-main-planner"), false);
    assert_eq!(code, 0);
    assert!(deny_reason(&answer).contains("gate: environment (env_not_enabled)"), "{answer}");
    // Enabled, but nothing sealed or approved.
    let (_, answer, _) = hook(&p, "pre-task-main-planner");
    assert!(deny_reason(&answer).contains("gate: context_sealed"), "{answer}");
    approve(&p);
    allowed(&hook(&p, "pre-agent-main-planner"));
    // Revoked: denied again.
    assert_eq!(warden(&p, &["revoke", "--by", "bob"], "", true).status.code(), Some(0));
    let (_, answer, _) = hook(&p, "pre-agent-main-planner");
    assert!(deny_reason(&answer).contains("gate: context_sealed"), "{answer}");
    approve(&p);
    // The main persona does not declare the coder.
    let asks_coder =
        event("pre-task-main-planner").replace(r#""subagent_type":"planner""#, r#""subagent_type":"coder""#);
    let (_, answer, _) = hook_text(&p, &asks_coder, true);
    assert!(deny_reason(&answer).contains("gate: candidates"), "{answer}");
    // An agent Warden never saw start.
    let (_, answer, _) = hook(&p, "pre-agent-planner-coder");
    assert!(deny_reason(&answer).contains("lineage (agent_unknown)"), "{answer}");
    // An agent that lies about its type.
    allowed(&hook(&p, "pre-task-main-planner"));
    allowed(&hook(&p, "start-planner"));
    let liar =
        event("pre-agent-planner-coder").replace(r#""agent_type":"planner""#, r#""agent_type":"coder""#);
    let (_, answer, _) = hook_text(&p, &liar, true);
    assert!(deny_reason(&answer).contains("agent_type_mismatch"), "{answer}");
    // A manifest file removed after the seal: the seal names it.
    std::fs::remove_file(p.root.join("manifests.toml")).unwrap();
    let (_, answer, _) = hook(&p, "pre-agent-planner-coder");
    assert!(deny_reason(&answer).contains("`manifests.toml` is missing"), "{answer}");
    // Sealed again without manifests: the lineage has none to check against.
    assert_eq!(warden(&p, &["seal"], "", true).status.code(), Some(0));
    let (_, answer, _) = hook(&p, "pre-agent-planner-coder");
    assert!(deny_reason(&answer).contains("lineage (manifests_unavailable)"), "{answer}");
}

#[test]
fn a_sealed_file_edited_denies_at_context_sealed_and_restoring_it_allows_again() {
    let p = project();
    approve(&p);
    let edits: [(&str, &str, &str); 4] = [
        (".claude/agents/main.md", "subagents: [planner]", "subagents: [planner, coder]"),
        (".claude/agents/planner.md", "AGENT_TYPE: 2", "AGENT_TYPE: 3"),
        ("manifests.toml", "max_spawn_depth = 3", "max_spawn_depth = 9"),
        ("agentwarden.toml", "[guardrails]", "# edited\n[guardrails]"),
    ];
    for (file, from, to) in edits {
        let path = p.root.join(file);
        let original = std::fs::read_to_string(&path).unwrap();
        assert!(original.contains(from), "{file}");
        std::fs::write(&path, original.replace(from, to)).unwrap();
        let (code, answer, _) = hook(&p, "pre-task-main-planner");
        assert_eq!(code, 0);
        let reason = deny_reason(&answer);
        assert!(reason.contains("context_sealed (sealed_file_changed)"), "{file}: {reason}");
        assert!(reason.contains(&format!("`{file}` changed")), "{file}: {reason}");
        std::fs::write(&path, original).unwrap();
        allowed(&hook(&p, "pre-task-main-planner"));
    }
    let show = warden(&p, &["seal", "--show", "--json"], "", true);
    let seal: Value = serde_json::from_slice(&show.stdout).unwrap();
    let files: Vec<&str> = seal["files"].as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        files,
        [
            ".claude/agents/coder.md",
            ".claude/agents/main.md",
            ".claude/agents/planner.md",
            ".claude/agents/researcher.md",
            "agentwarden.toml",
            "manifests.toml"
        ]
    );
}

#[test]
fn unusable_input_is_exit_2_and_ungoverned_calls_are_silent() {
    let p = project();
    session_start(&p, "demo-session");
    allowed(&hook(&p, "pre-bash"));
    for (input, why) in [
        (String::new(), "empty stdin"),
        ("{not json".to_owned(), "invalid JSON"),
        (r#"{"hook_event_name":"PreToolUse","tool_name":"Task"}"#.to_owned(), "missing session_id"),
    ] {
        let (code, stdout, stderr) = hook_text(&p, &input, true);
        assert_eq!(code, 2, "{why}");
        assert_eq!(stdout, Value::Null, "{why}");
        assert!(stderr.starts_with("warden: hook_input_"), "{why}: {stderr}");
    }
    // A store that cannot be opened: exit 2, never a silent allow.
    let blocked = Project {
        store: p.root.join("okrs/q4.md"),
        root: p.root.clone(),
        _dir: tempfile::tempdir().unwrap(),
    };
    let (code, _, stderr) = hook(&blocked, "pre-task-main-planner");
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("store_unavailable"), "{stderr}");
    // A configuration that does not parse.
    std::fs::write(p.root.join("agentwarden.toml"), "[claude_code]\nmain_persona = \"../x\"\n").unwrap();
    let (code, _, stderr) = hook(&p, "pre-task-main-planner");
    assert_eq!(code, 2, "{stderr}");
}

#[test]
fn a_stop_after_touching_protected_paths_is_blocked_reverted_and_recorded() {
    let p = project();
    approve(&p);
    for name in ["pre-task-main-planner", "start-planner", "pre-agent-planner-coder", "start-coder"] {
        allowed(&hook(&p, name));
    }
    std::fs::write(p.root.join("okrs/q4.md"), "rewritten by an agent\n").unwrap();
    std::fs::write(p.root.join("okrs/new.md"), "added by an agent\n").unwrap();
    let (code, answer, _) = hook(&p, "stop-coder");
    assert_eq!(code, 0);
    assert_eq!(answer["decision"], "block");
    let reason = answer["reason"].as_str().unwrap();
    assert!(reason.contains("protected_path_changed") && reason.contains("okrs/q4.md"), "{reason}");
    assert!(reason.contains("have been reverted: okrs/new.md, okrs/q4.md"), "{reason}");
    assert!(!reason.contains("okrs/q4.md ("), "a revert that worked adds no error: {reason}");
    assert!(reason.contains("result_invalid"), "the prompt asked for out/result.json: {reason}");
    assert!(std::fs::read_to_string(p.root.join("okrs/q4.md")).unwrap().starts_with("# Q4 objectives"));
    assert!(!p.root.join("okrs/new.md").exists());
    let violation = p.root.join(".agentwarden/violations/demo-session/agent-coder-1/violation.json");
    let violation: Value = serde_json::from_str(&std::fs::read_to_string(violation).unwrap()).unwrap();
    assert_eq!(violation["details"]["reverted"], true);

    // The agent writes its result and stops again: clean now, so it may stop.
    std::fs::create_dir_all(p.root.join("out")).unwrap();
    let result = r#"{"schema_version":"1.0","summary":"step 1 done","proposed_changes":["src/a.rs"],
        "kr_targets":["KR-1"],"kr_impact_claim":"faster hooks"}"#;
    std::fs::write(p.root.join("out/result.json"), result).unwrap();
    let again = event("stop-coder").replace(r#""stop_hook_active":false"#, r#""stop_hook_active":true"#);
    let outcome = hook_text(&p, &again, true);
    if outcome.1 != Value::Null {
        panic!("expected the stop to be allowed: {}", outcome.1);
    }
    let log = events(&p);
    let types: Vec<&str> = log.iter().map(|e| e["event_type"].as_str().unwrap()).collect();
    assert!(types.contains(&"guardrail_violation"), "{types:?}");
    let stops: Vec<&Value> = log.iter().filter(|e| e["event_type"] == "subagent_stopped").collect();
    assert_eq!(stops[0]["payload"]["decision"], "deny");
    assert_eq!(stops[1]["payload"]["decision"], "allow");
    let results: Vec<&Value> = log.iter().filter(|e| e["event_type"] == "result_validated").collect();
    assert_eq!(results.len(), 2);
    assert!(
        results.iter().all(|e| e["session"] == "demo-session" && e["item"] == "agent-coder-1"),
        "{results:?}"
    );
}

#[test]
fn each_subagent_is_checked_against_its_own_start() {
    // The planner starts, a protected file changes, then the coder starts (its snapshot has
    // the change): the planner's stop must still see the change.
    let p = project();
    approve(&p);
    allowed(&hook(&p, "pre-task-main-planner"));
    allowed(&hook(&p, "start-planner"));
    std::fs::write(p.root.join("okrs/q4.md"), "rewritten while the planner ran\n").unwrap();
    allowed(&hook(&p, "pre-agent-planner-coder"));
    allowed(&hook(&p, "start-coder"));
    let stop_planner =
        event("stop-coder").replace("agent-coder-1", "agent-planner-1").replace(r#""coder""#, r#""planner""#);
    let (code, answer, _) = hook_text(&p, &stop_planner, true);
    assert_eq!((code, answer["decision"].as_str()), (0, Some("block")), "{answer}");
    assert!(answer["reason"].as_str().unwrap().contains("okrs/q4.md"), "{answer}");
}

#[test]
fn thirty_two_simultaneous_hooks_all_answer_and_append_an_intact_chain() {
    let p = project();
    approve(&p);
    let children: Vec<_> = (0..32)
        .map(|i| {
            let input = event("pre-task-main-planner").replace("toolu_01", &format!("toolu_p{i:02}"));
            let mut child = Command::new(env!("CARGO_BIN_EXE_warden"))
                .arg("--store")
                .arg(&p.store)
                .args(["--lock-timeout-ms", "20000", "hook", "--config", "agentwarden.toml"])
                .current_dir(&p.root)
                .env("AGENTWARDEN_ENABLE_SUBAGENTS", "true")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
            child
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(out.stdout.is_empty(), "allowed: {}", String::from_utf8_lossy(&out.stdout));
    }
    let log = events(&p);
    let spawns = log.iter().filter(|e| e["event_type"] == "subagent_spawn_evaluated").count();
    assert_eq!(spawns, 32);
    assert_eq!(log.len(), 2 + 32, "seal, approve, then one event per hook");
    assert_eq!(warden(&p, &["audit", "verify"], "", true).status.code(), Some(0));
}

#[test]
fn approvals_are_human_commands_only_and_checked() {
    let p = project();
    let mut inside = Command::new(env!("CARGO_BIN_EXE_warden"));
    let out = inside
        .arg("--store")
        .arg(&p.store)
        .args(["approve", "--ref", "GATE-1"])
        .env("CLAUDECODE", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("CLAUDECODE"));
    assert!(!p.store.exists(), "nothing recorded");
    let out = warden(&p, &["approve", "--ref", "  "], "", true);
    assert_eq!(out.status.code(), Some(2), "a blank reference is refused");
    let out = warden(&p, &["revoke", "--ref", "GATE-9"], "", true);
    assert_eq!(out.status.code(), Some(2), "nothing in force to revoke");
}

#[test]
fn a_store_held_past_the_lock_wait_is_exit_2() {
    let p = project();
    approve(&p);
    let held =
        agentwarden::store::SledEventStore::open(&agentwarden::store::SledConfig::new(&p.store)).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_warden"))
        .arg("--store")
        .arg(&p.store)
        .args(["--lock-timeout-ms", "300", "hook", "--config", "agentwarden.toml"])
        .current_dir(&p.root)
        .env("AGENTWARDEN_ENABLE_SUBAGENTS", "true")
        .stdin(std::fs::File::open(Path::new(EXAMPLE).join("events/pre-task-main-planner.json")).unwrap())
        .output()
        .unwrap();
    drop(held);
    assert_eq!(out.status.code(), Some(2), "past the bound: deny");
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The wait is measured, so it reads 300 ms or a little more under load.
    let waited: Option<u64> = stderr
        .split_once("(waited ")
        .and_then(|(_, rest)| rest.split_once(" ms"))
        .and_then(|(ms, _)| ms.parse().ok());
    assert!(stderr.contains("store_unavailable") && waited.is_some_and(|ms| ms >= 300), "{stderr}");
}

#[test]
fn a_file_size_limit_is_exit_2_not_a_killed_hook() {
    // Found by the fault tests: without a handler, SIGXFSZ killed the hook (exit 153), which
    // Claude Code reads as "go ahead".
    let p = project();
    approve(&p);
    let mut limited = Command::new("sh");
    limited.arg("-c").arg(r#"ulimit -f 64; exec "$0" "$@""#).arg(env!("CARGO_BIN_EXE_warden"));
    let out = hook_with(&p, limited);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let denied = out.status.code() == Some(2) || stdout.contains(r#""permissionDecision":"deny""#);
    assert!(
        denied,
        "exit {:?}, stdout {stdout}, stderr {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(warden(&p, &["audit", "verify"], "", true).status.code(), Some(0), "the log still verifies");
}

#[test]
fn a_store_the_hook_cannot_write_is_exit_2_and_loses_nothing() {
    // A store directory this process may not write (permission bits; as root, which ignores
    // them, the hook runs as `nobody` through setpriv on a copy of the binary).
    use std::os::unix::fs::PermissionsExt;
    let p = project();
    approve(&p);
    let before = events(&p).len();
    let root = Command::new("id").arg("-u").output().unwrap().stdout == b"0\n";
    let readonly = |mode_dir: u32, mode_file: u32| {
        for entry in std::fs::read_dir(&p.store).unwrap() {
            let path = entry.unwrap().path();
            if path.is_file() {
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode_file)).unwrap();
            }
        }
        std::fs::set_permissions(&p.store, std::fs::Permissions::from_mode(mode_dir)).unwrap();
    };
    let command = if root {
        let home = p.store.parent().unwrap();
        std::fs::set_permissions(home, std::fs::Permissions::from_mode(0o755)).unwrap();
        let binary = home.join("warden");
        std::fs::copy(env!("CARGO_BIN_EXE_warden"), &binary).unwrap();
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"]).arg(binary);
        c
    } else {
        Command::new(env!("CARGO_BIN_EXE_warden"))
    };
    readonly(0o555, 0o444);
    let out = hook_with(&p, command);
    readonly(0o755, 0o644);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(2),
        "stdout {}, stderr {stderr}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(out.stdout.is_empty(), "no answer on stdout: exit 2 is the deny");
    assert!(stderr.contains("store_unavailable") && stderr.contains("Permission denied"), "{stderr}");
    assert_eq!(events(&p).len(), before, "nothing lost, nothing half-written");
    assert_eq!(warden(&p, &["audit", "verify"], "", true).status.code(), Some(0), "the log still verifies");
}

#[test]
fn a_panic_mid_decision_is_exit_2_not_101() {
    // Rust's panic exit code, 101, is one Claude Code lets the tool call through on.
    let p = project();
    approve(&p);
    let mut panicking = Command::new(env!("CARGO_BIN_EXE_warden"));
    panicking.env("AGENTWARDEN_FAULT_PANIC", "1");
    let out = hook_with(&p, panicking);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(out.stdout.is_empty());
    assert!(stderr.contains("internal_error") && stderr.contains("fault injected"), "{stderr}");
    assert_eq!(warden(&p, &["audit", "verify"], "", true).status.code(), Some(0), "the log still verifies");
}

/// One answer per call, whoever writes it (X-99): a failure `warden hook` returns before its
/// answer — here a configuration it refuses — claims the answer before it is written, so that
/// the deadline's watchdog, still running while the process lingers (a debug-only fault keeps it
/// alive past `--deadline-ms`, as a descheduled process would be), writes nothing more. On a
/// stop's line that is one halt object on stdout, never two, which the harness could not read
/// and would let the stop through; on another line one reason on stderr.
#[test]
fn a_failure_before_the_answer_is_the_only_answer_when_the_deadline_passes() {
    let p = project();
    let config = p.root.join("agentwarden.toml");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str("\n[no_such_section]\nkey = 1\n");
    std::fs::write(&config, text).unwrap();
    let stop = format!(
        r#"{{"session_id":"s-linger","transcript_path":"/t","cwd":{},"hook_event_name":"Stop","stop_hook_active":false}}"#,
        Value::from(p.root.to_str().unwrap())
    );
    for halt in [true, false] {
        let mut command = Command::new(env!("CARGO_BIN_EXE_warden"));
        command
            .arg("--store")
            .arg(&p.store)
            .args(["hook", "--config", "agentwarden.toml", "--deadline-ms", "300"])
            .args(halt.then_some("--halt-on-failure"))
            .current_dir(&p.root)
            .env_remove("CLAUDECODE")
            .env("AGENTWARDEN_FAULT_LINGER_MS", "1500")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command.spawn().unwrap();
        child.stdin.take().unwrap().write_all(stop.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        if halt {
            assert_eq!(out.status.code(), Some(0), "the halt: {stderr}");
            assert_eq!(stdout.lines().count(), 1, "one halt object, not the watchdog's too: {stdout}");
            let answer: Value = serde_json::from_str(&stdout).unwrap();
            assert_eq!(answer["continue"], Value::Bool(false), "{answer}");
            let reason = answer["stopReason"].as_str().unwrap_or_default();
            assert!(reason.contains("no_such_section") && !reason.contains("deadline"), "{reason}");
        } else {
            assert_eq!(out.status.code(), Some(2), "{stderr}");
            assert!(out.stdout.is_empty(), "{stdout}");
            assert_eq!(stderr.lines().count(), 1, "one reason, not the watchdog's too: {stderr}");
            assert!(stderr.contains("no_such_section") && !stderr.contains("deadline_passed"), "{stderr}");
        }
    }
}

#[test]
fn a_store_truncated_between_runs_is_exit_2_never_an_allow() {
    let p = project();
    approve(&p);
    let db = p.store.join("db");
    let file = std::fs::OpenOptions::new().write(true).open(&db).unwrap();
    file.set_len(100).unwrap();
    drop(file);
    let out = hook_with(&p, Command::new(env!("CARGO_BIN_EXE_warden")));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(out.stdout.is_empty(), "no answer on stdout: exit 2 is the deny");
    assert!(stderr.contains("store_unavailable"), "{stderr}");
    assert_ne!(
        warden(&p, &["audit", "verify"], "", true).status.code(),
        Some(0),
        "a cut log does not verify"
    );
}

/// Claude Code: another `PreToolUse` hook may answer `updatedInput` with an allow, and the tool
/// then runs another input than the one Warden approved. `PostToolUse` names the input that ran
/// under the same `tool_use_id`: as approved, silent; otherwise (or a run of a call Warden never
/// saw asked) the session is quarantined, recorded, and the run answered with a block naming it;
/// nothing more runs in the session (H-55).
#[test]
fn a_run_with_an_input_warden_did_not_approve_quarantines() {
    let root = |p: &Project| p.root.display().to_string();
    let call = |p: &Project, event: &str, session: &str, id: &str, command: &str| {
        let mut e = serde_json::json!({"session_id": session, "hook_event_name": event, "cwd": root(p),
            "tool_name": "Bash", "tool_use_id": id, "tool_input": {"command": command, "description": "d"}});
        if event == "PostToolUse" {
            e["tool_response"] = serde_json::json!({"stdout": "", "stderr": ""});
        }
        hook_text(p, &e.to_string(), true)
    };
    let p = project();
    for session in ["rw-ok", "rw-0", "rw-1", "rw-2", "rw-3"] {
        session_start(&p, session);
    }
    allowed(&call(&p, "PreToolUse", "rw-ok", "toolu_1", "echo innocent"));
    allowed(&call(&p, "PostToolUse", "rw-ok", "toolu_1", "echo innocent"));
    let rows: [(Option<&str>, &str, &str, &str); 4] = [
        (Some("echo innocent"), "touch m_rewritten", "PostToolUse", "rewritten by another hook"),
        (Some("echo innocent"), "touch m_rewritten; exit 1", "PostToolUseFailure", "rewritten, and failing"),
        (None, "echo never-asked", "PostToolUse", "never asked"),
        (Some("echo once"), "echo once", "PostToolUse", "asked once, run twice"),
    ];
    for (i, (asked, ran, after, why)) in rows.into_iter().enumerate() {
        let session = format!("rw-{i}");
        if let Some(asked) = asked {
            allowed(&call(&p, "PreToolUse", &session, "toolu_2", asked));
        }
        if asked == Some(ran) {
            allowed(&call(&p, "PostToolUse", &session, "toolu_2", ran));
        }
        let (code, answer, stderr) = call(&p, after, &session, "toolu_2", ran);
        assert_eq!(code, 0, "{why}: {stderr}");
        assert_eq!(answer["decision"], "block", "{why}: {answer}");
        assert!(answer["reason"].as_str().unwrap().contains("ran_unapproved_input"), "{why}: {answer}");
        let (_, next, _) = call(&p, "PreToolUse", &session, "toolu_3", "echo next");
        assert!(deny_reason(&next).contains("session_quarantined"), "{why}: {next}");
        let recorded = events(&p)
            .into_iter()
            .filter(|e| {
                e["event_type"] == "session_quarantined" && e["payload"]["code"] == "ran_unapproved_input"
            })
            .count();
        assert_eq!(recorded, i + 1, "{why}: one quarantine recorded for each session");
    }
}
