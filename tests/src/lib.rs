//! End-to-end tests and cross-adapter contract suites for Agent Warden.
//!
//! [`event_store`] is the `EventStore` contract: every backend runs it, also through
//! `Box<dyn EventStore>`. A new backend is done when this suite passes on it. [`pg`] gives the
//! PostgreSQL tests a server and schemas of their own (`AGENTWARDEN_TEST_PG`). [`claude_code`]
//! runs the real Claude Code CLI against a scripted fake of the Messages API. [`hostile`] is the
//! hostile-filesystem kit: swaps, odd entries and planted links while `warden` runs.

pub mod claude_code;
pub mod event_store;
pub mod hostile;
pub mod pg;

use agentwarden_domain::audit::{Actor, AuditEvent, Correlation, EventDraft, OperatorNote, Timestamp};

/// A small event for tests: an operator note saying `message`, at a fixed time.
pub fn note(message: &str) -> EventDraft {
    EventDraft::new(
        Timestamp::from_unix_millis(1_771_666_200_000).unwrap(),
        Actor::new("test").unwrap(),
        Correlation::default(),
        &AuditEvent::OperatorNote(OperatorNote { message: message.to_owned() }),
    )
    .unwrap()
}
