//! The Merkle tree over a Warden's log, read through `EventStore::merkle_nodes`:
//! checkpoints, inclusion proofs, and the consistency of the log with a checkpoint taken before.
//!
//! the log extends a checkpoint of `m` events when it holds at least `m` events and the
//! consistency proof from the checkpoint's root to the root of today's `n` events holds (RFC
//! 9162 §2.1.4): so its first `m` events are byte for byte those the checkpoint signed. Fewer
//! events is a truncated log or an older copy of the store; another root at `m` is a rewritten
//! log, however well its chain verifies; each is `checkpoint_inconsistent`, named apart.

use agentwarden_domain::audit::merkle::{
    MerkleHash, Node, Range, consistency_ranges, fold, inclusion_ranges, perfect_nodes, verify_consistency,
};
use agentwarden_domain::audit::note::TreeHead;
use agentwarden_domain::audit::proof::InclusionProof;
use agentwarden_ports::{StoreError, merkle_nodes_from_events};

use super::TlogError;
use crate::{Warden, WardenError};

/// What [`Warden::check_checkpoint`] found: the log extends the checkpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckpointCheck {
    /// The checkpoint's size.
    pub old_size: u64,
    /// The log's size now.
    pub new_size: u64,
    /// The log's root now.
    pub new_root: MerkleHash,
    /// The consistency proof from the checkpoint to now.
    pub proof: Vec<MerkleHash>,
}

impl Warden {
    /// The hashes of `ranges`, each folded from its perfect subtrees, read in one call.
    async fn range_hashes(&self, ranges: &[Range]) -> Result<Vec<MerkleHash>, WardenError> {
        let per_range: Vec<Vec<_>> = ranges.iter().map(|r| perfect_nodes(*r)).collect();
        let nodes: Vec<_> = per_range.iter().flatten().copied().collect();
        let hashes = self.store.merkle_nodes(&nodes).await?;
        if hashes.len() != nodes.len() {
            return Err(StoreError::Unavailable {
                reason: format!("the store gave {} Merkle nodes for {}", hashes.len(), nodes.len()),
            }
            .into());
        }
        let mut rest = hashes.as_slice();
        let mut out = Vec::with_capacity(ranges.len());
        for range in &per_range {
            let (these, after) = rest.split_at_checked(range.len()).unwrap_or((rest, &[]));
            out.push(fold(these));
            rest = after;
        }
        Ok(out)
    }

    /// The root of the tree of the log's first `size` events.
    pub async fn tree_root(&self, size: u64) -> Result<MerkleHash, WardenError> {
        let hashes = self.range_hashes(&[Range { start: 0, end: size }]).await?;
        Ok(hashes.first().copied().unwrap_or_else(MerkleHash::empty))
    }

    /// The checkpoint of the log as it is now: `origin`, its size and root.
    pub async fn tree_head(&self, origin: &str) -> Result<TreeHead, WardenError> {
        let size = self.store.head().await?.seq;
        Ok(TreeHead { origin: origin.to_owned(), size, root: self.tree_root(size).await? })
    }

    /// The inclusion proof of event `seq` in the tree of the first `size` events.
    pub async fn inclusion_proof(&self, seq: u64, size: u64) -> Result<InclusionProof, TlogError> {
        let index =
            seq.checked_sub(1).ok_or_else(|| TlogError::ProofInvalid("there is no event 0".into()))?;
        let ranges = inclusion_ranges(index, size)
            .map_err(|_| TlogError::ProofInvalid(format!("event {seq} is not in a tree of {size} events")))?;
        let Some(record) = self
            .store
            .read(seq, 1)
            .await
            .map_err(WardenError::from)?
            .into_iter()
            .next()
            .filter(|r| r.seq == seq)
        else {
            return Err(TlogError::ProofInvalid(format!("there is no event {seq}")));
        };
        let event = String::from_utf8(record.body).map_err(|_| {
            WardenError::Store(StoreError::Corrupt { seq, why: "the body is not UTF-8".into() })
        })?;
        if event.contains('\n') {
            return Err(WardenError::Store(StoreError::Corrupt {
                seq,
                why: "the body holds a newline".into(),
            })
            .into());
        }
        let hashes = self.range_hashes(&ranges).await?;
        Ok(InclusionProof { seq, size, event, hashes })
    }

    /// The inclusion proof of event `seq` in the checkpoint `head`'s tree, checked against its
    /// root before it is handed out: a store with fewer events than the checkpoint, or other
    /// ones, is `checkpoint_inconsistent` — one read of the events, where
    /// [`Warden::check_checkpoint`] takes three.
    pub async fn prove_in(&self, seq: u64, head: &TreeHead) -> Result<InclusionProof, TlogError> {
        let size = self.store.head().await.map_err(WardenError::from)?.seq;
        if head.size > size {
            return Err(TlogError::Inconsistent(format!(
                "the log holds {size} events, fewer than the {} of the checkpoint: it was truncated, or the store \
                 is an older copy",
                head.size
            )));
        }
        let proof = self.inclusion_proof(seq, head.size).await?;
        proof.verify(head).map_err(|e| {
            TlogError::Inconsistent(format!(
                "the log's first {} events are not those the checkpoint signed ({e}): the log was rewritten",
                head.size
            ))
        })?;
        Ok(proof)
    }

    /// The consistency proof from the tree of the first `old` events to that of the first `new`.
    pub async fn consistency_proof(&self, old: u64, new: u64) -> Result<Vec<MerkleHash>, TlogError> {
        let ranges = consistency_ranges(old, new).map_err(|e| TlogError::Inconsistent(e.to_string()))?;
        Ok(self.range_hashes(&ranges).await?)
    }

    /// Checks that the tree the store keeps is the one its events make, at each of `sizes`
    /// the roots folded from the kept nodes against the roots hashed from the events, in
    /// one pass over them. What `verify --checkpoint` adds to its walk: a store whose events were
    /// rewritten under the tree of the old ones (which the checkpoint would accept) is
    /// `checkpoint_inconsistent`.
    pub async fn check_kept_tree(&self, sizes: &[u64]) -> Result<(), TlogError> {
        let per_size: Vec<Vec<Node>> =
            sizes.iter().map(|&size| perfect_nodes(Range { start: 0, end: size })).collect();
        let nodes: Vec<Node> = per_size.iter().flatten().copied().collect();
        let kept = self.store.merkle_nodes(&nodes).await.map_err(WardenError::from)?;
        let hashed = merkle_nodes_from_events(&*self.store, &nodes).await.map_err(WardenError::from)?;
        let (mut kept, mut hashed) = (kept.as_slice(), hashed.as_slice());
        for (size, these) in sizes.iter().zip(&per_size) {
            let (kept_here, kept_rest) = kept.split_at_checked(these.len()).unwrap_or((kept, &[]));
            let (hashed_here, hashed_rest) = hashed.split_at_checked(these.len()).unwrap_or((hashed, &[]));
            if kept_here.len() != these.len() || fold(kept_here) != fold(hashed_here) {
                return Err(TlogError::Inconsistent(format!(
                    "the Merkle tree the store keeps is not the one its first {size} events make (kept root {}, \
                     the events' {}): the events or the tree were rewritten",
                    fold(kept_here),
                    fold(hashed_here)
                )));
            }
            (kept, hashed) = (kept_rest, hashed_rest);
        }
        Ok(())
    }

    /// Checks that the log extends the checkpoint `head`: it holds at least its events,
    /// the same ones, and the consistency proof from it to now holds.
    pub async fn check_checkpoint(&self, head: &TreeHead) -> Result<CheckpointCheck, TlogError> {
        let new_size = self.store.head().await.map_err(WardenError::from)?.seq;
        if head.size > new_size {
            return Err(TlogError::Inconsistent(format!(
                "the log holds {new_size} events, fewer than the {} of the checkpoint: it was truncated, or the \
                 store is an older copy",
                head.size
            )));
        }
        // One read of the nodes: the old root, the proof, the new root.
        let proof_ranges =
            consistency_ranges(head.size, new_size).map_err(|e| TlogError::Inconsistent(e.to_string()))?;
        let mut ranges = vec![Range { start: 0, end: head.size }, Range { start: 0, end: new_size }];
        ranges.extend_from_slice(&proof_ranges);
        let mut hashes = self.range_hashes(&ranges).await?;
        let rest = hashes.split_off(2.min(hashes.len()));
        let (Some(&old_root), Some(&new_root)) = (hashes.first(), hashes.get(1)) else {
            return Err(
                WardenError::from(StoreError::Unavailable { reason: "no root was read".into() }).into()
            );
        };
        let hashes = rest;
        if old_root != head.root {
            return Err(TlogError::Inconsistent(format!(
                "the log's first {} events are not those the checkpoint signed (their root is {}, the checkpoint's \
                 {}): the log was rewritten",
                head.size, old_root, head.root
            )));
        }
        verify_consistency(head.size, new_size, &head.root, &new_root, &hashes).map_err(|e| {
            TlogError::Inconsistent(format!(
                "the consistency proof from {} to {new_size} events: {e}",
                head.size
            ))
        })?;
        Ok(CheckpointCheck { old_size: head.size, new_size, new_root, proof: hashes })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use agentwarden_domain::audit::{Correlation, EventDraft, Head, StoredRecord};
    use agentwarden_domain::events::{AuditEvent, OperatorNote};
    use agentwarden_ports::{Appended, EventStore, Expected};

    use super::*;
    use crate::store::MemoryEventStore;
    use crate::tlog::LogSigner;

    async fn log(n: usize) -> (Warden, Arc<MemoryEventStore>) {
        let store = Arc::new(MemoryEventStore::new());
        let warden = Warden::builder().store(store.clone()).build().unwrap();
        for i in 0..n {
            warden
                .record(Correlation::default(), &OperatorNote { message: format!("note {i}") })
                .await
                .unwrap();
        }
        (warden, store)
    }

    #[tokio::test]
    async fn every_event_is_proven_in_every_checkpoint_and_every_checkpoint_is_extended() {
        let (warden, _) = log(0).await;
        let signer = LogSigner::from_seed("log.example/a", [1; 32]).unwrap();
        let verifier = signer.verifier();
        let mut heads = vec![warden.tree_head("log.example/a").await.unwrap()];
        for i in 0..21 {
            warden.record(Correlation::default(), &OperatorNote { message: format!("n {i}") }).await.unwrap();
            let head = warden.tree_head("log.example/a").await.unwrap();
            let text = signer.sign_checkpoint(&head).unwrap().to_text();
            assert_eq!(verifier.open_checkpoint(&text).unwrap().1, head);
            heads.push(head);
        }
        for head in &heads {
            let check = warden.check_checkpoint(head).await.unwrap();
            assert_eq!(check.new_size, 21);
            for seq in 1..=head.size {
                let proof = warden.inclusion_proof(seq, head.size).await.unwrap();
                let read = InclusionProof::parse(&proof.to_text()).unwrap();
                assert_eq!(read.verify(head), Ok(()), "{seq} in {}", head.size);
            }
        }
        assert!(warden.inclusion_proof(22, 21).await.is_err(), "no event past the tree");
        assert!(warden.inclusion_proof(0, 21).await.is_err());
    }

    /// A whole chain rewritten and re-hashed after a checkpoint, and an older copy of the store:
    /// each is refused, named apart; the rewritten chain still verifies as a chain.
    #[tokio::test]
    async fn a_rewritten_log_and_an_older_copy_are_found() {
        let (warden, _) = log(5).await;
        let head = warden.tree_head("o").await.unwrap();
        let (older, _) = log(4).await;
        let refused = older.check_checkpoint(&head).await.unwrap_err();
        assert!(refused.reason().contains("fewer than the 5"), "{refused}");
        assert_eq!(refused.code().as_str(), "checkpoint_inconsistent");

        // The same number of events, another history, a chain that verifies.
        let store = Arc::new(MemoryEventStore::new());
        let rewritten = Warden::builder().store(store).build().unwrap();
        for i in 0..6 {
            let message = if i == 2 { "rewritten".to_owned() } else { format!("note {i}") };
            rewritten.record(Correlation::default(), &OperatorNote { message }).await.unwrap();
        }
        assert!(rewritten.verify(None).await.unwrap().is_intact());
        let refused = rewritten.check_checkpoint(&head).await.unwrap_err();
        assert!(refused.reason().contains("rewritten"), "{refused}");
        let refused = rewritten.prove_in(1, &head).await.unwrap_err();
        assert_eq!(refused.code().as_str(), "checkpoint_inconsistent", "{refused}");
        assert!(older.prove_in(1, &head).await.is_err());
        assert!(warden.prove_in(5, &head).await.is_ok());
    }

    /// A store whose events are one log's and whose kept tree is another's: the events
    /// rewritten under the tree of the history a checkpoint signed.
    struct Grafted {
        events: Arc<MemoryEventStore>,
        tree: Arc<MemoryEventStore>,
    }

    #[async_trait::async_trait]
    impl EventStore for Grafted {
        async fn append(&self, expected: Expected, batch: Vec<EventDraft>) -> Result<Appended, StoreError> {
            self.events.append(expected, batch).await
        }

        async fn read(&self, from: u64, limit: usize) -> Result<Vec<StoredRecord>, StoreError> {
            self.events.read(from, limit).await
        }

        async fn head(&self) -> Result<Head, StoreError> {
            self.events.head().await
        }

        async fn merkle_nodes(&self, nodes: &[Node]) -> Result<Vec<MerkleHash>, StoreError> {
            self.tree.merkle_nodes(nodes).await
        }
    }

    /// Events rewritten under the kept tree of the old ones pass the consistency check
    /// that reads the tree alone; the kept tree held to the events refuses them. An honest
    /// store passes both.
    #[tokio::test]
    async fn a_kept_tree_that_is_not_the_events_is_found() {
        let original = Arc::new(MemoryEventStore::new());
        let rewritten = Arc::new(MemoryEventStore::new());
        for i in 0..6 {
            let message = if i == 2 { "rewritten".to_owned() } else { format!("note {i}") };
            original.append(Expected::Any, vec![note_draft(&format!("note {i}"))]).await.unwrap();
            rewritten.append(Expected::Any, vec![note_draft(&message)]).await.unwrap();
        }
        let honest = Warden::builder().store(original.clone()).build().unwrap();
        let head = TreeHead { origin: "o".into(), size: 5, root: honest.tree_root(5).await.unwrap() };
        let grafted = Warden::builder()
            .store(Arc::new(MemoryEventStore::new()))
            .event_store(Arc::new(Grafted { events: rewritten, tree: original }))
            .build()
            .unwrap();
        assert!(grafted.check_checkpoint(&head).await.is_ok(), "the tree alone is fooled");
        let refused = grafted.check_kept_tree(&[5, 6]).await.unwrap_err();
        assert_eq!(refused.code().as_str(), "checkpoint_inconsistent", "{refused}");
        assert!(refused.reason().contains("first 5 events"), "{refused}");
        assert!(honest.check_kept_tree(&[0, 5, 6]).await.is_ok());
    }

    fn note_draft(message: &str) -> EventDraft {
        let at = agentwarden_domain::audit::Timestamp::from_unix_millis(1_771_666_200_000).unwrap();
        let actor = agentwarden_domain::audit::Actor::new("test").unwrap();
        EventDraft::new(
            at,
            actor,
            Correlation::default(),
            &AuditEvent::OperatorNote(OperatorNote { message: message.to_owned() }),
        )
        .unwrap()
    }
}
