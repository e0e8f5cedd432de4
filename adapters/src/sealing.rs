//! The part of an append every store shares: check the expected head, seal the batch.

use agentwarden_domain::audit::{EventDraft, Head, StoredRecord, seal_batch};
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
