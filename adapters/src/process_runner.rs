//! One process per chunk (spec 002): the chunk's input as JSON on stdin, its result from stdout,
//! stderr kept for the report, never parsed; killed at its timeout. Each chunk runs in a box:
//!
//! - F-15: each agent runs in a process group of its own, and the whole group is killed when the
//!   agent exits or times out.
//! - F-17: stdin, stdout and stderr are served at once, always, so an agent never blocks on a
//!   pipe Warden stopped draining. Stdout holds at most [`MAX_CHUNK_STDOUT`] bytes: one byte more
//!   and the agent is killed at once and its chunk is invalid with that reason (a result that
//!   size is not a result), not left to run to its timeout. Stderr keeps its first
//!   [`MAX_CHUNK_STDERR`] bytes; the rest is read, discarded and counted, and the chunk ends as
//!   it would have.
//! - F-18: every descendant dies with its chunk, `setsid` grandchildren included. The process
//!   that runs chunk agents makes itself their child subreaper (`PR_SET_CHILD_SUBREAPER`, once,
//!   at the first chunk): whatever a chunk leaves behind is re-parented to it instead of to
//!   init, whatever session or group it moved to. When a chunk ends (exit, timeout, too much
//!   stdout), its group and its root are killed and the root reaped; then every child of this
//!   process that is not a running chunk's root and started no earlier than the ended chunk's
//!   root is killed (through a pidfd checked against `/proc`, never a reused pid) and reaped,
//!   and again, level by level, until none is left (5 s at most, else the chunk failed). A
//!   cgroup would name a chunk's processes exactly but needs a delegated, writable cgroup tree,
//!   which a user's shell seldom has; the subreaper needs no privilege. The price: an orphan
//!   cannot say which chunk it came from, so with several chunks at once a process one chunk
//!   detached dies when any chunk started before it ends. Chunk agents may not leave detached
//!   processes behind. The subreaper stays set for the life of the process: an embedding
//!   application that abandons a run calls [`ProcessChunkRunner::kill_leftovers`].
//! - F-19: the agent's environment is cleared, then given [`BASE_ENV`] and every `LC_*` variable
//!   from Warden's environment, plus the names `fan_out.pass_env` lists; never a variable of
//!   Warden's own (`AGENTWARDEN_*`), whatever the list says.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use agentwarden_domain::fanout::{ChunkInput, ChunkRun, WARDEN_ENV_PREFIX, passable_env_name, truncate};
use agentwarden_ports::ChunkRunner;
use async_trait::async_trait;
use rustix::process::{Pid, Signal, WaitOptions};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};

/// The most stdout a chunk agent may print (F-17): one byte more and its chunk is invalid.
pub const MAX_CHUNK_STDOUT: u64 = 8 * 1024 * 1024;

/// The head of a chunk agent's stderr that is kept (F-17); the rest is counted and discarded.
pub const MAX_CHUNK_STDERR: usize = 64 * 1024;

/// The variables a chunk agent gets from Warden's environment (F-19), with every `LC_*`.
pub const BASE_ENV: &[&str] = &["PATH", "HOME", "LANG", "TZ", "TMPDIR"];

/// How long the sweep of a chunk's leftovers may take (F-18).
const SWEEP_LIMIT: Duration = Duration::from_secs(5);

/// Spawns `program args…` for each chunk.
#[derive(Clone, Debug)]
pub struct ProcessChunkRunner {
    program: String,
    args: Vec<String>,
    pass_env: Vec<String>,
}

/// The roots of the chunk agents running now, spared by other chunks' sweeps. Held while a
/// root is spawned and while a sweep picks its victims, so a new root is never mistaken for a
/// leftover.
static LIVE_ROOTS: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());

/// Whether this process is its chunk agents' subreaper (set once).
static SUBREAPER: OnceLock<Result<(), String>> = OnceLock::new();

fn become_subreaper() -> Result<(), String> {
    SUBREAPER
        .get_or_init(|| {
            rustix::process::set_child_subreaper(Some(rustix::process::getpid()))
                .map_err(|e| format!("cannot become the chunk agents' subreaper: {e}"))
        })
        .clone()
}

/// A chunk agent's process group, killed when this is dropped: at the agent's exit, and when
/// the run is abandoned.
struct Group(Pid);

impl Group {
    fn kill(&self) {
        // Gone already (ESRCH) is the usual case.
        let _ = rustix::process::kill_process_group(self.0, Signal::KILL);
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A root in [`LIVE_ROOTS`], taken out when this is dropped (once the root is reaped).
struct Registered(i32);

impl Drop for Registered {
    fn drop(&mut self) {
        LIVE_ROOTS.lock().unwrap_or_else(PoisonError::into_inner).remove(&self.0);
    }
}

/// Why a chunk's run stopped short.
enum Stop {
    TimedOut,
    StdoutTooLarge(u64),
    Failed(String),
}

/// The parent and start time (clock ticks after boot) of a process, from `/proc/PID/stat`.
fn parent_and_start(pid: &str) -> Option<(i32, u64)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The name, in parentheses, may hold anything: the fields follow its last `)`.
    let (_, rest) = stat.rsplit_once(')')?;
    let mut fields = rest.split_whitespace();
    // State, then the parent (field 4); the start time is field 22.
    let parent = fields.nth(1)?.parse().ok()?;
    let start = fields.nth(17)?.parse().ok()?;
    Some((parent, start))
}

/// The children of this process that started at or after `since` and (unless `everything`) are
/// not a running chunk's root, each now sent SIGKILL. The roots' lock is held while they are
/// picked and killed.
fn kill_children(since: u64, everything: bool) -> Result<Vec<Pid>, String> {
    let me = rustix::process::getpid().as_raw_nonzero().get();
    let live = LIVE_ROOTS.lock().unwrap_or_else(PoisonError::into_inner);
    // Without /proc no leftover can be found: that is a failure, not a clean sweep.
    let entries = std::fs::read_dir("/proc").map_err(|e| format!("cannot list processes in /proc: {e}"))?;
    let mut killed = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.parse::<i32>().ok()) else { continue };
        let Some((parent, start)) = name.to_str().and_then(parent_and_start) else { continue };
        if parent != me || start < since || (!everything && live.contains(&pid)) {
            continue;
        }
        if let Some(pid) = Pid::from_raw(pid)
            && kill_exactly(pid, me, start)
        {
            killed.push(pid);
        }
    }
    Ok(killed)
}

/// Sends SIGKILL to the process at `pid` only if it is still the child of `me` that started at
/// `start`: by a pidfd opened and then checked against `/proc`, so a pid reaped by another
/// owner and reused meanwhile is never hit. False if it is no longer that child.
/// A kernel without pidfds (before Linux 5.3) gets the plain `kill` after the same check.
fn kill_exactly(pid: Pid, me: i32, start: u64) -> bool {
    let still_ours = || parent_and_start(&pid.as_raw_nonzero().get().to_string()) == Some((me, start));
    match rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty()) {
        // The process was at `pid` when scanned and is there now: so it was there when the
        // pidfd was opened, and the pidfd names it.
        Ok(pidfd) if still_ours() => {
            let _ = rustix::process::pidfd_send_signal(&pidfd, Signal::KILL);
            true
        }
        Err(rustix::io::Errno::NOSYS) if still_ours() => {
            let _ = rustix::process::kill_process(pid, Signal::KILL);
            true
        }
        Ok(_) | Err(_) => false,
    }
}

/// Kills and reaps, level by level, every child of this process that started at or after
/// `since` and (unless `everything`) is not a running chunk's root, until none is left (F-18).
fn sweep(since: u64, everything: bool) -> Result<(), String> {
    let deadline = Instant::now() + SWEEP_LIMIT;
    loop {
        let killed = kill_children(since, everything)?;
        if killed.is_empty() {
            return Ok(());
        }
        for pid in killed {
            // Our child until it is reaped, so the pid cannot have been reused; killed, so
            // this returns at once (its own children are now ours: the next round).
            let _ = rustix::process::waitpid(Some(pid), WaitOptions::empty());
        }
        if Instant::now() > deadline {
            return Err(format!(
                "its processes kept forking for {} s: not all could be killed",
                SWEEP_LIMIT.as_secs()
            ));
        }
    }
}

/// Why the sweep of a run's leftover processes failed: what could not be listed, killed or
/// reaped, in one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SweepError {
    /// Why.
    pub reason: String,
}

impl std::fmt::Display for SweepError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.reason)
    }
}

impl std::error::Error for SweepError {}

async fn sweep_async(since: u64, everything: bool) -> Result<(), String> {
    tokio::task::spawn_blocking(move || sweep(since, everything))
        .await
        .unwrap_or_else(|e| Err(format!("the sweep of its processes failed: {e}")))
}

/// Reads stdout to its end, failing at once past `limit` bytes (F-17).
async fn read_stdout(mut pipe: impl AsyncRead + Unpin, limit: u64) -> Result<Vec<u8>, Stop> {
    let mut out = Vec::new();
    let mut buf = vec![0_u8; 64 * 1024];
    let mut read: u64 = 0;
    loop {
        let n = pipe
            .read(&mut buf)
            .await
            .map_err(|e| Stop::Failed(format!("cannot read the agent's stdout: {e}")))?;
        if n == 0 {
            return Ok(out);
        }
        read = read.saturating_add(u64::try_from(n).unwrap_or(u64::MAX));
        if read > limit {
            return Err(Stop::StdoutTooLarge(read));
        }
        out.extend_from_slice(buf.get(..n).unwrap_or_default());
    }
}

/// Reads stderr to its end: its first `keep` bytes, and how many more were discarded (F-17).
async fn read_stderr(mut pipe: impl AsyncRead + Unpin, keep: usize) -> Result<(Vec<u8>, u64), Stop> {
    let mut head = Vec::new();
    let mut discarded: u64 = 0;
    let mut buf = vec![0_u8; 64 * 1024];
    loop {
        let n = pipe
            .read(&mut buf)
            .await
            .map_err(|e| Stop::Failed(format!("cannot read the agent's stderr: {e}")))?;
        if n == 0 {
            return Ok((head, discarded));
        }
        let chunk = buf.get(..n).unwrap_or_default();
        let room = keep.saturating_sub(head.len()).min(chunk.len());
        let (kept, rest) = chunk.split_at(room);
        head.extend_from_slice(kept);
        discarded = discarded.saturating_add(u64::try_from(rest.len()).unwrap_or(u64::MAX));
    }
}

impl ProcessChunkRunner {
    /// A runner of `program args…`, passing nothing beyond the base environment (F-19).
    pub fn new(program: impl Into<String>, args: Vec<String>) -> ProcessChunkRunner {
        ProcessChunkRunner { program: program.into(), args, pass_env: Vec::new() }
    }

    /// Also passes these variables (from this process's environment) to every agent; a name
    /// that is not passable (not a name, or one of Warden's own) is dropped (F-19).
    #[must_use]
    pub fn pass_env(mut self, names: impl IntoIterator<Item = String>) -> ProcessChunkRunner {
        self.pass_env.extend(names.into_iter().filter(|n| passable_env_name(n)));
        self
    }

    /// The environment an agent gets (F-19).
    fn environment(&self) -> Vec<(OsString, OsString)> {
        std::env::vars_os()
            .filter(|(name, _)| {
                name.to_str().is_some_and(|n| {
                    !n.to_ascii_uppercase().starts_with(WARDEN_ENV_PREFIX)
                        && (BASE_ENV.contains(&n)
                            || n.starts_with("LC_")
                            || self.pass_env.iter().any(|p| p == n))
                })
            })
            .collect()
    }

    /// Kills and reaps every child of this process, chunk roots included, and everything they
    /// started: for a run that is being abandoned (F-16). The chunks' tasks may not have been
    /// dropped yet (an aborted task is dropped later), so nothing is spared.
    pub async fn kill_leftovers() -> Result<(), SweepError> {
        sweep_async(0, true).await.map_err(|reason| SweepError { reason })
    }

    async fn run(&self, input: &ChunkInput, timeout: Duration) -> ChunkRun {
        if let Err(why) = become_subreaper() {
            return ChunkRun::Failed(why);
        }
        let payload = match serde_json::to_vec(input) {
            Ok(bytes) => bytes,
            Err(e) => return ChunkRun::Failed(format!("cannot encode the chunk: {e}")),
        };
        let mut command = tokio::process::Command::new(&self.program);
        command
            .args(&self.args)
            .env_clear()
            .envs(self.environment())
            .process_group(0)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true);
        let (mut child, root, registered) = {
            let mut live = LIVE_ROOTS.lock().unwrap_or_else(PoisonError::into_inner);
            let child = match command.spawn() {
                Ok(child) => child,
                Err(e) => return ChunkRun::Failed(format!("cannot start `{}`: {e}", self.program)),
            };
            let Some(root) = child.id().and_then(|id| i32::try_from(id).ok()).and_then(Pid::from_raw) else {
                return ChunkRun::Failed("the agent has no process id".into());
            };
            live.insert(root.as_raw_nonzero().get());
            (child, root, Registered(root.as_raw_nonzero().get()))
        };
        let group = Group(root);
        // Unreadable: everything this process started since is swept (fail closed).
        let since = parent_and_start(&root.as_raw_nonzero().get().to_string()).map_or(0, |(_, start)| start);
        let (stdin, stdout, stderr) = (child.stdin.take(), child.stdout.take(), child.stderr.take());
        let (Some(mut stdin), Some(stdout), Some(stderr)) = (stdin, stdout, stderr) else {
            return ChunkRun::Failed("the agent's pipes are missing".into());
        };
        let feed = async move {
            // An agent that does not read its input is its own business; a closed pipe is fine.
            let _ = stdin.write_all(&payload).await;
            let _ = stdin.write_all(b"\n").await;
            Ok::<(), Stop>(())
        };
        let ran = tokio::time::timeout(timeout, async {
            let exited = async {
                let status =
                    child.wait().await.map_err(|e| Stop::Failed(format!("cannot wait for the agent: {e}")));
                // The agent is gone: what it left goes too, and with it the pipes' last writers.
                group.kill();
                sweep_async(since, false).await.map_err(Stop::Failed)?;
                status
            };
            tokio::try_join!(
                feed,
                read_stdout(stdout, MAX_CHUNK_STDOUT),
                read_stderr(stderr, MAX_CHUNK_STDERR),
                exited
            )
        })
        .await;
        let stopped = match ran {
            Ok(Ok(((), stdout, (stderr, stderr_discarded), status))) => {
                return ChunkRun::Finished {
                    exit_code: status.code(),
                    stdout,
                    stderr: truncate(String::from_utf8_lossy(&stderr).trim()),
                    stderr_discarded,
                };
            }
            Ok(Err(stop)) => stop,
            Err(_) => Stop::TimedOut,
        };
        // Stopped short (too much stdout, an error, the timeout): the box is emptied now.
        group.kill();
        let _ = child.start_kill();
        let _ = child.wait().await;
        drop(registered);
        let swept = sweep_async(since, false).await;
        match (stopped, swept) {
            (Stop::StdoutTooLarge(read), _) => ChunkRun::StdoutTooLarge { limit: MAX_CHUNK_STDOUT, read },
            (_, Err(why)) => ChunkRun::Failed(why),
            (Stop::Failed(why), Ok(())) => ChunkRun::Failed(why),
            (Stop::TimedOut, Ok(())) => {
                ChunkRun::TimedOut { after_ms: u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX) }
            }
        }
    }
}

#[async_trait]
impl ChunkRunner for ProcessChunkRunner {
    async fn run_chunk(&self, input: ChunkInput, timeout: Duration) -> ChunkRun {
        self.run(&input, timeout).await
    }
}
