//! Fan-out runs and their chunk outcomes (spec 002): `fan_out_planned`, `chunk_finished` and
//! `fan_out_merged`, gathered by the envelope's run id.
//!
//! A plan opens a run; its chunks and merge follow it in the log (one `warden fanout run` holds
//! the store from plan to merge). A run id used twice opens a second run, and later chunks go
//! to the newest run of that id. Runs without an id are kept apart, each opened by its plan —
//! never merged into one. A chunk or merge with no plan before it opens a run with `plan: None`
//! rather than being dropped.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{Projection, Recorded};
use crate::audit::EnvelopeRef;
use crate::events::{AuditEvent, PlanSummary};
use crate::fanout::{ChunkOutcome, Merged};

/// Fan-out runs.
#[derive(Clone, Copy, Debug, Default)]
pub struct FanOutRuns;

/// The state of [`FanOutRuns`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct FanOutState {
    /// Every run, in the order its first event was recorded.
    pub runs: Vec<FanOutRun>,
    /// The newest run of each id (index into `runs`).
    #[serde(skip)]
    latest: BTreeMap<Option<String>, usize>,
}

/// One run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct FanOutRun {
    /// The run id, if the run was given one.
    pub run: Option<String>,
    /// The `fan_out_planned` event.
    pub planned_seq: Option<u64>,
    /// The phase.
    pub phase: Option<String>,
    /// How many valid items.
    pub items: Option<usize>,
    /// The plan.
    pub plan: Option<PlanSummary>,
    /// Each chunk's outcome, in the order they finished.
    pub chunks: Vec<RecordedChunk>,
    /// The merge, once recorded.
    pub merged: Option<RecordedMerge>,
}

/// One chunk's outcome and its event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RecordedChunk {
    /// Its event.
    pub seq: u64,
    /// The outcome.
    #[serde(flatten)]
    pub outcome: ChunkOutcome,
}

/// The merge and its event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RecordedMerge {
    /// Its event.
    pub seq: u64,
    /// The merge.
    #[serde(flatten)]
    pub merged: Merged,
}

impl FanOutState {
    fn open(&mut self, run: Option<String>) -> Option<&mut FanOutRun> {
        self.latest.insert(run.clone(), self.runs.len());
        self.runs.push(FanOutRun { run, ..FanOutRun::default() });
        self.runs.last_mut()
    }

    fn current(&mut self, run: Option<String>) -> Option<&mut FanOutRun> {
        match self.latest.get(&run).copied() {
            Some(index) => self.runs.get_mut(index),
            None => self.open(run),
        }
    }
}

impl Projection for FanOutRuns {
    type State = FanOutState;

    fn wants(&self, envelope: &EnvelopeRef<'_>) -> bool {
        matches!(envelope.event_type(), "fan_out_planned" | "chunk_finished" | "fan_out_merged")
    }

    fn apply(&self, state: &mut FanOutState, event: Recorded<'_>) {
        let seq = event.envelope.seq;
        let run_id = event.envelope.run().map(str::to_owned);
        match event.event {
            AuditEvent::FanOutPlanned(plan) => {
                if let Some(run) = state.open(run_id) {
                    run.planned_seq = Some(seq);
                    run.phase = Some(plan.phase.clone());
                    run.items = Some(plan.items);
                    run.plan = Some(plan.plan.clone());
                }
            }
            AuditEvent::ChunkFinished(outcome) => {
                if let Some(run) = state.current(run_id) {
                    run.chunks.push(RecordedChunk { seq, outcome: (**outcome).clone() });
                }
            }
            AuditEvent::FanOutMerged(merged) => {
                if let Some(run) = state.current(run_id) {
                    run.phase.get_or_insert_with(|| merged.phase.clone());
                    run.merged = Some(RecordedMerge { seq, merged: merged.merged.clone() });
                }
            }
            _ => {}
        }
    }
}
