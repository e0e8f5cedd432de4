//! Running one chunk agent (spec 002).

use std::time::Duration;

use agentwarden_domain::fanout::{ChunkInput, ChunkRun};
use async_trait::async_trait;

/// Runs chunk agents. A runner is never handed the state store (F-10): it gets one chunk's
/// input and returns that chunk's raw run.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait ChunkRunner: Send + Sync {
    /// Runs one chunk; returns within about `timeout`, killing the agent if it must. A runner
    /// never blocks an agent on its output, reports output past its bounds (F-17), leaves no
    /// process of the chunk running when it returns (F-18), and gives the agent none of
    /// Warden's environment (F-19).
    async fn run_chunk(&self, input: ChunkInput, timeout: Duration) -> ChunkRun;
}
