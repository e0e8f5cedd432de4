//! Fan-out and fan-in from Rust: eight tests split round-robin across parallel chunk agents,
//! each with a timeout, their results validated and merged, the plan, every chunk and the
//! merge recorded, and the merged result written once. The harness brings its own
//! `ChunkRunner` here (a chunk that fails one test); `ProcessChunkRunner` runs a command.
//!
//! ```sh
//! cargo run -p agentwarden --example fan_out
//! ```

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use agentwarden::fanout::FanOutRequest;
use agentwarden::fanout_rules::{ChunkInput, ChunkRun};
use agentwarden::store::MemoryEventStore;
use agentwarden::wiring::ChunkRunner;
use agentwarden::{Config, Warden};

/// A chunk agent in process: every test passes but those named `flaky`.
struct InProcess;

#[async_trait::async_trait]
impl ChunkRunner for InProcess {
    async fn run_chunk(&self, input: ChunkInput, _timeout: Duration) -> ChunkRun {
        let failures: Vec<&String> = input.items.iter().filter(|t| t.contains("flaky")).collect();
        let result = serde_json::json!({
            "chunk_index": input.chunk_index,
            "status": "completed",
            "elapsed_ms": 1,
            "test_results": {
                "passed": input.items.len() - failures.len(),
                "failed": failures.len(),
                "skipped": 0,
                "failures": failures,
            },
        });
        ChunkRun::Finished {
            exit_code: Some(0),
            stdout: result.to_string().into_bytes(),
            stderr: String::new(),
            stderr_discarded: 0,
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let config = Config::load(Some(&examples.join("fanout/agentwarden.toml")))?;
    let warden = Warden::builder().store(Arc::new(MemoryEventStore::new())).config(config).build()?;

    let tests: Vec<String> =
        (1..=8).map(|n| format!("tests/t{n}{}.sh", if n == 5 { "_flaky" } else { "" })).collect();
    let request = FanOutRequest { phase: "tests".into(), items: serde_json::json!(tests), run: None };
    let report = warden.run_fan_out(request, Arc::new(InProcess), std::future::pending()).await?;

    println!("{} chunks; merged {:?}", report.chunks.len(), report.merged.status);
    println!(
        "  passed {}, failed {}; written once under `{}`",
        report.merged.test_results.passed, report.merged.test_results.failed, report.state_key
    );
    assert!(warden.verify(None).await?.is_intact());
    Ok(())
}
