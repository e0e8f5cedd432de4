//! The fan-out use case (spec 002) and its executor.
//!
//! [`Warden::run_fan_out`] is the whole run, with its events: plan the work items under the
//! configuration's `[fan_out]`, record `fan_out_planned`, run the chunks, record each
//! `chunk_finished`, merge, record `fan_out_merged`, and only then write the merged result
//! once (F-10, the single writer). A run cancelled before its chunks finish records why and
//! writes nothing final (F-16).
//!
//! [`run_chunks`] is the executor alone — it records nothing: chunks through a [`ChunkRunner`]
//! with at most `max_agents` at once and a timeout per chunk; a timed-out chunk is killed and
//! marked `timed_out`, the others are still collected; then the merger (F-8) decides. Its
//! timeout is the caller's: the 60 000 ms floor of F-1 applies to configuration files.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use agentwarden_domain::audit::{Correlation, CorrelationId};
use agentwarden_domain::events::{AuditEvent, FanOutMerged, FanOutPlanned, OperatorNote, PlanSummary};
use agentwarden_domain::fanout::{
    ChunkInput, ChunkOutcome, ChunkStatus, Merged, Plan, WorkItems, merge, outcome_of, plan, validate_config,
    validate_items,
};
/// The strict JSON reader the fan-out's inputs are read with (duplicate keys refused), for the
/// command line that reads them from files.
pub use agentwarden_domain::json::parse_strict;
use agentwarden_ports::ChunkRunner;
use serde::Serialize;
use tokio::sync::Semaphore;

use crate::warden::{Warden, WardenError};

/// What to fan out.
#[derive(Clone, Debug)]
pub struct FanOutRequest {
    /// The phase (`tests`: round-robin, 250 per agent; anything else: files).
    pub phase: String,
    /// The work items, as read (validated here: F-3).
    pub items: serde_json::Value,
    /// The run id the events are filed under.
    pub run: Option<CorrelationId>,
}

/// A finished fan-out run.
#[derive(Clone, Debug, Serialize)]
pub struct FanOutReport {
    /// The plan (the single-agent path runs the whole list as one chunk).
    pub plan: Plan,
    /// Each chunk's outcome, in chunk order.
    pub chunks: Vec<ChunkOutcome>,
    /// The merge.
    pub merged: Merged,
    /// Where the merged result was written, once.
    pub state_key: String,
}

/// Why a fan-out run ended without a merged result.
#[derive(Debug, thiserror::Error)]
pub enum FanOutStopped {
    /// It was cancelled (`why`) before every chunk finished; that was recorded, and nothing
    /// final was written.
    #[error("cancelled by {0}: no merged result was written")]
    Cancelled(String),
    /// An event or the merged result could not be written.
    #[error(transparent)]
    Warden(#[from] WardenError),
}

impl Warden {
    /// Runs a fan-out with its events (see the module's doc); `cancelled` resolving first (to a
    /// reason) stops it: the chunks' futures are dropped — a runner kills what they started
    /// (F-15) — the cancellation is recorded, and nothing is merged or written.
    pub async fn run_fan_out(
        &self,
        request: FanOutRequest,
        runner: Arc<dyn ChunkRunner>,
        cancelled: impl Future<Output = String>,
    ) -> Result<FanOutReport, FanOutStopped> {
        let FanOutRequest { phase, items, run } = request;
        let (validated, mut warnings) = validate_config(self.config.fan_out.as_ref());
        let (items, item_warnings) = validate_items(&items);
        warnings.extend(item_warnings);
        let list = match items {
            WorkItems::Items(list) => list,
            WorkItems::NotAList | WorkItems::Empty => Vec::new(),
        };
        let planned =
            plan(list.clone(), &validated.phase(&phase), validated.max_agents(), !validated.enabled());
        let chunks = match &planned {
            Plan::FanOut { chunks, .. } => chunks.clone(),
            Plan::SingleAgent { .. } => vec![list.clone()],
        };
        let correlation = Correlation { run, ..Correlation::default() };
        let event = FanOutPlanned {
            phase: phase.clone(),
            items: list.len(),
            warnings,
            plan: PlanSummary::from(&planned),
        };
        let planned_at =
            self.record_event(correlation.clone(), &AuditEvent::FanOutPlanned(Box::new(event))).await?;
        let state_key = format!("{phase}@{}", planned_at.head.seq);
        let timeout = Duration::from_millis(validated.timeout_per_chunk_ms());
        let max_agents = usize::try_from(validated.max_agents()).unwrap_or(1);
        let (outcomes, merged) = tokio::select! {
            done = run_chunks(runner, &phase, chunks, max_agents, timeout) => done,
            why = cancelled => {
                let message = format!("fan-out `{phase}` interrupted by {why}: chunks killed, no merged result written");
                let _ = self.record_event(correlation, &AuditEvent::OperatorNote(OperatorNote { message })).await;
                return Err(FanOutStopped::Cancelled(why));
            }
        };
        for outcome in &outcomes {
            self.record_event(correlation.clone(), &AuditEvent::ChunkFinished(Box::new(outcome.clone())))
                .await?;
        }
        let merged_event = FanOutMerged { phase, merged: merged.clone() };
        self.record_event(correlation, &AuditEvent::FanOutMerged(Box::new(merged_event))).await?;
        // The single writer (F-10): once, after every chunk finished or timed out.
        self.write_merged(&state_key, &merged).await?;
        Ok(FanOutReport { plan: planned, chunks: outcomes, merged, state_key })
    }
}

/// Runs every chunk and merges the outcomes, in chunk order. Records nothing: a harness that
/// wants the run on the record uses [`Warden::run_fan_out`].
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

/// `warden fanout plan`'s use case: the work `items` validated and planned for `phase` under the
/// configuration's `[fan_out]` (F-3), with the warnings of both checks; `single` (or a
/// `[fan_out]` that disables it) takes the single-agent path.
pub fn plan_items(
    config: &crate::Config,
    items: &serde_json::Value,
    phase: &str,
    single: bool,
) -> (Plan, Vec<String>) {
    let (validated, mut warnings) = validate_config(config.fan_out.as_ref());
    let (items, item_warnings) = validate_items(items);
    warnings.extend(item_warnings);
    let planned = match items {
        WorkItems::Items(list) => {
            let off = single || !validated.enabled();
            plan(list, &validated.phase(phase), validated.max_agents(), off)
        }
        WorkItems::NotAList => Plan::SingleAgent { reason: "work items are not an array".into() },
        WorkItems::Empty => Plan::SingleAgent { reason: "the work list is empty".into() },
    };
    (planned, warnings)
}

/// The chunk agent `program args` as the runner of a fan-out under `config`: it is passed the
/// variables `[fan_out] pass_env` names, never the kill switch's, whatever its name (F-19).
pub fn chunk_runner(
    config: &crate::Config,
    program: &str,
    args: &[String],
) -> crate::wiring::ProcessChunkRunner {
    let (validated, _) = validate_config(config.fan_out.as_ref());
    let enable_env = &config.subagents.enable_env;
    let pass = validated.pass_env().iter().filter(|n| *n != enable_env).cloned();
    crate::wiring::ProcessChunkRunner::new(program, args.to_vec()).pass_env(pass)
}

/// `warden fanout merge`'s use case: each chunk's result, in chunk order (one that cannot be
/// read, or is not strict JSON, is that chunk's failure, F-8), and their merge.
pub fn merge_results(results: &[std::path::PathBuf]) -> (Vec<ChunkOutcome>, Merged) {
    let outcomes: Vec<ChunkOutcome> = results
        .iter()
        .enumerate()
        .map(|(index, path)| {
            let value = crate::files::read_text(None, path, crate::MAX_INPUT_BYTES)
                .ok()
                .and_then(|t| parse_strict(&t).ok());
            agentwarden_domain::fanout::validate_chunk_result(index, value.as_ref())
        })
        .collect();
    let merged = merge(&outcomes);
    (outcomes, merged)
}

#[cfg(test)]
mod tests {
    use agentwarden_domain::fanout::{ChunkRun, MergeStatus};
    use agentwarden_ports::MergedStore;

    use super::*;
    use crate::store::MemoryEventStore;

    /// Completes each chunk at once, or never (for a cancellation).
    struct Chunks {
        hang: bool,
    }

    #[async_trait::async_trait]
    impl ChunkRunner for Chunks {
        async fn run_chunk(&self, input: ChunkInput, _timeout: Duration) -> ChunkRun {
            if self.hang {
                std::future::pending::<()>().await;
            }
            let result = serde_json::json!({
                "chunk_index": input.chunk_index, "status": "completed", "elapsed_ms": 1,
                "test_results": {"passed": input.items.len(), "failed": 0, "skipped": 0},
            });
            ChunkRun::Finished {
                exit_code: Some(0),
                stdout: result.to_string().into_bytes(),
                stderr: String::new(),
                stderr_discarded: 0,
            }
        }
    }

    fn warden(store: &Arc<MemoryEventStore>) -> Warden {
        let fan_out = Some(serde_json::json!({"enabled": true, "max_agents": 2}));
        let config = crate::Config { fan_out, ..crate::Config::default() };
        Warden::builder().store(store.clone()).config(config).build().unwrap()
    }

    fn request(items: usize) -> FanOutRequest {
        let items: Vec<String> = (0..items).map(|i| format!("tests/t{i}.sh")).collect();
        FanOutRequest {
            phase: "tests".into(),
            items: serde_json::json!(items),
            run: CorrelationId::new("r1").ok(),
        }
    }

    async fn types(store: &MemoryEventStore) -> Vec<String> {
        let records = agentwarden_ports::EventStore::read(store, 1, 100).await.unwrap();
        records.iter().map(|r| agentwarden_domain::audit::Envelope::parse(r).unwrap().event_type).collect()
    }

    /// The run is on the record — planned, each chunk, merged — and the merged result is
    /// written once, under the key the report names.
    #[tokio::test]
    async fn a_fan_out_records_each_step_and_writes_the_merge_once() {
        let store = Arc::new(MemoryEventStore::new());
        let report = warden(&store)
            .run_fan_out(request(400), Arc::new(Chunks { hang: false }), std::future::pending())
            .await
            .unwrap();
        assert_eq!(report.merged.status, MergeStatus::Completed);
        assert_eq!(report.chunks.len(), 2, "400 tests, 250 per agent");
        assert_eq!(
            types(&store).await,
            ["fan_out_planned", "chunk_finished", "chunk_finished", "fan_out_merged"]
        );
        assert_eq!(report.state_key, "tests@1");
        assert_eq!(store.read_merged("tests@1").await.unwrap(), Some(report.merged));
    }

    /// Cancelled while its chunks run, it records why and writes no merged result (F-16).
    #[tokio::test]
    async fn a_cancelled_fan_out_records_why_and_writes_nothing_final() {
        let store = Arc::new(MemoryEventStore::new());
        let stopped = warden(&store)
            .run_fan_out(request(3), Arc::new(Chunks { hang: true }), async { "SIGTERM".to_owned() })
            .await
            .unwrap_err();
        assert!(matches!(&stopped, FanOutStopped::Cancelled(why) if why == "SIGTERM"), "{stopped}");
        assert_eq!(types(&store).await, ["fan_out_planned", "operator_note"]);
        assert_eq!(store.read_merged("tests@1").await.unwrap(), None);
    }
}
