//! The tamper-evident audit log's primitives: records, event envelopes, the hash chain, the
//! Merkle tree and signed checkpoints. It knows no event type: an event gives its draft its
//! type, version and payload through [`EventPayload`]; the catalogue of Agent Warden's events,
//! and the folds over it, are [`crate::events`], above every capability.
//!
//! Every decision Agent Warden takes is appended as an immutable event. An event is stored as
//! the exact bytes of its envelope *body* (JSON, fields in a fixed order) together with
//! `hash = BLAKE3(prev_hash ‖ body)`. Verification hashes the stored bytes; it never
//! re-serialises anything, so a reader cannot be fooled by two encodings of one value.
//!
//! Identity is the gapless sequence number (from 1) and the hash; there are no random ids, so
//! replaying the same inputs with the same clock gives the same log. Time comes from the
//! caller's clock as RFC 3339 UTC with milliseconds.

mod chain;
mod checkpoint;
mod envelope;
mod hash;
pub mod merkle;
pub mod note;
mod page;
pub mod proof;
mod record;
mod time;
mod view;

pub use chain::{BreakKind, ChainBreak, ChainVerifier, seal, seal_batch, verify};
pub use checkpoint::Checkpoint;
pub use envelope::{
    Actor, Correlation, CorrelationId, Envelope, EnvelopeError, EventDraft, EventPayload, InvalidText,
};
pub use hash::{Hash, ParseHashError};
pub use page::{RecordPage, RecordRef};
pub use record::{Head, StoredRecord};
pub use time::{InvalidTimestamp, Timestamp};
pub use view::EnvelopeRef;

#[cfg(test)]
mod golden_tests;
#[cfg(test)]
mod tests;
