//! Chunk agents run in a box (F-17, F-18, F-19), with real processes: output past its bounds
//! never blocks an agent, nothing it started outlives it, and it sees only the environment it
//! needs. Each test is bounded by its chunk's timeout.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use agentwarden::fanout::run_chunks;
use agentwarden::fanout_rules::{ChunkInput, ChunkRun, ChunkStatus};
use agentwarden::wiring::ProcessChunkRunner;
use agentwarden_adapters::MAX_CHUNK_STDOUT;
use agentwarden_ports::ChunkRunner;

const RESULT: &str = r#"{"chunk_index":0,"status":"completed","elapsed_ms":1,"test_results":{"passed":1,"failed":0,"skipped":0}}"#;

fn sh(script: &str) -> ProcessChunkRunner {
    ProcessChunkRunner::new("sh", vec!["-c".into(), script.into()])
}

fn input() -> ChunkInput {
    ChunkInput { chunk_index: 0, phase: "tests".into(), items: vec!["tests/t0.sh".into()] }
}

/// True while a process with this pid exists and is not a zombie.
fn alive(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| !stat.contains(") Z "))
}

/// The pid an agent wrote to `file` (waiting a little for it to appear).
async fn pid_in(file: &Path) -> String {
    for _ in 0..100 {
        if let Ok(pid) = std::fs::read_to_string(file)
            && !pid.trim().is_empty()
        {
            return pid.trim().to_owned();
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("no pid in {}", file.display());
}

/// Kills a process a failed test left behind, so it does not outlive the test.
fn cleanup(pid: &str) {
    let _ =
        std::process::Command::new("kill").arg("-9").arg(pid).stderr(std::process::Stdio::null()).status();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chunk_chatty_on_stderr_finishes_completed() {
    // 1 MiB on stderr: far past the pipe's buffer and the 64 KiB kept. Before F-17 the agent
    // blocked on the full pipe and was reported timed out after the whole timeout.
    let script = format!("read input; head -c 1048576 /dev/zero | tr '\\0' e >&2; echo '{RESULT}'");
    let started = Instant::now();
    let run = sh(&script).run_chunk(input(), Duration::from_secs(20)).await;
    assert!(started.elapsed() < Duration::from_secs(10), "took {:?}", started.elapsed());
    let ChunkRun::Finished { exit_code: Some(0), stderr, stderr_discarded, .. } = &run else {
        panic!("{run:?}");
    };
    assert_eq!(*stderr_discarded, 1024 * 1024 - 64 * 1024, "the bytes past the kept head are counted");
    assert!(stderr.starts_with("eee"), "the head is kept");
    let (outcomes, _) =
        run_chunks(Arc::new(sh(&script)), "tests", vec![vec!["t".into()]], 1, Duration::from_secs(20)).await;
    assert_eq!(outcomes[0].status, ChunkStatus::Completed, "{:?}", outcomes[0].error);
    assert_eq!(outcomes[0].warnings, ["983040 bytes of stderr past its bound discarded"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chunk_past_its_stdout_bound_is_invalid_at_once() {
    // 9 MiB on stdout, then it would sleep for the rest of its 30 s timeout: killed at the
    // bound, invalid with that reason, long before the timeout.
    let script = "read input; head -c 9437184 /dev/zero; sleep 30";
    let started = Instant::now();
    let run = sh(script).run_chunk(input(), Duration::from_secs(30)).await;
    assert!(started.elapsed() < Duration::from_secs(10), "took {:?}", started.elapsed());
    let ChunkRun::StdoutTooLarge { limit, read } = run else { panic!("{run:?}") };
    assert_eq!(limit, MAX_CHUNK_STDOUT);
    assert!(read > MAX_CHUNK_STDOUT);
    let (outcomes, _) =
        run_chunks(Arc::new(sh(script)), "tests", vec![vec!["t".into()]], 1, Duration::from_secs(30)).await;
    assert_eq!(outcomes[0].status, ChunkStatus::Invalid);
    assert!(
        outcomes[0].error.as_deref().unwrap_or_default().contains("stdout passed its 8388608-byte bound")
    );
    assert!(started.elapsed() < Duration::from_secs(20), "took {:?}", started.elapsed());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_setsid_grandchild_dies_when_its_chunk_exits() {
    // The grandchild leaves the agent's session and process group, so the group kill of F-15
    // cannot reach it; the subreaper's sweep does (F-18). (The pause lets it leave the group
    // before the agent exits.)
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let pid_file = dir.path().join("pid");
    let script = format!(
        "read input; setsid sleep 1000 </dev/null >/dev/null 2>&1 & echo $! > {}; sleep 0.3; echo '{RESULT}'",
        pid_file.display()
    );
    let started = Instant::now();
    let (outcomes, _) =
        run_chunks(Arc::new(sh(&script)), "tests", vec![vec!["t".into()]], 1, Duration::from_secs(20)).await;
    let pid = pid_in(&pid_file).await;
    let survived = alive(&pid);
    cleanup(&pid);
    assert!(!survived, "the setsid grandchild {pid} outlived its chunk");
    assert_eq!(outcomes[0].status, ChunkStatus::Completed, "{:?}", outcomes[0].error);
    assert!(started.elapsed() < Duration::from_secs(10), "took {:?}", started.elapsed());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn detached_descendants_die_level_by_level_and_at_the_timeout() {
    // A detached shell holding the output pipes, with a child of its own: both die when the
    // agent exits, and the run does not wait for them.
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let (outer, inner) = (dir.path().join("outer"), dir.path().join("inner"));
    let script = format!(
        "read input; setsid sh -c 'echo $$ > {}; sleep 1000 & echo $! > {}; wait' & sleep 0.2; echo '{RESULT}'",
        outer.display(),
        inner.display()
    );
    let started = Instant::now();
    let run = sh(&script).run_chunk(input(), Duration::from_secs(20)).await;
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "waited {:?} for the detached shell",
        started.elapsed()
    );
    assert!(matches!(run, ChunkRun::Finished { exit_code: Some(0), .. }), "{run:?}");
    for file in [&outer, &inner] {
        let pid = pid_in(file).await;
        let survived = alive(&pid);
        cleanup(&pid);
        assert!(!survived, "{} ({pid}) outlived its chunk", file.display());
    }

    // At the timeout: the agent is still running when it is killed.
    let pid_file = dir.path().join("timeout");
    let script = format!(
        "read input; setsid sleep 1000 </dev/null >/dev/null 2>&1 & echo $! > {}; exec sleep 1000",
        pid_file.display()
    );
    let run = sh(&script).run_chunk(input(), Duration::from_millis(700)).await;
    assert!(matches!(run, ChunkRun::TimedOut { .. }), "{run:?}");
    let pid = pid_in(&pid_file).await;
    let survived = alive(&pid);
    cleanup(&pid);
    assert!(!survived, "the setsid grandchild {pid} outlived the timeout");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chunk_sees_only_the_environment_it_needs() {
    // Cargo runs tests with CARGO_* variables set: the agent sees none of them but the one
    // passed by name.
    assert!(std::env::var_os("CARGO_MANIFEST_DIR").is_some() && std::env::var_os("CARGO_PKG_NAME").is_some());
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let env_file = dir.path().join("env");
    let script = format!("read input; env > {}; echo '{RESULT}'", env_file.display());
    let runner = sh(&script).pass_env(["CARGO_MANIFEST_DIR".to_owned(), "AGENTWARDEN_STORE".to_owned()]);
    let run = runner.run_chunk(input(), Duration::from_secs(20)).await;
    assert!(matches!(run, ChunkRun::Finished { exit_code: Some(0), .. }), "{run:?}");
    let env = std::fs::read_to_string(&env_file).unwrap_or_default();
    let names: Vec<&str> = env.lines().filter_map(|l| l.split_once('=').map(|(n, _)| n)).collect();
    assert!(names.contains(&"PATH") && names.contains(&"CARGO_MANIFEST_DIR"), "{names:?}");
    for name in &names {
        assert!(
            ["PATH", "HOME", "LANG", "TZ", "TMPDIR", "CARGO_MANIFEST_DIR", "PWD", "SHLVL", "_", "OLDPWD"]
                .contains(name)
                || name.starts_with("LC_"),
            "the agent was given `{name}`"
        );
    }
}
