//! A Claude Code hook event's text answered by the kernel through the hook's one entry
//! ([`agentwarden::answer_hook`]), as `warden hook` answers it: parsed by [`crate::wire`], decided
//! by a [`Warden`], and (when the text cannot be used) its refusal recorded by digest and length
//! (H-30).

use std::sync::Arc;

use agentwarden::harness::Harness;
use agentwarden::sessions::{HookInput, InputError};
use agentwarden::{
    Config, HookAnswer, HookStorage, Warden,
    store::{EventStore, MemoryEventStore},
};

use crate::wire::{AGENT_STARTING_TOOLS, BUILTIN_AGENT_TYPES, ClaudeCode, Rendering, parse_hook_input};

/// `text` as parsed (`parsed`) answered through the hook's entry by `warden`.
async fn answer(
    warden: &Warden,
    text: &str,
    parsed: Result<HookInput, InputError>,
    storage: &HookStorage,
) -> HookAnswer {
    let config: Config = warden.configuration().clone();
    agentwarden::answer_hook(config, storage, text, parsed, |_| Ok(warden.clone())).await
}

/// `text` answered through the hook's entry, parsed as Claude Code's.
async fn hook_with(warden: &Warden, text: &str, storage: &HookStorage) -> HookAnswer {
    answer(warden, text, ClaudeCode.decode(text), storage).await
}

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
    let typed_answer = answer(&warden(typed.clone()), "", Ok(input), &storage).await;
    assert_eq!(typed_answer, json_answer);
    assert_eq!(typed_answer.exit_code(), 0, "a spawn without a seal is denied, not failed");
    let types = |records: Vec<agentwarden::audit::StoredRecord>| {
        let types: Vec<String> = records
            .iter()
            .map(|r| serde_json::from_slice::<serde_json::Value>(&r.body).unwrap()["event_type"].to_string())
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
