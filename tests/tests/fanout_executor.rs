//! The fan-out executor with real processes: one chunk succeeds, one exits non-zero, one prints
//! garbage, one sleeps past its timeout. The run is degraded with the right statuses, and it
//! ends in about the timeout, not the sleep.

use std::sync::Arc;
use std::time::{Duration, Instant};

use agentwarden::fanout::run_chunks;
use agentwarden::fanout_rules::{ChunkStatus, MergeStatus};
use agentwarden::wiring::ProcessChunkRunner;

/// Reads its chunk from stdin and behaves by `chunk_index`.
const AGENT: &str = r#"read input
case "$input" in
  *'"chunk_index":0'*) echo '{"chunk_index":0,"status":"completed","elapsed_ms":5,"test_results":{"passed":3,"failed":0,"skipped":0},"coverage":{"covered":8,"total":10}}' ;;
  *'"chunk_index":1'*) echo 'boom' >&2; exit 3 ;;
  *'"chunk_index":2'*) echo 'this is not json' ;;
  *'"chunk_index":3'*) exec sleep 30 ;;
esac"#;

fn runner() -> Arc<ProcessChunkRunner> {
    Arc::new(ProcessChunkRunner::new("sh", vec!["-c".into(), AGENT.into()]))
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
    let failing = Arc::new(ProcessChunkRunner::new("false", vec![]));
    let (_, merged) = run_chunks(failing, "tests", chunks(3), 2, Duration::from_secs(5)).await;
    assert_eq!(merged.status, MergeStatus::Failed);
    let missing = Arc::new(ProcessChunkRunner::new("/nonexistent/agent", vec![]));
    let (outcomes, merged) = run_chunks(missing, "tests", chunks(2), 2, Duration::from_secs(5)).await;
    assert_eq!(merged.status, MergeStatus::Failed);
    assert!(outcomes[0].error.as_deref().unwrap().contains("cannot start"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_most_max_agents_run_at_once() {
    // Each chunk sleeps 300 ms; 4 chunks with 2 at a time take about 600 ms, not 300.
    let sleeper = Arc::new(ProcessChunkRunner::new("sh", vec![
            "-c".into(),
            r#"read input; sleep 0.3; echo '{"chunk_index":0,"status":"completed","elapsed_ms":300,"test_results":{"passed":1,"failed":0,"skipped":0}}'"#.into(),
        ]));
    let started = Instant::now();
    let (_, merged) = run_chunks(sleeper, "tests", chunks(4), 2, Duration::from_secs(10)).await;
    let elapsed = started.elapsed();
    assert!(elapsed >= Duration::from_millis(580), "{elapsed:?}: more than 2 ran at once");
    assert_eq!(merged.test_results.passed, 4);
}

/// True while a process with this pid exists and is not a zombie.
fn alive(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| !stat.contains(") Z "))
}

async fn wait_dead(pid: &str) -> bool {
    for _ in 0..50 {
        if !alive(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_a_chunk_leaves_running_dies_with_it() {
    // The agent forks a sleeper that holds stdout open, prints its result and exits. The
    // run must neither wait for the sleeper nor leave it running (F-15).
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    let script = format!(
        r#"read input; sleep 30 & echo $! > {}; echo '{{"chunk_index":0,"status":"completed","elapsed_ms":1,"test_results":{{"passed":1,"failed":0,"skipped":0}}}}'"#,
        pidfile.display()
    );
    let agent = Arc::new(ProcessChunkRunner::new("sh", vec!["-c".into(), script]));
    let started = Instant::now();
    let (outcomes, _) = run_chunks(agent, "tests", chunks(1), 1, Duration::from_secs(20)).await;
    assert!(started.elapsed() < Duration::from_secs(5), "waited {:?} for the sleeper", started.elapsed());
    assert_eq!(outcomes[0].status, ChunkStatus::Completed);
    let pid = std::fs::read_to_string(&pidfile).unwrap();
    assert!(wait_dead(pid.trim()).await, "the agent's background sleeper outlived it");

    // And at the timeout: the agent and its children are killed together.
    let script = format!("read input; sleep 30 & echo $! > {}; sleep 30", pidfile.display());
    let agent = Arc::new(ProcessChunkRunner::new("sh", vec!["-c".into(), script]));
    let (outcomes, _) = run_chunks(agent, "tests", chunks(1), 1, Duration::from_millis(500)).await;
    assert_eq!(outcomes[0].status, ChunkStatus::TimedOut);
    let pid = std::fs::read_to_string(&pidfile).unwrap();
    assert!(wait_dead(pid.trim()).await, "a child outlived the timeout");
}
