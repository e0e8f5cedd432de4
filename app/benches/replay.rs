//! Replay bench: `Warden::replay` of the `decisions` projection over a log of 1 000 000 events
//! (100 000 with `AGENTWARDEN_BENCH_QUICK=1`) against raw sled scans of the same files in the
//! same run: one that only touches each value, and one that also hashes it (what any verified
//! read must do at least), and against the store's own paged read (`store_read_pages`: the
//! part of a replay that is reading). Target: ≥ 500 000 events/s, and ≥ 0.5 × the raw scan.
//!
//! The log is a realistic mix: allowed and denied `lineage_checked` (3 agents) and
//! `tool_call_authorized` events, and `operator_note`s — every event verified, three in four
//! decoded and folded. Peak resident memory before and after the replays is printed (the
//! replay streams: it must not grow with the log).

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use agentwarden::Warden;
use agentwarden::audit::{Actor, Correlation, CorrelationId, EventDraft, RecordPage, Timestamp};
use agentwarden::events::projections::Decisions;
use agentwarden::events::{AuditEvent, OperatorNote};
use agentwarden::store::{Archiving, EventStore, Expected, SledConfig, SledEventStore};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

#[expect(clippy::panic, reason = "a broken bench setup must stop the bench")]
fn fail(why: &str) -> ! {
    panic!("bench setup failed: {why}")
}

const LINEAGE: &str = r#"{"decision":"allow","result":{"passed":true,"code":null,"reason":"every spawn in the lineage is allowed","pair":null},"lineage_length":3,"lineage_digest":"c9913119426e6e869a8a6a17d9e3d915ee5ef644f7253426b0d4f636024e5848","lineage":[{"id":"o1","type":"orchestrator","spawn_depth":0},{"id":"c1","type":"coder","spawn_depth":1},{"id":"r1","type":"researcher","spawn_depth":2}]}"#;
const DENIED: &str = r#"{"decision":"deny","result":{"passed":false,"code":"spawn_not_allowed","reason":"researcher may not spawn coder (can_spawn)","pair":{"parent":1,"child":2}},"lineage_length":3,"lineage_digest":"8ecdd08823a1d2a191dcb4c396b950a9b9fb82dea76f8ea22f595f17477458fd","lineage":[{"id":"c1","type":"coder","spawn_depth":0},{"id":"r1","type":"researcher","spawn_depth":1},{"id":"c2","type":"coder","spawn_depth":2}]}"#;
const TOOL: &str = r#"{"agent":{"id":"c1","type":"coder","spawn_depth":1},"tool":"write","authorization":{"decision":"allow","layers":[{"layer":1,"name":"capability","passed":true,"code":null,"reason":"the agent's manifest lists the tool"},{"layer":2,"name":"delegation","passed":true,"code":null,"reason":"every ancestor's manifest lists the tool"},{"layer":3,"name":"lineage","passed":true,"code":null,"reason":"every spawn in the lineage is allowed"}],"first_failure":null,"pair":null},"lineage_length":2,"lineage_digest":"4f0c","lineage":[{"id":"o1","type":"orchestrator","spawn_depth":0},{"id":"c1","type":"coder","spawn_depth":1}]}"#;

fn parse<T: serde::de::DeserializeOwned>(text: &str) -> T {
    serde_json::from_str(text).unwrap_or_else(|e| fail(&e.to_string()))
}

fn events() -> [AuditEvent; 4] {
    [
        AuditEvent::LineageChecked(Box::new(parse(LINEAGE))),
        AuditEvent::LineageChecked(Box::new(parse(DENIED))),
        AuditEvent::ToolCallAuthorized(Box::new(parse(TOOL))),
        AuditEvent::OperatorNote(OperatorNote { message: format!("checkpoint {}", "x".repeat(120)) }),
    ]
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

fn replay(c: &mut Criterion) {
    let count: u64 = if std::env::var_os("AGENTWARDEN_BENCH_QUICK").is_some() { 100_000 } else { 1_000_000 };
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap_or_else(|e| fail(&e.to_string()));
    let dir = tempfile::tempdir().unwrap_or_else(|e| fail(&e.to_string()));
    let path = dir.path().join("store");
    // Every event stays in sled (no archive, S-13): the baselines below scan sled's tree raw.
    let store = SledEventStore::open(&SledConfig::new(&path).archiving(Archiving::Off))
        .unwrap_or_else(|e| fail(&e.to_string()));
    let templates = events();
    let actor = Actor::new("bench").unwrap_or_else(|e| fail(&e.to_string()));
    let sessions: Vec<Correlation> = (0..16)
        .map(|s| Correlation {
            session: CorrelationId::new(format!("session-{s}")).ok(),
            ..Correlation::default()
        })
        .collect();
    rt.block_on(async {
        for chunk in 0..count / 1000 {
            let batch = (0..1000u64)
                .map(|i| {
                    let n = chunk * 1000 + i;
                    let at = Timestamp::saturating_from_unix_millis(
                        1_771_666_200_000 + i64::try_from(n).unwrap_or(0) * 10,
                    );
                    let event = templates.get((n % 4) as usize).unwrap_or_else(|| fail("template"));
                    let correlation = sessions.get((n % 16) as usize).cloned().unwrap_or_default();
                    EventDraft::new(at, actor.clone(), correlation, event)
                        .unwrap_or_else(|e| fail(&e.to_string()))
                })
                .collect();
            store.append(Expected::Any, batch).await.unwrap_or_else(|e| fail(&e.to_string()));
        }
    });
    // An investigation opens the store in a fresh process (`warden audit replay`): replay a
    // freshly opened store, as the raw scans below read one, not the writer's warm database.
    drop(store);
    let store =
        SledEventStore::open(&SledConfig::new(&path).create_if_missing(false).archiving(Archiving::Off))
            .unwrap_or_else(|e| fail(&e.to_string()));
    let warden = Warden::builder().store(Arc::new(store)).build().unwrap_or_else(|e| fail(&e.to_string()));
    let before = peak_rss_kb();
    let mut group = c.benchmark_group("replay");
    group.throughput(Throughput::Elements(count));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(15));
    group.bench_function("warden_decisions", |b| {
        b.iter(|| {
            let state = rt.block_on(warden.replay(&Decisions)).unwrap_or_else(|e| fail(&e.to_string()));
            assert_eq!(state.total.allow + state.total.deny, count / 4 * 3);
        })
    });
    // The store's own paged read, nothing verified or decoded: what a replay costs beyond
    // reading is the gap between this and `warden_decisions`.
    group.bench_function("store_read_pages", |b| {
        b.iter(|| {
            let read = rt.block_on(async {
                let mut pages = warden.pages(1, None);
                let mut buffer = RecordPage::new();
                let mut read = 0;
                while let Some(page) = pages.next_into(buffer).await? {
                    read += page.len();
                    buffer = page;
                }
                Ok::<_, agentwarden::store::StoreError>(read)
            });
            assert_eq!(read.unwrap_or_else(|e| fail(&e.to_string())) as u64, count);
        })
    });
    let after = peak_rss_kb();
    drop(warden);
    let db = sled::Config::new()
        .path(&path)
        .cache_capacity(8 * 1024 * 1024)
        .open()
        .unwrap_or_else(|e| fail(&e.to_string()));
    let tree = db.open_tree("events").unwrap_or_else(|e| fail(&e.to_string()));
    group.bench_function("raw_sled_scan", |b| {
        b.iter(|| {
            let mut bytes = 0usize;
            for entry in tree.iter() {
                let (_, value) = entry.unwrap_or_else(|e| fail(&e.to_string()));
                bytes += black_box(value.len());
            }
            assert!(bytes > 0);
        })
    });
    group.bench_function("raw_sled_scan_hash", |b| {
        b.iter(|| {
            for entry in tree.iter() {
                let (_, value) = entry.unwrap_or_else(|e| fail(&e.to_string()));
                black_box(blake3::hash(&value));
            }
        })
    });
    group.finish();
    eprintln!("replay events {count}\npeak_rss_kb_before_replay {before}\npeak_rss_kb_after_replay {after}");
}

criterion_group!(benches, replay);
criterion_main!(benches);
