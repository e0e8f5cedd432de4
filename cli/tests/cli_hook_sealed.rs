//! Decisions read what was sealed, not what the agent edited since (issue 47, H-49): the real
//! `warden hook`, the example project sealed and approved, then the live configuration (or
//! another sealed file) edited the way an agent's shell does (`sed -i`), then the event that edit
//! was meant to let through. Each row proves the sealed rule decides.

#![expect(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "test code: a failed unwrap is a failed test"
)]

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

mod support;

use support::committed_example;

const SESSION: &str = "sealed-session";

struct Project {
    _dir: tempfile::TempDir,
    root: PathBuf,
    store: PathBuf,
}

fn project() -> Project {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap().join("project");
    committed_example(&root);
    Project { store: root.parent().unwrap().join("store/audit"), root, _dir: dir }
}

fn run(p: &Project, args: &[&str], stdin: &str, env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_warden"));
    command
        .arg("--store")
        .arg(&p.store)
        .args(args)
        .current_dir(&p.root)
        .env_remove("CLAUDECODE")
        .env_remove("SNEAKY_SWITCH")
        .env("AGENTWARDEN_ENABLE_SUBAGENTS", "true");
    for (k, v) in env {
        command.env(k, v);
    }
    let mut child =
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

/// The hook's answer: (exit code, stdout JSON or Null, stderr).
fn hook(p: &Project, config: bool, input: &Value, env: &[(&str, &str)]) -> (i32, Value, String) {
    let mut args = vec!["hook"];
    if config {
        args.extend(["--config", "agentwarden.toml"]);
    }
    let out = run(p, &args, &input.to_string(), env);
    let stdout = String::from_utf8(out.stdout).unwrap();
    let json = if stdout.trim().is_empty() { Value::Null } else { serde_json::from_str(&stdout).unwrap() };
    (out.status.code().unwrap(), json, String::from_utf8(out.stderr).unwrap())
}

fn event(p: &Project, name: &str, extra: Value) -> Value {
    let mut event = json!({
        "session_id": SESSION, "transcript_path": "/tmp/t.jsonl", "cwd": p.root.display().to_string(),
        "permission_mode": "acceptEdits", "hook_event_name": name,
    });
    for (k, v) in extra.as_object().unwrap() {
        event[k] = v.clone();
    }
    event
}

fn tool(p: &Project, name: &str, input: Value) -> Value {
    event(p, "PreToolUse", json!({"tool_name": name, "tool_use_id": "toolu_x", "tool_input": input}))
}

fn seal_and_approve(p: &Project) {
    for args in
        [&["seal", "--by", "alice"][..], &["approve", "--ref", "GATE-2026-11-28-047", "--by", "alice"]]
    {
        let out = run(p, args, "", &[]);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

/// Whether the answer lets the call run: exit 0, and no deny in it.
fn lets_through(answer: &(i32, Value, String)) -> bool {
    answer.0 == 0 && answer.1["hookSpecificOutput"]["permissionDecision"] != "deny"
}

/// Rewrites the file `rel` of the project the way `sed -i 's/FROM/TO/'` would.
fn edit(p: &Project, rel: &str, from: &str, to: &str) {
    let path = p.root.join(rel);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "`{rel}` holds no `{from}`");
    std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
}

/// How the agent's shell changes the rules after the seal.
enum Change {
    /// Replace a text in a sealed file.
    Edit(&'static str, &'static str, &'static str),
    /// Remove the configuration file.
    Remove,
}

/// One row: the rule a decision reads, the agent's change to it after the seal, the event the
/// change was meant to let through (and its environment), and whether the hook is installed
/// with `--config`.
struct Row {
    rule: &'static str,
    change: Change,
    event: fn(&Project) -> Value,
    env: &'static [(&'static str, &'static str)],
    config: bool,
}

fn write_okr(p: &Project) -> Value {
    tool(p, "Write", json!({"file_path": p.root.join("okrs/q4.md").display().to_string(), "content": "x"}))
}

fn edit_okr(p: &Project) -> Value {
    let path = p.root.join("okrs").read_dir().unwrap().next().unwrap().unwrap().path();
    tool(p, "Edit", json!({"file_path": path.display().to_string(), "old_string": "a", "new_string": "b"}))
}

fn spawn(p: &Project, kind: Option<&str>) -> Value {
    let mut input = json!({"description": "d", "prompt": "p"});
    if let Some(kind) = kind {
        input["subagent_type"] = json!(kind);
    }
    tool(p, "Task", input)
}

const PROTECTED_EMPTY: Change = Change::Edit("agentwarden.toml", "protected = [\"okrs\"]", "protected = []");

fn rows() -> Vec<Row> {
    vec![
        Row {
            rule: "[guardrails] protected emptied: Write",
            change: PROTECTED_EMPTY,
            event: write_okr,
            env: &[],
            config: true,
        },
        Row {
            rule: "[guardrails] protected emptied: Edit",
            change: PROTECTED_EMPTY,
            event: edit_okr,
            env: &[],
            config: true,
        },
        Row {
            rule: "[guardrails] protected moved elsewhere",
            change: Change::Edit("agentwarden.toml", "protected = [\"okrs\"]", "protected = [\"src\"]"),
            event: write_okr,
            env: &[],
            config: true,
        },
        Row {
            rule: "[guardrails] table removed",
            change: Change::Edit("agentwarden.toml", "[guardrails]\nprotected = [\"okrs\"]", ""),
            event: write_okr,
            env: &[],
            config: true,
        },
        Row {
            rule: "configuration removed, hook without --config",
            change: Change::Remove,
            event: write_okr,
            env: &[],
            config: false,
        },
        Row {
            rule: "configuration removed, hook with --config",
            change: Change::Remove,
            event: write_okr,
            env: &[],
            config: true,
        },
        Row {
            rule: "[claude_code] agent_tools",
            change: Change::Edit(
                "agentwarden.toml",
                "main_persona = \"main\"",
                "main_persona = \"main\"\nagent_tools = [\"Workflow\"]",
            ),
            event: |p| tool(p, "Workflow", json!({"name": "w"})),
            env: &[],
            config: true,
        },
        Row {
            rule: "[claude_code] builtin_agents",
            change: Change::Edit(
                "agentwarden.toml",
                "main_persona = \"main\"",
                "main_persona = \"main\"\nbuiltin_agents = [\"general-purpose\"]",
            ),
            event: |p| spawn(p, None),
            env: &[],
            config: true,
        },
        Row {
            rule: "[claude_code] main_persona",
            change: Change::Edit("agentwarden.toml", "main_persona = \"main\"", "main_persona = \"planner\""),
            event: |p| spawn(p, Some("coder")),
            env: &[],
            config: true,
        },
        Row {
            rule: "[subagents] enable_env (the kill switch's name)",
            change: Change::Edit(
                "agentwarden.toml",
                "enable_env = \"AGENTWARDEN_ENABLE_SUBAGENTS\"",
                "enable_env = \"SNEAKY_SWITCH\"",
            ),
            event: |p| spawn(p, Some("planner")),
            env: &[("AGENTWARDEN_ENABLE_SUBAGENTS", "false"), ("SNEAKY_SWITCH", "true")],
            config: true,
        },
        Row {
            rule: "[lineage] manifests: can_spawn",
            change: Change::Edit(
                "manifests.toml",
                "can_spawn = [\"planner\"]",
                "can_spawn = [\"planner\", \"coder\"]",
            ),
            event: |p| spawn(p, Some("coder")),
            env: &[],
            config: true,
        },
        Row {
            rule: "persona file: the main persona's subagents",
            change: Change::Edit(".claude/agents/main.md", "planner", "planner, coder"),
            event: |p| spawn(p, Some("coder")),
            env: &[],
            config: true,
        },
    ]
}

/// After the seal, an edit of a rule a decision reads never lets through what the sealed rule
/// refuses: each row's event is refused (a deny, or the hook's exit 2) after the edit (H-49).
#[test]
fn every_rule_a_decision_reads_is_the_sealed_one_whatever_the_live_file_says() {
    let mut let_through = Vec::new();
    for row in rows() {
        let p = project();
        seal_and_approve(&p);
        // The session started under the sealed rules, and the fast path's index written.
        let start = hook(&p, row.config, &event(&p, "SessionStart", json!({"source": "startup"})), &[]);
        assert_eq!(start.0, 0, "{}: SessionStart: {}", row.rule, start.2);
        let bash = hook(&p, row.config, &tool(&p, "Bash", json!({"command": "ls"})), &[]);
        assert!(lets_through(&bash), "{}: a Bash call before the edit: {bash:?}", row.rule);
        match row.change {
            Change::Edit(file, from, to) => edit(&p, file, from, to),
            Change::Remove => std::fs::remove_file(p.root.join("agentwarden.toml")).unwrap(),
        }
        let answer = hook(&p, row.config, &(row.event)(&p), row.env);
        if lets_through(&answer) {
            let_through.push(format!("{}: {answer:?}", row.rule));
        }
    }
    assert!(
        let_through.is_empty(),
        "let through after an edit of the sealed rules:\n{}",
        let_through.join("\n")
    );
}

/// The sealed rules decide the main session's stop too: a protected file the shell rewrote
/// after emptying `protected` is put back, and the stop blocked (H-49).
#[test]
fn the_stop_puts_back_what_the_sealed_protected_paths_cover_after_the_list_was_emptied() {
    let p = project();
    seal_and_approve(&p);
    let okr = p.root.join("okrs/q4.md");
    let before = std::fs::read_to_string(&okr).unwrap();
    let start = hook(&p, true, &event(&p, "SessionStart", json!({"source": "startup"})), &[]);
    assert_eq!(start.0, 0, "{}", start.2);
    let Change::Edit(file, from, to) = PROTECTED_EMPTY else { unreachable!() };
    edit(&p, file, from, to);
    std::fs::write(&okr, "rewritten by the agent").unwrap();
    let stop = hook(&p, true, &event(&p, "Stop", json!({"stop_hook_active": false})), &[]);
    assert_eq!(stop.1["decision"], "block", "the stop after a protected write is blocked: {stop:?}");
    assert_eq!(std::fs::read_to_string(&okr).unwrap(), before, "put back: {stop:?}");
}

/// The sealed configuration decides, and the live one still reads as changed, so a spawn's gate
/// names it (H-49, G-20).
#[test]
fn the_edited_configuration_is_still_named_as_changed() {
    let p = project();
    seal_and_approve(&p);
    let Change::Edit(file, from, to) = PROTECTED_EMPTY else { unreachable!() };
    edit(&p, file, from, to);
    let answer = hook(&p, true, &spawn(&p, Some("planner")), &[]);
    assert!(!lets_through(&answer), "{answer:?}");
    let reason = answer.1["hookSpecificOutput"]["permissionDecisionReason"].as_str().unwrap_or_default();
    assert!(reason.contains("agentwarden.toml"), "the change is named: {reason}");
}

/// A revoke withdraws the seal's permission, never its rules: after `warden revoke` (an unsigned
/// revoke counts even where records are signed, K-9), the configuration edited since still does
/// not decide; the withdrawn seal's does, until a human seals again (H-51).
#[test]
fn a_revoked_seal_still_holds_the_rules_until_the_next_seal() {
    let p = project();
    seal_and_approve(&p);
    let start = hook(&p, true, &event(&p, "SessionStart", json!({"source": "startup"})), &[]);
    assert_eq!(start.0, 0, "{}", start.2);
    let bash = hook(&p, true, &tool(&p, "Bash", json!({"command": "ls"})), &[]);
    assert!(lets_through(&bash), "{bash:?}");
    let revoked = run(&p, &["revoke", "--by", "alice"], "", &[]);
    assert_eq!(revoked.status.code(), Some(0), "{}", String::from_utf8_lossy(&revoked.stderr));
    let Change::Edit(file, from, to) = PROTECTED_EMPTY else { unreachable!() };
    edit(&p, file, from, to);
    let answer = hook(&p, true, &write_okr(&p), &[]);
    assert!(!lets_through(&answer), "the withdrawn seal's protected list decides: {answer:?}");
    // A human who seals the edited configuration makes it the rules.
    let sealed = run(&p, &["seal", "--by", "alice"], "", &[]);
    assert_eq!(sealed.status.code(), Some(0), "{}", String::from_utf8_lossy(&sealed.stderr));
    let answer = hook(&p, true, &write_okr(&p), &[]);
    assert!(lets_through(&answer), "sealed again, the new rules decide: {answer:?}");
}
