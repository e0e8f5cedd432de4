//! Fan-out / fan-in (spec 002, rulings F-1 … F-10), the pure part: configuration validation,
//! work-item validation, the chunk splitter, chunk-result validation and the merger. Every value
//! that is changed on the way in is reported as a warning that says what was seen and used.
//! Running the chunks (the executor) and the single writer of state live in the application.

mod config;
mod items;
mod merge;
mod run;
mod split;

pub use config::{
    DEFAULT_TIMEOUT_MS, MAX_AGENTS, MIN_TIMEOUT_MS, PhaseConfig, PhaseKind, Strategy, ValidatedConfig,
    WARDEN_ENV_PREFIX, passable_env_name, validate_config,
};
pub use items::{WorkItems, validate_items};
pub use merge::{
    ChunkFailure, ChunkOutcome, ChunkStatus, Coverage, MAX_ERROR_CHARS, MergeStatus, Merged, TestResults,
    merge, truncate, validate_chunk_result,
};
pub use run::{ChunkInput, ChunkRun, outcome_of};
pub use split::{Plan, plan};
