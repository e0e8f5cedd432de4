//! The fan-out executor (spec 002): runs chunks through a [`ChunkRunner`] with at most
//! `max_agents` at once and a timeout per chunk; a timed-out chunk is killed and marked
//! `timed_out`, the others are still collected; then the merger (F-8) decides.
//!
//! The timeout here is the caller's: the 60 000 ms floor of F-1 applies to configuration files,
//! not to this programmatic API.

use std::sync::Arc;
use std::time::Duration;

use agentwarden_domain::fanout::{ChunkInput, ChunkOutcome, ChunkStatus, Merged, merge, outcome_of};
use agentwarden_ports::ChunkRunner;
use tokio::sync::Semaphore;

/// Runs every chunk and merges the outcomes, in chunk order.
pub async fn run_chunks(
    runner: Arc<dyn ChunkRunner>,
    phase: &str,
    chunks: Vec<Vec<String>>,
    max_agents: usize,
    timeout: Duration,
) -> (Vec<ChunkOutcome>, Merged) {
    let permits = Arc::new(Semaphore::new(max_agents.clamp(1, 8)));
    let mut tasks = tokio::task::JoinSet::new();
    let count = chunks.len();
    for (chunk_index, items) in chunks.into_iter().enumerate() {
        let (runner, permits, phase) = (runner.clone(), permits.clone(), phase.to_owned());
        tasks.spawn(async move {
            let Ok(_permit) = permits.acquire_owned().await else {
                return ChunkOutcome::without_result(
                    chunk_index,
                    ChunkStatus::Failed,
                    "the executor shut down",
                );
            };
            let run = runner.run_chunk(ChunkInput { chunk_index, phase, items }, timeout).await;
            outcome_of(chunk_index, &run)
        });
    }
    let mut outcomes: Vec<Option<ChunkOutcome>> = vec![None; count];
    while let Some(joined) = tasks.join_next().await {
        if let Ok(outcome) = joined
            && let Some(slot) = outcomes.get_mut(outcome.chunk_index)
        {
            *slot = Some(outcome);
        }
    }
    // A chunk whose task panicked has no outcome: it failed.
    let outcomes: Vec<ChunkOutcome> = outcomes
        .into_iter()
        .enumerate()
        .map(|(i, o)| {
            o.unwrap_or_else(|| {
                ChunkOutcome::without_result(i, ChunkStatus::Failed, "the chunk task panicked")
            })
        })
        .collect();
    let merged = merge(&outcomes);
    (outcomes, merged)
}
