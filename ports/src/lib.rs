//! The traits Agent Warden's application needs from the world.
//!
//! Architecture invariant: ports speak in domain types only; an adapter maps its own errors
//! (`sled::Error`, `std::io::Error`) into the port's error at the seam. Every port is small and
//! object-safe, so the composition root holds `Arc<dyn Port>`. With the `mocks` feature each
//! port has a `mockall` automock (`MockEventStore`, `MockClock`, …) for the app layer's unit tests.

mod agent_runner;
mod chunk_runner;
mod clock;
#[cfg(feature = "conformance")]
pub mod conformance;
mod environment;
mod event_store;
mod file_system;
mod restorer;
mod state_store;

pub use agent_runner::AgentRunner;
#[cfg(any(test, feature = "mocks"))]
pub use agent_runner::MockAgentRunner;
pub use chunk_runner::ChunkRunner;
#[cfg(any(test, feature = "mocks"))]
pub use chunk_runner::MockChunkRunner;
pub use clock::Clock;
#[cfg(any(test, feature = "mocks"))]
pub use clock::MockClock;
pub use environment::Environment;
#[cfg(any(test, feature = "mocks"))]
pub use environment::MockEnvironment;
#[cfg(any(test, feature = "mocks"))]
pub use event_store::MockEventStore;
pub use event_store::{Appended, EventStore, Expected, StoreError, merkle_leaves, merkle_nodes_from_events};
#[cfg(any(test, feature = "mocks"))]
pub use file_system::MockFileSystem;
pub use file_system::{FileSystem, FilesError};
#[cfg(any(test, feature = "mocks"))]
pub use restorer::MockRestorer;
pub use restorer::Restorer;
pub use state_store::{MergedStore, ProjectionStore, SnapshotStore, StateStore, snapshot_key};
#[cfg(any(test, feature = "mocks"))]
pub use state_store::{MockMergedStore, MockProjectionStore, MockSnapshotStore};
