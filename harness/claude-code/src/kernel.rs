//! A Claude Code hook event's text answered by the kernel: parsed by [`crate::wire`], decided by
//! a [`Warden`], and (when the text cannot be used) its refusal recorded by digest and length
//! (H-30). The answer is the kernel's [`HookAnswer`]; [`crate::wire::Rendering`] says it in
//! Claude Code's terms.

use agentwarden::harness::{Harness, Rendered};
use agentwarden::sessions::{HookInput, InputError};
use agentwarden::{
    Config, HookAnswer, HookStorage, Pre, Warden, before_store_parsed, hook_store_unavailable,
};

use agentwarden::lineage_rules::RulesAs;

use crate::wire::{Rendering, parse_hook_input, rules_as};

/// Claude Code as a [`Harness`]: its hook input decoded by [`crate::wire::parse_hook_input`],
/// the kernel's answer rendered by [`Rendering`].
#[derive(Clone, Copy, Debug, Default)]
pub struct ClaudeCode;

impl Harness for ClaudeCode {
    fn name(&self) -> &'static str {
        "Claude Code"
    }

    fn profile(&self) -> agentwarden::sessions::HarnessProfile {
        crate::wire::PROFILE
    }

    fn decode(&self, wire: &str) -> Result<HookInput, InputError> {
        parse_hook_input(wire)
    }

    fn render(&self, answer: &HookAnswer) -> Rendered {
        Rendered {
            exit_code: answer.exit_code(),
            stdout: answer.stdout(),
            stderr: answer.stderr().map(str::to_owned),
        }
    }

    fn rules_as(&self, tool: &str, input: &serde_json::Value) -> RulesAs {
        rules_as(tool, input)
    }

    fn shell_tools(&self) -> &'static [&'static str] {
        &crate::wire::SHELL_TOOLS
    }
}

/// Answers one hook event given as the JSON text of its stdin, with the hook's files
/// (quarantine markers, session index) in `storage`.
pub async fn hook_with(warden: &Warden, text: &str, storage: &HookStorage) -> HookAnswer {
    warden.hook_parsed(text, parse_hook_input(text), storage).await
}

/// Decides what it can without the store (H-24); an input that does not parse goes to the
/// store, which records its refusal (H-30).
pub fn before_store(config: &Config, storage: &HookStorage, text: &str) -> Pre {
    before_store_parsed(config, storage, &parse_hook_input(text))
}

/// The answer to the event `text` when the store cannot be opened (H-28, H-33): see
/// [`hook_store_unavailable`].
pub async fn store_unavailable(
    config: Config,
    storage: &HookStorage,
    text: &str,
    fallback: Option<HookAnswer>,
    why: String,
) -> HookAnswer {
    let parsed = parse_hook_input(text).ok();
    hook_store_unavailable(config, storage, parsed.as_ref(), fallback, why).await
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use agentwarden::{EventStore, MemoryEventStore};

    use super::*;
    use crate::wire::{AGENT_STARTING_TOOLS, BUILTIN_AGENT_TYPES};

    const SPAWN: &str = r#"{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Task",
        "tool_use_id":"t1","tool_input":{"subagent_type":"planner"}}"#;

    fn warden(store: Arc<MemoryEventStore>) -> Warden {
        Warden::builder().store(store).build().unwrap()
    }

    #[tokio::test]
    async fn a_typed_event_is_answered_and_recorded_as_its_json_is() {
        let dir = tempfile::tempdir().unwrap();
        let storage = HookStorage::new(dir.path().join("hook"));
        let (by_json, typed) = (Arc::new(MemoryEventStore::new()), Arc::new(MemoryEventStore::new()));
        let json_answer = hook_with(&warden(by_json.clone()), SPAWN, &storage).await;
        let input = parse_hook_input(SPAWN).unwrap();
        let typed_answer = warden(typed.clone()).hook_input(input, &storage).await;
        assert_eq!(typed_answer, json_answer);
        assert_eq!(typed_answer.exit_code(), 0, "a spawn without a seal is denied, not failed");
        let types = |records: Vec<agentwarden::audit::StoredRecord>| {
            let types: Vec<String> = records
                .iter()
                .map(|r| {
                    serde_json::from_slice::<serde_json::Value>(&r.body).unwrap()["event_type"].to_string()
                })
                .collect();
            assert!(types.iter().all(|t| t != "null"), "{types:?}");
            types
        };
        let (json_events, typed_events) =
            (by_json.read(1, 100).await.unwrap(), typed.read(1, 100).await.unwrap());
        assert!(!typed_events.is_empty(), "the typed spawn was recorded");
        assert_eq!(types(typed_events), types(json_events));
    }

    /// The names `[claude_code]` may list are the ones the wire marks (H-20, H-22), and every
    /// event it decodes names Claude Code's section (U-17).
    #[test]
    fn the_profile_holds_the_names_the_wire_marks() {
        use agentwarden::sessions::HookEvent;
        assert_eq!(crate::wire::PROFILE.builtin_agents, BUILTIN_AGENT_TYPES);
        assert_eq!(crate::wire::PROFILE.agent_tools, AGENT_STARTING_TOOLS);
        assert_eq!(crate::wire::PROFILE.terms.section, "claude_code");
        assert_eq!(ClaudeCode.profile(), crate::wire::PROFILE);
        for name in BUILTIN_AGENT_TYPES {
            let text = SPAWN.replace("planner", name);
            let input = parse_hook_input(&text).unwrap();
            assert_eq!(input.harness, crate::wire::PROFILE);
            assert!(matches!(input.event, HookEvent::Spawn(s) if s.builtin), "{name}");
        }
        assert_eq!(agentwarden::human::CLAUDE_CODE_ENV, crate::wire::CLAUDE_CODE_ENV);
    }

    /// An input the wire refuses is answered exit 2 with its code, and recorded.
    #[tokio::test]
    async fn an_input_that_cannot_be_used_is_a_failure_and_recorded() {
        let dir = tempfile::tempdir().unwrap();
        let storage = HookStorage::new(dir.path().join("hook"));
        let store = Arc::new(MemoryEventStore::new());
        let answer = hook_with(&warden(store.clone()), "{not json", &storage).await;
        assert_eq!(answer.exit_code(), crate::wire::HOOK_FAILED);
        assert!(answer.stderr().is_some_and(|why| why.starts_with("hook_input_invalid")), "{answer:?}");
        let recorded = store.read(1, 100).await.unwrap();
        assert!(
            recorded.iter().any(|r| String::from_utf8_lossy(&r.body).contains("hook_input_refused")),
            "the refusal is recorded"
        );
    }
}
