//! Guardrails (spec 004, rulings R-1 … R-4): what an agent may leave behind.
//!
//! This module holds the pure parts: the strict `result.json` schema, tree manifests of
//! the protected paths and their diff, and the violation record. Reading the tree and
//! reverting it happen in the application, through ports.

mod content;
mod manifest;
mod result;
mod violation;

pub use content::{ContentError, ContentSnapshot, file_digest, link_digest};
pub use manifest::{Entry, EntryKind, TreeDiff, TreeManifest, diff, escape_name, unescape_name};
pub use violation::{RevertAttempt, Violation, ViolationDetails, item_failed, violation_type};

pub use result::{
    MAX_RESULT_BYTES, Problem, RESULT_CODES, ResultValidation, SCHEMA_VERSION, validate_result,
};
