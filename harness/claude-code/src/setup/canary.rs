//! `warden doctor`'s canary in Claude Code's words (H-15): the synthetic `PreToolUse` of `Agent`
//! from the main session it sends through the installed line, the environment Claude Code gives
//! a hook, and how the line's answer reads. The command line runs the line and reports.

use std::path::Path;

use serde_json::{Value, json};

/// The variables Claude Code sets for a hook, beside its own environment: the project, and
/// the mark of a Claude Code session.
pub fn environment(project: &Path) -> Vec<(&'static str, String)> {
    vec![
        ("CLAUDE_PROJECT_DIR", project.display().to_string()),
        (crate::wire::CLAUDE_CODE_ENV, "1".to_owned()),
    ]
}

/// The spawn of `subagent` the canary asks for, in session `session`, as Claude Code's hook
/// input.
pub fn event(session: &str, project: &Path, subagent: &str) -> String {
    json!({
        "session_id": session,
        "transcript_path": "",
        "cwd": project,
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Agent",
        "tool_use_id": "toolu_warden_doctor_canary",
        "tool_input": {
            "description": "warden doctor canary",
            "prompt": "A canary from `warden doctor`: this spawn must be denied.",
            "subagent_type": subagent,
        },
    })
    .to_string()
}

/// What the line's answer to the canary means to Claude Code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CanaryAnswer {
    /// Exit 0 with `permissionDecision: "deny"`: the spawn is denied, for this reason.
    Denied(String),
    /// Exit 0 without a deny: Claude Code lets the spawn run.
    LetThrough,
    /// Exit 2: blocked, but the hook could not decide; its last line on stderr.
    CannotDecide(String),
    /// Any other exit (`None`: a signal): Claude Code lets the spawn run; the last line on
    /// stderr.
    Exited(Option<i32>, String),
}

/// The line's exit `code`, `stdout` and `stderr` read as Claude Code reads them.
pub fn read_answer(code: Option<i32>, stdout: &str, stderr: &str) -> CanaryAnswer {
    let last = stderr.lines().last().unwrap_or("").trim().to_owned();
    match code {
        Some(0) => {
            let answer: Value = serde_json::from_str(stdout.trim()).unwrap_or(Value::Null);
            let decision = answer.pointer("/hookSpecificOutput/permissionDecision").and_then(Value::as_str);
            let reason =
                answer.pointer("/hookSpecificOutput/permissionDecisionReason").and_then(Value::as_str);
            match decision {
                Some("deny") => CanaryAnswer::Denied(reason.unwrap_or("").to_owned()),
                _ => CanaryAnswer::LetThrough,
            }
        }
        Some(2) => CanaryAnswer::CannotDecide(last),
        other => CanaryAnswer::Exited(other, last),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_deny_on_exit_0_is_a_deny() {
        let deny = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no seal"}}"#;
        // (exit, stdout, stderr, expected, why)
        let table = [
            (Some(0), deny, "", CanaryAnswer::Denied("no seal".to_owned()), "the deny Claude Code obeys"),
            (Some(0), "", "", CanaryAnswer::LetThrough, "silence is an allow"),
            (Some(0), "{\"x\":1}", "", CanaryAnswer::LetThrough, "no decision"),
            (Some(2), "", "a\nwhy\n", CanaryAnswer::CannotDecide("why".to_owned()), "blocked, undecided"),
            (Some(1), deny, "boom", CanaryAnswer::Exited(Some(1), "boom".to_owned()), "exit 1 runs it"),
            (None, "", "", CanaryAnswer::Exited(None, String::new()), "a signal"),
        ];
        for (code, stdout, stderr, expected, why) in table {
            assert_eq!(read_answer(code, stdout, stderr), expected, "{why}");
        }
        let input: Value = serde_json::from_str(&event("s", Path::new("/p"), "planner")).unwrap();
        assert_eq!(input["tool_input"]["subagent_type"], "planner");
        assert!(crate::wire::parse_hook_input(&event("s-1", Path::new("/p"), "planner")).is_ok());
    }
}
