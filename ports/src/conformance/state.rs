//! The state ports' contract suites: a merged result is written once per key and the first
//! write stands (`AlreadyWritten`, naming the key); a projection is replaced and removed; a
//! snapshot is kept per session and agent, the two never confused, and dropped.

use agentwarden_domain::fanout::{ChunkOutcome, ChunkStatus, merge};

use crate::{MergedStore, ProjectionStore, SnapshotStore, StateStore, StoreError};

/// Runs every state check, each on an adapter from `fresh`.
pub async fn run_all<S, F>(mut fresh: F)
where
    S: StateStore,
    F: FnMut() -> S,
{
    merged_results_are_written_once(&fresh()).await;
    projections_are_replaced_and_removed(&fresh()).await;
    snapshots_are_kept_per_session_and_agent(&fresh()).await;
}

/// The first write under a key stands; a second is `AlreadyWritten` naming the key, and
/// changes nothing; other keys are independent; an unwritten key reads as `None` (F-10).
pub async fn merged_results_are_written_once<S: MergedStore + ?Sized>(store: &S) {
    let first = merge(&[ChunkOutcome::without_result(0, ChunkStatus::TimedOut, "slow")]);
    let second = merge(&[ChunkOutcome::without_result(0, ChunkStatus::Failed, "other")]);
    assert_ne!(first, second);
    assert_eq!(store.read_merged("run@1").await.unwrap(), None);
    store.write_merged("run@1", &first).await.unwrap();
    let again = store.write_merged("run@1", &second).await.unwrap_err();
    assert_eq!(again, StoreError::AlreadyWritten { key: "run@1".into() });
    assert_eq!(store.read_merged("run@1").await.unwrap(), Some(first.clone()), "the first write stands");
    store.write_merged("run@2", &second).await.unwrap();
    assert_eq!(store.read_merged("run@2").await.unwrap(), Some(second));
    assert_eq!(store.read_merged("run@1").await.unwrap(), Some(first));
    assert_eq!(store.read_merged("run@3").await.unwrap(), None);
}

/// A projection's state is replaced by each write, removed by `remove_projection` (removing
/// what is not there is no error), and kept apart from other names.
pub async fn projections_are_replaced_and_removed<S: ProjectionStore + ?Sized>(store: &S) {
    assert_eq!(store.read_projection("p").await.unwrap(), None);
    store.write_projection("p", b"one".to_vec()).await.unwrap();
    store.write_projection("q", b"other".to_vec()).await.unwrap();
    store.write_projection("p", b"two".to_vec()).await.unwrap();
    assert_eq!(store.read_projection("p").await.unwrap(), Some(b"two".to_vec()));
    store.write_projection("p", Vec::new()).await.unwrap();
    assert_eq!(store.read_projection("p").await.unwrap(), Some(Vec::new()), "empty is not absent");
    store.remove_projection("p").await.unwrap();
    assert_eq!(store.read_projection("p").await.unwrap(), None);
    store.remove_projection("p").await.unwrap();
    assert_eq!(store.read_projection("q").await.unwrap(), Some(b"other".to_vec()));
}

/// A snapshot is kept under its session and agent; `a/b` + `c` is not `a` + `b/c`; a write
/// replaces, a remove drops only that one, and bytes come back as given.
pub async fn snapshots_are_kept_per_session_and_agent<S: SnapshotStore + ?Sized>(store: &S) {
    assert_eq!(store.read_snapshot("s", "a").await.unwrap(), None);
    let bytes: Vec<u8> = (0..=255u8).collect();
    store.write_snapshot("s", "a", bytes.clone()).await.unwrap();
    store.write_snapshot("a/b", "c", b"one".to_vec()).await.unwrap();
    store.write_snapshot("a", "b/c", b"two".to_vec()).await.unwrap();
    assert_eq!(store.read_snapshot("s", "a").await.unwrap(), Some(bytes), "bytes as given");
    assert_eq!(store.read_snapshot("a/b", "c").await.unwrap(), Some(b"one".to_vec()));
    assert_eq!(store.read_snapshot("a", "b/c").await.unwrap(), Some(b"two".to_vec()));
    assert_eq!(store.read_snapshot("s", "b").await.unwrap(), None);
    store.write_snapshot("s", "a", b"again".to_vec()).await.unwrap();
    assert_eq!(store.read_snapshot("s", "a").await.unwrap(), Some(b"again".to_vec()));
    store.remove_snapshot("s", "a").await.unwrap();
    store.remove_snapshot("s", "a").await.unwrap();
    assert_eq!(store.read_snapshot("s", "a").await.unwrap(), None);
    assert_eq!(store.read_snapshot("a/b", "c").await.unwrap(), Some(b"one".to_vec()));
}
