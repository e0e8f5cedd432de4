//! The append-only event store: append a batch at an expected head, read a range, head.
//!
//! There is no update and no delete, by design. The store seals drafts into the hash chain at
//! write time, under its own single-writer lock, so `seq` and `prev_hash` always agree with the
//! head they are written after.

use agentwarden_domain::audit::merkle::{Frontier, MerkleHash, Node};
use agentwarden_domain::audit::{EventDraft, Head, RecordPage, StoredRecord};
use agentwarden_domain::code::Code;
use async_trait::async_trait;

/// The position an append expects the log to be at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expected {
    /// Append wherever the head is (decisions: each is its own fact).
    Any,
    /// Append only if the last event is this `seq` (0: the log is empty); otherwise
    /// [`StoreError::Conflict`]. Optimistic concurrency for writers that read before they write.
    Head(u64),
}

/// What an append wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Appended {
    /// The sequence number of the batch's first event.
    pub first_seq: u64,
    /// The new head: the batch's last event.
    pub head: Head,
}

/// Why the store could not do what was asked. Every variant has a stable [`StoreError::code`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// The log's head is not where the append expected it.
    #[error("append expected the head at seq {expected}, but it is at seq {actual}")]
    Conflict {
        /// The head the caller expected.
        expected: u64,
        /// The head found.
        actual: u64,
    },
    /// An append of nothing.
    #[error("an append must carry at least one event")]
    EmptyBatch,
    /// A value written once per key (a merged fan-out result, F-10) is already there: a second
    /// writer, or a replay, does not overwrite the first.
    #[error("`{key}` is already written; the first write stands")]
    AlreadyWritten {
        /// The key.
        key: String,
    },
    /// Another process holds the store, and it did not let go in time.
    #[error("the store at `{path}` is locked by another process (waited {waited_ms} ms)")]
    Locked {
        /// Where the store is.
        path: String,
        /// How long this process waited.
        waited_ms: u64,
    },
    /// There is no store where one was expected.
    #[error("there is no event store at `{path}`")]
    Missing {
        /// Where it was expected.
        path: String,
    },
    /// The path names no store and nothing a store could be created in: a file, a directory
    /// that holds something else (N-4). A usage error, never a broken chain.
    #[error("{reason}")]
    NotAStore {
        /// What the path is, and what to give instead.
        reason: String,
    },
    /// The store does not verify, or is not an event store (seq 0: the store as a whole, whose
    /// reason is then said alone, N-4: a path that is no store is no tampering).
    #[error("{}", corrupt(*seq, why))]
    Corrupt {
        /// The first bad sequence number (0: the store as a whole).
        seq: u64,
        /// What is wrong.
        why: String,
    },
    /// An earlier durable write failed; the store refuses everything until it is reopened.
    #[error("the store refuses writes after an earlier failure: {reason}")]
    Poisoned {
        /// The earlier failure.
        reason: String,
    },
    /// I/O or another failure below the store.
    #[error("the store is unavailable: {reason}")]
    Unavailable {
        /// What failed.
        reason: String,
    },
}

/// [`StoreError::Corrupt`]'s text: a broken seq is named; the store as a whole (seq 0) is
/// described by its reason alone.
fn corrupt(seq: u64, why: &str) -> String {
    if seq == 0 { why.to_owned() } else { format!("the store is corrupt at seq {seq}: {why}") }
}

impl StoreError {
    /// The stable snake_case code of this error.
    pub fn code(&self) -> Code {
        match self {
            StoreError::Conflict { .. } => Code::StoreConflict,
            StoreError::EmptyBatch => Code::StoreEmptyBatch,
            StoreError::AlreadyWritten { .. } => Code::StoreAlreadyWritten,
            StoreError::Locked { .. } => Code::StoreLocked,
            StoreError::Missing { .. } => Code::StoreMissing,
            StoreError::NotAStore { .. } => Code::StoreNotAStore,
            StoreError::Corrupt { .. } => Code::StoreCorrupt,
            StoreError::Poisoned { .. } | StoreError::Unavailable { .. } => Code::StoreUnavailable,
        }
    }
}

/// The first event (its seq) and how many events node `node` covers, when it is complete in a
/// log of `head` events; leaf `i` of the tree is the event at seq `i + 1`.
pub fn merkle_leaves(node: &Node, head: u64) -> Result<(u64, u64), StoreError> {
    let count = 1_u64.checked_shl(u32::from(node.level)).unwrap_or(0);
    let first = node.index.checked_mul(count);
    match first.and_then(|first| first.checked_add(count)) {
        Some(end) if count > 0 && end <= head => Ok((first.unwrap_or_default() + 1, count)),
        _ => Err(StoreError::Unavailable {
            reason: format!(
                "Merkle node {}/{} is not complete in a log of {head} events",
                node.level, node.index
            ),
        }),
    }
}

/// The hashes of `nodes` (complete at the head) hashed from the events read from `store`, in
/// one pass over the events the nodes cover, however many nodes are asked for: what a store
/// that keeps no tree answers, what a store that keeps one answers below the levels it keeps
/// and what the conformance suite holds every kept tree to.
pub async fn merkle_nodes_from_events<S: EventStore + ?Sized>(
    store: &S,
    nodes: &[Node],
) -> Result<Vec<MerkleHash>, StoreError> {
    let head = store.head().await?;
    let mut wanted: std::collections::HashMap<Node, Option<MerkleHash>> = std::collections::HashMap::new();
    // The pass starts at a leaf aligned to the largest node asked for, so that the nodes its
    // frontier completes are the tree's, shifted.
    let (mut start, mut end, mut top) = (u64::MAX, 0_u64, 0_u8);
    for node in nodes {
        let (first, count) = merkle_leaves(node, head.seq)?;
        start = start.min(first - 1);
        end = end.max(first - 1 + count);
        top = top.max(node.level);
        wanted.insert(*node, None);
    }
    if nodes.is_empty() {
        return Ok(Vec::new());
    }
    let align = 1_u64.checked_shl(u32::from(top)).unwrap_or(0);
    let start = if align == 0 { 0 } else { start - start % align };
    let mut frontier = Frontier::new();
    let mut next = start + 1;
    let mut page = RecordPage::new();
    while next <= end {
        let want = usize::try_from(end + 1 - next).unwrap_or(usize::MAX).min(4096);
        page = store.read_page(next, want, page).await?;
        if page.is_empty() {
            return Err(StoreError::Unavailable { reason: format!("the log ends before seq {next}") });
        }
        for record in page.iter() {
            for (node, hash) in frontier.append(MerkleHash::leaf(record.body)) {
                let shifted = Node { level: node.level, index: node.index + (start >> node.level) };
                if let Some(slot) = wanted.get_mut(&shifted) {
                    *slot = Some(hash);
                }
            }
        }
        next = next.saturating_add(u64::try_from(page.len()).unwrap_or(u64::MAX));
    }
    nodes
        .iter()
        .map(|node| {
            wanted.get(node).copied().flatten().ok_or_else(|| StoreError::Unavailable {
                reason: format!("Merkle node {}/{} was not computed", node.level, node.index),
            })
        })
        .collect()
}

/// An append-only, hash-chained event log.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait EventStore: Send + Sync {
    /// Seals `batch` after the current head and stores it atomically: all of it or none.
    /// Returns only once the batch is as durable as the store promises.
    async fn append(&self, expected: Expected, batch: Vec<EventDraft>) -> Result<Appended, StoreError>;

    /// [`EventStore::append`] that may return before the batch is durable: it is sealed and
    /// written, readable by this process at once, and made durable by the next
    /// [`EventStore::sync`] (V-25). For a caller that answers many requests and makes them
    /// durable together (the resident service's group commit): it must not let anything
    /// outside the process rely on the batch before `sync` returns. A store whose appends are
    /// durable anyway keeps this default.
    async fn append_deferred(
        &self,
        expected: Expected,
        batch: Vec<EventDraft>,
    ) -> Result<Appended, StoreError> {
        self.append(expected, batch).await
    }

    /// Returns once everything appended so far, deferred or not, is durable (V-25). An error
    /// means some of it may be lost: the store refuses further appends (poisoned) until it is
    /// reopened.
    async fn sync(&self) -> Result<(), StoreError> {
        Ok(())
    }

    /// Up to `limit` records from `from` (inclusive) on, in order.
    async fn read(&self, from: u64, limit: usize) -> Result<Vec<StoredRecord>, StoreError>;

    /// [`EventStore::read`] into `page`, which is cleared first and handed back: what a walk
    /// over the whole log calls, reusing a few pages instead of allocating per record. A store
    /// that can fill the page without an owned copy of each record overrides this.
    async fn read_page(
        &self,
        from: u64,
        limit: usize,
        mut page: RecordPage,
    ) -> Result<RecordPage, StoreError> {
        let records = self.read(from, limit).await?;
        page.clear();
        page.extend(&records);
        Ok(page)
    }

    /// The last event's position and hash.
    async fn head(&self) -> Result<Head, StoreError>;

    /// The hashes of `nodes`, perfect subtrees of the Merkle tree over the log, each
    /// complete at the head: what a checkpoint's root and every proof are folded from. A node
    /// not complete at the head is [`StoreError::Unavailable`]. Every store of the workspace
    /// keeps the tree as it appends and reads only the nodes asked for; this
    /// default, for a store that keeps none, is [`merkle_nodes_from_events`].
    async fn merkle_nodes(&self, nodes: &[Node]) -> Result<Vec<MerkleHash>, StoreError> {
        merkle_nodes_from_events(self, nodes).await
    }

    /// Stores records sealed elsewhere (a copy from another store), byte for byte: only if the
    /// head is at `expected` and the records continue its chain (each body declares its
    /// position after the previous hash, each hash matches its bytes); otherwise nothing is
    /// written. A store that cannot import says so with [`StoreError::Unavailable`].
    async fn append_sealed(&self, expected: u64, records: Vec<StoredRecord>) -> Result<Appended, StoreError> {
        let _ = (expected, records);
        Err(StoreError::Unavailable { reason: "this store cannot import sealed records".into() })
    }
}

macro_rules! forward_event_store {
    ($($wrapper:ident)::+) => {
        #[async_trait]
        impl<T: EventStore + ?Sized> EventStore for $($wrapper)::+<T> {
            async fn append(&self, expected: Expected, batch: Vec<EventDraft>) -> Result<Appended, StoreError> {
                (**self).append(expected, batch).await
            }

            async fn append_deferred(&self, expected: Expected, batch: Vec<EventDraft>) -> Result<Appended, StoreError> {
                (**self).append_deferred(expected, batch).await
            }

            async fn sync(&self) -> Result<(), StoreError> {
                (**self).sync().await
            }

            async fn read(&self, from: u64, limit: usize) -> Result<Vec<StoredRecord>, StoreError> {
                (**self).read(from, limit).await
            }

            async fn read_page(&self, from: u64, limit: usize, page: RecordPage) -> Result<RecordPage, StoreError> {
                (**self).read_page(from, limit, page).await
            }

            async fn head(&self) -> Result<Head, StoreError> {
                (**self).head().await
            }

            async fn merkle_nodes(&self, nodes: &[Node]) -> Result<Vec<MerkleHash>, StoreError> {
                (**self).merkle_nodes(nodes).await
            }

            async fn append_sealed(&self, expected: u64, records: Vec<StoredRecord>) -> Result<Appended, StoreError> {
                (**self).append_sealed(expected, records).await
            }
        }
    };
}

// `Box<dyn EventStore>` and `Arc<dyn EventStore>` are event stores themselves, so generic code
// and the contract suite take them like any backend.
forward_event_store!(Box);
forward_event_store!(std::sync::Arc);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_store_is_object_safe_and_mockable() {
        let mut mock = MockEventStore::new();
        mock.expect_head().returning(|| Ok(Head::EMPTY));
        let store: Box<dyn EventStore> = Box::new(mock);
        let head = block_on(store.head());
        assert_eq!(head, Ok(Head::EMPTY));
    }

    /// A minimal executor for a future that is ready at once (the mock never waits).
    fn block_on<F: std::future::Future>(future: F) -> F::Output {
        use std::task::{Context, Poll, Waker};
        let mut future = std::pin::pin!(future);
        let mut cx = Context::from_waker(Waker::noop());
        loop {
            if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
                return output;
            }
        }
    }

    #[test]
    fn codes_are_stable() {
        assert_eq!(StoreError::Conflict { expected: 1, actual: 2 }.code(), "store_conflict");
        assert_eq!(StoreError::Unavailable { reason: "x".into() }.code(), "store_unavailable");
        assert_eq!(StoreError::Locked { path: "p".into(), waited_ms: 1 }.code(), "store_locked");
    }
}
