//! The state kept beside the log, one port per concern: merged fan-out results (the single
//! writer's, spec 002, F-10), saved projections (a cache of folds over the log), and the
//! content snapshots the Claude Code hook keeps while a subagent runs (U-12). An adapter that
//! keeps all three implements [`StateStore`] by implementing each.

use agentwarden_domain::fanout::Merged;
use async_trait::async_trait;

use crate::StoreError;

/// Holds merged fan-out results. Only the orchestrator writes, once per key, after every chunk
/// has finished or timed out; chunk runners are never handed it.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait MergedStore: Send + Sync {
    /// Writes `merged` under `key`, durably. A key written before is
    /// [`StoreError::AlreadyWritten`]: a second writer, or a replay, must not overwrite the
    /// first.
    async fn write_merged(&self, key: &str, merged: &Merged) -> Result<(), StoreError>;

    /// The merged result under `key`.
    async fn read_merged(&self, key: &str) -> Result<Option<Merged>, StoreError>;
}

/// Holds projections' saved states: caches of folds over the log, each kept as of a head
/// recorded inside it. Losing one loses nothing: it is rebuilt by replaying the log.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait ProjectionStore: Send + Sync {
    /// A projection's saved state.
    async fn read_projection(&self, name: &str) -> Result<Option<Vec<u8>>, StoreError>;

    /// Saves a projection's state, replacing the previous one, durably.
    async fn write_projection(&self, name: &str, bytes: Vec<u8>) -> Result<(), StoreError>;

    /// Removes a projection's saved state (absent: nothing to do).
    async fn remove_projection(&self, name: &str) -> Result<(), StoreError>;
}

/// Holds the encoded content snapshot of a running subagent's protected paths, by session and
/// agent, from its start to its stop (U-12 … U-14). The bytes carry their own digests; the
/// store keeps them as given.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait SnapshotStore: Send + Sync {
    /// The snapshot kept for `agent` of `session`.
    async fn read_snapshot(&self, session: &str, agent: &str) -> Result<Option<Vec<u8>>, StoreError>;

    /// Keeps `bytes` for `agent` of `session`, replacing any before, durably.
    async fn write_snapshot(&self, session: &str, agent: &str, bytes: Vec<u8>) -> Result<(), StoreError>;

    /// Drops the snapshot of `agent` of `session` (absent: nothing to do).
    async fn remove_snapshot(&self, session: &str, agent: &str) -> Result<(), StoreError>;
}

/// All three state ports in one adapter (the embedded, PostgreSQL and in-memory stores are).
pub trait StateStore: MergedStore + ProjectionStore + SnapshotStore {}

impl<T: MergedStore + ProjectionStore + SnapshotStore + ?Sized> StateStore for T {}

/// The key under which an adapter that keeps snapshots among its projections stores one: the
/// session's length keeps `a/b` + `c` apart from `a` + `b/c`.
pub fn snapshot_key(session: &str, agent: &str) -> String {
    format!("snapshot/{}/{session}/{agent}", session.len())
}
