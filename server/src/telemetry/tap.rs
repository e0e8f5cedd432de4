//! The tap (V-62): the server's event store, seen on its way. Every call goes to the store
//! unchanged; what is appended is copied, held until a sync makes it durable, and only then
//! offered to the export queue with its seq — never waited on: a full queue drops it and counts
//! it (V-61). What a failed sync leaves unknown is never exported: those decisions' answers
//! failed (V-28).

use std::sync::{Arc, Mutex};

use agentwarden::store::{
    Appended, EventDraft, EventStore, Expected, Head, MerkleHash, Node, RecordPage, StoreError, StoredRecord,
};

use super::Queue;

/// One appended event and its place in the log.
#[derive(Debug)]
pub(crate) struct Recorded {
    pub(crate) seq: u64,
    pub(crate) draft: EventDraft,
}

/// The most events held for the next sync; past it, more are dropped and counted.
const PENDING_MAX: usize = 8192;

/// An event store that passes every call on, and offers what it appended to the export queue
/// once a sync made it durable.
pub(crate) struct Tap {
    inner: Arc<dyn EventStore>,
    /// What was appended since the last sync began, in log order.
    pending: Mutex<Vec<Recorded>>,
    queue: Arc<Queue>,
}

impl Tap {
    pub(crate) fn new(inner: Arc<dyn EventStore>, queue: Arc<Queue>) -> Tap {
        Tap { inner, pending: Mutex::new(Vec::new()), queue }
    }

    /// Holds `drafts`, appended from `first_seq` on, for the next sync.
    fn hold(&self, first_seq: u64, drafts: Vec<EventDraft>) {
        let mut dropped = Vec::new();
        match self.pending.lock() {
            Ok(mut pending) => {
                for (seq, draft) in (first_seq..).zip(drafts) {
                    if pending.len() < PENDING_MAX {
                        pending.push(Recorded { seq, draft });
                    } else {
                        dropped.push(draft);
                    }
                }
            }
            Err(_) => dropped = drafts,
        }
        for draft in dropped {
            self.queue.count_dropped(&draft);
        }
    }
}

#[async_trait::async_trait]
impl EventStore for Tap {
    async fn append(&self, expected: Expected, batch: Vec<EventDraft>) -> Result<Appended, StoreError> {
        let copy = batch.clone();
        let appended = self.inner.append(expected, batch).await?;
        // Held for the sync that follows (the decider syncs after every served command): the
        // log's order is kept, a spawn before the start it leads to.
        self.hold(appended.first_seq, copy);
        Ok(appended)
    }

    async fn append_deferred(
        &self,
        expected: Expected,
        batch: Vec<EventDraft>,
    ) -> Result<Appended, StoreError> {
        let copy = batch.clone();
        let appended = self.inner.append_deferred(expected, batch).await?;
        self.hold(appended.first_seq, copy);
        Ok(appended)
    }

    async fn sync(&self) -> Result<(), StoreError> {
        // Everything held now was appended before this sync began, so the sync covers it; what
        // is appended while it runs waits for the next one.
        let covered = match self.pending.lock() {
            Ok(mut pending) => std::mem::take(&mut *pending),
            Err(_) => Vec::new(),
        };
        self.inner.sync().await?;
        for recorded in covered {
            self.queue.offer(recorded);
        }
        Ok(())
    }

    async fn read(&self, from: u64, limit: usize) -> Result<Vec<StoredRecord>, StoreError> {
        self.inner.read(from, limit).await
    }

    async fn read_page(&self, from: u64, limit: usize, page: RecordPage) -> Result<RecordPage, StoreError> {
        self.inner.read_page(from, limit, page).await
    }

    async fn head(&self) -> Result<Head, StoreError> {
        self.inner.head().await
    }

    async fn merkle_nodes(&self, nodes: &[Node]) -> Result<Vec<MerkleHash>, StoreError> {
        self.inner.merkle_nodes(nodes).await
    }

    async fn append_sealed(&self, expected: u64, records: Vec<StoredRecord>) -> Result<Appended, StoreError> {
        self.inner.append_sealed(expected, records).await
    }
}
