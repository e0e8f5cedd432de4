//! A checkpoint: a log position and its hash, kept outside the log.
//!
//! A hash chain proves that nothing changed *inside* the log, but a log cut back to an earlier
//! event, or rewritten and re-hashed from some point on, is itself a valid chain. A checkpoint
//! taken earlier and kept elsewhere finds both.

use serde::{Deserialize, Serialize};

use super::hash::Hash;

/// `{"seq": N, "head_hash": "…"}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Checkpoint {
    /// The sequence number of the event the checkpoint was taken at (0: the empty log).
    pub seq: u64,
    /// That event's hash.
    pub head_hash: Hash,
}
