//! End-to-end tests and cross-adapter contract suites for Agent Warden.
//!
//! [`event_store`] is the `EventStore` contract: every backend runs it, also through
//! `Box<dyn EventStore>`. A new backend is done when this suite passes on it. [`pg`] gives the
//! PostgreSQL tests a server and schemas of their own (`AGENTWARDEN_TEST_PG`). [`claude_code`]
//! runs the real Claude Code CLI against a scripted fake of the Messages API. [`hostile`] is the
//! hostile-filesystem kit: swaps, odd entries and planted links while `warden` runs.

pub mod claude_code;
/// The `EventStore` suite lives with the port (feature `conformance`), for third parties too.
pub use agentwarden_ports::conformance::event_store;
pub mod hostile;
pub mod pg;
pub mod sources;

pub use agentwarden_ports::conformance::note;
