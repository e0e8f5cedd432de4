//! `cargo xtask bench confine`: what the launcher costs a shell call (issue 50), as whole
//! processes in the same run: `warden-confine CONFINEMENT true` against `true` alone, the
//! confinement the domain writes for a manifest of `Edit` in a git workspace with a protected
//! path (every mechanism: the namespaces, the holes and the held names carved, Landlock, the
//! socket filter, then `/bin/sh -c true`). Target: at most 1 ms added at the median.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use crate::cargo;
use crate::measure::{exec, target_dir};

/// The most the launcher may add to a call at the median, in ms.
const TARGET_MS: f64 = 1.0;

/// Runs of each command (after the warm-up).
const RUNS: usize = 300;

/// Untimed runs first.
const WARM_UP: usize = 20;

pub(crate) fn run() -> Result<(), String> {
    let launcher = build()?;
    let dir = target_dir().join("bench-confine");
    let _ = std::fs::remove_dir_all(&dir);
    let (ws, tmp) = (dir.join("ws"), dir.join("tmp"));
    for made in [ws.join("okrs"), ws.join("src"), tmp.clone()] {
        std::fs::create_dir_all(&made).map_err(|e| format!("cannot make {}: {e}", made.display()))?;
    }
    std::fs::write(ws.join("okrs/q4.md"), "objectives").map_err(|e| e.to_string())?;
    exec(Command::new("git").args(["init", "-q"]).current_dir(&ws))?;
    let output = Command::new(cargo())
        .args([
            "run",
            "--release",
            "--quiet",
            "--locked",
            "-p",
            "agentwarden-confine",
            "--example",
            "confinement",
            "--",
        ])
        .arg(&ws)
        .arg(&tmp)
        .arg("okrs")
        .output()
        .map_err(|e| format!("cannot run the confinement example: {e}"))?;
    if !output.status.success() {
        return Err(format!("the confinement example failed: {}", String::from_utf8_lossy(&output.stderr)));
    }
    let confinement = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    // The launcher must confine, not refuse, or the figure is of a refusal.
    let check = Command::new(&launcher)
        .arg(&confinement)
        .arg("echo confined")
        .current_dir(&ws)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", launcher.display()))?;
    if String::from_utf8_lossy(&check.stdout).trim() != "confined" {
        return Err(format!(
            "the launcher did not run the command: {}",
            String::from_utf8_lossy(&check.stderr)
        ));
    }
    let ([bare, shell, confined], how) = medians(&launcher, &confinement, &ws)?;
    let added = confined - bare;
    println!("\nwarden-confine around `true` against `true` alone ({how}; medians)\n");
    println!("{:<44} {:>10}", "`true` alone", format!("{bare:.2} ms"));
    println!("{:<44} {:>10}", "`/bin/sh -c true` (what the launcher becomes)", format!("{shell:.2} ms"));
    println!("{:<44} {:>10}", "`warden-confine CONFINEMENT true`", format!("{confined:.2} ms"));
    println!(
        "{:<44} {:>10}  target ≤ {TARGET_MS} ms: {}",
        "added by the launcher",
        format!("{added:.2} ms"),
        if added <= TARGET_MS { "PASS" } else { "MISS" }
    );
    println!(
        "confinement: {} words, {} held names",
        confinement.split(' ').count(),
        confinement.matches(" held").count()
    );
    Ok(())
}

/// Builds the release launcher as `cargo xtask install` does (E-36) and says how it is linked.
fn build() -> Result<std::path::PathBuf, String> {
    let (launcher, linked) = crate::install::launcher(crate::install::Profile::Release)?;
    println!("warden-confine: {linked}");
    Ok(launcher)
}

/// The medians of `true`, of `/bin/sh -c true` and of the launcher around `true`, in ms, and
/// how they were taken: hyperfine without a shell when installed, else a loop of our own; all in
/// the same run.
fn medians(launcher: &Path, confinement: &str, ws: &Path) -> Result<([f64; 3], String), String> {
    let truth = Command::new("sh").args(["-c", "command -v true"]).output().map_err(|e| e.to_string())?;
    let truth = String::from_utf8_lossy(&truth.stdout).trim().to_owned();
    let has_hyperfine = Command::new("hyperfine").arg("--version").output().is_ok_and(|o| o.status.success());
    if has_hyperfine {
        let json = target_dir().join("hyperfine-confine.json");
        let confined = format!("{} '{confinement}' true", launcher.display());
        exec(
            Command::new("hyperfine")
                .args(["-N", "--warmup", &WARM_UP.to_string(), "--runs", &RUNS.to_string()])
                .args(["--style", "basic", "--export-json"])
                .arg(&json)
                .arg(&truth)
                .arg("/bin/sh -c true")
                .arg(&confined)
                .current_dir(ws),
        )?;
        let text = std::fs::read_to_string(&json).map_err(|e| e.to_string())?;
        let medians: Vec<f64> = text
            .match_indices("\"median\":")
            .filter_map(|(at, key)| {
                let number: String = text
                    .get(at + key.len()..)?
                    .trim_start()
                    .chars()
                    .take_while(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | '-'))
                    .collect();
                number.parse::<f64>().ok()
            })
            .collect();
        let [bare, shell, confined] = medians.as_slice() else {
            return Err(format!("hyperfine: {} medians, not 3", medians.len()));
        };
        let how = format!("hyperfine -N, {RUNS} runs each after {WARM_UP}");
        return Ok(([bare * 1e3, shell * 1e3, confined * 1e3], how));
    }
    let time = |command: &mut Command| -> Result<f64, String> {
        let mut times = Vec::new();
        for i in 0..WARM_UP + RUNS {
            let started = Instant::now();
            let status = command.status().map_err(|e| e.to_string())?;
            if !status.success() {
                return Err(format!("{command:?} exited with {status}"));
            }
            if i >= WARM_UP {
                times.push(started.elapsed().as_secs_f64() * 1e3);
            }
        }
        Ok(crate::measure::median(&mut times).unwrap_or(f64::NAN))
    };
    let bare = time(Command::new(&truth).current_dir(ws))?;
    let shell = time(Command::new("/bin/sh").args(["-c", "true"]).current_dir(ws))?;
    let confined = time(Command::new(launcher).arg(confinement).arg("true").current_dir(ws))?;
    Ok(([bare, shell, confined], format!("own loop, {RUNS} runs each after {WARM_UP}")))
}
