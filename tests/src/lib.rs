//! End-to-end tests and cross-adapter contract suites for Agent Warden.
//!
//! [`event_store`] is the `EventStore` contract: every backend runs it, also through
//! `Box<dyn EventStore>`. A new backend is done when this suite passes on it. [`pg`] gives the
//! PostgreSQL tests a server and schemas of their own (`AGENTWARDEN_TEST_PG`). [`claude_code`]
//! runs the real Claude Code CLI against a scripted fake of the Messages API, [`codex`] the real
//! Codex CLI against one of the Responses API, [`gemini`] the real Gemini CLI against one of
//! the Gemini API, [`copilot`] the real Copilot CLI against one of an OpenAI-compatible chat-completions
//! API. [`differential`] draws rules and calls from grammars and
//! plays them through the real Claude Code and Warden's matcher. [`hostile`] is the
//! hostile-filesystem kit: swaps, odd entries and planted links while `warden` runs.

pub mod agent_sdk;
pub mod claude_code;
pub mod codex;
pub mod copilot;
pub mod differential;
pub mod fake_http;
pub mod gemini;
/// The `EventStore` suite lives with the port (feature `conformance`), for third parties too.
pub use agentwarden_ports::conformance::event_store;
pub mod hostile;
pub mod pg;
pub mod project;
pub mod sources;

pub use agentwarden_ports::conformance::note;

/// sled itself on a store this process has just closed, for tests that edit a store behind its
/// back. sled's own threads can hold the directory's lock for a moment after the last handle is
/// dropped (a flaky `could not acquire lock` in CI), so this waits for it (at most 5 s) as
/// `SledEventStore::open` does.
pub fn raw_sled(path: &std::path::Path) -> sled::Db {
    let started = std::time::Instant::now();
    loop {
        match sled::open(path) {
            Ok(db) => return db,
            Err(_) if started.elapsed() < std::time::Duration::from_secs(5) => {
                std::thread::sleep(std::time::Duration::from_millis(5))
            }
            Err(e) => panic!("cannot open {}: {e}", path.display()),
        }
    }
}
