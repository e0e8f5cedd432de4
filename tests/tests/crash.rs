//! Crash test: a child appends in durable mode and prints each acknowledged `seq`; the parent
//! kills it with SIGKILL at varied moments. After every kill the store must reopen, hold every
//! acknowledged event, and verify. Every other round the child also moves events into archive
//! segments (S-13) as it goes, so kills land inside moves.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::Duration;

use agentwarden_adapters::{SledConfig, SledEventStore};
use agentwarden_domain::audit::verify;
use agentwarden_ports::EventStore;
use agentwarden_tests::event_store::read_all;

const ROUNDS: u64 = 24;

#[test]
fn every_acknowledged_event_survives_kill_9() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store");
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).build().unwrap();
    let mut acknowledged_total = 0;
    // A fixed linear congruential sequence: varied but reproducible kill moments.
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    for round in 0..ROUNDS {
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        let delay = Duration::from_millis(30 + (state >> 33) % 170);
        let mut child = Command::new(env!("CARGO_BIN_EXE_crash_appender"))
            .arg(&path)
            .args(if round % 4 == 3 { &["fsync"][..] } else { &[][..] })
            .args(if round % 2 == 1 { &["archive"][..] } else { &[][..] })
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        child.kill().unwrap(); // SIGKILL on Unix
        child.wait().unwrap();
        let mut out = String::new();
        child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
        // Only complete lines are acknowledgements; a torn last line is not.
        let acknowledged: Vec<u64> = out
            .split_inclusive('\n')
            .filter(|l| l.ends_with('\n'))
            .map(|l| l.trim().parse().unwrap())
            .collect();
        let max_acked = acknowledged.iter().copied().max().unwrap_or(0);
        acknowledged_total += acknowledged.len();

        let store = SledEventStore::open(&SledConfig::new(&path))
            .unwrap_or_else(|e| panic!("round {round}: reopen after kill -9 failed: {e}"));
        runtime.block_on(async {
            let head = store.head().await.unwrap();
            assert!(head.seq >= max_acked, "round {round}: head {} < acknowledged {max_acked}", head.seq);
            let records = read_all(&store, 1024).await;
            assert_eq!(verify(&records), Ok(head), "round {round}: chain does not verify");
        });
    }
    assert!(acknowledged_total > ROUNDS as usize, "the child acknowledged too little to test anything");
    let archived = std::fs::read_dir(path.join("archive")).map_or(0, |d| d.count());
    assert!(archived > 10, "the archiving rounds moved too little to test anything: {archived} files");
}
