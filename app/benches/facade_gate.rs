//! The gate through the facade against the domain's gate alone, in one run (issue 22: the gate
//! through `Warden` on the in-memory store ≤ 2 × the domain gate alone). Both parse the same
//! request, persona and four subagent files held in memory; the facade also reads them through
//! its file-system port, catches its records up, encodes, hashes and appends
//! `delegation_evaluated`, and hands out the grant.
//!
//! `warden_memory_sealed` is the same call with a seal in force (`warden seal` recorded first,
//! its workspace a temporary directory holding the same files): the facade then also digests
//! every file it reads and compares them with the seal (G-20). It has no domain counterpart
//! here; it shows what the seal adds.

use std::collections::BTreeMap;
use std::hint::black_box;
use std::path::Path;
use std::sync::Arc;

use agentwarden::governance::{FileRead, evaluate};
use agentwarden::guardrails::TreeManifest;
use agentwarden::human::Signer;
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

/// The persona's and the subagents' files, by the paths `config` reads them at.
fn by_path(config: &Config) -> BTreeMap<String, String> {
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
    by_path
}

fn warden(config: Config) -> Warden {
    Warden::builder()
        .store(Arc::new(MemoryEventStore::new()))
        .file_system(Arc::new(Files(by_path(&config))))
        .environment(Arc::new(FixedEnvironment::with(ENABLE, "true")))
        .config(config)
        .build()
        .unwrap_or_else(|e| fail(&e.to_string()))
}

/// A Warden whose workspace is `dir`, holding the files on disk too (`warden seal` lists the
/// directories; every read goes through the in-memory port), with a seal recorded.
fn sealed_warden(dir: &Path, runtime: &tokio::runtime::Runtime) -> Warden {
    let mut config = Config { root: dir.to_path_buf(), ..Config::default() };
    config.subagents.personas_dir = dir.join("personas");
    config.subagents.agents_dir = dir.join("agents");
    for (path, text) in by_path(&config) {
        let path = Path::new(&path);
        let written =
            path.parent().map_or(Ok(()), std::fs::create_dir_all).and_then(|()| std::fs::write(path, text));
        written.unwrap_or_else(|e| fail(&e.to_string()));
    }
    let warden = warden(config);
    let signer = Signer { by: Some("ryan".into()), key: None };
    runtime.block_on(warden.seal(&signer)).unwrap_or_else(|e| fail(&e.to_string()));
    warden
}

fn facade_gate(c: &mut Criterion) {
    let files = agent_files();
    let warden = warden(Config::default());
    let runtime =
        tokio::runtime::Builder::new_current_thread().build().unwrap_or_else(|e| fail(&e.to_string()));
    let workspace = tempfile::tempdir().unwrap_or_else(|e| fail(&e.to_string()));
    let sealed = sealed_warden(workspace.path(), &runtime);
    for (which, warden) in [("warden_memory", &warden), ("warden_memory_sealed", &sealed)] {
        let first = runtime.block_on(warden.evaluate_delegation(REQUEST));
        if first.grant.is_none() {
            fail(&format!("{which} must measure an allow: {:?}", first.report.first_failure));
        }
        if which == "warden_memory_sealed" && first.report.recorded.is_none() {
            fail("warden_memory_sealed must check the seal");
        }
    }
    if evaluate(&parse_all(&files)).report.delegated.len() != 4 {
        fail("the baseline must measure an allow");
    }
    let mut group = c.benchmark_group("facade_gate");
    group.bench_function("domain_alone", |b| b.iter(|| evaluate(&parse_all(black_box(&files)))));
    group.bench_function("warden_memory", |b| {
        b.iter(|| runtime.block_on(warden.evaluate_delegation(black_box(REQUEST))))
    });
    group.bench_function("warden_memory_sealed", |b| {
        b.iter(|| runtime.block_on(sealed.evaluate_delegation(black_box(REQUEST))))
    });
    group.finish();
}

criterion_group!(benches, facade_gate);
criterion_main!(benches);
