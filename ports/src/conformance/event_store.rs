//! The `EventStore` contract suite: order, gapless `seq`, a verifying chain, optimistic
//! concurrency, atomic batches, deferred appends, imports of sealed records, and concurrent
//! appenders. Each check takes a fresh, empty store; concurrency checks need a multi-threaded
//! tokio runtime.

use std::collections::BTreeSet;
use std::sync::Arc;

use agentwarden_domain::audit::merkle::{
    Frontier, MerkleHash, Node, Range, consistency_ranges, fold, inclusion_ranges, perfect_nodes,
    verify_consistency, verify_inclusion,
};
use agentwarden_domain::audit::{Envelope, Head, RecordPage, StoredRecord, verify};

use super::note;
use crate::{EventStore, Expected, StoreError};

/// Reads the whole log, in pages of `page`.
pub async fn read_all<S: EventStore + ?Sized>(store: &S, page: usize) -> Vec<StoredRecord> {
    let mut out = Vec::new();
    loop {
        let next = out.last().map_or(1, |r: &StoredRecord| r.seq + 1);
        let got = store.read(next, page).await.unwrap();
        let done = got.len() < page;
        out.extend(got);
        if done {
            return out;
        }
    }
}

/// Runs every check, each on a store from `fresh`.
pub async fn run_all<S, F>(mut fresh: F)
where
    S: EventStore + 'static,
    F: FnMut() -> S,
{
    empty_store_has_empty_head(&fresh()).await;
    appends_in_order_with_gapless_seq(&fresh()).await;
    batch_is_one_contiguous_run(&fresh()).await;
    reads_ranges_in_order(&fresh()).await;
    expected_head_is_enforced(&fresh()).await;
    empty_batch_is_refused(&fresh()).await;
    deferred_appends_are_read_at_once_and_synced_together(&fresh()).await;
    sealed_records_are_imported_whole_or_not_at_all(&fresh(), &fresh()).await;
    concurrent_appends_at_one_head_exactly_one_conflicts(Arc::new(fresh())).await;
    many_concurrent_appenders_stay_gapless(Arc::new(fresh()), 8, 1000).await;
    the_merkle_tree_follows_every_append(&fresh()).await;
    a_random_logs_tree_is_its_events(&fresh()).await;
}

/// A new store is empty: head 0 with the genesis hash, nothing to read.
pub async fn empty_store_has_empty_head<S: EventStore + ?Sized>(store: &S) {
    assert_eq!(store.head().await.unwrap(), Head::EMPTY);
    assert!(store.read(1, 10).await.unwrap().is_empty());
}

/// Single appends get seq 1, 2, 3…; the head follows; the chain verifies; bodies parse back.
pub async fn appends_in_order_with_gapless_seq<S: EventStore + ?Sized>(store: &S) {
    for i in 1..=10u64 {
        let appended = store.append(Expected::Any, vec![note(&format!("event {i}"))]).await.unwrap();
        assert_eq!(appended.first_seq, i);
        assert_eq!(appended.head.seq, i);
        assert_eq!(store.head().await.unwrap(), appended.head);
    }
    let records = read_all(store, 3).await;
    assert_eq!(records.iter().map(|r| r.seq).collect::<Vec<_>>(), (1..=10).collect::<Vec<_>>());
    assert_eq!(verify(&records).unwrap(), store.head().await.unwrap());
    for (i, record) in records.iter().enumerate() {
        let envelope = Envelope::parse(record).unwrap();
        assert_eq!(envelope.payload.get(), format!(r#"{{"message":"event {}"}}"#, i + 1));
    }
}

/// A batch lands as one contiguous run, and the receipt names its first and last event.
pub async fn batch_is_one_contiguous_run<S: EventStore + ?Sized>(store: &S) {
    store.append(Expected::Any, vec![note("before")]).await.unwrap();
    let batch: Vec<_> = (0..5).map(|i| note(&format!("batch {i}"))).collect();
    let appended = store.append(Expected::Head(1), batch).await.unwrap();
    assert_eq!((appended.first_seq, appended.head.seq), (2, 6));
    let records = read_all(store, 100).await;
    assert_eq!(verify(&records).unwrap(), appended.head);
    let last = Envelope::parse(&records[5]).unwrap();
    assert_eq!(last.payload.get(), r#"{"message":"batch 4"}"#);
}

/// `read(from, limit)` returns at most `limit` records from `from` on, in order; past the end,
/// nothing.
pub async fn reads_ranges_in_order<S: EventStore + ?Sized>(store: &S) {
    let batch: Vec<_> = (0..20).map(|i| note(&format!("{i}"))).collect();
    store.append(Expected::Any, batch).await.unwrap();
    let seqs = |records: Vec<StoredRecord>| records.iter().map(|r| r.seq).collect::<Vec<_>>();
    assert_eq!(seqs(store.read(5, 3).await.unwrap()), [5, 6, 7]);
    assert_eq!(seqs(store.read(18, 10).await.unwrap()), [18, 19, 20]);
    assert_eq!(seqs(store.read(0, 2).await.unwrap()), [1, 2]);
    assert!(store.read(21, 10).await.unwrap().is_empty());
    assert!(store.read(5, 0).await.unwrap().is_empty());
    // `read_page` answers exactly as `read`, into a page that is cleared first: reuse a page
    // that still holds other records each time.
    let mut page = store.read_page(1, 20, RecordPage::new()).await.unwrap();
    for (from, limit) in [(5, 3), (18, 10), (0, 2), (21, 10), (5, 0), (1, 20)] {
        let expected = store.read(from, limit).await.unwrap();
        page = store.read_page(from, limit, page).await.unwrap();
        let got: Vec<StoredRecord> = page.iter().map(|r| r.to_owned_record()).collect();
        assert_eq!(got, expected, "read_page({from}, {limit})");
    }
}

/// An append at the wrong expected head is refused with `Conflict`, and writes nothing.
pub async fn expected_head_is_enforced<S: EventStore + ?Sized>(store: &S) {
    store.append(Expected::Head(0), vec![note("first")]).await.unwrap();
    let err = store.append(Expected::Head(0), vec![note("stale")]).await.unwrap_err();
    assert_eq!(err, StoreError::Conflict { expected: 0, actual: 1 });
    let err = store.append(Expected::Head(5), vec![note("future")]).await.unwrap_err();
    assert_eq!(err, StoreError::Conflict { expected: 5, actual: 1 });
    assert_eq!(store.head().await.unwrap().seq, 1);
    store.append(Expected::Head(1), vec![note("second")]).await.unwrap();
    assert_eq!(read_all(store, 10).await.len(), 2);
}

/// An empty batch is a caller's bug: refused, nothing written.
pub async fn empty_batch_is_refused<S: EventStore + ?Sized>(store: &S) {
    assert_eq!(store.append(Expected::Any, vec![]).await.unwrap_err(), StoreError::EmptyBatch);
    assert_eq!(store.head().await.unwrap(), Head::EMPTY);
}

/// Deferred appends take their seq, head and chain as plain ones do, in order with them,
/// are read back at once, keep the expected-head check, and `sync` then returns (with nothing
/// pending too) (V-25).
pub async fn deferred_appends_are_read_at_once_and_synced_together<S: EventStore + ?Sized>(store: &S) {
    store.sync().await.unwrap();
    for i in 1..=5u64 {
        let appended =
            store.append_deferred(Expected::Any, vec![note(&format!("deferred {i}"))]).await.unwrap();
        assert_eq!((appended.first_seq, appended.head.seq), (i, i));
        assert_eq!(store.head().await.unwrap(), appended.head);
        assert_eq!(store.read(i, 1).await.unwrap().len(), 1, "readable before the sync");
    }
    let plain = store.append(Expected::Head(5), vec![note("plain")]).await.unwrap();
    assert_eq!(plain.head.seq, 6);
    let err = store.append_deferred(Expected::Head(5), vec![note("stale")]).await.unwrap_err();
    assert_eq!(err, StoreError::Conflict { expected: 5, actual: 6 });
    let batch = vec![note("a"), note("b")];
    assert_eq!(store.append_deferred(Expected::Head(6), batch).await.unwrap().head.seq, 8);
    store.sync().await.unwrap();
    store.sync().await.unwrap();
    let records = read_all(store, 3).await;
    assert_eq!(records.len(), 8);
    assert_eq!(verify(&records).unwrap(), store.head().await.unwrap());
}

/// `append_sealed` imports records sealed by another store byte for byte, only at the expected
/// head and only when they continue its chain: a wrong head is `Conflict`, a record that does
/// not continue the chain is `Corrupt`, an empty import `EmptyBatch`; a refused import writes
/// nothing. A store that does not import keeps the trait's default, which refuses every import
/// (and then this check accepts that refusal and checks only that nothing was written).
pub async fn sealed_records_are_imported_whole_or_not_at_all<S: EventStore + ?Sized>(source: &S, store: &S) {
    let batch: Vec<_> = (0..6).map(|i| note(&format!("sealed {i}"))).collect();
    source.append(Expected::Any, batch).await.unwrap();
    let records = read_all(source, 10).await;
    let (first, rest) = records.split_at(3);
    match store.append_sealed(0, first.to_vec()).await {
        Ok(appended) => assert_eq!((appended.first_seq, appended.head.seq), (1, 3)),
        Err(refused) => {
            assert_eq!(
                store.head().await.unwrap(),
                Head::EMPTY,
                "a refused import writes nothing: {refused}"
            );
            return;
        }
    }
    assert_eq!(read_all(store, 10).await, first, "byte for byte");
    let stale = store.append_sealed(0, rest.to_vec()).await.unwrap_err();
    assert_eq!(stale, StoreError::Conflict { expected: 0, actual: 3 });
    let skipping = store.append_sealed(3, rest[1..].to_vec()).await.unwrap_err();
    assert!(matches!(skipping, StoreError::Corrupt { .. }), "a gap is not a continuation: {skipping}");
    let mut forged = rest.to_vec();
    if let Some(last) = forged.last_mut() {
        last.body.push(b' ');
    }
    let tampered = store.append_sealed(3, forged).await.unwrap_err();
    assert!(matches!(tampered, StoreError::Corrupt { .. }), "a record whose hash fails: {tampered}");
    assert_eq!(store.append_sealed(3, Vec::new()).await.unwrap_err(), StoreError::EmptyBatch);
    assert_eq!(store.head().await.unwrap().seq, 3, "refused imports wrote nothing");
    let appended = store.append_sealed(3, rest.to_vec()).await.unwrap();
    assert_eq!(appended.head, source.head().await.unwrap());
    assert_eq!(read_all(store, 10).await, records);
}

/// Two appends racing at one expected head: exactly one wins, the other gets `Conflict`.
pub async fn concurrent_appends_at_one_head_exactly_one_conflicts<S: EventStore + 'static>(store: Arc<S>) {
    for round in 0..20u64 {
        let (a, b) = (store.clone(), store.clone());
        let first = tokio::spawn(async move { a.append(Expected::Head(round), vec![note("a")]).await });
        let second = tokio::spawn(async move { b.append(Expected::Head(round), vec![note("b")]).await });
        let results = [first.await.unwrap(), second.await.unwrap()];
        let wins = results.iter().filter(|r| r.is_ok()).count();
        let conflicts = results
            .iter()
            .filter(|r| matches!(r, Err(StoreError::Conflict { expected, actual }) if *expected == round && *actual == round + 1))
            .count();
        assert_eq!((wins, conflicts), (1, 1), "round {round}: {results:?}");
    }
    assert_eq!(store.head().await.unwrap().seq, 20);
}

/// `tasks` × `per_task` concurrent single appends: every one lands once, seq gapless, chain valid.
pub async fn many_concurrent_appenders_stay_gapless<S: EventStore + 'static>(
    store: Arc<S>,
    tasks: usize,
    per_task: usize,
) {
    let handles: Vec<_> = (0..tasks)
        .map(|t| {
            let store = store.clone();
            tokio::spawn(async move {
                let mut seqs = Vec::with_capacity(per_task);
                for i in 0..per_task {
                    let appended =
                        store.append(Expected::Any, vec![note(&format!("{t}/{i}"))]).await.unwrap();
                    seqs.push(appended.head.seq);
                }
                seqs
            })
        })
        .collect();
    let mut acknowledged = BTreeSet::new();
    for handle in handles {
        for seq in handle.await.unwrap() {
            assert!(acknowledged.insert(seq), "seq {seq} acknowledged twice");
        }
    }
    let total = (tasks * per_task) as u64;
    assert_eq!(acknowledged, (1..=total).collect::<BTreeSet<_>>());
    let records = read_all(&*store, 1024).await;
    assert_eq!(records.len() as u64, total);
    assert_eq!(verify(&records).unwrap(), store.head().await.unwrap());
    let messages: BTreeSet<_> =
        records.iter().map(|r| Envelope::parse(r).unwrap().payload.get().to_owned()).collect();
    assert_eq!(messages.len() as u64, total, "every append is stored exactly once");
}

/// The hash of `range` of the tree, from the store's nodes.
pub async fn range_hash<S: EventStore + ?Sized>(store: &S, range: Range) -> MerkleHash {
    fold(&store.merkle_nodes(&perfect_nodes(range)).await.unwrap())
}

/// The Merkle tree follows the log through plain and deferred appends: at every
/// size the root folded from the store's nodes is the one the events' stored bytes make; every
/// inclusion and consistency proof made from its nodes verifies; a node not complete at the
/// head is refused (A-25).
pub async fn the_merkle_tree_follows_every_append<S: EventStore + ?Sized>(store: &S) {
    let mut reference = Frontier::new();
    let mut roots = vec![MerkleHash::empty()];
    assert_eq!(range_hash(store, Range { start: 0, end: 0 }).await, MerkleHash::empty());
    for round in 0..12_u64 {
        let batch: Vec<_> = (0..=round % 3).map(|i| note(&format!("tree {round}.{i}"))).collect();
        if round % 2 == 0 {
            store.append(Expected::Any, batch).await.unwrap();
        } else {
            store.append_deferred(Expected::Any, batch).await.unwrap();
            store.sync().await.unwrap();
        }
        let head = store.head().await.unwrap();
        for record in store.read(reference.size() + 1, usize::MAX).await.unwrap() {
            reference.append(MerkleHash::leaf(&record.body));
            roots.push(reference.root());
        }
        assert_eq!(reference.size(), head.seq);
        assert_eq!(
            range_hash(store, Range { start: 0, end: head.seq }).await,
            reference.root(),
            "size {}",
            head.seq
        );
    }
    let size = reference.size();
    let records = read_all(store, 7).await;
    let root = reference.root();
    for (index, record) in (0..size).zip(&records) {
        let mut proof = Vec::new();
        for range in inclusion_ranges(index, size).unwrap() {
            proof.push(range_hash(store, range).await);
        }
        verify_inclusion(&MerkleHash::leaf(&record.body), index, size, &proof, &root).unwrap();
    }
    for (old, old_root) in (0..=size).zip(&roots) {
        let mut proof = Vec::new();
        for range in consistency_ranges(old, size).unwrap() {
            proof.push(range_hash(store, range).await);
        }
        verify_consistency(old, size, old_root, &root, &proof).unwrap();
    }
    // Many nodes asked at once are each the node asked alone.
    let all: Vec<Node> = (0..=size)
        .flat_map(|old| consistency_ranges(old, size).unwrap())
        .chain((0..size).flat_map(|index| inclusion_ranges(index, size).unwrap()))
        .flat_map(perfect_nodes)
        .collect();
    let together = store.merkle_nodes(&all).await.unwrap();
    assert_eq!(together.len(), all.len());
    for (node, hash) in all.iter().zip(&together) {
        assert_eq!(store.merkle_nodes(&[*node]).await.unwrap(), vec![*hash], "{node:?}");
    }
    let beyond = Node { level: 0, index: size };
    assert!(matches!(store.merkle_nodes(&[beyond]).await, Err(StoreError::Unavailable { .. })));
    let ragged = Node { level: 6, index: 0 };
    assert!(size < 64 && store.merkle_nodes(&[ragged]).await.is_err(), "a node past the head");
}

/// A small deterministic generator for the suite's random logs (no dependency, the same logs
/// on every run and every backend).
#[derive(Clone, Debug)]
pub struct Lcg(u64);

impl Lcg {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> Lcg {
        Lcg(seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407))
    }

    /// The next number below `bound` (at least 1).
    pub fn below(&mut self, bound: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % bound.max(1)
    }
}

/// Appends `count` events of random sizes in random batches (plain and deferred), from `seed`.
pub async fn append_random<S: EventStore + ?Sized>(store: &S, seed: u64, count: u64) {
    let mut rng = Lcg::new(seed);
    let mut left = count;
    while left > 0 {
        let n = (1 + rng.below(5)).min(left);
        let batch: Vec<_> = (0..n)
            .map(|i| {
                note(&format!(
                    "random {seed}.{left}.{i} {}",
                    "x".repeat(usize::try_from(rng.below(300)).unwrap())
                ))
            })
            .collect();
        if rng.below(2) == 0 {
            store.append(Expected::Any, batch).await.unwrap();
        } else {
            store.append_deferred(Expected::Any, batch).await.unwrap();
            store.sync().await.unwrap();
        }
        left -= n;
    }
}

/// The nodes a store keeps are the nodes its events make. For every size up to the head
/// (stepping by `step`), the root, and a random inclusion and consistency proof's nodes, asked
/// of the store, equal [`crate::merkle_nodes_from_events`]'s, hashed from the events read back (A-35).
pub async fn kept_nodes_are_the_events_nodes<S: EventStore + ?Sized>(store: &S, seed: u64, step: u64) {
    let size = store.head().await.unwrap().seq;
    let mut rng = Lcg::new(seed);
    let mut sizes: Vec<u64> = (0..=size).step_by(usize::try_from(step.max(1)).unwrap()).collect();
    sizes.push(size);
    for n in sizes {
        let mut ranges = vec![Range { start: 0, end: n }];
        if n > 0 {
            ranges.extend(inclusion_ranges(rng.below(n), n).unwrap());
            ranges.extend(inclusion_ranges(n - 1, n).unwrap());
            ranges.extend(consistency_ranges(rng.below(n + 1), n).unwrap());
            ranges.extend(consistency_ranges(n, size).unwrap());
        }
        let nodes: Vec<Node> = ranges.into_iter().flat_map(perfect_nodes).collect();
        let kept = store.merkle_nodes(&nodes).await.unwrap();
        let hashed = crate::merkle_nodes_from_events(store, &nodes).await.unwrap();
        assert_eq!(kept, hashed, "the nodes kept at size {n} of {size} are not the events'");
    }
    let mut reference = Frontier::new();
    for record in read_all(store, 1000).await {
        reference.append(MerkleHash::leaf(&record.body));
    }
    assert_eq!(
        range_hash(store, Range { start: 0, end: size }).await,
        reference.root(),
        "the root at {size}"
    );
}

/// A random log's kept tree is its events' (see [`kept_nodes_are_the_events_nodes`]) (A-35).
pub async fn a_random_logs_tree_is_its_events<S: EventStore + ?Sized>(store: &S) {
    append_random(store, 37, 300).await;
    kept_nodes_are_the_events_nodes(store, 1, 7).await;
}

/// The kept tree survives the store being closed and opened again (`reopen` drops the
/// store it is given and opens the same log), and keeps growing from where it was (A-35).
pub async fn the_kept_tree_survives_reopening<S, F>(store: S, mut reopen: F)
where
    S: EventStore,
    F: FnMut(S) -> S,
{
    append_random(&store, 5, 150).await;
    let store = reopen(store);
    kept_nodes_are_the_events_nodes(&store, 2, 11).await;
    append_random(&store, 6, 90).await;
    let store = reopen(store);
    append_random(&store, 7, 40).await;
    kept_nodes_are_the_events_nodes(&store, 3, 5).await;
}
