//! Codex hook input and its patch reader: parsing never panics; accepted ids are safe as file
//! names (H-25); a patch read names at least one file, each exactly as a header of the text
//! names it (no white space around it, no NUL), and a patch call carries them all (C-5).
#![no_main]

use agentwarden_codex::wire::{parse_hook_input, patch_paths};
use agentwarden_domain::sessions::{CallArgument, HookEvent, RulesAs, ToolKind, is_safe_id};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(paths) = patch_paths(text) {
        assert!(!paths.is_empty(), "C-5: a patch read names a file");
        for path in &paths {
            assert!(!path.is_empty() && path.trim() == path && !path.contains('\0'), "{path:?}");
            assert!(text.lines().any(|l| l.ends_with(&format!(": {path}"))), "{path:?} is a header's");
        }
    }
    if let Ok(input) = parse_hook_input(text) {
        assert!(is_safe_id(&input.session_id), "H-25: every accepted session id names one file");
        match &input.event {
            HookEvent::Spawn(spawn) => {
                assert!(!spawn.subagent_type.trim().is_empty());
                assert!(is_safe_id(&spawn.tool_use_id));
                assert!(spawn.tool_name.ends_with("spawn_agent"));
            }
            HookEvent::Tool(call) => {
                if let ToolKind::Writes { paths } = &call.kind {
                    assert!(!paths.is_empty());
                    let rules = RulesAs::Call { tool: "Edit".to_owned(), argument: CallArgument::Paths(paths.clone()) };
                    assert_eq!(call.rules_as, rules, "C-5: the rules read every file the patch writes");
                }
            }
            _ => {}
        }
    }
});
