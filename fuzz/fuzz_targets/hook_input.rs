//! Claude Code hook input: parsing never panics; the ids it accepts are safe as file names
//! (H-25) and a spawn names a non-blank subagent type; a requested result path is always
//! relative and inside the workspace.
#![no_main]

use agentwarden_claude_code::wire::parse_hook_input;
use agentwarden_domain::sessions::{HookEvent, is_safe_id, requested_result_path};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(input) = parse_hook_input(text) {
        assert!(is_safe_id(&input.session_id), "H-25: every accepted session id names one file");
        if let HookEvent::Spawn(spawn) = &input.event {
            assert!(!spawn.subagent_type.trim().is_empty());
            assert!(is_safe_id(&spawn.tool_use_id));
            assert!(matches!(spawn.tool_name.as_str(), "Task" | "Agent"));
        }
    }
    if let Some(path) = requested_result_path(text) {
        assert!(path.ends_with("result.json"));
        assert!(!path.starts_with('/'));
        assert!(!path.split(['/', '\\']).any(|p| p == ".."));
    }
});
