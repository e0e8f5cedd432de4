//! The sled store's archive (S-13): older events moved out of sled into segment files read back
//! in order, checked on every read, and every state a cut-short move can leave reopens whole.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use agentwarden_adapters::{Archiving, SledConfig, SledEventStore};
use agentwarden_domain::audit::{StoredRecord, verify};
use agentwarden_ports::{EventStore, Expected, StoreError};
use agentwarden_tests::event_store::read_all;
use agentwarden_tests::{note, raw_sled};

/// Segments of 3 events once 4 more stay in sled: a few dozen events cross many segments.
fn small(path: &Path) -> SledConfig {
    SledConfig::new(path).archive_sizes(4, 3).lock_timeout(Duration::from_secs(5))
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

/// Appends `n` events to `store`, singles and pairs, each acknowledged durable.
async fn append(store: &SledEventStore, n: u64) {
    let mut written = store.head().await.unwrap().seq;
    let end = written + n;
    while written < end {
        let size = (end - written).min(if written % 3 == 0 { 2 } else { 1 });
        let batch = (0..size).map(|i| note(&format!("event {}", written + i + 1))).collect();
        store.append(Expected::Head(written), batch).await.unwrap();
        written += size;
    }
}

fn fill(config: &SledConfig, n: u64) {
    runtime().block_on(async { append(&SledEventStore::open(config).unwrap(), n).await });
}

fn segments(path: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(path.join("archive")) else { return Vec::new() };
    let mut files: Vec<PathBuf> =
        entries.map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "seg")).collect();
    files.sort();
    files
}

fn tail_keys(path: &Path) -> Vec<u64> {
    let db = raw_sled(path);
    let events = db.open_tree("events").unwrap();
    events.iter().keys().map(|k| u64::from_be_bytes(k.unwrap().as_ref().try_into().unwrap())).collect()
}

fn read_everything(config: &SledConfig) -> Result<Vec<StoredRecord>, StoreError> {
    let store = SledEventStore::open(&config.clone().archiving(Archiving::Off))?;
    runtime().block_on(async {
        let head = store.head().await?.seq;
        store.read(1, usize::try_from(head).unwrap() + 10).await
    })
}

#[test]
fn archived_events_read_back_in_order_from_any_seq_and_verify() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store");
    fill(&small(&path), 40);
    // 40 events, at least 4 kept: segments of 3 up to seq 36 at most, the rest in sled.
    let files = segments(&path);
    assert!(files.len() >= 10, "segments: {files:?}");
    let tail = tail_keys(&path);
    assert!(tail.len() >= 4 && tail.len() < 4 + 3, "sled keeps {tail:?}");
    assert_eq!(tail.last(), Some(&40));
    let store = SledEventStore::open(&small(&path).archiving(Archiving::Off)).unwrap();
    runtime().block_on(async {
        let all = read_all(&store, 5).await;
        assert_eq!(all.len(), 40);
        let head = verify(&all).unwrap();
        assert_eq!(head, store.head().await.unwrap());
        // Every window, across the archive and into sled, is the same records.
        for from in 1..=41u64 {
            for limit in [1usize, 2, 3, 7, 100] {
                let got = store.read(from, limit).await.unwrap();
                let want: Vec<_> = all.iter().filter(|r| r.seq >= from).take(limit).cloned().collect();
                assert_eq!(got, want, "read({from}, {limit})");
            }
        }
        // The chain goes on after a reopen.
        drop(store);
        let store = SledEventStore::open(&small(&path)).unwrap();
        append(&store, 10).await;
        let all = read_all(&store, 4).await;
        assert_eq!(verify(&all).unwrap().seq, 50);
    });
}

#[test]
fn a_store_with_archiving_off_keeps_everything_in_sled_and_a_writer_moves_it_later() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store");
    fill(&small(&path).archiving(Archiving::Off), 20);
    assert!(segments(&path).is_empty());
    assert_eq!(tail_keys(&path).len(), 20);
    let store = SledEventStore::open(&small(&path)).unwrap();
    // Inline: an append moves at most one segment.
    runtime().block_on(append(&store, 1));
    assert_eq!(segments(&path).len(), 1);
    // `archive` moves every segment that is due.
    assert_eq!(store.archive().unwrap(), 12);
    drop(store);
    assert_eq!(segments(&path).len(), 5);
    assert_eq!(tail_keys(&path), (16..=21).collect::<Vec<_>>());
    assert_eq!(verify(&read_everything(&small(&path)).unwrap()).unwrap().seq, 21);
}

#[test]
fn the_background_archiver_moves_segments_off_the_appends_path() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store");
    let config = small(&path).archiving(Archiving::Background);
    runtime().block_on(async {
        let store = SledEventStore::open(&config).unwrap();
        append(&store, 30).await;
        let deadline = Instant::now() + Duration::from_secs(10);
        while segments(&path).len() < 8 && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(segments(&path).len() >= 8, "the archiver moved {:?}", segments(&path));
        assert_eq!(verify(&read_all(&store, 6).await).unwrap().seq, 30);
    });
}

#[test]
fn a_segment_edited_cut_or_replaced_is_refused_with_its_first_seq() {
    for damage in ["edit", "truncate", "symlink", "remove_first", "remove_last"] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store");
        fill(&small(&path), 30);
        let files = segments(&path);
        let victim = if damage == "remove_last" { files.last() } else { files.first() }.unwrap().clone();
        let first: u64 = victim.file_stem().unwrap().to_str().unwrap().parse().unwrap();
        match damage {
            "edit" => {
                let mut bytes = std::fs::read(&victim).unwrap();
                let at = bytes.len() - 2;
                bytes[at] ^= 1;
                std::fs::remove_file(&victim).unwrap();
                std::fs::write(&victim, bytes).unwrap();
            }
            "truncate" => {
                let bytes = std::fs::read(&victim).unwrap();
                std::fs::remove_file(&victim).unwrap();
                std::fs::write(&victim, &bytes[..bytes.len() - 1]).unwrap();
            }
            "symlink" => {
                let copy = dir.path().join("copy.seg");
                std::fs::copy(&victim, &copy).unwrap();
                std::fs::remove_file(&victim).unwrap();
                std::os::unix::fs::symlink(&copy, &victim).unwrap();
            }
            _ => std::fs::remove_file(&victim).unwrap(),
        }
        match read_everything(&small(&path)) {
            Err(StoreError::Corrupt { seq, why }) => {
                assert_eq!(seq, first, "{damage}: {why}");
            }
            other => panic!("{damage}: a damaged segment was read: {:?}", other.map(|r| r.len())),
        }
    }
}

#[test]
fn a_broken_chain_in_sled_is_never_archived() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store");
    fill(&small(&path).archiving(Archiving::Off), 12);
    {
        let db = raw_sled(&path);
        let events = db.open_tree("events").unwrap();
        let mut value = events.get(3u64.to_be_bytes()).unwrap().unwrap().to_vec();
        *value.last_mut().unwrap() ^= 1;
        events.insert(3u64.to_be_bytes(), value).unwrap();
        db.flush().unwrap();
    }
    let store = SledEventStore::open(&small(&path)).unwrap();
    match store.archive() {
        Err(StoreError::Corrupt { seq: 3, why }) => assert!(why.contains("not archived"), "{why}"),
        other => panic!("a broken chain was archived: {other:?}"),
    }
    drop(store);
    assert!(
        segments(&path).is_empty() || {
            let db = raw_sled(&path);
            db.open_tree("archive").unwrap().is_empty()
        }
    );
    assert_eq!(tail_keys(&path).len(), 12, "nothing left sled");
}

/// A move cut short after its segment was listed and before its keys left sled: readers skip
/// the keys, the head is right, and the next move removes them.
#[test]
fn keys_a_cut_short_move_left_in_sled_are_skipped_then_removed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store");
    fill(&small(&path), 20);
    let before = read_everything(&small(&path)).unwrap();
    let tail = tail_keys(&path);
    {
        let db = raw_sled(&path);
        let events = db.open_tree("events").unwrap();
        for record in before.iter().filter(|r| r.seq < tail[0]) {
            let mut value = record.hash.as_bytes().to_vec();
            value.extend_from_slice(&record.body);
            events.insert(record.seq.to_be_bytes(), value).unwrap();
        }
        db.flush().unwrap();
    }
    assert_eq!(tail_keys(&path).len(), 20);
    assert_eq!(read_everything(&small(&path)).unwrap(), before);
    let store = SledEventStore::open(&small(&path)).unwrap();
    runtime().block_on(append(&store, 3));
    drop(store);
    assert!(tail_keys(&path)[0] > tail[0], "the leftovers were removed: {:?}", tail_keys(&path));
    assert_eq!(verify(&read_everything(&small(&path)).unwrap()).unwrap().seq, 23);
}

/// A move cut short after its file was renamed and before it was listed (or before the temp
/// file was renamed): the events are still in sled, and the next move writes over both.
#[test]
fn files_a_cut_short_move_left_are_written_over() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store");
    fill(&small(&path).archiving(Archiving::Off), 10);
    let archive = path.join("archive");
    std::fs::create_dir(&archive).unwrap();
    std::fs::write(archive.join("00000000000000000001.seg"), b"an unlisted leftover").unwrap();
    // A temporary file a killed move left, and a link planted where one would be: removed,
    // never written through.
    std::fs::write(archive.join(".00000000000000000001.seg.0f0f.tmp"), b"half a segment").unwrap();
    let outside = dir.path().join("outside");
    std::fs::write(&outside, b"not the archive's").unwrap();
    std::os::unix::fs::symlink(&outside, archive.join(".00000000000000000001.seg.tmp")).unwrap();
    let store = SledEventStore::open(&small(&path)).unwrap();
    assert_eq!(store.archive().unwrap(), 6);
    drop(store);
    assert_eq!(std::fs::read(&outside).unwrap(), b"not the archive's");
    let left: Vec<_> = std::fs::read_dir(&archive)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
    assert_eq!(verify(&read_everything(&small(&path)).unwrap()).unwrap().seq, 10);
}

#[test]
fn an_archive_directory_that_is_a_link_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store");
    fill(&small(&path), 20);
    let elsewhere = dir.path().join("elsewhere");
    std::fs::rename(path.join("archive"), &elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, path.join("archive")).unwrap();
    match SledEventStore::open(&small(&path)) {
        Err(StoreError::Corrupt { why, .. }) => assert!(why.contains("archive"), "{why}"),
        other => panic!("opened through a link: {:?}", other.map(|_| ())),
    }
}

/// Readers walking the log while segments are moved under them (the background archiver,
/// segments of 3) see every event once, in order: a key removed under a walk is read from its
/// segment. Whether a walk meets a move here is up to the scheduler; the unit test
/// `a_walk_that_meets_a_move_reads_the_moved_events_from_their_segment` makes it meet one.
#[test]
fn walks_during_moves_see_every_event_once_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store");
    let store = SledEventStore::open(&small(&path).archiving(Archiving::Background)).unwrap();
    runtime().block_on(async {
        // The writer goes on past 300 events until the reader has walked 4 times: on a loaded
        // machine a writer that stopped at 300 could finish before the walks had begun.
        let walked = Arc::new(AtomicUsize::new(0));
        let writer = {
            let (store, walked) = (store.clone(), walked.clone());
            tokio::spawn(async move {
                while store.head().await.unwrap().seq < 300 || walked.load(Ordering::SeqCst) < 4 {
                    append(&store, 1).await;
                }
                store.head().await.unwrap().seq
            })
        };
        let mut walks = 0;
        while !writer.is_finished() {
            let head = store.head().await.unwrap();
            let records = read_all(&store, 2).await;
            assert!(records.len() as u64 >= head.seq, "a walk missed events");
            verify(&records).unwrap();
            walks += 1;
            walked.store(walks, Ordering::SeqCst);
            // Reads at the seqs being moved right now, where a walk meets a removed key.
            for _ in 0..50 {
                for from in head.seq.saturating_sub(8).max(1)..=head.seq {
                    let got = store.read(from, 1).await.unwrap();
                    assert_eq!(got.first().map(|r| r.seq), Some(from), "read({from}, 1)");
                }
            }
        }
        let written = writer.await.unwrap();
        assert!(walks > 3, "only {walks} walks ran during the appends");
        assert_eq!(verify(&read_all(&store, 2).await).unwrap().seq, written);
        // The archiver catches up (300 events or more, 4 to 6 kept: at least 98 segments of 3).
        let deadline = Instant::now() + Duration::from_secs(10);
        while segments(&path).len() < 98 && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(segments(&path).len() >= 98, "the archiver moved {} segments", segments(&path).len());
    });
}

/// A segment removed, cut or replaced anywhere in the archive refuses the store when it is
/// opened, before any decision is made on it: `rm` of an old segment is not a quiet way to
/// lose history (an edit that keeps the length is found when the segment is read).
#[test]
fn a_store_missing_any_segment_is_refused_on_open() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store");
    fill(&small(&path), 30);
    let files = segments(&path);
    let middle = files[files.len() / 2].clone();
    let first: u64 = middle.file_stem().unwrap().to_str().unwrap().parse().unwrap();
    std::fs::remove_file(&middle).unwrap();
    match SledEventStore::open(&small(&path)) {
        Err(StoreError::Corrupt { seq, why }) => assert_eq!(seq, first, "{why}"),
        other => panic!("opened without segment {first}: {:?}", other.map(|_| ())),
    }
}
