//! Subagent-gate benches (issue targets: ≤ 2 µs median on pre-parsed inputs; ≤ 50 µs including
//! the parsing of one persona and four subagent files held in memory).

use std::hint::black_box;

use agentwarden_domain::governance::evaluate;
use criterion::{Criterion, criterion_group, criterion_main};

#[path = "support/gate_inputs.rs"]
mod gate_inputs;
use gate_inputs::{agent_files, parse_all};

fn gate(c: &mut Criterion) {
    let files = agent_files();
    let inputs = parse_all(&files);
    assert_eq!(evaluate(&inputs).report.delegated.len(), 4, "the bench must measure an allow");
    let mut group = c.benchmark_group("gate");
    group.bench_function("pre_parsed", |b| b.iter(|| evaluate(black_box(&inputs))));
    group.bench_function("parse_and_evaluate", |b| b.iter(|| evaluate(&parse_all(black_box(&files)))));
    group.finish();
}

criterion_group!(benches, gate);
criterion_main!(benches);
