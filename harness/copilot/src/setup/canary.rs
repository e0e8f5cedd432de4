//! `warden doctor`'s canary in Copilot's words: the synthetic `PreToolUse` of `Agent` from the
//! main session it sends through the installed line; its answer reads as Copilot's
//! ([`crate::wire::read_back`]).

use std::path::Path;

use serde_json::json;

/// The spawn of `subagent` the canary asks for, in session `session`, as Copilot's hook input.
pub fn event(session: &str, project: &Path, subagent: &str) -> String {
    json!({
        "hook_event_name": "PreToolUse",
        "session_id": session,
        "timestamp": "1970-01-01T00:00:00.000Z",
        "cwd": project,
        "tool_name": "Agent",
        "tool_input": {
            "name": "canary",
            "description": "warden doctor",
            "agent_type": subagent,
            "prompt": "A canary from `warden doctor`: this spawn must be denied.",
        },
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use agentwarden_domain::sessions::HookEvent;

    use super::*;

    /// The canary is a spawn from the main session, as Copilot's parser reads it.
    #[test]
    fn the_canary_is_a_spawn_of_the_main_session() {
        let text = event("warden-doctor-1", Path::new("/p"), "planner");
        let input = crate::wire::parse_hook_input(&text).unwrap();
        let HookEvent::Spawn(spawn) = input.event else { panic!("not a spawn") };
        assert_eq!((spawn.subagent_type.as_str(), spawn.caller), ("planner", None));
    }
}
