//! `warden doctor`'s canary in Gemini's words: the synthetic `BeforeTool` of `invoke_agent` from
//! the main session it sends through the installed line. The line's answer reads as Codex's does
//! (M-1: only exit 2 with `Agent Warden denied this: …` on stderr is a deny Gemini obeys).

use std::path::Path;

use serde_json::json;

/// The spawn of `subagent` the canary asks for, in session `session`, as Gemini's hook input.
pub fn event(session: &str, project: &Path, subagent: &str) -> String {
    json!({
        "session_id": session,
        "transcript_path": "",
        "cwd": project,
        "hook_event_name": "BeforeTool",
        "timestamp": "1970-01-01T00:00:00.000Z",
        "tool_name": "invoke_agent",
        "tool_input": {
            "agent_name": subagent,
            "prompt": "A canary from `warden doctor`: this spawn must be denied.",
        },
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use agentwarden_domain::sessions::HookEvent;

    use super::*;

    /// The canary is a spawn from the main session, as Gemini's parser reads it.
    #[test]
    fn the_canary_is_a_spawn_of_the_main_session() {
        let text = event("warden-doctor-1", Path::new("/p"), "planner");
        let input = crate::wire::parse_hook_input(&text).unwrap();
        let HookEvent::Spawn(spawn) = input.event else { panic!("not a spawn") };
        assert_eq!((spawn.subagent_type.as_str(), spawn.caller), ("planner", None));
    }
}
