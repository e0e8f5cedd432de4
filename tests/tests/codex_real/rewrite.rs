//! Issue 50, the facts confinement stands on, as the pinned Codex runs them: an allowing
//! `PreToolUse` hook's `updatedInput` is what the shell (`exec_command`) runs, in the main session
//! and in a subagent, and only with `permissionDecision: "allow"`; and what Codex's own approval
//! policy, sandbox and exec policy (`rules/*.rules`) then do with the input a hook handed back.
//! No Warden here: a probe hook of the user's (`$CODEX_HOME/hooks.json`) answers, so that each
//! row is the client's behaviour alone, and fails if the client changes it.

use super::*;

/// What ran of a probe: the model's original command, the hook's rewrite, neither or both.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ran {
    Original,
    Rewritten,
    Neither,
}

/// One probe: the model's shell call `original` (writes `original` in the project), answered
/// by a hook that prints `answer` (a JSON object) for it, under `options`; `rewritten` is the
/// file the rewrite writes. In a subagent when `in_child`.
struct Probe<'a> {
    why: &'a str,
    original: &'a str,
    answer: Value,
    rewritten: String,
    in_child: bool,
    options: CodexRun,
}

fn probe(project: &CodexProject, row: Probe<'_>) -> (Ran, String) {
    let answer = project.scratch().join("probe-answer.json");
    std::fs::write(&answer, row.answer.to_string()).expect("write the probe's answer");
    let hook = script(
        project,
        "probe.sh",
        &format!(
            "#!/bin/sh\ninput=$(cat)\nprintf '%s\\n' \"$input\" >> '{}'\ncase \"$input\" in\n  *'\"PreToolUse\"'*'ORIGINAL'*) cat '{}' ;;\nesac\nexit 0\n",
            project.scratch().join("probe-events.jsonl").display(),
            answer.display()
        ),
    );
    let call = Item::shell("call_probe", row.original);
    let script = if row.in_child {
        through_the_planner(vec![call])
    } else {
        Script::new().agent("MAINTASK", vec![call])
    };
    let api = start(script);
    let options =
        CodexRun { route: HookRoute::None, user_hooks: vec![("PreToolUse".into(), hook)], ..row.options };
    let run = project.run(&api, "MAINTASK go", &options);
    let shown = api.output_of("call_probe").unwrap_or_default();
    let asked = logged(&project.scratch().join("probe-events.jsonl"));
    let modes: Vec<String> = asked
        .iter()
        .filter(|e| e["hook_event_name"] == json!("PreToolUse"))
        .map(|e| e["permission_mode"].to_string())
        .collect();
    // Whatever the sandbox and the approval policy, `codex exec` tells the hook the same mode:
    // the hook input does not say whether Codex's sandbox will hold the call (C-21).
    assert!(
        !modes.is_empty() && modes.iter().all(|m| m == "\"bypassPermissions\""),
        "{}: permission_mode {modes:?}",
        row.why
    );
    println!(
        "{}: exit {:?}; shown {shown:?}; stderr {}",
        row.why,
        run.exit,
        run.stderr.lines().rev().take(3).collect::<Vec<_>>().join(" | ")
    );
    let original = project.root.join("original").exists();
    let rewritten = std::path::Path::new(&row.rewritten).exists();
    let ran = match (original, rewritten) {
        (false, false) => Ran::Neither,
        (true, false) => Ran::Original,
        (false, true) => Ran::Rewritten,
        (true, true) => panic!("{}: both ran", row.why),
    };
    (ran, shown)
}

fn allow_with(command: &str) -> Value {
    json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                  "updatedInput": {"command": command}}})
}

/// Table (C-20, C-21, C-22), as Codex 0.169.0 runs it: `updatedInput` is what runs, in the main
/// session and in a subagent, with `permissionDecision: "allow"` only (without a decision, or
/// with `ask`, the original runs). The allow takes nothing out of Codex's sandbox: the rewrite
/// runs inside it (read-only, or workspace-write with a write outside refused), and a user
/// namespace cannot be made inside it (`/proc/self/uid_map` refused), so Warden's launcher cannot
/// start there. Codex's exec policy judges the rewritten input, not the model's: a `forbidden`
/// rule stops a rewrite into the command it names, does not stop a rewrite away from it, and
/// does not see the command inside a wrapper (`sh -c '…'`). The hook is told `permission_mode:
/// "bypassPermissions"` in every row: its input does not say which sandbox the call will run in.
#[test]
#[ignore = "real Codex: run by `cargo xtask codex`"]
fn what_an_allowing_rewrite_runs_and_what_codexs_own_policy_does_with_it() {
    // Not under `/tmp` or `$TMPDIR`, which Codex's workspace-write sandbox lets a command write,
    // wherever the repository is checked out (a clone under `/tmp` has its `target/` there too).
    let writable_by_the_sandbox = |dir: &std::path::Path| {
        dir.starts_with("/tmp") || std::env::var_os("TMPDIR").is_some_and(|t| dir.starts_with(t))
    };
    let parent = [std::path::PathBuf::from("/var/tmp"), workspace_root().join("target")]
        .into_iter()
        .find(|dir| dir.is_dir() && !writable_by_the_sandbox(dir))
        .expect("a directory outside /tmp and $TMPDIR: /var/tmp or the workspace's target/");
    let outside = tempfile::tempdir_in(parent).expect("a directory outside the project");
    let outside_file = outside.path().join("rewritten").display().to_string();
    let inside = |project: &CodexProject| project.root.join("rewritten").display().to_string();
    let default = CodexRun::default;
    let sandboxed = |mode: &str, approval: &str| CodexRun {
        sandbox_mode: mode.into(),
        approval_policy: approval.into(),
        ..CodexRun::default()
    };
    let forbid_touch = "prefix_rule(pattern = [\"touch\"], decision = \"forbidden\")\n";
    // (why, the model's command, the hook's answer (None: inside-rewrite with allow), where the
    // rewrite writes (true: outside the project), in a subagent, options, expected)
    type Row = (&'static str, &'static str, Option<Value>, bool, bool, CodexRun, Ran);
    let rows: Vec<Row> = vec![
        (
            "main: allow + updatedInput",
            "touch original # ORIGINAL",
            None,
            false,
            false,
            default(),
            Ran::Rewritten,
        ),
        (
            "subagent: allow + updatedInput",
            "touch original # ORIGINAL",
            None,
            false,
            true,
            default(),
            Ran::Rewritten,
        ),
        (
            "allow with a reason + updatedInput",
            "touch original # ORIGINAL",
            Some(json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                               "permissionDecisionReason": "confined by Agent Warden",
                                               "updatedInput": {"command": "touch rewritten"}}})),
            false,
            false,
            default(),
            Ran::Rewritten,
        ),
        (
            "updatedInput without a decision",
            "touch original # ORIGINAL",
            Some(
                json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"command": "touch rewritten"}}}),
            ),
            false,
            false,
            default(),
            Ran::Original,
        ),
        (
            "updatedInput with ask",
            "touch original # ORIGINAL",
            Some(
                json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask", "updatedInput": {"command": "touch rewritten"}}}),
            ),
            false,
            false,
            default(),
            Ran::Original,
        ),
        (
            "read-only sandbox, allow + rewrite",
            "touch original # ORIGINAL",
            None,
            false,
            false,
            sandboxed("read-only", "never"),
            Ran::Neither,
        ),
        (
            "workspace-write sandbox, rewrite writes outside",
            "touch original # ORIGINAL",
            None,
            true,
            false,
            sandboxed("workspace-write", "never"),
            Ran::Neither,
        ),
        (
            "on-request approval, workspace-write sandbox, rewrite writes outside",
            "touch original # ORIGINAL",
            None,
            true,
            false,
            sandboxed("workspace-write", "on-request"),
            Ran::Neither,
        ),
        (
            "exec policy forbids the rewrite's touch",
            "printf x > original # ORIGINAL",
            None,
            false,
            false,
            CodexRun { rules: forbid_touch.into(), ..default() },
            Ran::Neither,
        ),
        (
            "exec policy forbids the original's touch",
            "touch original # ORIGINAL",
            Some(allow_with("printf x > rewritten")),
            false,
            false,
            CodexRun { rules: forbid_touch.into(), ..default() },
            Ran::Rewritten,
        ),
        (
            "exec policy forbids touch, the rewrite is sh -c 'touch …'",
            "printf x > original # ORIGINAL",
            Some(json!("SH")),
            false,
            false,
            CodexRun { rules: forbid_touch.into(), ..default() },
            Ran::Rewritten,
        ),
        (
            "a user namespace inside Codex's workspace-write sandbox",
            "touch original # ORIGINAL",
            Some(allow_with("unshare --user --map-root-user --mount --net sh -c 'touch rewritten'")),
            false,
            false,
            sandboxed("workspace-write", "never"),
            Ran::Neither,
        ),
        (
            "a user namespace with Codex's sandbox off",
            "touch original # ORIGINAL",
            Some(allow_with("unshare --user --map-root-user --mount --net sh -c 'touch rewritten'")),
            false,
            false,
            default(),
            Ran::Rewritten,
        ),
    ];
    let mut seen = Vec::new();
    for (why, original, answer, out, in_child, options, expected) in rows {
        let project = CodexProject::setup(&tools());
        let rewritten = if out { outside_file.clone() } else { inside(&project) };
        let answer = match answer {
            None => allow_with(&format!("touch '{rewritten}'")),
            Some(Value::String(s)) if s == "SH" => allow_with(&format!("sh -c 'touch {rewritten}'")),
            Some(answer) => answer,
        };
        let (ran, shown) =
            probe(&project, Probe { why, original, answer, rewritten: rewritten.clone(), in_child, options });
        let _ = std::fs::remove_file(&outside_file);
        seen.push((why, ran, expected, shown));
    }
    for (why, ran, expected, shown) in &seen {
        println!("ROW {why}: ran {ran:?} (expected {expected:?}); shown {shown:?}");
    }
    for (why, ran, expected, _) in &seen {
        assert_eq!(ran, expected, "{why}");
    }
}
