//! A fleet of hosts on one PostgreSQL audit trail: real OS processes appending at once, and one
//! killed with SIGKILL mid-append. Needs `AGENTWARDEN_TEST_PG` (see `agentwarden_tests::pg`).

use std::collections::BTreeSet;
use std::process::{Command, Stdio};
use std::time::Duration;

use agentwarden_adapters::{PgConfig, PostgresEventStore};
use agentwarden_domain::audit::{Envelope, verify};
use agentwarden_ports::EventStore;
use agentwarden_tests::event_store::read_all;
use agentwarden_tests::pg::PgTest;

const APPENDER: &str = env!("CARGO_BIN_EXE_pg_appender");

/// The acknowledged `(first, last)` runs an appender printed.
fn acknowledged(stdout: &[u8]) -> Vec<(u64, u64)> {
    String::from_utf8_lossy(stdout)
        .lines()
        .filter_map(|line| {
            let (first, last) = line.split_once(' ')?;
            Some((first.parse().ok()?, last.parse().ok()?))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_processes_times_a_thousand_appends_make_one_gapless_chain() {
    let Some(pg) = PgTest::start("fleet").await else { return };
    let url = pg.url_for(&pg.schema());
    let hosts: Vec<_> = (0..4)
        .map(|host| {
            Command::new(APPENDER)
                .args([&url, "1000", "1", &format!("host{host}")])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut seqs = BTreeSet::new();
    for host in hosts {
        let output = tokio::task::spawn_blocking(move || host.wait_with_output()).await.unwrap().unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let runs = acknowledged(&output.stdout);
        assert_eq!(runs.len(), 1000);
        for (first, last) in runs {
            assert_eq!(first, last);
            assert!(seqs.insert(first), "seq {first} acknowledged twice");
        }
    }
    assert_eq!(seqs, (1..=4000).collect::<BTreeSet<_>>());
    let store = PostgresEventStore::new(PgConfig::parse(&url).unwrap());
    let records = read_all(&store, 1000).await;
    assert_eq!(records.len(), 4000);
    assert_eq!(verify(&records).unwrap(), store.head().await.unwrap());
    let messages: BTreeSet<_> =
        records.iter().map(|r| Envelope::parse(r).unwrap().payload.get().to_owned()).collect();
    assert_eq!(messages.len(), 4000, "every append stored exactly once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_killed_mid_append_leaves_no_partial_batch() {
    let Some(pg) = PgTest::start("kill").await else { return };
    let url = pg.url_for(&pg.schema());
    const BATCH: u64 = 200;
    let spawn = |label: &str| {
        Command::new(APPENDER)
            .args([&url, "0", &BATCH.to_string(), label])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (mut victim, mut survivor) = (spawn("victim"), spawn("survivor"));
    tokio::time::sleep(Duration::from_millis(1500)).await;
    // SIGKILL: no destructor, no rollback sent; the server aborts the open transaction.
    victim.kill().unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    survivor.kill().unwrap();
    let victim = victim.wait_with_output().unwrap();
    let survivor = survivor.wait_with_output().unwrap();
    let store = PostgresEventStore::new(PgConfig::parse(&url).unwrap());
    let records = read_all(&store, 1000).await;
    assert_eq!(verify(&records).unwrap(), store.head().await.unwrap(), "the chain is intact");
    assert_eq!(records.len() as u64 % BATCH, 0, "only whole batches: {} events", records.len());
    // Every batch is contiguous and from one host, and every acknowledged batch is there.
    for chunk in records.chunks(BATCH as usize) {
        let labels: BTreeSet<_> = chunk
            .iter()
            .map(|r| {
                let payload = Envelope::parse(r).unwrap().payload.get().to_owned();
                payload.rsplit_once('/').unwrap().0.to_owned()
            })
            .collect();
        assert_eq!(labels.len(), 1, "a batch interleaved with another: {labels:?}");
    }
    for (first, last) in acknowledged(&victim.stdout).into_iter().chain(acknowledged(&survivor.stdout)) {
        assert!(
            last <= records.len() as u64 && last - first + 1 == BATCH,
            "acknowledged {first}..{last} is stored"
        );
    }
    assert!(records.len() as u64 >= 2 * BATCH, "both hosts got appends in before the kill");
}
