//! The gate through the facade against the domain's gate alone, in one run (issue 22: the gate
//! through `Warden` on the in-memory store ≤ 2 × the domain gate alone). Both parse the same
//! request, persona and four subagent files held in memory; the facade also reads them through
//! its file-system port, catches its records up, encodes, hashes and appends
//! `delegation_evaluated`, and hands out the grant.

use std::collections::BTreeMap;
use std::hint::black_box;
use std::path::Path;
use std::sync::Arc;

use agentwarden::governance::{FileRead, evaluate};
use agentwarden::guardrails::TreeManifest;
use agentwarden::{Config, FileSystem, FixedEnvironment, MemoryEventStore, Warden};
use criterion::{Criterion, criterion_group, criterion_main};

#[path = "../../domain/benches/support/gate_inputs.rs"]
mod gate_inputs;
use gate_inputs::{ENABLE, NAMES, PERSONA, REQUEST, agent_file, agent_files, parse_all};

#[expect(clippy::panic, reason = "a broken bench setup must stop the bench")]
fn fail(why: &str) -> ! {
    panic!("bench setup failed: {why}")
}

/// The instruction files, by path, in memory.
struct Files(BTreeMap<String, String>);

#[async_trait::async_trait]
impl FileSystem for Files {
    async fn read_text(&self, path: &Path, _max_bytes: u64) -> FileRead {
        self.0.get(&path.display().to_string()).cloned().map_or(FileRead::Missing, FileRead::Text)
    }

    async fn snapshot(&self, _root: &Path, _protected: &[String]) -> Result<TreeManifest, String> {
        Err("not in this bench".into())
    }

    async fn write_atomic(&self, _path: &Path, _bytes: &[u8]) -> Result<(), String> {
        Err("not in this bench".into())
    }
}

fn facade_gate(c: &mut Criterion) {
    let files = agent_files();
    let config = Config::default();
    let mut by_path = BTreeMap::new();
    by_path.insert(
        config.subagents.personas_dir.join("AGENT_MANAGER.md").display().to_string(),
        PERSONA.to_owned(),
    );
    for name in NAMES {
        by_path.insert(
            config.subagents.agents_dir.join(format!("AGENT_{name}.md")).display().to_string(),
            agent_file(name),
        );
    }
    let warden = Warden::builder()
        .store(Arc::new(MemoryEventStore::new()))
        .file_system(Arc::new(Files(by_path)))
        .environment(Arc::new(FixedEnvironment::with(ENABLE, "true")))
        .config(config)
        .build()
        .unwrap_or_else(|e| fail(&e.to_string()));
    let runtime =
        tokio::runtime::Builder::new_current_thread().build().unwrap_or_else(|e| fail(&e.to_string()));
    let first = runtime.block_on(warden.evaluate_delegation(REQUEST));
    if first.grant.is_none() {
        fail(&format!("the bench must measure an allow: {:?}", first.report.first_failure));
    }
    if evaluate(&parse_all(&files)).report.delegated.len() != 4 {
        fail("the baseline must measure an allow");
    }
    let mut group = c.benchmark_group("facade_gate");
    group.bench_function("domain_alone", |b| b.iter(|| evaluate(&parse_all(black_box(&files)))));
    group.bench_function("warden_memory", |b| {
        b.iter(|| runtime.block_on(warden.evaluate_delegation(black_box(REQUEST))))
    });
    group.finish();
}

criterion_group!(benches, facade_gate);
criterion_main!(benches);
