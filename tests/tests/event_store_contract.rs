//! The `EventStore` contract, run against every backend and through `Box<dyn EventStore>`.

use agentwarden_adapters::{MemoryEventStore, SledConfig, SledEventStore};
use agentwarden_ports::EventStore;
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

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn boxed_stores_meet_the_contract() {
    run_all(|| -> Box<dyn EventStore> { Box::new(MemoryEventStore::new()) }).await;
    let mut dirs = Vec::new();
    run_all(|| -> Box<dyn EventStore> { Box::new(sled_in(&mut dirs)) }).await;
}
