//! Copilot CLI hook input: parsing never panics; accepted ids are safe as file names (H-25);
//! every accepted input is attributed by name (H-66); a spawn's id is a digest (H-67): safe as a
//! file name, and the same input gives the same id.
#![no_main]

use agentwarden_copilot::wire::parse_hook_input;
use agentwarden_domain::sessions::{Attribution, HookEvent, is_safe_id};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(input) = parse_hook_input(text) else { return };
    assert!(is_safe_id(&input.session_id), "H-25: every accepted session id names one file");
    assert_eq!(input.attribution, Attribution::Named, "H-66: Copilot names its agents");
    match &input.event {
        HookEvent::Spawn(spawn) => {
            assert!(is_safe_id(&spawn.tool_use_id), "H-25");
            assert!(spawn.tool_use_id.starts_with("copilot-"), "H-67: {}", spawn.tool_use_id);
            let reparsed = parse_hook_input(text).map(|i| match i.event {
                HookEvent::Spawn(s) => s.tool_use_id,
                _ => String::new(),
            });
            assert_eq!(reparsed.as_deref(), Ok(spawn.tool_use_id.as_str()), "H-67: the same input, the same id");
        }
        HookEvent::SubagentStart(agent) | HookEvent::SubagentStop { agent, .. } => {
            assert!(is_safe_id(&agent.agent_id), "H-25: {}", agent.agent_id);
        }
        HookEvent::Tool(call) => {
            if let Some(caller) = &call.caller {
                assert!(is_safe_id(&caller.agent_id), "H-25: {}", caller.agent_id);
            }
        }
        _ => {}
    }
});
