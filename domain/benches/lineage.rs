//! Lineage benches (issue targets: walk at depth 16 with manifests in a hash map ≤ 1 µs median;
//! three-layer authorization ≤ 2 µs median).

use std::hint::black_box;

use agentwarden_domain::governance::Name;
use agentwarden_domain::lineage::{AgentIdentifier, Manifest, Manifests, ToolCall, authorize, walk};
use criterion::{Criterion, criterion_group, criterion_main};

fn name(s: &str) -> Name {
    Name::new(s).unwrap_or_else(|e| unreachable_name(&e.to_string()))
}

#[expect(clippy::panic, reason = "a broken bench setup must stop the bench")]
fn unreachable_name(why: &str) -> ! {
    panic!("bench setup: {why}")
}

/// Sixteen agent types, each allowed to spawn the next, over a 16-agent lineage.
fn setup() -> (Manifests, Vec<AgentIdentifier>) {
    let types: Vec<Name> = (0..16).map(|i| name(&format!("agent-type-{i:02}"))).collect();
    let manifests: Manifests = types
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let next = types.get(i + 1).cloned().into_iter().collect();
            (
                t.clone(),
                Manifest { can_spawn: next, max_spawn_depth: 16, tools: vec!["read".into(), "write".into()] },
            )
        })
        .collect();
    let lineage = types
        .iter()
        .enumerate()
        .map(|(i, t)| AgentIdentifier {
            id: format!("agent-{i}"),
            agent_type: t.clone(),
            spawn_depth: i as u64,
        })
        .collect();
    (manifests, lineage)
}

fn lineage(c: &mut Criterion) {
    let (manifests, lineage) = setup();
    assert!(walk(&lineage, &manifests).verdict.passed, "the bench must measure a full, passing walk");
    let call = ToolCall {
        agent: lineage.last().cloned().unwrap_or_else(|| unreachable_name("empty lineage")),
        lineage: lineage.clone(),
        tool: "write".into(),
    };
    let mut group = c.benchmark_group("lineage");
    group.bench_function("walk_depth_16", |b| b.iter(|| walk(black_box(&lineage), black_box(&manifests))));
    group.bench_function("authorize_three_layers", |b| {
        b.iter(|| authorize(black_box(&call), black_box(&manifests)))
    });
    group.finish();
}

criterion_group!(benches, lineage);
criterion_main!(benches);
