//! A Codex hook event's text answered by the kernel through the hook's one entry
//! ([`agentwarden::answer_hook`]), as `warden hook` answers it, and rendered by
//! [`crate::wire::render`] (C-1). An input that cannot be used is refused and recorded (H-30), as
//! for Claude Code.

use std::sync::Arc;

use agentwarden::harness::{Harness, Rendered};
use agentwarden::{
    Config, HookAnswer, HookStorage, Warden,
    store::{EventStore, MemoryEventStore},
};

use crate::wire::Codex;

/// `text` answered through the hook's entry by `warden`, as Codex's.
async fn hook_with(warden: &Warden, text: &str, storage: &HookStorage) -> HookAnswer {
    let config: Config = warden.configuration().clone();
    agentwarden::answer_hook(config, storage, text, Codex.decode(text), |_| Ok(warden.clone())).await
}

/// `text` answered through the hook's entry and rendered as Codex reads it.
async fn answer_hook(warden: &Warden, text: &str, storage: &HookStorage) -> Rendered {
    Codex.render(&hook_with(warden, text, storage).await)
}

/// The variable the application refuses the human verbs under is the one Codex sets (C-9).
#[test]
fn the_application_knows_the_variable_codex_sets() {
    assert_eq!(agentwarden::human::CODEX_ENV, crate::wire::CODEX_ENV);
}

/// An input the wire refuses is answered exit 2 with its code, and recorded.
#[tokio::test]
async fn an_input_that_cannot_be_used_is_a_failure_and_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let storage = HookStorage::new(dir.path().join("hook"));
    let store = Arc::new(MemoryEventStore::new());
    let warden = Warden::builder().store(store.clone()).build().unwrap();
    let patch = r#"{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"apply_patch",
        "tool_use_id":"c1","tool_input":{"command":"*** Begin Patch\n*** Copy File: okrs/a\n*** End Patch"}}"#;
    for text in ["{not json", patch] {
        let rendered = answer_hook(&warden, text, &storage).await;
        assert_eq!(rendered.exit_code, 2, "{text}");
        let stderr = rendered.stderr.unwrap_or_default();
        assert!(stderr.starts_with("Agent Warden could not decide: hook_input_"), "{stderr}");
    }
    let recorded = store.read(1, 100).await.unwrap();
    let refused =
        recorded.iter().filter(|r| String::from_utf8_lossy(&r.body).contains("hook_input_refused")).count();
    assert_eq!(refused, 2, "each refusal is recorded");
}

/// A library caller of `agentwarden::answer_hook` gets the whole sequence the command line and
/// the server run, the check of what ran against what was approved included (H-55, C-17).
#[tokio::test]
async fn answer_hook_checks_what_ran_against_what_was_approved() {
    let dir = tempfile::tempdir().unwrap();
    let storage = HookStorage::new(dir.path().join("hook"));
    let store = Arc::new(MemoryEventStore::new());
    let warden = Warden::builder().store(store.clone()).build().unwrap();
    let event = |name: &str, command: &str| {
        serde_json::json!({"session_id": "s", "hook_event_name": name, "cwd": "/tmp", "tool_name": "Bash",
                           "tool_use_id": "c1", "tool_input": {"command": command}})
        .to_string()
    };
    let start = serde_json::json!({"session_id": "s", "hook_event_name": "SessionStart", "cwd": "/tmp",
                                   "source": "startup"});
    let started = answer_hook(&warden, &start.to_string(), &storage).await;
    assert_eq!(started.exit_code, 0, "{started:?}");
    let asked = answer_hook(&warden, &event("PreToolUse", "echo innocent"), &storage).await;
    assert_eq!(asked.exit_code, 0, "{asked:?}");
    let ran = answer_hook(&warden, &event("PostToolUse", "touch m_rewritten"), &storage).await;
    assert_eq!(ran.exit_code, 2, "{ran:?}");
    assert!(ran.stderr.unwrap_or_default().contains("ran_unapproved_input"));
    assert_eq!(storage.marker("s").unwrap().map(|m| m.code).as_deref(), Some("ran_unapproved_input"));
}

/// Table (C-17, H-55): a `PreToolUse` let through keeps the call's input under its
/// `tool_use_id`; its `PostToolUse` must name the same input under the same id. Another input
/// (another hook's `updatedInput`), another id, or a run never asked for is a violation that
/// quarantines the session, and the next call is denied.
#[tokio::test]
async fn what_ran_is_checked_against_what_was_approved() {
    let event = |name: &str, id: &str, command: &str| {
        serde_json::json!({"session_id": "s", "hook_event_name": name, "cwd": "/tmp", "tool_name": "Bash",
                           "tool_use_id": id, "tool_input": {"command": command}})
        .to_string()
    };
    // (asked: id and command, ran: id and command, caught, why)
    let rows = [
        (Some(("c1", "echo innocent")), ("c1", "echo innocent"), false, "ran as approved"),
        (Some(("c1", "echo innocent")), ("c1", "touch m_rewritten"), true, "rewritten by another hook"),
        (Some(("c1", "echo innocent")), ("c2", "echo innocent"), true, "another call's id"),
        (None, ("c1", "echo innocent"), true, "never asked"),
    ];
    for (asked, (ran_id, ran), caught, why) in rows {
        let dir = tempfile::tempdir().unwrap();
        let storage = HookStorage::new(dir.path().join("hook"));
        let store = Arc::new(MemoryEventStore::new());
        let warden = Warden::builder().store(store.clone()).build().unwrap();
        // As `warden hook` and the server answer: what needs no store first (H-24).
        let decide = |text: String| {
            let (warden, storage) = (&warden, &storage);
            async move { hook_with(warden, &text, storage).await }
        };
        // The session starts first: its start keeps the configuration its calls are decided
        // with (H-58, H-59).
        let start = serde_json::json!({"session_id": "s", "hook_event_name": "SessionStart", "cwd": "/tmp",
                                       "source": "startup"});
        let started = decide(start.to_string()).await;
        assert!(
            !matches!(started, HookAnswer::Failed { .. } | HookAnswer::Block { .. }),
            "{why}: {started:?}"
        );
        if let Some((id, command)) = asked {
            let answer = decide(event("PreToolUse", id, command)).await;
            assert_eq!(answer, HookAnswer::Proceed, "{why}: asked");
        }
        let answer = decide(event("PostToolUse", ran_id, ran)).await;
        let next = decide(event("PreToolUse", "c9", "echo next")).await;
        let recorded = store.read(1, 100).await.unwrap();
        let quarantined = recorded
            .iter()
            .filter(|r| String::from_utf8_lossy(&r.body).contains("ran_unapproved_input"))
            .count();
        if caught {
            let blocked = matches!(&answer, HookAnswer::Block { reason } if reason.as_str().contains("ran_unapproved_input"));
            assert!(blocked, "{why}: {answer:?}");
            assert_eq!(
                storage.marker("s").unwrap().map(|m| m.code).as_deref(),
                Some("ran_unapproved_input"),
                "{why}"
            );
            assert!(quarantined >= 1, "{why}: the violation is recorded");
            assert!(!matches!(next, HookAnswer::Proceed), "{why}: the next call is denied: {next:?}");
        } else {
            assert_eq!(answer, HookAnswer::Proceed, "{why}");
            assert!(storage.marker("s").unwrap().is_none(), "{why}");
            assert_eq!(quarantined, 0, "{why}");
            assert_eq!(next, HookAnswer::Proceed, "{why}: the next call runs");
        }
    }
}
