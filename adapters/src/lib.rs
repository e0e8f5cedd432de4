//! Agent Warden's adapters: the world behind the ports.
//!
//! - [`SledEventStore`]: the embedded default event store (sled 0.34.7), durable on return,
//!   with group commit and an opt-in fsync mode.
//! - `PostgresEventStore` (feature `postgres`): the fleet store, one audit trail for many
//!   hosts, with the same records and chain as sled.
//! - [`MemoryEventStore`]: the same contract in memory, for tests and embedding.
//! - [`UnavailableEventStore`]: a store that cannot be used; decisions against it deny.
//! - [`SystemClock`], [`FixedClock`], [`SteppingClock`]: time.
//! - [`ProcessEnvironment`], [`FixedEnvironment`]: environment variables.
//! - [`LocalFileSystem`]: files, never following symbolic links; snapshots of protected paths,
//!   with their content, and restores from them.
//! - [`untrusted`]: the one way to read and write a file an agent can touch: by descriptor,
//!   `O_NOFOLLOW`, regular files only, bounded; atomic writes that cannot be redirected.
//! - [`GitRestorer`]: puts protected paths back with git.
//! - [`ProcessAgentRunner`]: the agent of a guarded run, as a process in the workspace.
//! - [`ProcessChunkRunner`]: one process per fan-out chunk, in a box: output drained and
//!   bounded, every descendant killed with it, a cleared environment (F-17 … F-19).
//!
//! Architecture invariant: adapter errors are mapped into the port's error here, at the seam;
//! no `sled::Error`, `tokio_postgres::Error` or `io::Error` leaves this crate.

/// Implements `SnapshotStore` for a store that keeps the hook's snapshots among its
/// projections, under [`agentwarden_ports::snapshot_key`] (the embedded, PostgreSQL and
/// in-memory stores do, so snapshots stay where earlier versions wrote them).
macro_rules! snapshots_among_projections {
    ($store:ty) => {
        #[async_trait::async_trait]
        impl agentwarden_ports::SnapshotStore for $store {
            async fn read_snapshot(
                &self,
                session: &str,
                agent: &str,
            ) -> Result<Option<Vec<u8>>, agentwarden_ports::StoreError> {
                let key = agentwarden_ports::snapshot_key(session, agent);
                agentwarden_ports::ProjectionStore::read_projection(self, &key).await
            }

            async fn write_snapshot(
                &self,
                session: &str,
                agent: &str,
                bytes: Vec<u8>,
            ) -> Result<(), agentwarden_ports::StoreError> {
                let key = agentwarden_ports::snapshot_key(session, agent);
                agentwarden_ports::ProjectionStore::write_projection(self, &key, bytes).await
            }

            async fn remove_snapshot(
                &self,
                session: &str,
                agent: &str,
            ) -> Result<(), agentwarden_ports::StoreError> {
                let key = agentwarden_ports::snapshot_key(session, agent);
                agentwarden_ports::ProjectionStore::remove_projection(self, &key).await
            }
        }
    };
}
pub(crate) use snapshots_among_projections;

mod agent_runner;
mod clock;
mod environment;
mod file_system;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
mod git_restorer;
mod memory;
pub mod paths;
#[cfg(feature = "postgres")]
mod postgres;
mod process_runner;
mod restore;
mod sealing;
mod sled;
mod snapshot;
mod unavailable;
pub mod untrusted;

pub use agent_runner::ProcessAgentRunner;
pub use clock::{FixedClock, SteppingClock, SystemClock};
pub use environment::{FixedEnvironment, ProcessEnvironment};
pub use file_system::LocalFileSystem;
pub use git_restorer::GitRestorer;
pub use memory::MemoryEventStore;
#[cfg(feature = "postgres")]
pub use postgres::{PgConfig, PostgresEventStore};
pub use process_runner::{BASE_ENV, MAX_CHUNK_STDERR, MAX_CHUNK_STDOUT, ProcessChunkRunner, SweepError};
pub use sled::{Archiving, Discarded, Durability, Leftover, SledConfig, SledEventStore};
pub use unavailable::UnavailableEventStore;

/// True when `location` names a PostgreSQL server (`postgres://`, `postgresql://`) rather than
/// a directory — known with or without the `postgres` feature, so that a build without it
/// refuses such a location instead of taking it for a directory's name.
pub fn is_postgres_url(location: &str) -> bool {
    location.starts_with("postgres://") || location.starts_with("postgresql://")
}
