//! Gemini CLI hook input: parsing never panics; accepted ids are safe as file names (H-25);
//! every accepted input is unattributed (M-2): no caller is ever read from it; a spawn and the
//! end of a spawn name their agent by the digest of the session, agent and prompt (M-4).
#![no_main]

use agentwarden_domain::sessions::{Attribution, HookEvent, is_safe_id};
use agentwarden_gemini::wire::{parse_hook_input, spawn_id};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(input) = parse_hook_input(text) else { return };
    assert!(is_safe_id(&input.session_id), "H-25: every accepted session id names one file");
    assert_eq!(input.attribution, Attribution::InFlight, "M-2: Gemini names no agent");
    match &input.event {
        HookEvent::Spawn(spawn) => {
            assert_eq!(spawn.caller, None, "M-2");
            assert!(is_safe_id(&spawn.tool_use_id));
            assert_eq!(spawn.tool_use_id, spawn_id(&input.session_id, &spawn.subagent_type, &spawn.prompt), "M-4");
        }
        HookEvent::Tool(call) => assert_eq!(call.caller, None, "M-2"),
        HookEvent::SubagentStop { agent, stop_hook_active } => {
            assert!(is_safe_id(&agent.agent_id) && !stop_hook_active);
        }
        _ => {}
    }
});
