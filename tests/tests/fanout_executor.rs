//! The fan-out executor with real processes: one chunk succeeds, one exits non-zero, one prints
//! garbage, one sleeps past its timeout. The run is degraded with the right statuses, and it
//! ends in about the timeout, not the sleep.

use std::sync::Arc;
use std::time::{Duration, Instant};

use agentwarden::ProcessChunkRunner;
use agentwarden::fanout::run_chunks;
use agentwarden::fanout_rules::{ChunkStatus, MergeStatus};

/// Reads its chunk from stdin and behaves by `chunk_index`.
const AGENT: &str = r#"read input
case "$input" in
  *'"chunk_index":0'*) echo '{"chunk_index":0,"status":"completed","elapsed_ms":5,"test_results":{"passed":3,"failed":0,"skipped":0},"coverage":{"covered":8,"total":10}}' ;;
  *'"chunk_index":1'*) echo 'boom' >&2; exit 3 ;;
  *'"chunk_index":2'*) echo 'this is not json' ;;
  *'"chunk_index":3'*) exec sleep 30 ;;
esac"#;

fn runner() -> Arc<ProcessChunkRunner> {
    Arc::new(ProcessChunkRunner { program: "sh".into(), args: vec!["-c".into(), AGENT.into()] })
}

fn chunks(n: usize) -> Vec<Vec<String>> {
    (0..n).map(|i| vec![format!("tests/t{i}.sh")]).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failures_are_collected_and_the_run_ends_at_the_timeout() {
    let started = Instant::now();
    let (outcomes, merged) = run_chunks(runner(), "tests", chunks(4), 4, Duration::from_millis(700)).await;
    let elapsed = started.elapsed();
    let statuses: Vec<ChunkStatus> = outcomes.iter().map(|o| o.status).collect();
    assert_eq!(
        statuses,
        [ChunkStatus::Completed, ChunkStatus::Failed, ChunkStatus::Invalid, ChunkStatus::TimedOut]
    );
    assert!(outcomes[1].error.as_deref().unwrap().contains("exit code 3: boom"), "{:?}", outcomes[1].error);
    assert_eq!(merged.status, MergeStatus::Degraded);
    assert_eq!(merged.test_results.passed, 3);
    assert_eq!(merged.failures.len(), 3);
    assert!(elapsed < Duration::from_secs(5), "the run took {elapsed:?}: it waited for the sleeper");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn all_chunks_failing_is_a_failed_run() {
    let failing = Arc::new(ProcessChunkRunner { program: "false".into(), args: vec![] });
    let (_, merged) = run_chunks(failing, "tests", chunks(3), 2, Duration::from_secs(5)).await;
    assert_eq!(merged.status, MergeStatus::Failed);
    let missing = Arc::new(ProcessChunkRunner { program: "/nonexistent/agent".into(), args: vec![] });
    let (outcomes, merged) = run_chunks(missing, "tests", chunks(2), 2, Duration::from_secs(5)).await;
    assert_eq!(merged.status, MergeStatus::Failed);
    assert!(outcomes[0].error.as_deref().unwrap().contains("cannot start"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_most_max_agents_run_at_once() {
    // Each chunk sleeps 300 ms; 4 chunks with 2 at a time take about 600 ms, not 300.
    let sleeper = Arc::new(ProcessChunkRunner {
        program: "sh".into(),
        args: vec![
            "-c".into(),
            r#"read input; sleep 0.3; echo '{"chunk_index":0,"status":"completed","elapsed_ms":300,"test_results":{"passed":1,"failed":0,"skipped":0}}'"#.into(),
        ],
    });
    let started = Instant::now();
    let (_, merged) = run_chunks(sleeper, "tests", chunks(4), 2, Duration::from_secs(10)).await;
    let elapsed = started.elapsed();
    assert!(elapsed >= Duration::from_millis(580), "{elapsed:?}: more than 2 ran at once");
    assert_eq!(merged.test_results.passed, 4);
}
