//! The Merkle tree the sled store keeps: written as events are appended, level with the
//! events after reopening and after archiving, built once for a store that has none, and mended
//! on opening when a crash left it behind or ahead of its events.

use std::path::Path;
use std::time::Duration;

use agentwarden_adapters::{Archiving, SledConfig, SledEventStore};
use agentwarden_ports::EventStore;
use agentwarden_tests::event_store::{
    append_random, kept_nodes_are_the_events_nodes, the_kept_tree_survives_reopening,
};
use agentwarden_tests::raw_sled;

fn config(path: &Path) -> SledConfig {
    SledConfig::new(path).lock_timeout(Duration::from_secs(10))
}

/// How many nodes of level 6 and above a log of `size` events has: what the `merkle` tree holds.
fn kept_count(size: u64) -> usize {
    (6..64).map(|level| usize::try_from(size >> level).unwrap()).sum()
}

fn merkle_keys(path: &Path) -> usize {
    raw_sled(path).open_tree("merkle").unwrap().len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn appends_write_the_kept_nodes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store");
    let store = SledEventStore::open(&config(&path)).unwrap();
    append_random(&store, 1, 300).await;
    kept_nodes_are_the_events_nodes(&store, 1, 13).await;
    drop(store);
    assert_eq!(merkle_keys(&path), kept_count(300), "levels 6 and up, nothing below");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_kept_tree_survives_reopening_with_and_without_an_archive() {
    for archived in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store");
        // Segments of 5 events once 7 stay in sled: most nodes cover archived events.
        let open = || {
            let config = config(&path);
            let config =
                if archived { config.archive_sizes(7, 5).archiving(Archiving::Inline) } else { config };
            SledEventStore::open(&config).unwrap()
        };
        the_kept_tree_survives_reopening(open(), |store| {
            drop(store);
            open()
        })
        .await;
        let store = open();
        store.archive().unwrap();
        kept_nodes_are_the_events_nodes(&store, 9, 17).await;
        if archived {
            assert!(std::fs::read_dir(path.join("archive")).unwrap().count() > 10, "the log was archived");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_without_a_tree_builds_it_once_on_opening() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store");
    let store = SledEventStore::open(&config(&path).archive_sizes(20, 30)).unwrap();
    append_random(&store, 2, 333).await;
    drop(store);
    // A store written before the tree was kept: no `merkle` tree at all.
    let db = raw_sled(&path);
    assert!(db.drop_tree("merkle").unwrap());
    db.flush().unwrap();
    drop(db);
    let store = SledEventStore::open(&config(&path)).unwrap();
    kept_nodes_are_the_events_nodes(&store, 2, 10).await;
    drop(store);
    assert_eq!(merkle_keys(&path), kept_count(333));
}

/// A kept node's key in the `merkle` tree: level ‖ index.
fn node(level: u8, index: u64) -> Vec<u8> {
    let mut key = vec![level];
    key.extend_from_slice(&index.to_be_bytes());
    key
}

/// An edit of the `merkle` tree.
type Edit = fn(&sled::Tree);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tree_behind_ahead_of_or_missing_from_its_events_is_mended_on_opening() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store");
    let store = SledEventStore::open(&config(&path)).unwrap();
    append_random(&store, 3, 200).await;
    drop(store);
    let edits: [(&str, Edit); 3] = [
        ("behind: the last block's node lost", |tree| {
            tree.remove(node(6, 2)).unwrap();
        }),
        ("ahead: nodes past the head", |tree| {
            tree.insert(node(6, 3), &[7; 32][..]).unwrap();
            tree.insert(node(8, 0), &[7; 32][..]).unwrap();
        }),
        ("the right edge's first node missing", |tree| {
            tree.remove(node(7, 0)).unwrap();
        }),
    ];
    for (what, edit) in edits {
        let db = raw_sled(&path);
        let tree = db.open_tree("merkle").unwrap();
        edit(&tree);
        db.flush().unwrap();
        drop(tree);
        drop(db);
        let store = SledEventStore::open(&config(&path)).unwrap();
        assert_eq!(store.head().await.unwrap().seq, 200, "{what}");
        kept_nodes_are_the_events_nodes(&store, 4, 9).await;
        drop(store);
        assert_eq!(merkle_keys(&path), kept_count(200), "{what}");
    }
}
