//! Durable appends per second with 1, 8 and 32 concurrent callers, on PostgreSQL and on sled in
//! the same run. Every iteration appends [`EVENTS`] single-event batches in all, split across
//! the callers, so the times compare directly: with group commit, 32 callers should be ≥ 5 ×
//! one caller on PostgreSQL (one transaction, one WAL flush, for everything queued).
//!
//! PostgreSQL is `AGENTWARDEN_TEST_PG` (default `postgres://postgres@127.0.0.1:5432/test`), in a
//! schema of the bench's own, dropped at the end; without a server the PostgreSQL rows are
//! skipped, saying so.

use std::sync::Arc;
use std::time::Duration;

use agentwarden_adapters::{PgConfig, PostgresEventStore, SledConfig, SledEventStore};
use agentwarden_domain::audit::{Actor, Correlation, EventDraft, Timestamp};
use agentwarden_domain::events::{AuditEvent, OperatorNote};
use agentwarden_ports::{EventStore, Expected};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const EVENTS: u64 = 256;
const CALLERS: [u64; 3] = [1, 8, 32];

#[expect(clippy::panic, reason = "a broken bench setup must stop the bench")]
fn fail(why: &str) -> ! {
    panic!("bench setup failed: {why}")
}

fn draft(i: u64) -> EventDraft {
    let message = format!("{i:08} {}", "x".repeat(190));
    let at = Timestamp::from_unix_millis(1_771_666_200_000).unwrap_or_else(|e| fail(&e.to_string()));
    let actor = Actor::new("bench").unwrap_or_else(|e| fail(&e.to_string()));
    EventDraft::new(at, actor, Correlation::default(), &AuditEvent::OperatorNote(OperatorNote { message }))
        .unwrap_or_else(|e| fail(&e.to_string()))
}

/// `callers` tasks append `EVENTS / callers` events each, every append durable on return.
async fn append_concurrently(store: Arc<dyn EventStore>, callers: u64) {
    let tasks: Vec<_> = (0..callers)
        .map(|t| {
            let store = store.clone();
            tokio::spawn(async move {
                for i in 0..EVENTS / callers {
                    store
                        .append(Expected::Any, vec![draft(t * 10_000 + i)])
                        .await
                        .unwrap_or_else(|e| fail(&e.to_string()));
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap_or_else(|e| fail(&e.to_string()));
    }
}

/// A PostgreSQL store in a new schema, or `None` (said on stderr) when no server answers.
fn postgres(rt: &tokio::runtime::Runtime, schema: &str) -> Option<Arc<dyn EventStore>> {
    let url = std::env::var("AGENTWARDEN_TEST_PG")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_owned());
    let config =
        PgConfig::parse(&url).and_then(|c| c.schema(schema)).unwrap_or_else(|e| fail(&e.to_string()));
    let store = PostgresEventStore::new(config);
    match rt.block_on(store.connect()) {
        Ok(_) => Some(Arc::new(store)),
        Err(e) => {
            eprintln!("SKIPPED the PostgreSQL rows: {e} (set AGENTWARDEN_TEST_PG to a server)");
            None
        }
    }
}

fn drop_schema(rt: &tokio::runtime::Runtime, schema: &str) {
    let url = std::env::var("AGENTWARDEN_TEST_PG")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_owned());
    rt.block_on(async {
        if let Ok((client, connection)) = tokio_postgres::connect(&url, tokio_postgres::NoTls).await {
            tokio::spawn(connection);
            let _ = client.batch_execute(&format!("DROP SCHEMA IF EXISTS \"{schema}\" CASCADE")).await;
        }
    });
}

fn fleet_append(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap_or_else(|e| fail(&e.to_string()));
    let mut group = c.benchmark_group("fleet_append");
    group.throughput(Throughput::Elements(EVENTS));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(5));
    let schema = format!("aw_bench_{}", std::process::id());
    if let Some(store) = postgres(&rt, &schema) {
        for callers in CALLERS {
            group.bench_function(format!("postgres_{callers}"), |b| {
                b.iter(|| rt.block_on(append_concurrently(store.clone(), callers)))
            });
        }
    }
    let dir = tempfile::tempdir().unwrap_or_else(|e| fail(&e.to_string()));
    let sled: Arc<dyn EventStore> = Arc::new(
        SledEventStore::open(&SledConfig::new(dir.path().join("store")))
            .unwrap_or_else(|e| fail(&e.to_string())),
    );
    for callers in CALLERS {
        group.bench_function(format!("sled_{callers}"), |b| {
            b.iter(|| rt.block_on(append_concurrently(sled.clone(), callers)))
        });
    }
    group.finish();
    drop_schema(&rt, &schema);
}

criterion_group!(benches, fleet_append);
criterion_main!(benches);
