//! The part of an append every store shares: check the expected head, seal the batch (or, for
//! an import, check that records sealed elsewhere continue the chain).

use agentwarden_domain::audit::{ChainVerifier, EventDraft, Head, StoredRecord, seal_batch};
use agentwarden_ports::{Expected, StoreError};

/// Checks `expected` against `head` and seals `batch` after it.
pub(crate) fn prepare(
    head: &Head,
    expected: Expected,
    batch: &[EventDraft],
) -> Result<(Vec<StoredRecord>, Head), StoreError> {
    if batch.is_empty() {
        return Err(StoreError::EmptyBatch);
    }
    if let Expected::Head(seq) = expected
        && seq != head.seq
    {
        return Err(StoreError::Conflict { expected: seq, actual: head.seq });
    }
    seal_batch(head, batch).map_err(|e| StoreError::Unavailable { reason: format!("cannot seal event: {e}") })
}

/// Checks that the head is at `expected` and that `records` continue its chain; returns the new
/// head. An import is all or nothing, so the first record that does not verify refuses it.
pub(crate) fn check_sealed(head: &Head, expected: u64, records: &[StoredRecord]) -> Result<Head, StoreError> {
    if records.is_empty() {
        return Err(StoreError::EmptyBatch);
    }
    if expected != head.seq {
        return Err(StoreError::Conflict { expected, actual: head.seq });
    }
    let mut verifier = ChainVerifier::after(*head);
    for record in records {
        verifier.push(record).map_err(|b| StoreError::Corrupt {
            seq: b.seq,
            why: format!("the imported record does not continue the chain: {}", b.why),
        })?;
    }
    Ok(verifier.head())
}
