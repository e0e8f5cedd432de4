//! The gate through the facade against the domain's gate alone, in one run (issue 22: the gate
//! through `Warden` on the in-memory store ≤ 2 × the domain gate alone). Both parse the same
//! request, persona and four subagent files held in memory; the facade also reads them through
//! its file-system port, catches its records up, encodes, hashes and appends
//! `delegation_evaluated`, and hands out the grant.
//!
//! Two rows measure the facade on the in-memory store, because that store keeps every event
//! it is given:
//!
//! - `warden_memory`: one Warden for the whole run. Its log grows without bound (criterion makes
//!   a few hundred thousand decisions: some 1.6 kB of body each, hundreds of megabytes), so
//!   each append writes into memory never touched before (page faults, cache misses) — what a
//!   long-lived embedding of the in-memory store pays, and not a cost of the decision.
//! - `warden_memory_bounded`: the same call, with a fresh Warden and store every
//!   [`FRESH_EVERY`] decisions, built and dropped outside the timed loop (`iter_custom`); the
//!   log stays under about 2 MB. The first decision of each Warden (its records folded from an
//!   empty log) is timed with the rest. This is the row the bound (≤ 2 × the domain
//!   gate) is read from; `warden_memory` is kept beside it so that the growth is not hidden.
//!
//! `FACADE_GATE_CALLS=N FACADE_GATE_ROW=domain_alone|warden_memory` makes N calls of one row
//! without criterion and exits: for instruction counts under callgrind (N and 2N, subtracted).
//!
//! `warden_memory_sealed` is the same call with a seal in force (`warden seal` recorded first,
//! its workspace a temporary directory holding the same files): the facade then also digests
//! every file it reads and compares them with the seal (G-20). It has no domain counterpart
//! here; it shows what the seal adds.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::hint::black_box;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use agentwarden::governance::{FileRead, Request, evaluate};
use agentwarden::guardrails::TreeManifest;
use agentwarden::human::Signer;
use agentwarden::store::MemoryEventStore;
use agentwarden::wiring::{FileSystem, FilesError, FixedEnvironment};
use agentwarden::{Config, Warden};
use criterion::{Criterion, criterion_group};

/// `warden_memory_bounded` decides with a fresh Warden (and store) every this many decisions.
const FRESH_EVERY: u64 = 1000;

#[path = "../../domain/benches/support/gate_inputs.rs"]
mod gate_inputs;
use gate_inputs::{ENABLE, NAMES, PERSONA, REQUEST, agent_file, agent_files, parse_all};

#[expect(clippy::panic, reason = "a broken bench setup must stop the bench")]
fn fail(why: &str) -> ! {
    panic!("bench setup failed: {why}")
}

/// The instruction files, by path, in memory (looked up by the path itself, as the domain
/// row looks its files up by name: neither formats a key on the way).
struct Files(BTreeMap<OsString, String>);

#[async_trait::async_trait]
impl FileSystem for Files {
    async fn read_text(&self, path: &Path, _max_bytes: u64) -> FileRead {
        self.0.get(path.as_os_str()).cloned().map_or(FileRead::Missing, FileRead::Text)
    }

    async fn snapshot(&self, _root: &Path, _protected: &[String]) -> Result<TreeManifest, FilesError> {
        Err(FilesError::Unsupported("is not in this bench"))
    }

    async fn write_atomic(&self, _path: &Path, _bytes: &[u8]) -> Result<(), FilesError> {
        Err(FilesError::Unsupported("is not in this bench"))
    }
}

/// The persona's and the subagents' files, by the paths `config` reads them at.
fn by_path(config: &Config) -> BTreeMap<OsString, String> {
    let mut by_path = BTreeMap::new();
    by_path
        .insert(config.subagents.personas_dir.join("AGENT_MANAGER.md").into_os_string(), PERSONA.to_owned());
    for name in NAMES {
        by_path.insert(
            config.subagents.agents_dir.join(format!("AGENT_{name}.md")).into_os_string(),
            agent_file(name),
        );
    }
    by_path
}

fn memory_warden(config: Config) -> Warden {
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
    let warden = memory_warden(config);
    let signer = Signer { by: Some("ryan".into()), key: None };
    runtime.block_on(warden.seal(&signer)).unwrap_or_else(|e| fail(&e.to_string()));
    warden
}

fn facade_gate(c: &mut Criterion) {
    let files = agent_files();
    let warden = memory_warden(Config::default());
    let runtime =
        tokio::runtime::Builder::new_current_thread().build().unwrap_or_else(|e| fail(&e.to_string()));
    let workspace = tempfile::tempdir().unwrap_or_else(|e| fail(&e.to_string()));
    let sealed = sealed_warden(workspace.path(), &runtime);
    for (which, warden) in [("warden_memory", &warden), ("warden_memory_sealed", &sealed)] {
        let first = runtime.block_on(warden.evaluate_delegation(Request::from_json(REQUEST)));
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
        b.iter(|| runtime.block_on(warden.evaluate_delegation(Request::from_json(black_box(REQUEST)))))
    });
    group.bench_function("warden_memory_bounded", |b| {
        b.iter_custom(|iters| {
            let mut measured = Duration::ZERO;
            let mut done = 0;
            while done < iters {
                // Built, and dropped with its log, outside the timed loop.
                let fresh = memory_warden(Config::default());
                let calls = (iters - done).min(FRESH_EVERY);
                let started = Instant::now();
                for _ in 0..calls {
                    black_box(
                        runtime.block_on(fresh.evaluate_delegation(Request::from_json(black_box(REQUEST)))),
                    );
                }
                measured += started.elapsed();
                done += calls;
            }
            measured
        })
    });
    group.bench_function("warden_memory_sealed", |b| {
        b.iter(|| runtime.block_on(sealed.evaluate_delegation(Request::from_json(black_box(REQUEST)))))
    });
    group.finish();
}

criterion_group!(benches, facade_gate);

/// `FACADE_GATE_CALLS=N FACADE_GATE_ROW=<row>`: makes N calls of one row and exits, without
/// criterion (see the module doc).
fn count_only() -> bool {
    let (Ok(calls), Ok(row)) = (std::env::var("FACADE_GATE_CALLS"), std::env::var("FACADE_GATE_ROW")) else {
        return false;
    };
    let calls: usize = calls.parse().unwrap_or_else(|_| fail("FACADE_GATE_CALLS is a number"));
    let files = agent_files();
    let runtime =
        tokio::runtime::Builder::new_current_thread().build().unwrap_or_else(|e| fail(&e.to_string()));
    match row.as_str() {
        "domain_alone" => {
            for _ in 0..calls {
                black_box(evaluate(&parse_all(black_box(&files))));
            }
        }
        "warden_memory" => {
            let warden = memory_warden(Config::default());
            for _ in 0..calls {
                black_box(
                    runtime.block_on(warden.evaluate_delegation(Request::from_json(black_box(REQUEST)))),
                );
            }
        }
        other => fail(&format!("no row {other}")),
    }
    true
}

fn main() {
    if count_only() {
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
