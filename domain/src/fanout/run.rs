//! One chunk's input and raw run, and how a raw run becomes a [`ChunkOutcome`].
//!
//! A chunk agent is handed only its own chunk; what it prints on stdout is its result, parsed
//! strictly. A process that exits non-zero, prints garbage, or never exits is a failed, invalid
//! or timed-out chunk — never a hang or a crash of the orchestrator.

use serde::{Deserialize, Serialize};

use super::merge::{ChunkOutcome, ChunkStatus, validate_chunk_result};
use crate::json::parse_strict;

/// What a chunk agent receives: its index, its phase, its items — nothing about other chunks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChunkInput {
    /// Its index.
    pub chunk_index: usize,
    /// The phase.
    pub phase: String,
    /// Its items.
    pub items: Vec<String>,
}

/// How a chunk process ended, raw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChunkRun {
    /// It exited.
    Finished {
        /// Its exit code (`None`: killed by a signal).
        exit_code: Option<i32>,
        /// What it printed on stdout (bounded by the runner).
        stdout: Vec<u8>,
        /// The end of its stderr.
        stderr: String,
    },
    /// It ran past its timeout and was killed.
    TimedOut {
        /// The timeout, in milliseconds.
        after_ms: u64,
    },
    /// It could not be started, or its output could not be read.
    Failed(String),
}

/// Turns a raw run into a validated outcome.
pub fn outcome_of(chunk_index: usize, run: &ChunkRun) -> ChunkOutcome {
    match run {
        ChunkRun::TimedOut { after_ms } => ChunkOutcome::without_result(
            chunk_index,
            ChunkStatus::TimedOut,
            &format!("killed after its {after_ms} ms timeout"),
        ),
        ChunkRun::Failed(why) => ChunkOutcome::without_result(chunk_index, ChunkStatus::Failed, why),
        ChunkRun::Finished { exit_code: Some(0), stdout, .. } => {
            match std::str::from_utf8(stdout)
                .map_err(|e| e.to_string())
                .and_then(|t| parse_strict(t.trim()).map_err(|e| e.to_string()))
            {
                Ok(value) => validate_chunk_result(chunk_index, Some(&value)),
                Err(why) => ChunkOutcome::without_result(
                    chunk_index,
                    ChunkStatus::Invalid,
                    &format!("stdout is not a result: {why}"),
                ),
            }
        }
        ChunkRun::Finished { exit_code, stderr, .. } => {
            let code = exit_code.map_or_else(|| "a signal".to_owned(), |c| format!("exit code {c}"));
            ChunkOutcome::without_result(
                chunk_index,
                ChunkStatus::Failed,
                &format!("ended with {code}: {stderr}"),
            )
        }
    }
}
