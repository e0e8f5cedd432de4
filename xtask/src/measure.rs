//! What every measurement and build step of xtask shares: where cargo builds, running a
//! command to success, criterion's medians, and timing a whole `warden` process. The benches
//! and the install check use it; it uses none of them.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

pub(crate) fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::current_dir().unwrap_or_default().join("target"))
}

/// The median point estimate, in ns, from criterion's `estimates.json` under `criterion` (a
/// tiny hand parser: xtask has no dependencies).
pub(crate) fn median_ns_in(criterion: &Path, group: &str, function: &str) -> Result<f64, String> {
    let path = criterion.join(group).join(function).join("new").join("estimates.json");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let median = text.find("\"median\"").ok_or_else(|| format!("{}: no median", path.display()))?;
    let rest = text.get(median..).unwrap_or_default();
    let at =
        rest.find("\"point_estimate\":").ok_or_else(|| format!("{}: no point estimate", path.display()))?;
    let number: String = rest
        .get(at + "\"point_estimate\":".len()..)
        .unwrap_or_default()
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '-' | '+'))
        .collect();
    number.parse().map_err(|e| format!("{}: {e}", path.display()))
}

pub(crate) fn exec(command: &mut Command) -> Result<(), String> {
    let status = command.status().map_err(|e| format!("cannot run {command:?}: {e}"))?;
    if status.success() { Ok(()) } else { Err(format!("{command:?} failed: {status}")) }
}

pub(crate) fn human_ns(ns: f64) -> String {
    match ns {
        n if n >= 1e9 => format!("{:.2} s", n / 1e9),
        n if n >= 1e6 => format!("{:.2} ms", n / 1e6),
        n if n >= 1e3 => format!("{:.2} µs", n / 1e3),
        n => format!("{n:.0} ns"),
    }
}

/// One whole-process measurement: `warden ARGS` (with `stdin` from a file, if given) under
/// `env`.
pub(crate) struct WholeProcess<'a> {
    pub(crate) name: &'a str,
    pub(crate) args: Vec<String>,
    pub(crate) stdin: Option<&'a str>,
    pub(crate) env: (&'a str, &'a str),
}

/// Median wall time of a whole `warden` process, in ms: hyperfine when it is installed, else
/// 30 timed runs of our own.
/// The runs the own loop times, after [`WARM_UP`] untimed: the medians of the 30 it timed
/// before moved by ±0.3 ms from one run to the next on a shared 2-core machine.
const RUNS: usize = 100;

/// The untimed runs first (page cache, the server's first decision of a kind).
const WARM_UP: usize = 5;

pub(crate) fn time_warden(warden: &Path, run: &WholeProcess<'_>) -> Result<(f64, &'static str), String> {
    let has_hyperfine = Command::new("hyperfine").arg("--version").output().is_ok_and(|o| o.status.success());
    if has_hyperfine {
        let json = target_dir().join(format!("hyperfine-{}.json", run.name));
        let mut line = format!("{} {}", warden.display(), run.args.join(" "));
        if let Some(stdin) = run.stdin {
            line.push_str(&format!(" < {stdin}"));
        }
        exec(
            Command::new("hyperfine")
                .args(["--warmup", "5", "--runs", "50", "--style", "basic", "--export-json"])
                .arg(&json)
                .arg(&line)
                .env(run.env.0, run.env.1),
        )?;
        let text = std::fs::read_to_string(&json).map_err(|e| e.to_string())?;
        let at = text.find("\"median\":").ok_or("hyperfine: no median")?;
        let number: String = text
            .get(at + 9..)
            .unwrap_or_default()
            .trim_start()
            .chars()
            .take_while(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | '-'))
            .collect();
        let secs: f64 = number.parse().map_err(|e| format!("hyperfine median: {e}"))?;
        return Ok((secs * 1e3, "hyperfine, 50 runs"));
    }
    time_loop(warden, run)
}

/// `run` of `warden` timed by our own loop: each process started directly, its stdin the file,
/// no shell between (whose start hyperfine subtracts only as well as it can calibrate it, under
/// 5 ms not well): the median of 100 runs after 5 untimed ones.
pub(crate) fn time_loop(warden: &Path, run: &WholeProcess<'_>) -> Result<(f64, &'static str), String> {
    let mut times = Vec::new();
    for i in 0..(WARM_UP + RUNS) {
        let stdin = match run.stdin {
            Some(file) => std::process::Stdio::from(std::fs::File::open(file).map_err(|e| e.to_string())?),
            None => std::process::Stdio::null(),
        };
        let started = Instant::now();
        let status = Command::new(warden)
            .args(&run.args)
            .env(run.env.0, run.env.1)
            .stdin(stdin)
            .stdout(std::process::Stdio::null())
            .status()
            .map_err(|e| e.to_string())?;
        if !status.success() {
            return Err(format!("warden {} exited with {status}", run.name));
        }
        if i >= WARM_UP {
            times.push(started.elapsed().as_secs_f64() * 1e3);
        }
    }
    Ok((median(&mut times).unwrap_or(f64::NAN), "own loop, 100 runs after 5 warm-up"))
}

/// The median of `values` (sorted in place); `None` when there are none.
pub(crate) fn median(values: &mut [f64]) -> Option<f64> {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied()
}
