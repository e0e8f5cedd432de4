//! `cargo xtask bench server` (and the end of `cargo xtask bench`): the resident service
//! (issue 20) beside direct mode, in one run, on the Claude Code example.
//!
//! - `warden hook` as a whole process on a `PreToolUse` of `Agent` (sealed and approved: an
//!   allow, recorded): direct on an empty store, through the server on an empty store, and
//!   through the server and direct on a store of 1M events (built by the `build_log` example,
//!   most of them in archive segments: S-13);
//! - the same through `warden-hook`, the hook client `warden init claude-code --server`
//!   installs (V-34), beside `warden hook` through the server;
//! - a `Bash` call nothing governs, through the server;
//! - a subagent's tool call (issue 24): a `Read` by a planner the main session spawned, which
//!   goes through the three tool-rule layers and records `tool_call_authorized`, direct and
//!   through the server;
//! - 20 hook processes at once through one server (`warden hook`, then `warden-hook`), spawned
//!   and reaped by one thread as Claude Code's main thread does (V-47): p50 and p99 of their
//!   wall times, beside the floor (the same crowd of `warden-hook --version`, which asks
//!   nothing); for the `warden-hook` crowd, beside them, where its CPU went per
//!   call (the hook processes, this process spawning them, the server; from `/proc`, read
//!   before and after, so the processes are timed as before), how busy the machine's CPUs
//!   were and how much of that was the crowd's own (the rest is other work on the machine: the
//!   figure is only as good as the machine was quiet) (V-46); with
//!   `--baseline REV` (another commit's binaries, built by `bench_baseline`), every per-call
//!   row — direct mode and through the service — timed again on this build and on that one in
//!   turn, nine rounds of our own loop (no shell), each round on stores and servers made anew,
//!   each build's median of its round medians (a drift of the machine, or of one server
//!   process, falls on both), and the same crowds right after against that build, each row no more than 3 %
//!   slower than the baseline's (issue 49, item 8) (after these rows `bench` prints the work
//!   of the same decisions in instructions, on both builds: `bench_work`);
//! - `warden-hook` is the statically linked client `cargo xtask install` ships (V-43); the
//!   dynamically linked one Cargo builds by default is timed beside it for `Bash`, `Read` and
//!   the 20 concurrent clients;
//! - the server's resident memory (`VmRSS`, and its peak `VmHWM`, from `/proc/PID/status`) after
//!   10 000 and after 1 000 000 decisions (`AGENTWARDEN_BENCH_DECISIONS` sets the larger count),
//!   sent as frames over a few persistent connections; beside them sled's own share (V-39): the
//!   `sled_memory` probe, sled alone appending the same number of copies of the server's last
//!   event as the server's decider does, its RSS after the same two counts and its growth
//!   against the server's; and the peak of a raw sled scan of the resulting store.
//!
//! Timings are medians of whole processes (hyperfine when installed, else our own loop); none
//! is asserted anywhere, only printed against its target.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::measure::{WholeProcess, exec, target_dir, time_warden};

pub(crate) const CONFIG: &str = "examples/claude-code/agentwarden.toml";
const SPAWN: &str = "examples/claude-code/events/pre-task-main-planner.json";
const START: &str = "examples/claude-code/events/start-planner.json";
pub(crate) const KILL_SWITCH: (&str, &str) = ("AGENTWARDEN_ENABLE_SUBAGENTS", "true");

/// How a [`Server`] is started besides its store: all empty by default.
#[derive(Clone, Copy, Default)]
pub(crate) struct Serving<'a> {
    /// Variables set for the server (the export's, issue 39).
    pub(crate) env: &'a [(&'a str, &'a str)],
    /// Arguments after `serve`'s own (its log key, A-43).
    pub(crate) serve_args: &'a [&'a str],
    /// A program (with its arguments: a profiler) that runs `warden`; none: run directly.
    pub(crate) under: &'a [&'a str],
}

/// A `warden serve` on a store of its own, stopped (SIGTERM, then SIGKILL) when dropped.
pub(crate) struct Server {
    child: Child,
    pub(crate) socket: PathBuf,
    pub(crate) store: PathBuf,
}

impl Server {
    /// A sealed and approved store of `events` events (0: empty) in `target/bench-serve-NAME`,
    /// and a server on it.
    pub(crate) fn start(warden: &Path, bin: &Path, name: &str, events: u64) -> Result<Server, String> {
        Server::start_as(warden, bin, name, events, &Serving::default())
    }

    /// [`Server::start`] as `how` says: with variables, arguments, under a profiler.
    pub(crate) fn start_as(
        warden: &Path,
        bin: &Path,
        name: &str,
        events: u64,
        how: &Serving<'_>,
    ) -> Result<Server, String> {
        let Serving { env, serve_args, under } = *how;
        let dir = target_dir().join(format!("bench-serve-{name}"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let store = dir.join("audit");
        let at = store.to_string_lossy().into_owned();
        if events > 0 {
            exec(Command::new(bin.join("examples").join("build_log")).arg(events.to_string()).arg(&store))?;
        }
        exec(
            Command::new(warden).args(["--store", &at, "seal", "--config", CONFIG]).env_remove("CLAUDECODE"),
        )?;
        exec(
            Command::new(warden)
                .args(["--store", &at, "approve", "--ref", "GATE-BENCH"])
                .env_remove("CLAUDECODE"),
        )?;
        let socket = dir.join("warden.sock");
        let mut command = match under.split_first() {
            Some((program, args)) => {
                let mut command = Command::new(program);
                command.args(args).arg(warden);
                command
            }
            None => Command::new(warden),
        };
        let child = command
            .args(["--store", &at, "serve", "--config", CONFIG, "--request-timeout-ms", "120000", "--socket"])
            .arg(&socket)
            .args(serve_args)
            .env(KILL_SWITCH.0, KILL_SWITCH.1)
            .env_remove("CLAUDECODE")
            .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
            .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start warden serve: {e}"))?;
        let server = Server { child, socket, store };
        let started = Instant::now();
        while UnixStream::connect(&server.socket).is_err() {
            if started.elapsed() > Duration::from_secs(300) {
                return Err("warden serve did not answer within 300 s".into());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        println!(
            "warden serve on {name} ({events} events) answers after {:.1} s",
            started.elapsed().as_secs_f64()
        );
        // One decision first, untimed: the server's first one reads the configuration and the
        // files the gate reads into the page cache.
        hook_output(warden, &server.hook_args(), &spawn_event(0, "bench-warmup")?)?;
        Ok(server)
    }

    pub(crate) fn hook_args(&self) -> Vec<String> {
        ["hook", "--config", CONFIG, "--server", &self.socket.to_string_lossy()].map(str::to_owned).to_vec()
    }

    /// The server's process id (under a profiler, the profiler's, which runs it).
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// `VmRSS` and `VmHWM` in KiB.
    fn memory_kib(&self) -> Result<(u64, u64), String> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid()))
            .map_err(|e| format!("/proc/{}/status: {e}", self.pid()))?;
        let field = |name: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
                .ok_or_else(|| format!("no {name} in /proc status"))
        };
        Ok((field("VmRSS:")?, field("VmHWM:")?))
    }

    /// SIGTERM (the server drains and exits), then SIGKILL if it has not within 10 s.
    pub(crate) fn stop(mut self) {
        let _ = Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status();
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(10) {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The spawn event with its own tool-use id (every spawn is its own decision) in `session`.
pub(crate) fn spawn_event(n: u64, session: &str) -> Result<String, String> {
    let text = std::fs::read_to_string(SPAWN).map_err(|e| format!("{SPAWN}: {e}"))?;
    Ok(text.replace("toolu_01", &format!("toolu_b{n}")).replace("demo-session", session))
}

/// The events of the three decisions every server row times, as they send them: the planner's
/// spawn in the main session, a `Bash` there that nothing governs, the planner's `Read` in a
/// session of its own (issue 24).
pub(crate) fn timed_events() -> Result<[String; 3], String> {
    Ok([spawn_event(1, "bench-session")?, bash_event("bench-session")?, subagent_read_event("bench-sub")?])
}

/// The planner's `SubagentStart` in `session` (it is then a tracked subagent).
fn start_planner(session: &str) -> Result<String, String> {
    let text = std::fs::read_to_string(START).map_err(|e| format!("{START}: {e}"))?;
    Ok(text.replace("demo-session", session))
}

/// A `Read` by the planner of `session` (issue 24): its call goes through the three tool-rule
/// layers and is recorded as `tool_call_authorized`.
pub(crate) fn subagent_read_event(session: &str) -> Result<String, String> {
    let cwd = std::env::current_dir().map_err(|e| e.to_string())?;
    Ok(format!(
        r#"{{"session_id":"{session}","hook_event_name":"PreToolUse","cwd":"{}","tool_name":"Read","tool_use_id":"toolu_read","agent_id":"agent-planner-1","agent_type":"planner","tool_input":{{"file_path":"README.md"}}}}"#,
        cwd.display()
    ))
}

/// Makes the planner a tracked subagent of `session`: its spawn and its start, through `hook`
/// with `args`; then checks that its `Read` is allowed (no deny).
pub(crate) fn track_planner(hook: &Path, args: &[String], session: &str) -> Result<(), String> {
    hook_output(hook, args, &spawn_event(7, session)?)?;
    hook_output(hook, args, &start_planner(session)?)?;
    let out = hook_output(hook, args, &subagent_read_event(session)?)?;
    if out.contains("deny") {
        return Err(format!("the planner's Read was denied: {out}"));
    }
    Ok(())
}

/// How many `tool_call_authorized` events the store at `store` holds (read after its server
/// stopped).
fn authorized_calls(warden: &Path, store: &Path) -> Result<usize, String> {
    let out = Command::new(warden)
        .arg("--store")
        .arg(store)
        .args(["audit", "export", "--format", "jsonl"])
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!("audit export: {}", String::from_utf8_lossy(&out.stderr)));
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains("\"tool_call_authorized\""))
        .count())
}

/// A `Bash` call from the main session of `session`, which nothing governs.
pub(crate) fn bash_event(session: &str) -> Result<String, String> {
    let cwd = std::env::current_dir().map_err(|e| e.to_string())?;
    Ok(format!(
        r#"{{"session_id":"{session}","hook_event_name":"PreToolUse","cwd":"{}","tool_name":"Bash","tool_use_id":"toolu_bash","tool_input":{{"command":"ls"}}}}"#,
        cwd.display()
    ))
}

pub(crate) fn write_input(name: &str, text: &str) -> Result<String, String> {
    let path = target_dir().join(format!("bench-serve-{name}.json"));
    std::fs::write(&path, text).map_err(|e| e.to_string())?;
    Ok(path.to_string_lossy().into_owned())
}

/// One whole-process `warden hook` with `input` on stdin: its stdout, or why it failed.
pub(crate) fn hook_output(warden: &Path, args: &[String], input: &str) -> Result<String, String> {
    let out = hook_exit(warden, args, input)?;
    if !out.status.success() {
        return Err(format!("warden hook exited {}: {}", out.status, String::from_utf8_lossy(&out.stderr)));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `clients` hook processes through `server` at once, `rounds` each (distinct spawns): every
/// process's wall time, sorted. Spawned and reaped by this one thread, as Claude Code starts
/// its hooks (V-47): its main thread `vfork`s each hook while the others run, and reaps them
/// as they exit. A client's next process starts as soon as its last one is reaped.
pub(crate) fn concurrent(
    hook: &Path,
    server: &Server,
    clients: u64,
    rounds: u64,
    first: u64,
) -> Result<Vec<f64>, String> {
    processes_at_once(&target_dir(), hook, &server.hook_args(), clients, rounds, |c, r| {
        spawn_event(first + c * 1000 + r, "bench-concurrent")
    })
}

/// `clients` processes of `program args` at once, `rounds` each, with `input(client, round)` on
/// stdin, spawned and reaped by this thread (V-47; see [`concurrent`]): every process's wall
/// time from its spawn to its reaping, sorted; an error, with what the process wrote to its
/// stderr (kept in `scratch`), when any exits other than 0.
fn processes_at_once(
    scratch: &Path,
    program: &Path,
    args: &[String],
    clients: u64,
    rounds: u64,
    input: impl Fn(u64, u64) -> Result<String, String>,
) -> Result<Vec<f64>, String> {
    use rustix::process::{Pid, WaitOptions, wait};
    use std::collections::HashMap;

    let stderr_of = |client: u64| scratch.join(format!("bench-crowd-{client}.stderr"));
    let start = |client: u64, round: u64| -> Result<(Pid, Instant), String> {
        let input = input(client, round)?;
        let stderr = std::fs::File::create(stderr_of(client)).map_err(|e| e.to_string())?;
        let started = Instant::now();
        let mut child = Command::new(program)
            .args(args)
            .env(KILL_SWITCH.0, KILL_SWITCH.1)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", program.display()))?;
        // A process that does not read its stdin (the floor's `--version`) closes the pipe:
        // its exit status, not this write, says whether it failed.
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(input.as_bytes());
        }
        Ok((Pid::from_child(&child), started))
    };
    let mut live = HashMap::new();
    for client in (0..clients).filter(|_| rounds > 0) {
        let (pid, started) = start(client, 0)?;
        live.insert(pid, (client, 0, started));
    }
    let mut times = Vec::new();
    while !live.is_empty() {
        let reaped = wait(WaitOptions::empty()).map_err(|e| format!("waitpid: {e}"))?;
        let ended = Instant::now();
        let Some((pid, status)) = reaped else { continue };
        let Some((client, round, started)) = live.remove(&pid) else {
            return Err(format!("process {} exited during the crowd (the server?)", pid.as_raw_pid()));
        };
        if status.exit_status() != Some(0) {
            let said = std::fs::read_to_string(stderr_of(client)).unwrap_or_default();
            return Err(format!("{} exited {status:?}: {}", program.display(), said.trim()));
        }
        times.push(ended.duration_since(started).as_secs_f64() * 1e3);
        if round + 1 < rounds {
            let (pid, started) = start(client, round + 1)?;
            live.insert(pid, (client, round + 1, started));
        }
    }
    times.sort_by(f64::total_cmp);
    Ok(times)
}

pub(crate) fn percentile(sorted: &[f64], p: f64) -> f64 {
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted.get(at).copied().unwrap_or(f64::NAN)
}

/// Where the CPU of a crowd of hook processes went, in ms per process (V-46): the hook
/// processes themselves (this process's waited-for children), this process (its threads
/// spawning and waiting for them), and the server; and how busy the whole machine was.
struct CrowdCpu {
    clients: f64,
    parent: f64,
    server: f64,
    /// Of all the machine's CPU time while the crowd ran: the share in use, and the share the
    /// crowd's own processes (the three above) used; the rest is other work on the machine.
    machine_busy: f64,
    crowd_share: f64,
}

/// CPU time so far, in clock ticks, from `/proc/PID/stat`: the process's own (every thread,
/// live or gone) and its waited-for children's.
fn cpu_ticks(pid: &str) -> Result<(u64, u64), String> {
    let stat =
        std::fs::read_to_string(format!("/proc/{pid}/stat")).map_err(|e| format!("/proc/{pid}/stat: {e}"))?;
    let fields: Vec<u64> = stat
        .rsplit_once(')')
        .map_or("", |(_, rest)| rest)
        .split_whitespace()
        .skip(11)
        .take(4)
        .filter_map(|f| f.parse().ok())
        .collect();
    match fields.as_slice() {
        [user, system, children_user, children_system] => {
            Ok((user + system, children_user + children_system))
        }
        _ => Err(format!("/proc/{pid}/stat: unexpected format")),
    }
}

/// The machine's CPU ticks so far, all and idle (idle and waiting for I/O), from `/proc/stat`.
fn machine_ticks() -> Result<(u64, u64), String> {
    let stat = std::fs::read_to_string("/proc/stat").map_err(|e| format!("/proc/stat: {e}"))?;
    let ticks: Vec<u64> =
        stat.lines().next().unwrap_or("").split_whitespace().skip(1).filter_map(|f| f.parse().ok()).collect();
    match ticks.get(3..5) {
        Some([idle, iowait]) => Ok((ticks.iter().sum(), idle + iowait)),
        _ => Err("/proc/stat: unexpected format".to_owned()),
    }
}

/// Milliseconds per clock tick of `/proc` (`getconf CLK_TCK`; 100 per second when it cannot say).
fn tick_ms() -> f64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse::<f64>().ok())
        .filter(|hz| *hz > 0.0)
        .map_or(10.0, |hz| 1e3 / hz)
}

/// [`concurrent`], and where the CPU went (V-46): read from `/proc` before and after, so the
/// processes are timed exactly as without it.
fn concurrent_cpu(
    hook: &Path,
    server: &Server,
    clients: u64,
    rounds: u64,
    first: u64,
) -> Result<(Vec<f64>, CrowdCpu), String> {
    let pid = server.child.id().to_string();
    let (me, server_before, machine) = (cpu_ticks("self")?, cpu_ticks(&pid)?, machine_ticks()?);
    let times = concurrent(hook, server, clients, rounds, first)?;
    let (me_after, server_after, machine_after) = (cpu_ticks("self")?, cpu_ticks(&pid)?, machine_ticks()?);
    let per_call = tick_ms() / times.len().max(1) as f64;
    let all = machine_after.0.saturating_sub(machine.0).max(1) as f64;
    let (clients, parent, server) = (
        me_after.1.saturating_sub(me.1),
        me_after.0.saturating_sub(me.0),
        server_after.0.saturating_sub(server_before.0),
    );
    let cpu = CrowdCpu {
        clients: clients as f64 * per_call,
        parent: parent as f64 * per_call,
        server: server as f64 * per_call,
        machine_busy: 100.0 * (1.0 - machine_after.1.saturating_sub(machine.1) as f64 / all),
        crowd_share: 100.0 * (clients + parent + server) as f64 / all,
    };
    Ok((times, cpu))
}

/// A JSON string literal of `text`.
fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Sends `count` spawn decisions (numbered from `first`) as frames over `connections`
/// persistent connections; fails on the first answer that is not an allow.
pub(crate) fn decisions(server: &Server, first: u64, count: u64, connections: u64) -> Result<(), String> {
    let config = std::fs::canonicalize(CONFIG).map_err(|e| e.to_string())?;
    let config = json_string(&config.to_string_lossy());
    let threads: Vec<_> = (0..connections)
        .map(|c| {
            let (socket, config) = (server.socket.clone(), config.clone());
            std::thread::spawn(move || -> Result<(), String> {
                let mut stream = UnixStream::connect(&socket).map_err(|e| e.to_string())?;
                let mut n = first + c;
                while n < first + count {
                    // 512 sessions in turn: more than the records keep (256), so they evict.
                    let input = spawn_event(n, &format!("bench-memory-{}", n % 512))?;
                    let body = format!(
                        r#"{{"version":2,"kind":"hook","config":{config},"input":{},"deadline_ms":60000}}"#,
                        json_string(&input)
                    );
                    let length = u32::try_from(body.len()).map_err(|e| e.to_string())?;
                    stream.write_all(&length.to_be_bytes()).map_err(|e| e.to_string())?;
                    stream.write_all(body.as_bytes()).map_err(|e| e.to_string())?;
                    let mut head = [0_u8; 4];
                    stream.read_exact(&mut head).map_err(|e| e.to_string())?;
                    let mut answer = vec![0_u8; u32::from_be_bytes(head) as usize];
                    stream.read_exact(&mut answer).map_err(|e| e.to_string())?;
                    let answer = String::from_utf8_lossy(&answer);
                    if !answer.contains(r#""decision":"proceed""#) {
                        return Err(format!("decision {n}: {answer}"));
                    }
                    n += connections;
                }
                Ok(())
            })
        })
        .collect();
    for thread in threads {
        thread.join().map_err(|_| "a load thread panicked".to_owned())??;
    }
    Ok(())
}

/// The peak RSS (KiB) of a raw sled scan of `store`: sled alone holding the whole log.
fn raw_scan_kib(bin: &Path, store: &Path) -> Result<u64, String> {
    let out = Command::new("/usr/bin/time")
        .args(["-f", "%M"])
        .arg(bin.join("examples").join("raw_scan"))
        .arg(store)
        .output()
        .map_err(|e| format!("/usr/bin/time: {e}"))?;
    if !out.status.success() {
        return Err(format!("raw_scan failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .ok_or_else(|| "no peak RSS from /usr/bin/time".to_owned())
}

/// The probe runs with glibc's malloc thresholds held at their defaults (128 KiB): in its tight
/// loop, sled's 512 KiB log buffers, once freed, raise glibc's dynamic mmap threshold, and the
/// memory glibc then keeps for them swamps what sled holds (measured: 161 MiB after 1M appends
/// against 40 MiB with the thresholds held). The server, measured as shipped, shows no such
/// difference (V-39).
const PROBE_MALLOC: (&str, &str) = ("MALLOC_TRIM_THRESHOLD_", "131072");

/// `VmRSS` and `VmHWM` (KiB) of the `sled_memory` probe after `small` and after `large`
/// appends of copies of the last event of `like` (V-39).
fn sled_alone(bin: &Path, like: &Path, small: u64, large: u64) -> Result<[(u64, u64); 2], String> {
    let dir = target_dir().join("bench-serve-sled");
    let _ = std::fs::remove_dir_all(&dir);
    let out = Command::new(bin.join("examples").join("sled_memory"))
        .arg("--like")
        .arg(like)
        .args(["--events", &large.to_string(), "--at", &format!("{small},{large}")])
        .arg(dir.join("audit"))
        .env(PROBE_MALLOC.0, PROBE_MALLOC.1)
        .output()
        .map_err(|e| format!("sled_memory: {e}"));
    let _ = std::fs::remove_dir_all(&dir);
    let out = out?;
    if !out.status.success() {
        return Err(format!("sled_memory failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    Ok([probe_row(&text, small)?, probe_row(&text, large)?])
}

/// `VmRSS` and `VmHWM` of the probe's row for `appended` (its columns: appended, rss, hwm, …).
fn probe_row(text: &str, appended: u64) -> Result<(u64, u64), String> {
    text.lines()
        .map(|l| l.split_whitespace().map(str::parse::<u64>).collect::<Vec<_>>())
        .find_map(|row| match row.as_slice() {
            [Ok(n), Ok(rss), Ok(hwm), ..] if *n == appended => Some((*rss, *hwm)),
            _ => None,
        })
        .ok_or_else(|| format!("no row for {appended} appends in the probe's output"))
}

/// One row of the table: what, ours, the baseline or target, the verdict.
pub(crate) fn row(what: &str, ours: &str, against: &str, pass: Option<bool>) {
    let verdict = match pass {
        Some(true) => "PASS",
        Some(false) => "MISS",
        None => "",
    };
    println!("{what:<58} {ours:>16} {against:>26}  {verdict}");
}

/// A crowd's p50 and p99 (against the 20 ms target), or why it was not measured.
pub(crate) fn crowd_rows(name: &str, crowd: Result<&[f64], &String>) {
    match crowd {
        Ok(times) => {
            let (p50, p99) = (percentile(times, 0.5), percentile(times, 0.99));
            row(
                &format!("20 concurrent {name} Agent, {} runs: p50", times.len()),
                &format!("{p50:.2} ms"),
                "",
                None,
            );
            row(
                &format!("20 concurrent {name} Agent: p99"),
                &format!("{p99:.2} ms"),
                "≤ 20 ms",
                Some(p99 <= 20.0),
            );
        }
        Err(e) => row(&format!("20 concurrent {name}"), &format!("not measured: {e}"), "", None),
    }
}

/// A crowd's CPU per call (hook processes, this process, the server) and how busy the machine
/// was, as two rows under the crowd's p50 and p99 (V-46).
fn cpu_rows(crowd: &str, cpu: &CrowdCpu) {
    row(
        &format!("  {crowd}: CPU per call, all of it"),
        &format!("{:.2} ms", cpu.clients + cpu.parent + cpu.server),
        &format!("hook {:.2} xtask {:.2} serve {:.2}", cpu.clients, cpu.parent, cpu.server),
        None,
    );
    row(
        &format!("  {crowd}: the machine's CPUs busy"),
        &format!("{:.0} %", cpu.machine_busy),
        &format!("the crowd's own {:.0} %", cpu.crowd_share),
        None,
    );
}

pub(crate) fn ms(result: &Result<(f64, &'static str), String>) -> Option<f64> {
    result.as_ref().ok().map(|(ms, _)| *ms)
}

pub(crate) fn show(result: &Result<(f64, &'static str), String>) -> String {
    match result {
        Ok((ms, _)) => format!("{ms:.2} ms"),
        Err(e) => format!("not measured: {e}"),
    }
}

/// A row timed on this build and on the baseline's: this build's median, the baseline's, and how.
type Paired = Result<(f64, f64, &'static str), String>;

/// How many rounds a paired row takes, each a whole timing of each build.
const PAIRED_ROUNDS: usize = 9;

/// The baseline build's rows (V-46): each per-call row timed on both builds in turn, and its
/// crowds.
struct BaselineRows {
    /// `warden hook` in direct mode, each build on an empty store of its own.
    direct: Paired,
    /// The same for a subagent's `Read`.
    direct_read: Paired,
    /// `warden hook` through each build's own server.
    via: Paired,
    spawn: Paired,
    bash: Paired,
    read: Paired,
    crowd: Result<Vec<f64>, String>,
    client_crowd: Result<(Vec<f64>, CrowdCpu), String>,
}

/// One paired row: its name, each build's program and arguments (this build's first), its stdin.
type PairedRow<'a> = (&'a str, [(&'a Path, &'a [String]); 2], &'a str);

/// This build's `warden` and `warden-hook`, to time beside the baseline's.
struct Ours<'a> {
    warden: &'a Path,
    client: &'a Path,
}

/// Measures the build whose `warden` is `old` (and `warden-hook` beside it), each per-call row
/// beside this build's, in turn, [`PAIRED_ROUNDS`] rounds: in each round each build on a store
/// and a server of its own made alike and anew (a server is one process for as long as it
/// runs, and what differs between two for their whole life is averaged out only by starting
/// them again), each row timed on both, the first of a row alternating between rounds, each
/// time our own loop (no shell between, whose start is more than the difference sought); each
/// build's median of its round medians (issue 49 item 8). Then its crowds, on a server of its
/// own. `inputs` are the spawn, `Bash` and `Read` events.
fn baseline_rows(
    old: &Path,
    bin: &Path,
    ours: &Ours<'_>,
    [spawn, bash, read]: [&str; 3],
) -> Result<BaselineRows, String> {
    let client = old.with_file_name("warden-hook");
    let mut times: [[Vec<f64>; 2]; 6] = Default::default();
    let mut how = "";
    for round in 0..PAIRED_ROUNDS {
        let mine_direct = direct_store(ours.warden, "paired-direct")?;
        let base_direct = direct_store(old, "baseline-direct")?;
        let mine_server = Server::start(ours.warden, bin, "paired", 0)?;
        let base_server = Server::start(old, bin, "baseline", 0)?;
        let (mine_served, base_served) = (mine_server.hook_args(), base_server.hook_args());
        for (warden, hook, direct, served) in [
            (ours.warden, ours.client, &mine_direct, &mine_served),
            (old, &client, &base_direct, &base_served),
        ] {
            track_planner(warden, direct, "bench-sub")?;
            // The first `Bash` call of the session writes its index; the rest take the fast path.
            hook_output(warden, served, &bash_event("bench-session")?)?;
            track_planner(hook, served, "bench-sub")?;
        }
        let rows: [PairedRow<'_>; 6] = [
            ("paired-direct", [(ours.warden, &mine_direct), (old, &base_direct)], spawn),
            ("paired-direct-read", [(ours.warden, &mine_direct), (old, &base_direct)], read),
            ("paired-spawn", [(ours.warden, &mine_served), (old, &base_served)], spawn),
            ("paired-spawn-client", [(ours.client, &mine_served), (&client, &base_served)], spawn),
            ("paired-bash-client", [(ours.client, &mine_served), (&client, &base_served)], bash),
            ("paired-read-client", [(ours.client, &mine_served), (&client, &base_served)], read),
        ];
        for ((name, builds, stdin), slots) in rows.into_iter().zip(times.iter_mut()) {
            let mut turns: Vec<_> = builds.into_iter().zip(slots.iter_mut()).collect();
            if round % 2 == 1 {
                turns.reverse();
            }
            for ((program, args), slot) in turns {
                let run = WholeProcess { name, args: args.to_vec(), stdin: Some(stdin), env: KILL_SWITCH };
                let (ms, timed) = crate::measure::time_loop(program, &run)?;
                slot.push(ms);
                how = timed;
            }
        }
        mine_server.stop();
        base_server.stop();
    }
    let median = |mut values: Vec<f64>| crate::measure::median(&mut values).unwrap_or(f64::NAN);
    let [direct, direct_read, via, spawn, bash, read] =
        times.map(|[mine, base]| Ok((median(mine), median(base), how)));
    let server = Server::start(old, bin, "baseline", 0)?;
    let crowd = concurrent(old, &server, 20, 10, 5_000_000);
    let client_crowd = concurrent_cpu(&client, &server, 20, 10, 4_000_000);
    server.stop();
    Ok(BaselineRows { direct, direct_read, via, spawn, bash, read, crowd, client_crowd })
}

/// Direct mode's arguments (`--store DIR hook --config …`) on a sealed and approved empty store
/// in `target/bench-serve-NAME`, made anew by `warden`.
fn direct_store(warden: &Path, name: &str) -> Result<Vec<String>, String> {
    let dir = target_dir().join(format!("bench-serve-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    let store = dir.join("audit").to_string_lossy().into_owned();
    for verb in [["seal", "--config", CONFIG], ["approve", "--ref", "GATE-BENCH"]] {
        exec(Command::new(warden).args(["--store", &store]).args(verb).env_remove("CLAUDECODE"))?;
    }
    Ok(["--store", &store, "hook", "--config", CONFIG].map(str::to_owned).to_vec())
}

/// `warden hook` (the build whose `warden` is `warden`) in direct mode on a sealed and approved
/// empty store in `target/bench-serve-NAME`: a spawn of the planner, then (the planner tracked)
/// its `Read`.
#[expect(clippy::type_complexity, reason = "two timed rows, each a result")]
fn direct_rows(
    warden: &Path,
    name: &str,
    spawn: &str,
    read: &str,
) -> Result<(Result<(f64, &'static str), String>, Result<(f64, &'static str), String>), String> {
    let args = direct_store(warden, name)?;
    let direct = time_warden(
        warden,
        &WholeProcess { name: "serve-direct", args: args.clone(), stdin: Some(spawn), env: KILL_SWITCH },
    );
    let direct_read = track_planner(warden, &args, "bench-sub").and_then(|()| {
        time_warden(
            warden,
            &WholeProcess { name: "serve-direct-read", args, stdin: Some(read), env: KILL_SWITCH },
        )
    });
    Ok((direct, direct_read))
}

/// The server rows: builds what they need, measures, prints.
/// With `baseline`, another build's binaries (`--baseline REV`), timed beside these.
pub(crate) fn run(warden: &Path, bin: &Path, baseline: Option<&Path>) -> Result<(), String> {
    let large: u64 =
        std::env::var("AGENTWARDEN_BENCH_DECISIONS").ok().and_then(|n| n.parse().ok()).unwrap_or(1_000_000);
    let client = bin.join("warden-hook");
    let dynamic = bin.join("warden-hook-dynamic");
    let [spawn, bash, read] = timed_events()?;
    let (spawn, bash, read) =
        (write_input("spawn", &spawn)?, write_input("bash", &bash)?, write_input("subagent-read", &read)?);

    // Direct mode, in the same run: the baseline.
    let (direct, direct_read) = direct_rows(warden, "direct", &spawn, &read)?;

    let empty = Server::start(warden, bin, "empty", 0)?;
    let timed = |name, hook: &Path, stdin| {
        time_warden(
            hook,
            &WholeProcess { name, args: empty.hook_args(), stdin: Some(stdin), env: KILL_SWITCH },
        )
    };
    let via_empty = timed("serve-spawn", warden, &spawn);
    let client_empty = timed("serve-spawn-client", &client, &spawn);
    // The first `Bash` call of the session writes its index; the rest take the fast path.
    hook_output(warden, &empty.hook_args(), &bash_event("bench-session")?)?;
    let bash_empty = timed("serve-bash", warden, &bash);
    let client_bash = timed("serve-bash-client", &client, &bash);
    let dynamic_bash = timed("serve-bash-dynamic", &dynamic, &bash);
    let (via_read, client_read, dynamic_read) = match track_planner(&client, &empty.hook_args(), "bench-sub")
    {
        Ok(()) => (
            timed("serve-read", warden, &read),
            timed("serve-read-client", &client, &read),
            timed("serve-read-dynamic", &dynamic, &read),
        ),
        Err(e) => (Err(e.clone()), Err(e.clone()), Err(e)),
    };
    let crowd = concurrent(warden, &empty, 20, 10, 1_000_000);
    let client_crowd = concurrent_cpu(&client, &empty, 20, 10, 2_000_000);
    let (client_crowd, client_cpu) = match client_crowd {
        Ok((times, cpu)) => (Ok(times), Some(cpu)),
        Err(e) => (Err(e), None),
    };
    // `--baseline REV`: another build's `warden`, with its own `warden-hook` beside it (each
    // build's client speaks its own build's protocol): direct mode and its server, on empty
    // stores of its own, right after this one's, take the same per-call rows and the same two
    // crowds: two builds compared under the same load of the machine, in one run (V-46).
    let baseline = baseline.map(|dir| dir.join("warden"));
    let ours = Ours { warden, client: &client };
    let baseline_rows = baseline
        .as_deref()
        .map(|old| baseline_rows(old, bin, &ours, [spawn.as_str(), bash.as_str(), read.as_str()]));
    let dynamic_crowd = concurrent(&dynamic, &empty, 20, 10, 3_000_000);
    // The same crowd of processes that ask nothing, the floor under the crowds above (V-47).
    let floor =
        processes_at_once(
            &target_dir(),
            &client,
            &["--version".to_owned()],
            20,
            10,
            |_, _| Ok(String::new()),
        );
    let empty_store = empty.store.clone();
    empty.stop();
    let recorded = authorized_calls(warden, &empty_store);

    let big = Server::start(warden, bin, "1m", 1_000_000)?;
    let via =
        WholeProcess { name: "serve-spawn-1m", args: big.hook_args(), stdin: Some(&spawn), env: KILL_SWITCH };
    let via_big = time_warden(warden, &via);
    let via = WholeProcess { name: "serve-spawn-1m-client", ..via };
    let client_big = time_warden(&client, &via);
    let big_store = big.store.clone();
    big.stop();
    // Direct mode on the same 1M-event store, whose older events are in segments (S-13).
    let big_store = big_store.to_string_lossy().into_owned();
    let direct_big = time_warden(
        warden,
        &WholeProcess {
            name: "serve-direct-1m",
            args: ["--store", &big_store, "hook", "--config", CONFIG].map(str::to_owned).to_vec(),
            stdin: Some(&spawn),
            env: KILL_SWITCH,
        },
    );

    let memory = Server::start(warden, bin, "memory", 0)?;
    let small = 10_000.min(large);
    let after_small = decisions(&memory, 0, small, 8).and_then(|()| memory.memory_kib());
    let after_large = decisions(&memory, small, large - small, 8).and_then(|()| memory.memory_kib());
    let store = memory.store.clone();
    memory.stop();
    let alone = sled_alone(bin, &store, small, large);
    let sled_share = raw_scan_kib(bin, &store);

    println!("\nThe resident service (issue 20) beside direct mode, in one run (medians)\n");
    println!("{:<58} {:>16} {:>26}  verdict", "measurement", "ours", "baseline / target");
    row("`warden hook` Agent, direct, empty store", &show(&direct), "(the baseline)", None);
    // No target: the issue measured 8 × before the archive (S-13); shown for comparison.
    let ratio = match (ms(&direct_big), ms(&direct)) {
        (Some(v), Some(d)) => format!("{:.2} × empty", v / d),
        _ => "—".to_owned(),
    };
    row("`warden hook` Agent, direct, 1M-event store (S-13)", &show(&direct_big), &ratio, None);
    for (what, ours) in [
        ("`warden hook` Agent, through the server, empty store", &via_empty),
        ("`warden-hook` Agent, through the server, empty store", &client_empty),
    ] {
        let ratio = match (ms(ours), ms(&direct)) {
            (Some(v), Some(d)) => format!("{:.2} × direct", v / d),
            _ => "—".to_owned(),
        };
        row(
            what,
            &show(ours),
            &format!("≤ 3 ms, ≤ 0.25 × ({ratio})"),
            match (ms(ours), ms(&direct)) {
                (Some(v), Some(d)) => Some(v <= 3.0 && v <= 0.25 * d),
                _ => None,
            },
        );
    }
    for (what, ours, empty) in [
        ("`warden hook` Agent, through the server, 1M-event store", &via_big, &via_empty),
        ("`warden-hook` Agent, through the server, 1M-event store", &client_big, &client_empty),
    ] {
        let big_ratio = match (ms(ours), ms(empty)) {
            (Some(b), Some(e)) => format!("{:.2} × empty", b / e),
            _ => "—".to_owned(),
        };
        row(
            what,
            &show(ours),
            &format!("≤ 1.2 × empty ({big_ratio})"),
            match (ms(ours), ms(empty)) {
                (Some(b), Some(e)) => Some(b <= 1.2 * e),
                _ => None,
            },
        );
    }
    for (what, ours) in [
        ("`warden hook` Bash (nothing governs), through the server", &bash_empty),
        ("`warden-hook` Bash (nothing governs), through the server", &client_bash),
        ("`warden-hook` dynamically linked, Bash, through the server", &dynamic_bash),
    ] {
        row(what, &show(ours), "≤ 2 ms", ms(ours).map(|b| b <= 2.0));
    }
    row("`warden hook` subagent tool call (Read), direct", &show(&direct_read), "(the baseline)", None);
    for (what, ours) in [
        ("`warden hook` subagent tool call (Read), through the server", &via_read),
        ("`warden-hook` subagent tool call (Read), through the server", &client_read),
        ("`warden-hook` dynamically linked, Read, through the server", &dynamic_read),
    ] {
        let ratio = match (ms(ours), ms(&direct_read)) {
            (Some(v), Some(d)) => format!("{:.2} × direct", v / d),
            _ => "—".to_owned(),
        };
        row(what, &show(ours), &format!("≤ 2 ms ({ratio})"), ms(ours).map(|v| v <= 2.0));
    }
    row(
        "  `tool_call_authorized` events recorded by that server",
        &recorded.map_or_else(|e| format!("not read: {e}"), |n| n.to_string()),
        "",
        None,
    );
    for (name, crowd) in [
        ("`warden hook`", &crowd),
        ("`warden-hook`", &client_crowd),
        ("`warden-hook` (dynamic)", &dynamic_crowd),
    ] {
        crowd_rows(name, crowd.as_deref());
    }
    if let Some(cpu) = &client_cpu {
        cpu_rows("`warden-hook` crowd", cpu);
    }
    match &floor {
        Ok(times) => row(
            "  the floor: 20 concurrent `warden-hook --version` (no request), p50 / p99",
            &format!("{:.2} / {:.2} ms", percentile(times, 0.5), percentile(times, 0.99)),
            "",
            None,
        ),
        Err(e) => {
            row("  the floor: 20 concurrent `warden-hook --version`", &format!("not measured: {e}"), "", None)
        }
    }
    if let (Some(old), Some(rows)) = (&baseline, &baseline_rows) {
        match rows {
            Ok(rows) => {
                println!(
                    "\nThe same against the baseline build ({}), its own server and client, each row \
                     timed on both builds in turn ({PAIRED_ROUNDS} rounds, the medians of each build's \
                     round medians)",
                    old.display()
                );
                for (what, pair) in [
                    ("`warden hook` Agent, direct, empty store", &rows.direct),
                    ("`warden hook` subagent tool call (Read), direct", &rows.direct_read),
                    ("`warden hook` Agent, through the server, empty store", &rows.via),
                    ("`warden-hook` Agent, through the server, empty store", &rows.spawn),
                    ("`warden-hook` Bash (nothing governs), through the server", &rows.bash),
                    ("`warden-hook` subagent tool call (Read), through the server", &rows.read),
                ] {
                    // No worse: within 3 % of the baseline's median (issue 49, item 8).
                    match pair {
                        Ok((ours, theirs, _)) => {
                            let pass = crate::bench_baseline::within(Some(*ours), Some(*theirs));
                            let against =
                                format!("≤ 1.03 × {theirs:.2} ms baseline ({:.3} ×)", ours / theirs);
                            row(what, &format!("{ours:.2} ms"), &against, pass);
                        }
                        Err(e) => row(what, &format!("not measured: {e}"), "", None),
                    }
                }
                crowd_rows("`warden hook` (baseline build)", rows.crowd.as_deref());
                crowd_rows(
                    "`warden-hook` (baseline build)",
                    rows.client_crowd.as_ref().map(|(t, _)| t.as_slice()),
                );
                if let Ok((_, cpu)) = &rows.client_crowd {
                    cpu_rows("baseline crowd", cpu);
                }
            }
            Err(e) => println!("the baseline build ({}): not measured: {e}", old.display()),
        }
    }
    let kib = |r: &Result<(u64, u64), String>| match r {
        Ok((rss, hwm)) => format!("{rss} KiB (peak {hwm})"),
        Err(e) => format!("not measured: {e}"),
    };
    row(&format!("server RSS after {small} decisions"), &kib(&after_small), "", None);
    let growth = match (&after_small, &after_large) {
        (Ok((s, _)), Ok((l, _))) => Some(*l as f64 / *s as f64),
        _ => None,
    };
    row(
        &format!("server RSS after {large} decisions"),
        &kib(&after_large),
        &growth.map_or_else(|| "≤ 1.5 ×".to_owned(), |g| format!("≤ 1.5 × ({g:.2} ×)")),
        growth.map(|g| g <= 1.5),
    );
    match &alone {
        Ok([(small_rss, small_hwm), (large_rss, large_hwm)]) => {
            row(
                &format!("sled's share: sled alone, {small} appends (probe)"),
                &format!("{small_rss} KiB (peak {small_hwm})"),
                "",
                None,
            );
            let server_growth = match (&after_small, &after_large) {
                (Ok((s, _)), Ok((l, _))) => Some(i128::from(*l) - i128::from(*s)),
                _ => None,
            };
            let growth = i128::from(*large_rss) - i128::from(*small_rss);
            row(
                &format!("sled's share: sled alone, {large} appends (probe)"),
                &format!("{large_rss} KiB (peak {large_hwm})"),
                &server_growth.map_or_else(
                    || format!("{growth:+} KiB"),
                    |s| format!("{growth:+} KiB; server {s:+} KiB"),
                ),
                None,
            );
        }
        Err(e) => row("sled's share: sled alone (probe)", &format!("not measured: {e}"), "", None),
    }
    row(
        &format!("sled reading that {large}-decision store whole: raw scan (peak)"),
        &sled_share.map_or_else(|e| format!("not measured: {e}"), |k| format!("{k} KiB")),
        "",
        None,
    );
    Ok(())
}

/// One whole-process hook with `input` on stdin, and what it left: exit status, stdout, stderr.
fn hook_exit(hook: &Path, args: &[String], input: &str) -> Result<std::process::Output, String> {
    // The kill switch for the direct hook (a server's client sends none, V-4).
    let mut child = Command::new(hook)
        .args(args)
        .env(KILL_SWITCH.0, KILL_SWITCH.1)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", hook.display()))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(input.as_bytes()).map_err(|e| e.to_string())?;
    }
    child.wait_with_output().map_err(|e| e.to_string())
}

/// An installed `warden` and `warden-hook` answer as Claude Code would use them, on the
/// Claude Code example: through a `warden serve` of the installed `warden`, the client lets a
/// spawn that is sealed and approved through and tracks it, lets the spawned planner `Read`,
/// denies the same call from an agent it does not track, and exits 2 once the server is gone (V-43).
pub(crate) fn installed_answers(warden: &Path, hook: &Path) -> Result<(), String> {
    let bin = warden.parent().unwrap_or(Path::new("."));
    let server = Server::start(warden, bin, "install-check", 0)?;
    let args = server.hook_args();
    track_planner(hook, &args, "install-check")?;
    let out = hook_exit(hook, &args, &subagent_read_event("install-untracked")?)?;
    let (code, out) = (out.status.code(), String::from_utf8_lossy(&out.stdout));
    if !(code == Some(2) || code == Some(0) && out.contains("\"deny\"")) {
        return Err(format!("an untracked agent's Read must be denied: exit {code:?}, {out}"));
    }
    let store = server.store.clone();
    server.stop();
    let code = hook_exit(hook, &args, &bash_event("install-check")?)?.status.code();
    if code != Some(2) {
        return Err(format!("with the server gone the client must exit 2, not {code:?}"));
    }
    match authorized_calls(warden, &store)? {
        0 => Err("the planner's Read was not recorded as tool_call_authorized".into()),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::{probe_row, processes_at_once};
    use std::path::Path;

    const PROBE: &str = "# template: seq 5 of a, subagent_spawn_evaluated (1896 bytes stored)
# cache 8388608 bytes, group 8, records 0 bytes every 1000
  appended    rss_kib    hwm_kib   disk_bytes  seconds
         0       4876       4876          508      0.0
     10000      24068      24068     35757732      2.7
   1000000      41292      49180   3461597749    191.6
";

    #[test]
    fn the_probe_rows_are_read_by_their_count() {
        assert_eq!(probe_row(PROBE, 10_000), Ok((24_068, 24_068)));
        assert_eq!(probe_row(PROBE, 1_000_000), Ok((41_292, 49_180)));
        assert!(probe_row(PROBE, 100_000).is_err(), "a count the probe did not print");
        assert!(probe_row("5 seq 8\n", 5).is_err(), "a line that is not a row");
    }

    // `processes_at_once` reaps with `waitpid(-1)`: these tests run as processes of their own
    // (nextest), so no other test's child is reaped.

    #[test]
    fn the_crowd_runs_every_client_at_once_and_times_every_round() {
        let scratch = std::env::temp_dir().join(format!("xtask-crowd-{}", std::process::id()));
        let dir = scratch.join("marks");
        let _ = std::fs::remove_dir_all(&scratch);
        std::fs::create_dir_all(&dir).unwrap();
        // Each process leaves its mark, then waits (at most 10 s) until all four clients' first
        // processes have: it exits 0 only if the four ran at the same time.
        let script = format!(
            "read who; touch '{0}/'$who; i=0; while [ $(ls '{0}' | wc -l) -lt 4 ]; do \
             i=$((i+1)); [ $i -gt 1000 ] && exit 1; sleep 0.01; done; exit 0",
            dir.display()
        );
        let args = ["-c".to_owned(), script];
        let times =
            processes_at_once(&scratch, Path::new("/bin/sh"), &args, 4, 3, |c, r| Ok(format!("{c}-{r}\n")))
                .unwrap();
        assert_eq!(times.len(), 12, "4 clients × 3 rounds");
        assert!(times.windows(2).all(|w| w[0] <= w[1]), "sorted");
        assert!(times.iter().all(|t| *t > 0.0));
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 12, "every round ran once");
        std::fs::remove_dir_all(&scratch).unwrap();
    }

    #[test]
    fn a_process_that_fails_fails_the_crowd_with_what_it_said() {
        let args = ["-c".to_owned(), "echo refused >&2; exit 3".to_owned()];
        let scratch = std::env::temp_dir().join(format!("xtask-crowd-fails-{}", std::process::id()));
        std::fs::create_dir_all(&scratch).unwrap();
        let err = processes_at_once(&scratch, Path::new("/bin/sh"), &args, 2, 2, |_, _| Ok(String::new()))
            .unwrap_err();
        assert!(err.contains("refused") && err.contains('3'), "{err}");
        std::fs::remove_dir_all(&scratch).unwrap();
    }
}
