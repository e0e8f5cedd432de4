//! Issue 50, the facts confinement stands on, as the pinned Gemini CLI runs them: a `BeforeTool`
//! hook's `hookSpecificOutput.tool_input` is merged into the shell call's arguments and is what
//! `run_shell_command` runs, in the main session and in a subagent, with or without a
//! `decision`; and Gemini's own policy engine judges the arguments the hook handed back, not the
//! model's. No Warden here: a probe hook of the user's answers, so that each row is the client's
//! behaviour alone, and fails if the client changes it.

use super::*;

/// What ran of a probe: the model's original command, the hook's rewrite, or neither.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ran {
    Original,
    Rewritten,
    Neither,
}

/// The hook's answer for the model's call: `tool_input.command` = `command`, with `decision`.
fn rewrite(command: &str, decision: Option<&str>) -> Value {
    let mut answer =
        json!({"hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": {"command": command}}});
    if let Some(decision) = decision {
        answer["decision"] = json!(decision);
    }
    answer
}

const FORBID_TOUCH: &str = "[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = \"touch\"\ndecision = \"deny\"\npriority = 100\n";

/// Table (M-29, M-30), as Gemini CLI 0.61.0 runs it: `tool_input` is merged and runs, in the main
/// session and in a subagent, with `decision: "allow"` or with no decision (Gemini reads only
/// `deny`, `block` and `ask` there), and the tool's result says the input was modified by a
/// hook. Gemini runs the hook first and its policy engine after, on the merged input: a user's
/// `deny` rule stops a rewrite into the command it names, does not stop a rewrite away from it,
/// sees through `sh -c '…'`, and does not see the command behind another program's name (as
/// behind Warden's launcher). Without `--yolo`, not interactive, the shell tool is not offered
/// at all.
#[test]
#[ignore = "needs the real Gemini CLI: cargo xtask gemini"]
fn what_a_rewrite_runs_and_what_geminis_own_policy_does_with_it() {
    // (why, the model's command, the hook's answer, in a subagent, options, expected)
    type Row = (&'static str, &'static str, Value, bool, GeminiRun, Ran);
    let default = GeminiRun::default;
    let forbid = || GeminiRun { policy: FORBID_TOUCH.into(), ..GeminiRun::default() };
    let rows: Vec<Row> = vec![
        (
            "main: tool_input, no decision",
            "touch original # ORIGINAL",
            rewrite("touch rewritten", None),
            false,
            default(),
            Ran::Rewritten,
        ),
        (
            "subagent: tool_input, no decision",
            "touch original # ORIGINAL",
            rewrite("touch rewritten", None),
            true,
            default(),
            Ran::Rewritten,
        ),
        (
            "main: tool_input with allow",
            "touch original # ORIGINAL",
            rewrite("touch rewritten", Some("allow")),
            false,
            default(),
            Ran::Rewritten,
        ),
        (
            "main: tool_input with allow and a systemMessage",
            "touch original # ORIGINAL",
            json!({"decision": "allow", "systemMessage": "confined by Agent Warden",
                   "hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": {"command": "touch rewritten"}}}),
            false,
            default(),
            Ran::Rewritten,
        ),
        (
            "policy denies the rewrite's touch",
            "printf x > original # ORIGINAL",
            rewrite("touch rewritten", Some("allow")),
            false,
            forbid(),
            Ran::Neither,
        ),
        (
            "policy denies the original's touch",
            "touch original # ORIGINAL",
            rewrite("printf x > rewritten", Some("allow")),
            false,
            forbid(),
            Ran::Rewritten,
        ),
        (
            "policy denies touch, the rewrite is sh -c 'touch …'",
            "printf x > original # ORIGINAL",
            rewrite("sh -c 'touch rewritten'", None),
            false,
            forbid(),
            Ran::Neither,
        ),
        (
            "policy denies touch, the rewrite is a launcher around 'touch …'",
            "printf x > original # ORIGINAL",
            rewrite("env -- sh -c 'touch rewritten'", None),
            false,
            forbid(),
            Ran::Rewritten,
        ),
        (
            "default approval mode, not interactive, hook allows",
            "touch original # ORIGINAL",
            rewrite("touch rewritten", Some("allow")),
            false,
            GeminiRun { yolo: false, ..GeminiRun::default() },
            Ran::Neither,
        ),
    ];
    let mut seen = Vec::new();
    for (why, original, answer, in_child, options, expected) in rows {
        let project = GeminiProject::setup(&tools());
        let answer_file = project.scratch().join("probe-answer.json");
        std::fs::write(&answer_file, answer.to_string()).expect("write the probe's answer");
        let hook = project.scratch().join("probe.sh");
        let body = format!(
            "#!/bin/sh\ninput=$(cat)\ncase \"$input\" in\n  *'\"BeforeTool\"'*'ORIGINAL'*) cat '{}' ;;\nesac\nexit 0\n",
            answer_file.display()
        );
        std::fs::write(&hook, body).expect("write the probe");
        let chmod = std::process::Command::new("chmod").arg("+x").arg(&hook).status().expect("chmod");
        assert!(chmod.success());
        let call = Part::shell(original);
        let script = if in_child {
            Script::new()
                .agent("MAINTASK", vec![Part::invoke("planner", "PLANTASK plan it")])
                .agent("PLANTASK", vec![call])
        } else {
            Script::new().agent("MAINTASK", vec![call])
        };
        let api = start(script);
        let options = GeminiRun {
            route: HookRoute::None,
            user_hooks: vec![("BeforeTool".into(), hook.display().to_string())],
            ..options
        };
        let run = project.run(&api, "MAINTASK go", &options);
        let shown = api.responses_to("run_shell_command");
        println!("{why}: exit {:?}; shown {shown:?}", run.exit);
        let ran = match (project.root.join("original").exists(), project.root.join("rewritten").exists()) {
            (false, false) => Ran::Neither,
            (true, false) => Ran::Original,
            (false, true) => Ran::Rewritten,
            (true, true) => panic!("{why}: both ran"),
        };
        seen.push((why, ran, expected, format!("{shown:?}")));
    }
    for (why, ran, expected, shown) in &seen {
        println!("ROW {why}: ran {ran:?} (expected {expected:?}); shown {shown}");
    }
    for (why, ran, expected, _) in &seen {
        assert_eq!(ran, expected, "{why}");
    }
}
