//! Guardrails (spec 004, rulings R-1 … R-4): what an agent may leave behind.
//!
//! This module holds the pure parts: the strict `result.json` schema. Protected-directory
//! snapshots and their diff come next (issue 6).

mod result;

pub use result::{
    MAX_RESULT_BYTES, Problem, RESULT_CODES, ResultValidation, SCHEMA_VERSION, validate_result,
};
