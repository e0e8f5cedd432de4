//! `warden doctor`'s canary in Codex's words (C-11): the synthetic `PreToolUse` of `spawn_agent`
//! from the main session it sends through the installed line, and how the line's answer reads
//! (C-1: only exit 2 with `Agent Warden denied this: …` on stderr is a deny Codex obeys). The
//! command line runs the line and reports.

use std::path::Path;

use serde_json::json;

use agentwarden_domain::sessions::HookAnswer;

use crate::wire::{HOOK_STOPS, read_back};

/// The spawn of `subagent` the canary asks for, in session `session`, as Codex's hook input.
pub fn event(session: &str, project: &Path, subagent: &str) -> String {
    json!({
        "session_id": session,
        "turn_id": "warden-doctor-canary",
        "transcript_path": "",
        "cwd": project,
        "hook_event_name": "PreToolUse",
        "model": "warden-doctor",
        "permission_mode": "default",
        "tool_name": "spawn_agent",
        "tool_use_id": "call_warden_doctor_canary",
        "tool_input": {
            "message": "A canary from `warden doctor`: this spawn must be denied.",
            "agent_type": subagent,
            "fork_context": false,
        },
    })
    .to_string()
}

/// What the line's answer to the canary means to Codex.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CanaryAnswer {
    /// Exit 2 with a deny's reason: the spawn is denied, for this reason.
    Denied(String),
    /// Exit 0: Codex runs the spawn.
    LetThrough,
    /// Exit 2 that is not a deny (the hook could not decide, or the line's tail caught a failure):
    /// blocked, but not decided; its last line on stderr.
    CannotDecide(String),
    /// Any other exit (`None`: a signal): Codex runs the spawn; the last line on stderr.
    Exited(Option<i32>, String),
}

/// The line's exit `code`, `stdout` and `stderr` read as Codex reads them.
pub fn read_answer(code: Option<i32>, stdout: &str, stderr: &str) -> CanaryAnswer {
    let last = stderr.lines().last().unwrap_or("").trim().to_owned();
    let stdout = Some(stdout).filter(|s| !s.trim().is_empty());
    let stderr = Some(stderr.trim_end()).filter(|s| !s.is_empty());
    match code {
        Some(0) => CanaryAnswer::LetThrough,
        Some(code) if code == i32::from(HOOK_STOPS) => match read_back(HOOK_STOPS, stdout, stderr) {
            Ok(HookAnswer::Deny { reason }) => CanaryAnswer::Denied(reason.to_string()),
            _ => CanaryAnswer::CannotDecide(last),
        },
        other => CanaryAnswer::Exited(other, last),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_deny_on_exit_2_is_a_deny() {
        // (exit, stdout, stderr, expected, why)
        let table = [
            (
                Some(2),
                "",
                "Agent Warden denied this: no seal\n",
                CanaryAnswer::Denied("no seal".to_owned()),
                "C-1",
            ),
            (Some(0), "", "", CanaryAnswer::LetThrough, "exit 0 runs it"),
            (
                Some(2),
                "",
                "Agent Warden could not decide: store\n",
                CanaryAnswer::CannotDecide("Agent Warden could not decide: store".to_owned()),
                "undecided",
            ),
            (
                Some(2),
                "",
                "warden: the hook exited 127; blocked\n",
                CanaryAnswer::CannotDecide("warden: the hook exited 127; blocked".to_owned()),
                "the tail caught a missing binary",
            ),
            (Some(2), "", "", CanaryAnswer::CannotDecide(String::new()), "exit 2 without a reason runs it"),
            (Some(1), "", "boom", CanaryAnswer::Exited(Some(1), "boom".to_owned()), "exit 1 runs it"),
            (None, "", "", CanaryAnswer::Exited(None, String::new()), "a signal"),
        ];
        for (code, stdout, stderr, expected, why) in table {
            assert_eq!(read_answer(code, stdout, stderr), expected, "{why}");
        }
        let input =
            crate::wire::parse_hook_input(&event("warden-doctor-canary-1", Path::new("/p"), "planner"));
        assert!(input.is_ok(), "{input:?}");
    }
}
