//! The ports' contracts (`agentwarden_ports::conformance`), run against every adapter of the
//! workspace: the `EventStore` suite on every backend and through `Box<dyn EventStore>`, the
//! state suites on each store, the `FileSystem` suite on the local file system and the
//! `Restorer` suite on git.

use agentwarden_adapters::{
    Archiving, GitRestorer, LocalFileSystem, MemoryEventStore, SledConfig, SledEventStore,
};
use agentwarden_ports::EventStore;
use agentwarden_ports::conformance;
use agentwarden_tests::event_store::run_all;

fn sled_in(dirs: &mut Vec<tempfile::TempDir>) -> SledEventStore {
    let dir = tempfile::tempdir().unwrap();
    let store = SledEventStore::open(&SledConfig::new(dir.path().join("store"))).unwrap();
    dirs.push(dir);
    store
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn memory_store_meets_the_contract() {
    run_all(MemoryEventStore::new).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sled_store_meets_the_contract() {
    let mut dirs = Vec::new();
    run_all(|| sled_in(&mut dirs)).await;
}

/// With segments of 2 events once 3 stay in sled, the contract's logs cross many
/// segments, moved inline and in the background while the suite reads and appends (S-13).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sled_store_that_archives_meets_the_contract() {
    for archiving in [Archiving::Inline, Archiving::Background] {
        let mut dirs = Vec::new();
        run_all(|| {
            let dir = tempfile::tempdir().unwrap();
            let config = SledConfig::new(dir.path().join("store")).archive_sizes(3, 2).archiving(archiving);
            dirs.push(dir);
            SledEventStore::open(&config).unwrap()
        })
        .await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn boxed_stores_meet_the_contract() {
    run_all(|| -> Box<dyn EventStore> { Box::new(MemoryEventStore::new()) }).await;
    let mut dirs = Vec::new();
    run_all(|| -> Box<dyn EventStore> { Box::new(sled_in(&mut dirs)) }).await;
}

#[tokio::test]
async fn memory_and_sled_state_meet_the_state_contracts() {
    conformance::state::run_all(MemoryEventStore::new).await;
    let mut dirs = Vec::new();
    conformance::state::run_all(|| sled_in(&mut dirs)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_local_file_system_meets_the_file_system_contract() {
    conformance::file_system::run_all(|root: &std::path::Path| LocalFileSystem::beneath(root)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_git_restorer_meets_the_restorer_contract() {
    conformance::restorer::run_all(&GitRestorer::default(), |root: &std::path::Path| {
        LocalFileSystem::beneath(root)
    })
    .await;
}
