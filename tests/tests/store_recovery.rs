//! What a writer killed at any instant leaves in a sled store, planted deterministically: each
//! leftover sled cannot open past is discarded on the next open (S-7, S-8, S-9), every event is
//! still there and verifies, and the discard is reported. Nothing holding data is discarded,
//! a live writer's files are never touched, and entries sled must not read refuse the store
//! (S-10).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use agentwarden_adapters::{Leftover, SledConfig, SledEventStore};
use agentwarden_domain::audit::verify;
use agentwarden_ports::{EventStore, Expected, StoreError};
use agentwarden_tests::event_store::read_all;
use agentwarden_tests::note;

fn config(path: &Path) -> SledConfig {
    SledConfig::new(path).lock_timeout(Duration::from_secs(5))
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).build().unwrap()
}

/// A store at `dir/store` with `n` events, written over two opens so that sled has written a
/// snapshot, and closed.
fn store_with(dir: &Path, n: u64) -> PathBuf {
    let path = dir.join("store");
    for half in [n / 2, n] {
        let store = SledEventStore::open(&config(&path)).unwrap();
        runtime().block_on(async {
            let head = store.head().await.unwrap().seq;
            for i in head..half {
                store.append(Expected::Head(i), vec![note(&format!("event {}", i + 1))]).await.unwrap();
            }
        });
    }
    // A third open writes the snapshot of the second's log.
    drop(SledEventStore::open(&config(&path)).unwrap());
    path
}

/// The store's finished snapshot, by name: there is exactly one after a clean close.
fn snapshot(path: &Path) -> String {
    let snaps: Vec<String> = names(path).into_iter().filter(|n| n.starts_with("snap.")).collect();
    assert_eq!(snaps.len(), 1, "one snapshot after a clean close: {snaps:?}");
    snaps.into_iter().next().unwrap()
}

fn names(path: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(path).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    names
}

/// Opens the store and checks that it holds exactly `n` events that verify.
fn reopens_whole(path: &Path, n: u64) -> SledEventStore {
    let store = SledEventStore::open(&config(path)).unwrap_or_else(|e| panic!("reopen failed: {e}"));
    runtime().block_on(async {
        let records = read_all(&store, 64).await;
        assert_eq!(records.len() as u64, n, "every event is still there");
        assert_eq!(verify(&records).unwrap().seq, n);
        assert_eq!(store.head().await.unwrap().seq, n);
    });
    store
}

/// A snapshot temp file a writer was killed writing: empty, or cut short.
#[test]
fn an_unfinished_snapshot_is_discarded_and_the_whole_log_comes_back() {
    for cut in [Some(0), Some(5), Some(13), None] {
        let dir = tempfile::tempdir().unwrap();
        let path = store_with(dir.path(), 20);
        let snap = snapshot(&path);
        let finished = std::fs::read(path.join(&snap)).unwrap();
        // The temp name of the next snapshot sorts after the finished one, so sled reads it.
        let temp = format!("{snap}.generating");
        let contents = match cut {
            Some(len) => finished.get(..len).unwrap().to_vec(),
            // Finished but not renamed: complete, and still discarded (S-7).
            None => finished.clone(),
        };
        std::fs::write(path.join(&temp), &contents).unwrap();

        let store = reopens_whole(&path, 20);
        assert_eq!(store.discarded().len(), 1, "cut {cut:?}");
        let discarded = store.discarded().first().unwrap();
        assert_eq!(discarded.name, temp);
        assert_eq!(discarded.bytes, contents.len() as u64);
        assert_eq!(discarded.what, Leftover::UnfinishedSnapshot);
        assert!(!path.join(&temp).exists(), "the temp file is gone");
        // The note outlives the handle and the warning.
        let notes = store.recoveries().unwrap();
        assert_eq!(notes.len(), 1);
        assert!(notes.first().unwrap().1.contains(&temp), "{notes:?}");
        drop(store);

        // And the store keeps working: a new event chains on.
        let store = reopens_whole(&path, 20);
        assert!(store.discarded().is_empty(), "nothing left to discard");
        runtime().block_on(store.append(Expected::Head(20), vec![note("after")])).unwrap();
        drop(store);
        reopens_whole(&path, 21);
    }
}

/// A temp file with a higher lsn than the finished snapshot (the next open's), beside one with a
/// lower lsn that sled had not removed yet.
#[test]
fn every_unfinished_snapshot_is_discarded_whatever_its_lsn() {
    let dir = tempfile::tempdir().unwrap();
    let path = store_with(dir.path(), 8);
    for name in ["snap.FFFFFFFFFFFFFFFF.generating", "snap.0000000000000001.generating"] {
        std::fs::write(path.join(name), b"").unwrap();
    }
    let store = reopens_whole(&path, 8);
    assert_eq!(store.discarded().len(), 2);
    assert!(names(&path).iter().all(|n| !n.ends_with(".generating")), "{:?}", names(&path));
}

/// The creation's `conf` written without its checksum (sled writes the text, then the CRC).
#[test]
fn a_conf_cut_short_is_discarded_and_written_again() {
    let dir = tempfile::tempdir().unwrap();
    let path = store_with(dir.path(), 6);
    let whole = std::fs::read(path.join("conf")).unwrap();
    for len in [9, whole.len() - 4, whole.len() - 1] {
        std::fs::write(path.join("conf"), whole.get(..len).unwrap()).unwrap();
        let store = reopens_whole(&path, 6);
        let discarded: Vec<_> = store.discarded().iter().map(|d| (d.name.as_str(), d.what)).collect();
        assert_eq!(discarded, [("conf", Leftover::TornConfig)], "cut at {len}");
        drop(store);
        assert_eq!(std::fs::read(path.join("conf")).unwrap(), whole, "sled wrote it again");
    }
}

/// A `conf` that is not a prefix of ours is not ours to discard: sled decides (here it refuses).
#[test]
fn a_foreign_conf_is_left_to_sled() {
    let dir = tempfile::tempdir().unwrap();
    let path = store_with(dir.path(), 3);
    let foreign = b"segment_size: 1048576\nuse_compression: false\nversion: 0.34\n".to_vec();
    std::fs::write(path.join("conf"), &foreign).unwrap();
    assert!(SledEventStore::open(&config(&path)).is_err());
    assert_eq!(std::fs::read(path.join("conf")).unwrap(), foreign);
}

/// A finished snapshot is fsynced before its rename: a damaged one was damaged by someone else.
/// It is never discarded; the store fails closed.
#[test]
fn a_damaged_finished_snapshot_is_not_discarded() {
    let dir = tempfile::tempdir().unwrap();
    let path = store_with(dir.path(), 5);
    let snap = snapshot(&path);
    std::fs::write(path.join(&snap), b"").unwrap();
    let err = SledEventStore::open(&config(&path)).unwrap_err();
    assert!(matches!(err, StoreError::Unavailable { .. }), "{err}");
    assert!(path.join(&snap).exists(), "left for the operator");
}

/// A live holder's temp file is not touched: the cleaning waits for sled's lock.
#[test]
fn a_live_writers_files_are_not_discarded() {
    let dir = tempfile::tempdir().unwrap();
    let path = store_with(dir.path(), 4);
    let holder = SledEventStore::open(&config(&path)).unwrap();
    let temp = path.join("snap.FFFFFFFFFFFFFFFF.generating");
    std::fs::write(&temp, b"being written").unwrap();
    let started = Instant::now();
    let err = SledEventStore::open(&config(&path).lock_timeout(Duration::from_millis(300))).unwrap_err();
    assert!(matches!(err, StoreError::Locked { .. }), "{err}");
    assert!(started.elapsed() >= Duration::from_millis(300));
    assert!(temp.exists(), "a live writer's temp file is left alone");
    drop(holder);
    let store = reopens_whole(&path, 4);
    assert_eq!(store.discarded().len(), 1, "discarded once the holder is gone");
}

/// A creation killed before the log existed: only an empty `blobs/` and a `conf`.
#[test]
fn a_creation_killed_before_its_log_is_created_again_by_a_writer() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store");
    std::fs::create_dir_all(path.join("blobs")).unwrap();
    std::fs::write(path.join("conf"), b"segment_size: 52").unwrap();
    // A reader finds no store and changes nothing.
    let err = SledEventStore::open(&config(&path).create_if_missing(false)).unwrap_err();
    assert!(matches!(err, StoreError::Missing { .. }), "{err}");
    assert_eq!(std::fs::read(path.join("conf")).unwrap(), b"segment_size: 52");
    // A writer creates the store there.
    let store = SledEventStore::open(&config(&path)).unwrap();
    runtime().block_on(store.append(Expected::Head(0), vec![note("first")])).unwrap();
    drop(store);
    reopens_whole(&path, 1);
}

/// Anything else in a directory without a log refuses it, as before.
#[test]
fn a_directory_without_a_log_but_with_other_files_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    for extra in ["snap.0000000000000001", "notes.txt", "blobs/1"] {
        let path = dir.path().join(extra.replace('/', "_"));
        std::fs::create_dir_all(path.join("blobs")).unwrap();
        std::fs::write(path.join(extra), b"x").unwrap();
        let err = SledEventStore::open(&config(&path)).unwrap_err();
        assert!(matches!(err, StoreError::NotAStore { .. }), "{extra}: {err}");
        assert!(!path.join("db").exists(), "{extra}: nothing created");
    }
}

/// A FIFO or a symlink where sled reads a snapshot or its `conf` refuses the store at once,
/// naming the entry, rather than hanging in sled's read or following the link (S-10).
#[test]
fn a_snapshot_or_conf_that_is_not_a_regular_file_refuses_the_store_at_once() {
    for (name, kind) in [
        ("snap.FFFFFFFFFFFFFFFF", "fifo"),
        ("snap.FFFFFFFFFFFFFFFF.generating", "fifo"),
        ("snap.FFFFFFFFFFFFFFFF", "symlink"),
        ("conf", "fifo"),
        ("conf", "symlink"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let path = store_with(dir.path(), 3);
        let entry = path.join(name);
        let _ = std::fs::remove_file(&entry);
        if kind == "fifo" {
            let made = std::process::Command::new("mkfifo").arg(&entry).status().unwrap();
            assert!(made.success());
        } else {
            let target = dir.path().join("elsewhere");
            std::fs::write(&target, b"").unwrap();
            std::os::unix::fs::symlink(&target, &entry).unwrap();
        }
        // On a thread: an open that hangs in sled's read fails the test instead of hanging it.
        let (tx, rx) = std::sync::mpsc::channel();
        let opening = config(&path);
        std::thread::spawn(move || tx.send(SledEventStore::open(&opening).map(drop)));
        let err = rx
            .recv_timeout(Duration::from_secs(5))
            .unwrap_or_else(|_| panic!("{name} ({kind}): the open hung"))
            .unwrap_err();
        assert!(
            matches!(&err, StoreError::Corrupt { why, .. } if why.contains(name) && why.contains("not a regular file")),
            "{name} ({kind}): {err}"
        );
        assert!(std::fs::symlink_metadata(&entry).is_ok(), "{name} ({kind}): left for the operator");
    }
}
