//! One process per chunk (spec 002): the chunk's input as JSON on stdin, its result from stdout
//! (at most 8 MiB), stderr captured and truncated, never parsed; killed at its timeout.
//!
//! F-15: each agent runs in a process group of its own, and the whole group is killed when the
//! agent exits or times out. Whatever the agent started in the background dies with it: it can
//! neither outlive the timeout nor hold the output pipes open (which kept the orchestrator
//! waiting for an end of file that only a grandchild's exit would bring).

use std::time::Duration;

use agentwarden_domain::fanout::{ChunkInput, ChunkRun, truncate};
use agentwarden_ports::ChunkRunner;
use async_trait::async_trait;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The most stdout read from a chunk agent.
pub const MAX_CHUNK_STDOUT: u64 = 8 * 1024 * 1024;

/// Spawns `program args…` for each chunk.
#[derive(Clone, Debug)]
pub struct ProcessChunkRunner {
    /// The agent program.
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
}

/// A chunk agent's process group, killed when this is dropped: at the agent's exit, and when
/// the run is abandoned at its timeout.
struct Group(Option<rustix::process::Pid>);

impl Group {
    fn kill(&self) {
        if let Some(pid) = self.0 {
            // Gone already (ESRCH) is the usual case.
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.kill();
    }
}

impl ProcessChunkRunner {
    async fn run(&self, input: &ChunkInput) -> ChunkRun {
        let mut child = match tokio::process::Command::new(&self.program)
            .args(&self.args)
            .process_group(0)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
        {
            Ok(child) => child,
            Err(e) => return ChunkRun::Failed(format!("cannot start `{}`: {e}", self.program)),
        };
        let group =
            Group(child.id().and_then(|id| i32::try_from(id).ok()).and_then(rustix::process::Pid::from_raw));
        let payload = match serde_json::to_vec(input) {
            Ok(bytes) => bytes,
            Err(e) => return ChunkRun::Failed(format!("cannot encode the chunk: {e}")),
        };
        if let Some(mut stdin) = child.stdin.take() {
            // An agent that does not read its input is its own business; a closed pipe is fine.
            let _ = stdin.write_all(&payload).await;
            let _ = stdin.write_all(b"\n").await;
        }
        let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
            return ChunkRun::Failed("the agent's output pipes are missing".into());
        };
        let mut out = Vec::new();
        let mut err = Vec::new();
        let (mut stdout, mut stderr) = (stdout.take(MAX_CHUNK_STDOUT), stderr.take(64 * 1024));
        let exited = async {
            let status = child.wait().await;
            // The agent is gone: what it left running goes too, and with it the pipes' last writers.
            group.kill();
            status
        };
        let (read_out, read_err, status) =
            tokio::join!(stdout.read_to_end(&mut out), stderr.read_to_end(&mut err), exited);
        if let Err(e) = read_out.and(read_err) {
            return ChunkRun::Failed(format!("cannot read the agent's output: {e}"));
        }
        match status {
            Ok(status) => ChunkRun::Finished {
                exit_code: status.code(),
                stdout: out,
                stderr: truncate(String::from_utf8_lossy(&err).trim()),
            },
            Err(e) => ChunkRun::Failed(format!("cannot wait for the agent: {e}")),
        }
    }
}

#[async_trait]
impl ChunkRunner for ProcessChunkRunner {
    async fn run_chunk(&self, input: ChunkInput, timeout: Duration) -> ChunkRun {
        match tokio::time::timeout(timeout, self.run(&input)).await {
            Ok(run) => run,
            // Dropping the future drops the child, which kills it (`kill_on_drop`).
            Err(_) => ChunkRun::TimedOut { after_ms: u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX) },
        }
    }
}
