//! The ports' contract suites (feature `conformance`), for every adapter — the workspace's own
//! and a third party's — to run against its implementation, as object_store's `integration`
//! module is run by each of its backends. An adapter is done when its suites pass.
//!
//! ```toml
//! [dev-dependencies]
//! agentwarden-ports = { version = "…", features = ["conformance"] }
//! ```
//!
//! ```ignore
//! #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
//! async fn my_store_meets_the_contract() {
//!     agentwarden_ports::conformance::event_store::run_all(MyStore::new).await;
//!     agentwarden_ports::conformance::state::run_all(MyStore::new).await;
//! }
//! ```
//!
//! Each check takes a fresh adapter (the factory is called once per check) and panics, naming
//! what broke, when the adapter breaks the port's contract; the concurrency checks need a
//! multi-threaded tokio runtime.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a contract suite: a broken promise is a panic that names it"
)]

pub mod event_store;
pub mod file_system;
pub mod restorer;
pub mod state;

pub use event_store::read_all;

use agentwarden_domain::audit::{Actor, Correlation, EventDraft, Timestamp};
use agentwarden_domain::events::{AuditEvent, OperatorNote};

/// A small event for the suites: an operator note saying `message`, at a fixed time.
pub fn note(message: &str) -> EventDraft {
    EventDraft::new(
        Timestamp::from_unix_millis(1_771_666_200_000).unwrap(),
        Actor::new("test").unwrap(),
        Correlation::default(),
        &AuditEvent::OperatorNote(OperatorNote { message: message.to_owned() }),
    )
    .unwrap()
}
