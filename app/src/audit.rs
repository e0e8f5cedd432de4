//! The audit log's values as a caller names them (issue 49, item 5; A-48): who acts
//! ([`Actor`]) and under which ids ([`Correlation`], [`CorrelationId`]), a record's envelope
//! ([`Envelope`], [`EnvelopeRef`] borrowed from the stored bytes), its time ([`Timestamp`]) and
//! hash ([`Hash`](struct@Hash)), a draft appended ([`EventDraft`]), what the store keeps and pages
//! ([`StoredRecord`], [`RecordPage`], [`Head`]), a checkpoint to verify against
//! ([`Checkpoint`]), and where and why a chain breaks ([`ChainBreak`], [`BreakKind`]). The
//! signed checkpoints, notes and proofs are in [`crate::tlog`].

pub use agentwarden_domain::audit::{
    Actor, BreakKind, ChainBreak, Checkpoint, Correlation, CorrelationId, Envelope, EnvelopeRef, EventDraft,
    Hash, Head, InvalidText, InvalidTimestamp, RecordPage, StoredRecord, Timestamp,
};
