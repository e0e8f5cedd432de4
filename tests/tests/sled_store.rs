//! What only the sled store promises: it survives reopening, finds on-disk edits at the right
//! seq, waits a bounded time for another holder's lock, and never recreates a store silently.

use std::path::Path;
use std::time::{Duration, Instant};

use agentwarden_adapters::{Durability, SledConfig, SledEventStore};
use agentwarden_domain::audit::verify;
use agentwarden_ports::{EventStore, Expected, StoreError};
use agentwarden_tests::event_store::read_all;
use agentwarden_tests::{note, raw_sled};
use proptest::prelude::*;

fn open(path: &Path) -> Result<SledEventStore, StoreError> {
    SledEventStore::open(&SledConfig::new(path).lock_timeout(Duration::from_secs(5)))
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).build().unwrap()
}

/// Writes `n` events (in batches of 3 and singles) into a new store at `path` and closes it.
fn fill(path: &Path, n: u64) {
    runtime().block_on(async {
        let store = open(path).unwrap();
        let mut written = 0;
        while written < n {
            let size = (n - written).min(if written % 2 == 0 { 3 } else { 1 });
            let batch = (0..size).map(|i| note(&format!("event {}", written + i + 1))).collect();
            store.append(Expected::Head(written), batch).await.unwrap();
            written += size;
        }
    });
}

#[test]
fn reopening_keeps_every_event_and_continues_the_chain() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store");
    fill(&path, 50);
    runtime().block_on(async {
        let store = open(&path).unwrap();
        let head = store.head().await.unwrap();
        assert_eq!(head.seq, 50);
        assert_eq!(verify(&read_all(&store, 7).await).unwrap(), head);
        let appended = store.append(Expected::Head(50), vec![note("after reopen")]).await.unwrap();
        assert_eq!(appended.first_seq, 51);
        assert_eq!(verify(&read_all(&store, 100).await).unwrap(), appended.head);
    });
}

#[test]
fn fsync_mode_appends_and_reopens() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store");
    let config = SledConfig::new(&path).durability(Durability::Fsync);
    runtime().block_on(async {
        let store = SledEventStore::open(&config).unwrap();
        assert_eq!(store.durability(), Durability::Fsync);
        for i in 0..5 {
            store.append(Expected::Any, vec![note(&i.to_string())]).await.unwrap();
        }
    });
    let store = SledEventStore::open(&config).unwrap();
    runtime().block_on(async { assert_eq!(verify(&read_all(&store, 10).await).unwrap().seq, 5) });
}

/// Edits one byte of the stored value of `victim` behind the store's back.
fn tamper(path: &Path, victim: u64, offset: usize, xor: u8) {
    let db = raw_sled(path);
    let events = db.open_tree("events").unwrap();
    let mut value = events.get(victim.to_be_bytes()).unwrap().unwrap().to_vec();
    let at = offset % value.len();
    value[at] ^= xor;
    events.insert(victim.to_be_bytes(), value).unwrap();
    db.flush().unwrap();
}

/// The first broken seq as the store reports it: on open (a broken head), or by a full walk.
fn first_break(path: &Path) -> u64 {
    match open(path) {
        Err(StoreError::Corrupt { seq, .. }) => seq,
        Err(other) => panic!("unexpected error: {other}"),
        Ok(store) => runtime().block_on(async { verify(&read_all(&store, 5).await).unwrap_err().seq }),
    }
}

#[test]
fn edits_near_the_head_are_named_exactly() {
    // The head, the event before it (hash and body), and two before: the open-time check must
    // not blame the next event for an edited hash.
    for (victim, offset) in [(12, 0), (12, 100), (11, 0), (11, 31), (11, 40), (10, 5), (1, 0), (1, 200)] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store");
        fill(&path, 12);
        tamper(&path, victim, offset, 0x01);
        assert_eq!(first_break(&path), victim, "edit of event {victim} at byte {offset}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    #[test]
    fn any_single_byte_edit_on_disk_is_found_at_its_seq(victim in 1u64..=12, offset in 0usize..400, xor in 1u8..=255) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store");
        fill(&path, 12);
        tamper(&path, victim, offset, xor);
        prop_assert_eq!(first_break(&path), victim);
    }
}

#[test]
fn a_second_opener_waits_a_bounded_time_then_fails_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store");
    let _holder = open(&path).unwrap();
    let started = Instant::now();
    let err =
        SledEventStore::open(&SledConfig::new(&path).lock_timeout(Duration::from_millis(300))).unwrap_err();
    let waited = started.elapsed();
    assert!(matches!(err, StoreError::Locked { .. }), "{err}");
    assert!(err.to_string().contains("locked by another process"), "{err}");
    assert!(waited >= Duration::from_millis(300) && waited < Duration::from_secs(3), "{waited:?}");
}

#[test]
fn a_second_opener_gets_the_store_once_it_is_released() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store");
    fill(&path, 3);
    let holder = open(&path).unwrap();
    let releaser = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        drop(holder);
    });
    let store = open(&path).unwrap();
    releaser.join().unwrap();
    assert_eq!(runtime().block_on(store.head()).unwrap().seq, 3);
}

#[test]
fn a_path_that_is_not_a_store_is_refused_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    assert!(matches!(open(&empty), Err(StoreError::NotAStore { .. })));
    assert_eq!(std::fs::read_dir(&empty).unwrap().count(), 0, "nothing was created");

    let file = dir.path().join("file");
    std::fs::write(&file, b"not a store").unwrap();
    assert!(matches!(open(&file), Err(StoreError::NotAStore { .. })));
    assert_eq!(std::fs::read(&file).unwrap(), b"not a store");
}

#[test]
fn events_without_the_format_marker_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store");
    {
        let db = sled::open(&path).unwrap();
        db.open_tree("events").unwrap().insert(1u64.to_be_bytes(), vec![0u8; 40]).unwrap();
        db.flush().unwrap();
    }
    let err = open(&path).unwrap_err();
    assert!(matches!(err, StoreError::Corrupt { seq: 0, .. }), "{err}");
}

#[test]
fn a_log_that_does_not_start_at_one_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store");
    fill(&path, 4);
    {
        let db = raw_sled(&path);
        db.open_tree("events").unwrap().remove(1u64.to_be_bytes()).unwrap();
        db.flush().unwrap();
    }
    assert!(matches!(open(&path), Err(StoreError::Corrupt { seq: 1, .. })));
}

#[test]
fn the_merged_state_is_written_once_and_survives_reopening() {
    use agentwarden_domain::fanout::{ChunkOutcome, ChunkStatus, merge};
    use agentwarden_ports::MergedStore;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store");
    let merged = merge(&[ChunkOutcome::without_result(0, ChunkStatus::TimedOut, "slow")]);
    runtime().block_on(async {
        let store = open(&path).unwrap();
        store.write_merged("tests@1", &merged).await.unwrap();
        let again = store.write_merged("tests@1", &merged).await.unwrap_err();
        assert!(
            matches!(again, StoreError::AlreadyWritten { .. }),
            "a second writer must not overwrite: {again}"
        );
    });
    let store = open(&path).unwrap();
    let read = runtime().block_on(store.read_merged("tests@1")).unwrap();
    assert_eq!(read, Some(merged));
    assert_eq!(runtime().block_on(store.read_merged("other")).unwrap(), None);
}
