//! An event store that cannot be used: every operation fails with `store_unavailable` and the
//! reason the real store could not be opened.
//!
//! a decision command whose store cannot be opened still decides — it runs against this
//! store, so every read of the records and every append fails and the decision is a deny (or an
//! invalid result) at `audit`, reported in the command's usual shape (`--json`: one object).

use agentwarden_domain::audit::{EventDraft, Head, StoredRecord};
use agentwarden_ports::{Appended, EventStore, Expected, StoreError};
use async_trait::async_trait;

/// A store that refuses everything, saying why.
#[derive(Clone, Debug)]
pub struct UnavailableEventStore {
    reason: String,
}

impl UnavailableEventStore {
    /// A store that fails every operation with `reason`.
    pub fn new(reason: impl Into<String>) -> UnavailableEventStore {
        UnavailableEventStore { reason: reason.into() }
    }

    fn error(&self) -> StoreError {
        StoreError::Unavailable { reason: self.reason.clone() }
    }
}

#[async_trait]
impl EventStore for UnavailableEventStore {
    async fn append(&self, _expected: Expected, _batch: Vec<EventDraft>) -> Result<Appended, StoreError> {
        Err(self.error())
    }

    async fn read(&self, _from: u64, _limit: usize) -> Result<Vec<StoredRecord>, StoreError> {
        Err(self.error())
    }

    async fn head(&self) -> Result<Head, StoreError> {
        Err(self.error())
    }

    async fn append_sealed(
        &self,
        _expected: u64,
        _records: Vec<StoredRecord>,
    ) -> Result<Appended, StoreError> {
        Err(self.error())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn every_operation_fails_with_the_reason() {
        let store = UnavailableEventStore::new("`x` is not a store");
        let reason = |e: StoreError| (e.code().to_string(), e.to_string());
        let want =
            ("store_unavailable".to_owned(), "the store is unavailable: `x` is not a store".to_owned());
        assert_eq!(store.head().await.map_err(reason).err(), Some(want.clone()));
        assert_eq!(store.read(1, 10).await.map_err(reason).err(), Some(want.clone()));
        assert_eq!(store.append(Expected::Any, Vec::new()).await.map_err(reason).err(), Some(want.clone()));
        assert_eq!(store.append_sealed(0, Vec::new()).await.map_err(reason).err(), Some(want));
    }
}
