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
        /// The head of its stderr (bounded by the runner).
        stderr: String,
        /// How many bytes of stderr past the runner's bound were read and discarded.
        stderr_discarded: u64,
    },
    /// It printed more on stdout than a result may hold: killed at once, invalid (F-17).
    StdoutTooLarge {
        /// The bound, in bytes.
        limit: u64,
        /// How many bytes had been read when it was killed (more than `limit`).
        read: u64,
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
        ChunkRun::Finished { exit_code: Some(0), stdout, stderr_discarded, .. } => {
            match std::str::from_utf8(stdout)
                .map_err(|e| e.to_string())
                .and_then(|t| parse_strict(t.trim()).map_err(|e| e.to_string()))
            {
                Ok(value) => {
                    let mut outcome = validate_chunk_result(chunk_index, Some(&value));
                    if *stderr_discarded > 0 {
                        // The chunk ends as it would have; the loss is on the record (F-17).
                        outcome
                            .warnings
                            .push(format!("{stderr_discarded} bytes of stderr past its bound discarded"));
                    }
                    outcome
                }
                Err(why) => ChunkOutcome::without_result(
                    chunk_index,
                    ChunkStatus::Invalid,
                    &format!("stdout is not a result: {why}"),
                ),
            }
        }
        ChunkRun::StdoutTooLarge { limit, read } => ChunkOutcome::without_result(
            chunk_index,
            ChunkStatus::Invalid,
            &format!("stdout passed its {limit}-byte bound ({read} bytes read): killed at once"),
        ),
        ChunkRun::Finished { exit_code, stderr, stderr_discarded, .. } => {
            let code = exit_code.map_or_else(|| "a signal".to_owned(), |c| format!("exit code {c}"));
            // The count goes first: the error is cut to 500 characters (F-9).
            let dropped = match stderr_discarded {
                0 => String::new(),
                n => format!(" ({n} bytes of stderr past its bound discarded)"),
            };
            ChunkOutcome::without_result(
                chunk_index,
                ChunkStatus::Failed,
                &format!("ended with {code}{dropped}: {stderr}"),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn too_much_stdout_is_invalid_with_its_reason() {
        let outcome = outcome_of(2, &ChunkRun::StdoutTooLarge { limit: 8, read: 9 });
        assert_eq!(outcome.status, ChunkStatus::Invalid);
        assert_eq!(
            outcome.error.as_deref(),
            Some("stdout passed its 8-byte bound (9 bytes read): killed at once")
        );
    }

    #[test]
    fn a_completed_chunk_says_how_much_stderr_was_discarded() {
        let result = r#"{"chunk_index":0,"status":"completed","elapsed_ms":1,"test_results":{"passed":1,"failed":0,"skipped":0}}"#;
        let run = |discarded| ChunkRun::Finished {
            exit_code: Some(0),
            stdout: result.as_bytes().to_vec(),
            stderr: String::new(),
            stderr_discarded: discarded,
        };
        let outcome = outcome_of(0, &run(7));
        assert_eq!(outcome.status, ChunkStatus::Completed);
        assert_eq!(outcome.warnings, ["7 bytes of stderr past its bound discarded"]);
        assert!(outcome_of(0, &run(0)).warnings.is_empty());
    }

    #[test]
    fn discarded_stderr_is_counted_before_the_head() {
        let run = ChunkRun::Finished {
            exit_code: Some(3),
            stdout: Vec::new(),
            stderr: "x".repeat(600),
            stderr_discarded: 1000,
        };
        let error = outcome_of(0, &run).error.unwrap_or_default();
        assert!(
            error.starts_with("ended with exit code 3 (1000 bytes of stderr past its bound discarded): x"),
            "{error}"
        );
    }
}
