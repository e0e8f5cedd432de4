//! An in-memory event store with the same contract as the sled one, for tests and embedding.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use agentwarden_domain::audit::merkle::{Frontier, MerkleHash, Node};
use agentwarden_domain::audit::{EventDraft, Head, StoredRecord};
use agentwarden_ports::{Appended, EventStore, Expected, StoreError, merkle_leaves};
use async_trait::async_trait;

use crate::sealing::{check_sealed, prepare};

/// A log held in memory; gone when dropped. Appends are atomic and ordered like the sled
/// store's, so the contract suite runs against both.
#[derive(Debug, Default)]
pub struct MemoryEventStore {
    records: Mutex<Log>,
    state: Mutex<std::collections::BTreeMap<String, agentwarden_domain::fanout::Merged>>,
    projections: Mutex<std::collections::BTreeMap<String, Vec<u8>>>,
}

impl MemoryEventStore {
    /// An empty log.
    pub fn new() -> Self {
        MemoryEventStore::default()
    }

    fn records(&self) -> Result<MutexGuard<'_, Log>, StoreError> {
        self.records.lock().map_err(|_| StoreError::Poisoned { reason: "a writer panicked".into() })
    }
}

/// The records, and the Merkle tree over them kept as they are appended.
#[derive(Debug, Default)]
struct Log {
    records: Vec<StoredRecord>,
    frontier: Frontier,
    nodes: HashMap<Node, MerkleHash>,
}

impl Log {
    fn extend(&mut self, records: Vec<StoredRecord>) {
        for record in &records {
            self.nodes.extend(self.frontier.append(MerkleHash::leaf(&record.body)));
        }
        self.records.extend(records);
    }
}

fn head_of(records: &[StoredRecord]) -> Head {
    records.last().map_or(Head::EMPTY, |r| Head { seq: r.seq, hash: r.hash })
}

#[async_trait]
impl EventStore for MemoryEventStore {
    async fn append(&self, expected: Expected, batch: Vec<EventDraft>) -> Result<Appended, StoreError> {
        let mut log = self.records()?;
        let (sealed, head) = prepare(&head_of(&log.records), expected, &batch)?;
        let first_seq = sealed.first().map_or(head.seq, |r| r.seq);
        log.extend(sealed);
        Ok(Appended { first_seq, head })
    }

    async fn read(&self, from: u64, limit: usize) -> Result<Vec<StoredRecord>, StoreError> {
        let log = self.records()?;
        // Records are stored at index seq - 1.
        let start = usize::try_from(from.saturating_sub(1)).unwrap_or(usize::MAX);
        Ok(log.records.iter().skip(start).take(limit).cloned().collect())
    }

    async fn head(&self) -> Result<Head, StoreError> {
        Ok(head_of(&self.records()?.records))
    }

    async fn merkle_nodes(&self, nodes: &[Node]) -> Result<Vec<MerkleHash>, StoreError> {
        let log = self.records()?;
        let size = log.frontier.size();
        nodes
            .iter()
            .map(|node| {
                merkle_leaves(node, size)?;
                log.nodes.get(node).copied().ok_or_else(|| StoreError::Unavailable {
                    reason: format!("Merkle node {}/{} is not kept", node.level, node.index),
                })
            })
            .collect()
    }

    async fn append_sealed(&self, expected: u64, batch: Vec<StoredRecord>) -> Result<Appended, StoreError> {
        let mut log = self.records()?;
        let head = check_sealed(&head_of(&log.records), expected, &batch)?;
        log.extend(batch);
        Ok(Appended { first_seq: expected.saturating_add(1), head })
    }
}

#[async_trait]
impl agentwarden_ports::MergedStore for MemoryEventStore {
    async fn write_merged(
        &self,
        key: &str,
        merged: &agentwarden_domain::fanout::Merged,
    ) -> Result<(), StoreError> {
        let mut state =
            self.state.lock().map_err(|_| StoreError::Poisoned { reason: "a writer panicked".into() })?;
        if state.contains_key(key) {
            return Err(StoreError::AlreadyWritten { key: key.to_owned() });
        }
        state.insert(key.to_owned(), merged.clone());
        Ok(())
    }

    async fn read_merged(&self, key: &str) -> Result<Option<agentwarden_domain::fanout::Merged>, StoreError> {
        let state =
            self.state.lock().map_err(|_| StoreError::Poisoned { reason: "a writer panicked".into() })?;
        Ok(state.get(key).cloned())
    }
}

#[async_trait]
impl agentwarden_ports::ProjectionStore for MemoryEventStore {
    async fn read_projection(&self, name: &str) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self.projections()?.get(name).cloned())
    }

    async fn write_projection(&self, name: &str, bytes: Vec<u8>) -> Result<(), StoreError> {
        self.projections()?.insert(name.to_owned(), bytes);
        Ok(())
    }

    async fn remove_projection(&self, name: &str) -> Result<(), StoreError> {
        self.projections()?.remove(name);
        Ok(())
    }
}

crate::snapshots_among_projections!(MemoryEventStore);

impl MemoryEventStore {
    fn projections(&self) -> Result<MutexGuard<'_, std::collections::BTreeMap<String, Vec<u8>>>, StoreError> {
        self.projections.lock().map_err(|_| StoreError::Poisoned { reason: "a writer panicked".into() })
    }
}
