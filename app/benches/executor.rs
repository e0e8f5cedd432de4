//! Executor overhead (issue 5 target: 8 chunks of a trivial command ≤ 50 ms over the slowest
//! chunk). Measured as the time to run 8 chunks through the executor, beside the time to run one
//! chunk process alone, in the same run.

use std::sync::Arc;
use std::time::Duration;

use agentwarden::fanout::run_chunks;
use agentwarden::fanout_rules::{ChunkInput, MergeStatus};
use agentwarden::wiring::{ChunkRunner, ProcessChunkRunner};
use criterion::{Criterion, criterion_group, criterion_main};

const AGENT: &str = r#"read input; echo '{"chunk_index":0,"status":"completed","elapsed_ms":0,"test_results":{"passed":1,"failed":0,"skipped":0}}'"#;

#[expect(clippy::panic, reason = "a broken bench setup must stop the bench")]
fn fail(why: &str) -> ! {
    panic!("bench setup failed: {why}")
}

fn executor(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap_or_else(|e| fail(&e.to_string()));
    let runner = Arc::new(ProcessChunkRunner::new("sh", vec!["-c".into(), AGENT.into()]));
    let chunks: Vec<Vec<String>> = (0..8).map(|i| vec![format!("t{i}")]).collect();
    let mut group = c.benchmark_group("executor_8_chunks");
    group.sample_size(20);
    group.bench_function("warden", |b| {
        b.iter(|| {
            let (_, merged) =
                rt.block_on(run_chunks(runner.clone(), "tests", chunks.clone(), 8, Duration::from_secs(30)));
            if merged.status == MergeStatus::Failed {
                fail("the chunks failed");
            }
        })
    });
    group.bench_function("one_chunk_alone", |b| {
        b.iter(|| {
            let input = ChunkInput { chunk_index: 0, phase: "tests".into(), items: vec!["t0".into()] };
            rt.block_on(runner.run_chunk(input, Duration::from_secs(30)))
        })
    });
    group.finish();
}

criterion_group!(benches, executor);
criterion_main!(benches);
