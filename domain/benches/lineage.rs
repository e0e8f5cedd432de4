//! Lineage benches (issue targets: walk at depth 16 with manifests in a hash map ≤ 1 µs median;
//! three-layer authorization ≤ 2 µs median).

use std::hint::black_box;

use agentwarden_domain::governance::Name;
use agentwarden_domain::lineage::syntax::SHELL;
use agentwarden_domain::lineage::{
    AgentIdentifier, CallArgument, Manifest, Manifests, ToolCall, ToolRule, ToolRuleSet, ToolUse, authorize,
    walk,
};
use criterion::{Criterion, criterion_group, criterion_main};

fn name(s: &str) -> Name {
    Name::new(s).unwrap_or_else(|e| unreachable_name(&e.to_string()))
}

#[expect(clippy::panic, reason = "a broken bench setup must stop the bench")]
fn unreachable_name(why: &str) -> ! {
    panic!("bench setup: {why}")
}

fn rules(texts: &[&str]) -> ToolRuleSet {
    texts.iter().map(|t| ToolRule::parse(t).unwrap_or_else(|e| unreachable_name(&e.to_string()))).collect()
}

/// Issue 24's case: a lineage of depth 8 whose every manifest has 50 rules of every form, the
/// one that grants the call last, so every layer reads every rule.
fn rules_setup() -> (Manifests, ToolCall) {
    let mut texts: Vec<String> = Vec::new();
    for i in 0..49 {
        texts.push(match i % 7 {
            0 => format!("Bash(cargo build-{i}:*)"),
            1 => format!("Edit(src/module_{i}/**)"),
            2 => format!("Read(//etc/conf-{i}/*)"),
            3 => format!("mcp__server{i}__*"),
            4 => format!("WebFetch(domain:host{i}.example.com)"),
            5 => format!("Bash(git * branch-{i})"),
            _ => format!("Tool{i}"),
        });
    }
    texts.push("Bash(npm test:*)".to_owned());
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    let types: Vec<Name> = (0..9).map(|i| name(&format!("agent-type-{i:02}"))).collect();
    let manifests: Manifests = types
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let next = types.get(i + 1).cloned().into_iter().collect();
            (t.clone(), Manifest { can_spawn: next, max_spawn_depth: 16, tools: rules(&texts) })
        })
        .collect();
    let lineage: Vec<AgentIdentifier> = types
        .iter()
        .enumerate()
        .map(|(i, t)| AgentIdentifier {
            id: format!("agent-{i}"),
            agent_type: t.clone(),
            spawn_depth: i as u64,
        })
        .collect();
    let line = CallArgument::Command("npm test -- --watch=false src/lib".to_owned());
    let call = ToolCall {
        agent: lineage.last().cloned().unwrap_or_else(|| unreachable_name("empty lineage")),
        lineage,
        tool: ToolUse::resolve(SHELL, &line, "/p", "/p", &agentwarden_domain::lineage::NoLinks),
    };
    (manifests, call)
}

/// Sixteen agent types, each allowed to spawn the next, over a 16-agent lineage.
fn setup() -> (Manifests, Vec<AgentIdentifier>) {
    let types: Vec<Name> = (0..16).map(|i| name(&format!("agent-type-{i:02}"))).collect();
    let manifests: Manifests = types
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let next = types.get(i + 1).cloned().into_iter().collect();
            (t.clone(), Manifest { can_spawn: next, max_spawn_depth: 16, tools: rules(&["read", "write"]) })
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
    assert!(walk(&lineage, &manifests).verdict.passed(), "the bench must measure a full, passing walk");
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
    let (manifests, call) = rules_setup();
    assert_eq!(
        authorize(&call, &manifests).decision,
        agentwarden_domain::verdict::Decision::Allow,
        "the bench must measure a call every layer grants"
    );
    group.bench_function("authorize_depth_8_50_rules", |b| {
        b.iter(|| authorize(black_box(&call), black_box(&manifests)))
    });
    group.finish();
}

criterion_group!(benches, lineage);
criterion_main!(benches);
