//! `--baseline REV` of `cargo xtask bench server` and `bench session` (issue 49, item 8): another
//! commit's binaries, built as `cargo xtask install` builds them, to time beside this tree's in
//! one run — "no row worse than 3 % than the previous main" is a comparison on one machine at
//! one time, never against a figure from another day.
//!
//! The commit's tree is exported with `git archive` (no work tree, no submodule, nothing of this
//! checkout's uncommitted state) into `target/bench-baseline/SHA`, and its own `cargo xtask
//! install --root` builds and installs `warden`, `warden-hook` and `warden-confine` into
//! `target/bench-baseline/SHA/installed/bin`, with one target directory shared by every
//! baseline so that a second run, or another commit, rebuilds only what changed. A commit whose
//! binaries are already installed is not built again.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::measure::{exec, target_dir};

/// The difference, as a factor of the baseline's time, past which a row is a miss (issue 49,
/// item 8).
pub(crate) const WORSE_BY_AT_MOST: f64 = 1.03;

/// Takes `--baseline REV` out of `args`: the revision, and the other arguments in their order.
pub(crate) fn split(args: &[String]) -> Result<(Option<String>, Vec<String>), String> {
    let mut rest = Vec::new();
    let mut baseline = None;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        if arg == "--baseline" {
            let rev = args.next().ok_or("--baseline needs a revision (a commit, a branch, `main`)")?;
            if baseline.replace(rev.clone()).is_some() {
                return Err("--baseline is given twice".into());
            }
        } else {
            rest.push(arg.clone());
        }
    }
    Ok((baseline, rest))
}

/// The commit `rev` names, in full.
fn commit(rev: &str) -> Result<String, String> {
    let output = Command::new("git")
        .args(["rev-parse", "--verify", "--quiet", &format!("{rev}^{{commit}}")])
        .current_dir(crate::root())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    let sha = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    if !output.status.success() || sha.len() != 40 {
        return Err(format!(
            "--baseline `{rev}` names no commit of this repository; try `git log --oneline`"
        ));
    }
    Ok(sha)
}

/// Builds and installs the binaries of the commit `rev` names (once per commit): the directory
/// that holds its `warden`, `warden-hook` and `warden-confine`.
pub(crate) fn build(rev: &str) -> Result<PathBuf, String> {
    let sha = commit(rev)?;
    let base = target_dir().join("bench-baseline");
    let tree = base.join(&sha);
    let bin = tree.join("installed").join("bin");
    let done = tree.join("installed").join("done");
    if done.is_file() {
        println!("baseline {rev} ({sha}): installed earlier in {}", bin.display());
        return Ok(bin);
    }
    // A half-built earlier attempt is started again from a clean export.
    if tree.exists() {
        std::fs::remove_dir_all(&tree).map_err(|e| format!("cannot clear {}: {e}", tree.display()))?;
    }
    std::fs::create_dir_all(&tree).map_err(|e| format!("cannot create {}: {e}", tree.display()))?;
    export(&sha, &tree)?;
    println!("baseline {rev} ({sha}): building in {}", tree.display());
    exec(
        Command::new(crate::cargo())
            .args(["run", "--quiet", "--locked", "--package", "xtask", "--", "install", "--root"])
            .arg(tree.join("installed"))
            .current_dir(&tree)
            .env("CARGO_TARGET_DIR", base.join("target")),
    )?;
    for name in ["warden", "warden-hook", "warden-confine"] {
        if !bin.join(name).is_file() {
            return Err(format!("the baseline's install left no {}", bin.join(name).display()));
        }
    }
    std::fs::write(&done, &sha).map_err(|e| format!("cannot write {}: {e}", done.display()))?;
    Ok(bin)
}

/// Writes the tree of `sha` into `dir` (`git archive | tar -x`).
fn export(sha: &str, dir: &Path) -> Result<(), String> {
    let mut archive = Command::new("git")
        .args(["archive", "--format=tar", sha])
        .current_dir(crate::root())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run git archive: {e}"))?;
    let stdout = archive.stdout.take().ok_or("git archive gave no output")?;
    let untar = Command::new("tar").arg("-x").arg("-C").arg(dir).stdin(stdout).status();
    let archived = archive.wait().map_err(|e| format!("git archive: {e}"))?;
    match untar {
        Ok(status) if status.success() && archived.success() => Ok(()),
        Ok(status) => Err(format!("git archive {sha} | tar -x failed: {archived}, {status}")),
        Err(e) => Err(format!("cannot run tar: {e}")),
    }
}

/// The verdict of a row timed `ours` beside the baseline's `theirs`: within
/// [`WORSE_BY_AT_MOST`] of it, or not measured.
pub(crate) fn within(ours: Option<f64>, theirs: Option<f64>) -> Option<bool> {
    match (ours, theirs) {
        (Some(o), Some(t)) => Some(o <= t * WORSE_BY_AT_MOST),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|a| (*a).to_owned()).collect()
    }

    #[test]
    fn the_baseline_is_taken_out_and_the_rest_kept_in_order() {
        let (rev, rest) =
            split(&strings(&["--rounds", "3", "--baseline", "main", "--harness", "codex"])).unwrap();
        assert_eq!(rev.as_deref(), Some("main"));
        assert_eq!(rest, strings(&["--rounds", "3", "--harness", "codex"]));
        assert_eq!(split(&strings(&["--rounds", "3"])).unwrap(), (None, strings(&["--rounds", "3"])));
    }

    #[test]
    fn a_baseline_without_a_revision_or_given_twice_is_refused() {
        assert!(split(&strings(&["--baseline"])).is_err());
        assert!(split(&strings(&["--baseline", "a", "--baseline", "b"])).is_err());
    }

    #[test]
    fn a_row_three_percent_slower_passes_and_more_misses() {
        assert_eq!(within(Some(1.03), Some(1.0)), Some(true));
        assert_eq!(within(Some(1.031), Some(1.0)), Some(false));
        assert_eq!(within(None, Some(1.0)), None);
    }
}
