//! Test support shared by the app's unit tests.

use agentwarden_domain::audit::{EventDraft, Head, StoredRecord};
use agentwarden_ports::{Appended, EventStore, Expected, StoreError};

/// A read-only log of exactly these records, as given (a test edits them to tamper with the
/// log); appends fail as an unavailable store's would.
#[derive(Debug)]
pub(crate) struct FixedLog(pub(crate) Vec<StoredRecord>);

#[async_trait::async_trait]
impl EventStore for FixedLog {
    async fn append(&self, _: Expected, _: Vec<EventDraft>) -> Result<Appended, StoreError> {
        Err(StoreError::Unavailable { reason: "read-only".into() })
    }

    async fn read(&self, from: u64, limit: usize) -> Result<Vec<StoredRecord>, StoreError> {
        let skip = usize::try_from(from.saturating_sub(1)).unwrap_or(usize::MAX);
        Ok(self.0.iter().skip(skip).take(limit).cloned().collect())
    }

    async fn head(&self) -> Result<Head, StoreError> {
        Ok(self.0.last().map_or(Head::EMPTY, |r| Head { seq: r.seq, hash: r.hash }))
    }
}
