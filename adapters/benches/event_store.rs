//! Event-store benches, each against a raw sled baseline measured in the same run:
//!
//! - `append_batch_1000`: a 1000-event append (sealing, hashing, serialising, one flush) vs raw
//!   sled `insert` of the same bytes plus one flush (target: ≥ 0.6 ×);
//! - `durable_append_32_callers`: 32 concurrent single-event durable appends with group commit
//!   vs a naive store that flushes once per append under its lock (target: ≥ 3 ×);
//! - `verify`: a streaming verify of the whole log vs a raw sled scan hashing each value
//!   (target: ≥ 0.6 ×); 1 000 000 events (100 000 with `AGENTWARDEN_BENCH_QUICK=1`). The peak
//!   resident memory before and after is printed, and written to `$AGENTWARDEN_BENCH_MEMORY`.

use std::hint::black_box;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agentwarden_adapters::{SledConfig, SledEventStore};
use agentwarden_domain::audit::{Actor, ChainVerifier, Correlation, CorrelationId, EventDraft, Timestamp};
use agentwarden_domain::events::{AuditEvent, OperatorNote};
use agentwarden_ports::{EventStore, Expected};
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};

fn draft(i: u64) -> EventDraft {
    let message = format!("{i:08} {}", "x".repeat(190));
    EventDraft::new(
        Timestamp::from_unix_millis(1_771_666_200_000).unwrap_or(Timestamp::saturating_from_unix_millis(0)),
        Actor::new("bench").unwrap_or_else(|_| unreachable_actor()),
        Correlation { session: CorrelationId::new("bench-session").ok(), ..Correlation::default() },
        &AuditEvent::OperatorNote(OperatorNote { message }),
    )
    .unwrap_or_else(|e| fail(&e.to_string()))
}

#[expect(clippy::panic, reason = "a broken bench setup must stop the bench")]
fn fail(why: &str) -> ! {
    panic!("bench setup failed: {why}")
}

fn unreachable_actor() -> Actor {
    fail("`bench` is a valid actor")
}

fn runtime(workers: usize) -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .build()
        .unwrap_or_else(|e| fail(&e.to_string()))
}

fn open(dir: &tempfile::TempDir) -> SledEventStore {
    SledEventStore::open(&SledConfig::new(dir.path().join("store"))).unwrap_or_else(|e| fail(&e.to_string()))
}

fn temp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap_or_else(|e| fail(&e.to_string()))
}

/// The bytes our store writes for one event: 32-byte hash ‖ body.
fn record_bytes() -> Vec<u8> {
    let (records, _) = agentwarden_domain::audit::seal_batch(&Default::default(), &[draft(0)])
        .unwrap_or_else(|e| fail(&e.to_string()));
    let body = records.first().map(|r| r.body.clone()).unwrap_or_default();
    [vec![0u8; 32], body].concat()
}

fn append_batch(c: &mut Criterion) {
    let mut group = c.benchmark_group("append_batch_1000");
    group.throughput(Throughput::Elements(1000));
    let rt = runtime(2);
    let dir = temp();
    let store = open(&dir);
    let batch: Vec<EventDraft> = (0..1000).map(draft).collect();
    group.bench_function("warden", |b| {
        b.iter_batched(
            || batch.clone(),
            |batch| rt.block_on(store.append(Expected::Any, batch)).unwrap_or_else(|e| fail(&e.to_string())),
            BatchSize::SmallInput,
        )
    });
    let raw_dir = temp();
    let db = sled::Config::new()
        .path(raw_dir.path())
        .cache_capacity(8 * 1024 * 1024)
        .flush_every_ms(None)
        .open()
        .unwrap_or_else(|e| fail(&e.to_string()));
    let tree = db.open_tree("events").unwrap_or_else(|e| fail(&e.to_string()));
    let value = record_bytes();
    let mut next = 0u64;
    group.bench_function("raw_sled", |b| {
        b.iter(|| {
            for _ in 0..1000 {
                next += 1;
                tree.insert(next.to_be_bytes(), black_box(value.as_slice()))
                    .unwrap_or_else(|e| fail(&e.to_string()));
            }
            db.flush().unwrap_or_else(|e| fail(&e.to_string()))
        })
    });
    group.finish();
}

const CALLERS: u64 = 32;
const PER_CALLER: u64 = 20;

fn durable_concurrent(c: &mut Criterion) {
    let mut group = c.benchmark_group("durable_append_32_callers");
    group.throughput(Throughput::Elements(CALLERS * PER_CALLER));
    group.sample_size(10);
    let rt = runtime(2);
    let dir = temp();
    let store = Arc::new(open(&dir));
    group.bench_function("warden_group_commit", |b| {
        b.iter(|| {
            rt.block_on(async {
                let tasks: Vec<_> = (0..CALLERS)
                    .map(|t| {
                        let store = store.clone();
                        tokio::spawn(async move {
                            for i in 0..PER_CALLER {
                                store
                                    .append(Expected::Any, vec![draft(t * 1000 + i)])
                                    .await
                                    .unwrap_or_else(|e| fail(&e.to_string()));
                            }
                        })
                    })
                    .collect();
                for task in tasks {
                    task.await.unwrap_or_else(|e| fail(&e.to_string()));
                }
            })
        })
    });
    // The naive durable store: one lock, and every append pays for its own flush.
    let raw_dir = temp();
    let db = sled::Config::new()
        .path(raw_dir.path())
        .flush_every_ms(None)
        .open()
        .unwrap_or_else(|e| fail(&e.to_string()));
    let tree = db.open_tree("events").unwrap_or_else(|e| fail(&e.to_string()));
    let naive = Arc::new((db, tree, Mutex::new(0u64)));
    let value = Arc::new(record_bytes());
    group.bench_function("naive_flush_per_append", |b| {
        b.iter(|| {
            let threads: Vec<_> = (0..CALLERS)
                .map(|_| {
                    let (naive, value) = (naive.clone(), value.clone());
                    std::thread::spawn(move || {
                        for _ in 0..PER_CALLER {
                            let (db, tree, seq) = &*naive;
                            let mut seq = seq.lock().unwrap_or_else(|_| fail("lock"));
                            *seq += 1;
                            tree.insert(seq.to_be_bytes(), value.as_slice())
                                .unwrap_or_else(|e| fail(&e.to_string()));
                            db.flush().unwrap_or_else(|e| fail(&e.to_string()));
                        }
                    })
                })
                .collect();
            for thread in threads {
                thread.join().unwrap_or_else(|_| fail("a naive appender panicked"));
            }
        })
    });
    group.finish();
}

fn peak_rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|n| n.parse().ok()))
        })
        .unwrap_or(0)
}

async fn streaming_verify(store: &SledEventStore) -> u64 {
    let mut verifier = ChainVerifier::new();
    let mut next = 1;
    loop {
        let page = store.read(next, 1024).await.unwrap_or_else(|e| fail(&e.to_string()));
        for record in &page {
            verifier.push(record).unwrap_or_else(|e| fail(&e.to_string()));
        }
        match page.last() {
            Some(last) if page.len() == 1024 => next = last.seq + 1,
            _ => break,
        }
    }
    verifier.finish().unwrap_or_else(|e| fail(&e.to_string())).seq
}

fn verify(c: &mut Criterion) {
    let events: u64 = if std::env::var_os("AGENTWARDEN_BENCH_QUICK").is_some() { 100_000 } else { 1_000_000 };
    let rt = runtime(2);
    let dir = temp();
    let store = open(&dir);
    rt.block_on(async {
        for chunk in 0..events / 1000 {
            let batch = (0..1000).map(|i| draft(chunk * 1000 + i)).collect();
            store.append(Expected::Any, batch).await.unwrap_or_else(|e| fail(&e.to_string()));
        }
    });
    let before = peak_rss_kb();
    let mut group = c.benchmark_group("verify");
    group.throughput(Throughput::Elements(events));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(15));
    group.bench_function("warden", |b| b.iter(|| assert_eq!(rt.block_on(streaming_verify(&store)), events)));
    let after = peak_rss_kb();
    drop(store);
    // The same bytes, scanned raw: reopen the same sled files directly.
    let db = sled::Config::new()
        .path(dir.path().join("store"))
        .cache_capacity(8 * 1024 * 1024)
        .open()
        .unwrap_or_else(|e| fail(&e.to_string()));
    let tree = db.open_tree("events").unwrap_or_else(|e| fail(&e.to_string()));
    group.bench_function("raw_sled_scan_hash", |b| {
        b.iter(|| {
            let mut n = 0u64;
            for entry in tree.iter() {
                let (_, value) = entry.unwrap_or_else(|e| fail(&e.to_string()));
                black_box(blake3::hash(&value));
                n += 1;
            }
            assert_eq!(n, events);
        })
    });
    group.finish();
    let report =
        format!("events {events}\npeak_rss_kb_before_verify {before}\npeak_rss_kb_after_verify {after}\n");
    if let Some(path) = std::env::var_os("AGENTWARDEN_BENCH_MEMORY") {
        let _ = std::fs::write(path, &report);
    }
    eprintln!("{report}");
}

criterion_group!(benches, append_batch, durable_concurrent, verify);
criterion_main!(benches);
