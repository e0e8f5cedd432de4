//! Fan-out benches (issue 5 targets): plan 1 000 000 items (validate, dedupe, sort, split) with
//! each strategy ≤ 0.5 s and faster than `LC_ALL=C sort -u` on the same items, measured in the
//! same run; merge 10 000 chunk results ≤ 10 ms.

use std::hint::black_box;
use std::io::Write;
use std::process::{Command, Stdio};

use agentwarden_domain::fanout::{
    ChunkOutcome, PhaseConfig, PhaseKind, Plan, Strategy, WorkItems, merge, plan, validate_chunk_result,
    validate_items,
};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::Value;

#[expect(clippy::panic, reason = "a broken bench setup must stop the bench")]
fn fail(why: &str) -> ! {
    panic!("bench setup failed: {why}")
}

fn items() -> Vec<String> {
    // A realistic shape: directories of files, in a scrambled order with some duplicates.
    (0..1_000_000u64)
        .map(|i| {
            let n = i.wrapping_mul(2_654_435_761) % 950_000;
            format!("src/module_{:03}/test_{n:07}.rs", n % 997)
        })
        .collect()
}

fn plan_items(value: &Value, strategy: Strategy) -> Plan {
    let (WorkItems::Items(list), _) = validate_items(value) else { fail("no items") };
    let phase = PhaseConfig { kind: PhaseKind::Tests, strategy, per_agent: 250, min_threshold: 250 };
    plan(list, &phase, 8, false)
}

fn sort_u(input: &[u8]) -> usize {
    let mut child = Command::new("sort")
        .arg("-u")
        .env("LC_ALL", "C")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| fail(&e.to_string()));
    let mut stdin = child.stdin.take().unwrap_or_else(|| fail("stdin"));
    let input = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().unwrap_or_else(|e| fail(&e.to_string()));
    let _ = writer.join();
    out.stdout.len()
}

fn fanout(c: &mut Criterion) {
    let list = items();
    let value = Value::Array(list.iter().cloned().map(Value::String).collect());
    let lines = list.join("\n").into_bytes();
    let mut group = c.benchmark_group("plan_1m");
    group.sample_size(10);
    // Dropping the plan (a million strings) is inside the measurement.
    for (name, strategy) in
        [("round_robin", Strategy::RoundRobin), ("group_by_directory", Strategy::GroupByDirectory)]
    {
        group.bench_function(name, |b| b.iter(|| plan_items(black_box(&value), strategy)));
    }
    group.bench_function("sort_u", |b| b.iter(|| sort_u(black_box(&lines))));
    group.finish();

    let result = serde_json::json!({"chunk_index": 0, "status": "completed", "elapsed_ms": 5,
        "test_results": {"passed": 10, "failed": 1, "skipped": 0, "failures": ["t1"]},
        "coverage": {"covered": 5, "total": 10}});
    let outcomes: Vec<ChunkOutcome> = (0..10_000).map(|i| validate_chunk_result(i, Some(&result))).collect();
    let mut group = c.benchmark_group("merge_10k");
    group.bench_function("warden", |b| b.iter(|| merge(black_box(&outcomes))));
    group.finish();
}

criterion_group!(benches, fanout);
criterion_main!(benches);
