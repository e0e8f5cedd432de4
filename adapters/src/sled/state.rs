//! The single writer's state in the sled store: merged fan-out results (written once per key,
//! F-10) and saved projections, in their own trees, each write flushed before it returns.

use agentwarden_ports::StoreError;
use async_trait::async_trait;

use super::{SledEventStore, unavailable};

#[async_trait]
impl agentwarden_ports::MergedStore for SledEventStore {
    async fn write_merged(
        &self,
        key: &str,
        merged: &agentwarden_domain::fanout::Merged,
    ) -> Result<(), StoreError> {
        let bytes = serde_json::to_vec(merged)
            .map_err(|e| StoreError::Unavailable { reason: format!("cannot encode the state: {e}") })?;
        let inner = self.inner.clone();
        let key = key.to_owned();
        tokio::task::spawn_blocking(move || {
            inner.commit.check_healthy()?;
            let swapped = inner
                .state
                .compare_and_swap(key.as_bytes(), None as Option<&[u8]>, Some(bytes))
                .map_err(unavailable("cannot write the state"))?;
            if swapped.is_err() {
                return Err(StoreError::AlreadyWritten { key });
            }
            inner.make_durable().map_err(|reason| StoreError::Unavailable { reason })
        })
        .await
        .map_err(|e| StoreError::Unavailable { reason: format!("state task failed: {e}") })?
    }

    async fn read_merged(&self, key: &str) -> Result<Option<agentwarden_domain::fanout::Merged>, StoreError> {
        match self.inner.state.get(key.as_bytes()).map_err(unavailable("cannot read the state"))? {
            None => Ok(None),
            Some(bytes) => serde_json::from_slice(&bytes).map(Some).map_err(|e| StoreError::Corrupt {
                seq: 0,
                why: format!("the store is corrupt: state `{key}`: {e}"),
            }),
        }
    }
}

#[async_trait]
impl agentwarden_ports::ProjectionStore for SledEventStore {
    async fn read_projection(&self, name: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let bytes =
            self.inner.projections.get(name.as_bytes()).map_err(unavailable("cannot read a projection"))?;
        Ok(bytes.map(|b| b.to_vec()))
    }

    async fn write_projection(&self, name: &str, bytes: Vec<u8>) -> Result<(), StoreError> {
        let inner = self.inner.clone();
        let name = name.to_owned();
        tokio::task::spawn_blocking(move || {
            inner.commit.check_healthy()?;
            inner
                .projections
                .insert(name.as_bytes(), bytes)
                .map_err(unavailable("cannot write a projection"))?;
            inner.make_durable().map_err(|reason| StoreError::Unavailable { reason })
        })
        .await
        .map_err(|e| StoreError::Unavailable { reason: format!("projection task failed: {e}") })?
    }

    async fn remove_projection(&self, name: &str) -> Result<(), StoreError> {
        let inner = self.inner.clone();
        let name = name.to_owned();
        tokio::task::spawn_blocking(move || {
            inner.commit.check_healthy()?;
            inner.projections.remove(name.as_bytes()).map_err(unavailable("cannot remove a projection"))?;
            inner.make_durable().map_err(|reason| StoreError::Unavailable { reason })
        })
        .await
        .map_err(|e| StoreError::Unavailable { reason: format!("projection task failed: {e}") })?
    }
}

crate::snapshots_among_projections!(SledEventStore);
