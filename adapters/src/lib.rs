//! Agent Warden's adapters: the world behind the ports.
//!
//! - [`SledEventStore`]: the embedded default event store (sled 0.34.7), durable on return,
//!   with group commit and an opt-in fsync mode.
//! - [`PostgresEventStore`]: the fleet store, one audit trail for many hosts, with the same
//!   records and chain as sled.
//! - [`MemoryEventStore`]: the same contract in memory, for tests and embedding.
//! - [`SystemClock`], [`FixedClock`], [`SteppingClock`]: time.
//! - [`ProcessEnvironment`], [`FixedEnvironment`]: environment variables.
//! - [`LocalFileSystem`]: files, never following symbolic links; snapshots of protected paths,
//!   with their content, and restores from them.
//! - [`untrusted`]: the one way to read and write a file an agent can touch: by descriptor,
//!   `O_NOFOLLOW`, regular files only, bounded; atomic writes that cannot be redirected.
//! - [`GitRestorer`]: puts protected paths back with git.
//! - [`ProcessChunkRunner`]: one process per fan-out chunk, killed at its timeout.
//!
//! Architecture invariant: adapter errors are mapped into the port's error here, at the seam;
//! no `sled::Error`, `tokio_postgres::Error` or `io::Error` leaves this crate.

mod clock;
mod environment;
mod file_system;
mod git_restorer;
mod memory;
mod postgres;
mod process_runner;
mod restore;
mod sealing;
mod sled;
mod snapshot;
pub mod untrusted;

pub use clock::{FixedClock, SteppingClock, SystemClock};
pub use environment::{FixedEnvironment, ProcessEnvironment};
pub use file_system::LocalFileSystem;
pub use git_restorer::GitRestorer;
pub use memory::MemoryEventStore;
pub use postgres::{PgConfig, PostgresEventStore};
pub use process_runner::{MAX_CHUNK_STDOUT, ProcessChunkRunner};
pub use sled::{Durability, SledConfig, SledEventStore};
