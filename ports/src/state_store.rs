//! The single writer's state (spec 002, F-10).

use agentwarden_domain::fanout::Merged;
use async_trait::async_trait;

use crate::StoreError;

/// Holds merged fan-out results. Only the orchestrator writes, once per key, after every chunk
/// has finished or timed out; chunk runners are never handed it.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait StateStore: Send + Sync {
    /// Writes `merged` under `key`, durably. A key written before is a
    /// [`StoreError::Conflict`]: a second writer, or a replay, must not overwrite the first.
    async fn write_merged(&self, key: &str, merged: &Merged) -> Result<(), StoreError>;

    /// The merged result under `key`.
    async fn read_merged(&self, key: &str) -> Result<Option<Merged>, StoreError>;

    /// A projection's saved state (a cache of a fold over the log, kept as of a head recorded
    /// inside it). Losing it loses nothing: it is rebuilt by replaying the log.
    async fn read_projection(&self, name: &str) -> Result<Option<Vec<u8>>, StoreError>;

    /// Saves a projection's state, replacing the previous one, durably.
    async fn write_projection(&self, name: &str, bytes: Vec<u8>) -> Result<(), StoreError>;

    /// Removes a projection's saved state (absent: nothing to do).
    async fn remove_projection(&self, name: &str) -> Result<(), StoreError>;
}
