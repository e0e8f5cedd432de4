//! The work of each decision, counted, this build beside the baseline's (`cargo xtask bench
//! server --baseline REV`, issue 49 item 8): the instructions callgrind counts, which are the same
//! for the same binary and input whatever else the machine is doing, where a wall time on a
//! shared 2-core machine moves by more than the 3 % sought from one run to the next.
//!
//! - the server's decision of the spawn of `Agent`, of a `Bash` nothing governs and of the
//!   planner's `Read`, each build's `warden serve` under callgrind, its counters zeroed before
//!   [`CALLS`] calls of one kind and dumped after them (`callgrind_control`): every thread of the
//!   server, its store's included, divided by the calls;
//! - one whole `warden-hook` process of each kind, and one `warden hook --server` of the spawn,
//!   against its own build's server (run without a profiler).
//!
//! Direct mode is not counted: sled's start spins on a global another thread is building, and
//! under callgrind, which runs one thread at a time, that spin is as long as its scheduler makes
//! it — half of a direct process's count, and some 6 % up or down from one run to the next. Its
//! timed rows stand alone.
//!
//! A row is within 3 % of the baseline's or a miss, as the timed rows are. Instructions are not
//! time: a system call, a wait on the disk or on another thread is counted as the instructions
//! around it, so the timed rows stay the measure and these say whether a build does more work.
//! Without valgrind the rows are not measured, and say so.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::bench_server::{KILL_SWITCH, Server, Serving, hook_output, row, timed_events, track_planner};

/// The calls of each kind the server's counters are read over.
const CALLS: u64 = 20;

/// One decision the rows count.
struct Kind {
    /// Its name in a row.
    name: &'static str,
    /// The reason its server's dump gives (`callgrind_control --dump=KEY`).
    key: &'static str,
    /// The hook event.
    input: String,
}

/// The three decisions the rows count, with the timed rows' events.
fn kinds() -> Result<[Kind; 3], String> {
    let [agent, bash, read] = timed_events()?;
    Ok([
        Kind { name: "Agent", key: "agent", input: agent },
        Kind { name: "Bash (nothing governs)", key: "bash", input: bash },
        Kind { name: "subagent tool call (Read)", key: "read", input: read },
    ])
}

/// One build: its `warden` and its `warden-hook`.
struct Build {
    warden: PathBuf,
    client: PathBuf,
}

impl Build {
    /// The build whose binaries are in `dir`.
    fn in_dir(dir: &Path) -> Build {
        Build { warden: dir.join("warden"), client: dir.join("warden-hook") }
    }
}

/// Each row's instructions for one build, in the order [`run`] prints them.
type Counts = Vec<(String, u64)>;

/// Counts the rows for this build (its binaries in `bin`, with the `build_log` example the
/// servers' stores need) and for the baseline's (in `theirs`), and prints them beside each other.
pub(crate) fn run(bin: &Path, theirs: &Path) {
    println!(
        "\nThe work of each decision, counted (callgrind's instructions: the same for the same binary \
         and input however busy the machine; this build beside the baseline's)"
    );
    let (ours, theirs) = (Build::in_dir(bin), Build::in_dir(theirs));
    let counted = valgrind()
        .and_then(|()| Ok((counts(bin, &ours, "work-ours")?, counts(bin, &theirs, "work-baseline")?)));
    match counted {
        Ok((mine, base)) => {
            for ((what, ours), (_, theirs)) in mine.iter().zip(&base) {
                let ratio = *ours as f64 / *theirs as f64;
                row(
                    what,
                    &format!("{ours} instr."),
                    &format!("≤ 1.03 × {theirs} baseline ({ratio:.3} ×)"),
                    crate::bench_baseline::within(Some(*ours as f64), Some(*theirs as f64)),
                );
            }
        }
        Err(e) => row("the work of each decision", &format!("not measured: {e}"), "", None),
    }
}

/// Whether valgrind and its `callgrind_control` can be run.
fn valgrind() -> Result<(), String> {
    for program in ["valgrind", "callgrind_control"] {
        let ran = Command::new(program).arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status();
        if !ran.is_ok_and(|s| s.success()) {
            return Err(format!("`{program} --version` does not run (Debian's package valgrind has it)"));
        }
    }
    Ok(())
}

/// The rows of one build, its stores and servers in `target/bench-serve-NAME…`.
fn counts(bin: &Path, build: &Build, name: &str) -> Result<Counts, String> {
    let dir = crate::measure::target_dir().join(format!("bench-serve-{name}-callgrind"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut counts = Vec::new();
    // The server under callgrind: counting from the start, its counters zeroed before each kind.
    let out = dir.join("callgrind.out");
    let out_arg = format!("--callgrind-out-file={}", out.display());
    // Fair scheduling (here and for each whole process): valgrind runs one thread at a time, and
    // without it a thread that spins waiting for another may hold the turn for minutes.
    let under = ["valgrind", "--tool=callgrind", "--fair-sched=yes", &out_arg];
    let server =
        Server::start_as(&build.warden, bin, name, 0, &Serving { under: &under, ..Serving::default() })?;
    let args = server.hook_args();
    let args = [args.as_slice(), &["--deadline-ms".to_owned(), "60000".to_owned()]].concat();
    track_planner(&build.client, &args, "bench-sub")?;
    let kinds = kinds()?;
    for kind in &kinds {
        // One call first, not counted: the first `Bash` of a session writes its index.
        hook_output(&build.client, &args, &kind.input)?;
        control(&server, &["--zero"])?;
        for _ in 0..CALLS {
            hook_output(&build.client, &args, &kind.input)?;
        }
        control(&server, &[&format!("--dump={}", kind.key)])?;
        let total = dumped(&dir, kind.key)?;
        counts.push((format!("`warden serve` decides {}, per call", kind.name), total / CALLS));
    }
    server.stop();
    // The whole client process, against a server of the same build run directly.
    let server = Server::start(&build.warden, bin, &format!("{name}-client"), 0)?;
    let args = server.hook_args();
    track_planner(&build.client, &args, "bench-sub")?;
    for kind in &kinds {
        hook_output(&build.client, &args, &kind.input)?;
        let out = dir.join(format!("client-{}", kind.key));
        let counted = whole(&build.client, &args, &kind.input, &out)?;
        counts.push((format!("`warden-hook` {}, through the server, whole process", kind.name), counted));
    }
    // `warden hook --server`, which answers through the same client before its command tree
    // (V-71).
    let spawn = kinds.first().ok_or("no kinds")?;
    let counted = whole(&build.warden, &args, &spawn.input, &dir.join("client-warden"))?;
    counts.push((format!("`warden hook` {}, through the server, whole process", spawn.name), counted));
    server.stop();
    Ok(counts)
}

/// `callgrind_control ARGS PID` for the valgrind that runs `server`; it returns once callgrind
/// has done what it was asked.
fn control(server: &Server, args: &[&str]) -> Result<(), String> {
    let status = Command::new("callgrind_control")
        .args(args)
        .arg(server.pid().to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| format!("cannot run callgrind_control: {e}"))?;
    if status.success() { Ok(()) } else { Err(format!("callgrind_control {args:?}: {status}")) }
}

/// The instructions in the dump of `dir` that `callgrind_control --dump=KEY` wrote.
fn dumped(dir: &Path, key: &str) -> Result<u64, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let trigger = format!("desc: Trigger: dump {key}");
    for entry in entries.flatten() {
        let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
        if text.lines().any(|l| l == trigger) {
            return summary(&text).ok_or_else(|| format!("{}: no summary line", entry.path().display()));
        }
    }
    Err(format!("callgrind wrote no dump for {key} in {}", dir.display()))
}

/// One whole process of `program ARGS < input` under callgrind (the kill switch set, as in every
/// timed row): its instructions, its profile written to `out`.
fn whole(program: &Path, args: &[String], input: &str, out: &Path) -> Result<u64, String> {
    let stdin = crate::bench_server::write_input("work-input", input)?;
    let stdin = std::fs::File::open(&stdin).map_err(|e| format!("{stdin}: {e}"))?;
    let status = Command::new("valgrind")
        .args(["--tool=callgrind", "--fair-sched=yes", "--quiet"])
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg(program)
        .args(args)
        .env(KILL_SWITCH.0, KILL_SWITCH.1)
        .stdin(stdin)
        .stdout(Stdio::null())
        .status()
        .map_err(|e| format!("cannot run valgrind: {e}"))?;
    if !status.success() {
        return Err(format!("{} under callgrind: {status}", program.display()));
    }
    let text = std::fs::read_to_string(out).map_err(|e| format!("{}: {e}", out.display()))?;
    summary(&text).ok_or_else(|| format!("{}: no summary line", out.display()))
}

/// The total of a callgrind profile: its `summary:` line (instructions, the only event counted).
fn summary(profile: &str) -> Option<u64> {
    profile.lines().find_map(|l| l.strip_prefix("summary:")).and_then(|n| n.trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::summary;

    #[test]
    fn the_total_is_the_summary_line_and_nothing_else() {
        let profile = "version: 1\ncreator: callgrind-3.19.0\ndesc: Trigger: dump agent\nevents: Ir\n\
                       summary: 15672612\ntotals: 15672612\n";
        assert_eq!(summary(profile), Some(15_672_612));
        assert_eq!(summary("events: Ir\ntotals: 12\n"), None, "no summary line, no figure");
        assert_eq!(summary("summary: many\n"), None, "a summary that is no number, no figure");
    }
}
