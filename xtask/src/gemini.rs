//! `cargo xtask gemini-install` and `cargo xtask gemini`: the Gemini CLI real-client suite
//! (issue 40).
//!
//! The npm package `@google/gemini-cli` is pinned, exactly, by `tests/gemini/package.json` and
//! its `package-lock.json`, installed as Codex's is (`npm ci --ignore-scripts` into
//! `target/gemini/`). Unlike Codex it is a Node program, not a native binary: the suite runs
//! its `bundle/gemini.js` (a `#!/usr/bin/env node` script) with the machine's `node`, so a
//! missing `node` is a suite that cannot run. `run` installs, then runs
//! `tests/tests/gemini_real.rs` with `--ignored`. H-41 holds as for the other suites: under
//! `CI=true` a suite that cannot run fails `cargo xtask ci`; elsewhere it is a loud skip.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cargo;
use crate::claude_code::{CannotRun, Pinned, install_pinned};

/// `@google/gemini-cli`, pinned by `tests/gemini/`.
const GEMINI: Pinned = Pinned {
    label: "Gemini CLI",
    package: "@google/gemini-cli",
    package_dir: "tests/gemini",
    install_dir: "target/gemini",
    binary: "node_modules/@google/gemini-cli/bundle/gemini.js",
    reports: None,
};

/// Installs the pinned Gemini CLI into `target/gemini/` when needed; returns its script.
pub(crate) fn install() -> Result<PathBuf, CannotRun> {
    node_runs("node")?;
    install_pinned(&GEMINI)
}

/// The CLI is a Node script, so without a `node` that runs the suite cannot run at all (M-20).
fn node_runs(node: &str) -> Result<(), CannotRun> {
    let ok = Command::new(node).arg("--version").output().is_ok_and(|o| o.status.success());
    if ok {
        Ok(())
    } else {
        Err(CannotRun(format!("`{node} --version` does not run: the Gemini CLI is a Node program")))
    }
}

/// Runs the suite with `gemini` (already installed). `Err` names what failed.
pub(crate) fn run_suite(gemini: &Path) -> Result<(), String> {
    // `init gemini --server` installs the `warden-hook` beside `warden`: built from this tree,
    // not left over from an older build that knows no `--harness gemini`.
    let client = ["build", "--locked", "--all-features", "-p", "agentwarden-hook-client"];
    println!("==> real Gemini CLI: cargo {}", client.join(" "));
    let built = Command::new(cargo())
        .args(client)
        .status()
        .map_err(|e| format!("real Gemini CLI: cannot run cargo: {e}"))?;
    if !built.success() {
        return Err(format!("real Gemini CLI: building warden-hook failed ({built})"));
    }
    let args = [
        "test",
        "--locked",
        "--workspace",
        "--all-features",
        "--test",
        "gemini_real",
        "--",
        "--ignored",
        "--test-threads",
        "2",
    ];
    crate::claude_code::run_real_suite(
        "real Gemini CLI",
        &args,
        ("AGENTWARDEN_GEMINI_BIN", gemini),
        "cargo xtask gemini",
    )
}

/// `cargo xtask gemini-install`.
pub(crate) fn install_command() -> Result<(), String> {
    let binary = install().map_err(|CannotRun(why)| why)?;
    println!("{}", binary.display());
    Ok(())
}

/// `cargo xtask gemini`: install when needed, then run the suite; a suite that cannot run is an
/// error here, whatever `CI` says.
pub(crate) fn run() -> Result<(), String> {
    let binary = install().map_err(|CannotRun(why)| format!("real Gemini CLI cannot run: {why}"))?;
    run_suite(&binary)
}

#[cfg(test)]
mod tests {
    use super::node_runs;

    #[test]
    fn a_missing_node_is_a_suite_that_cannot_run() {
        assert!(node_runs("agentwarden-no-such-node").is_err());
        assert!(node_runs("false").is_err(), "a node that fails is no node");
        assert!(node_runs("true").is_ok());
        let missing = node_runs("agentwarden-no-such-node").err().map(|c| c.0).unwrap_or_default();
        assert!(missing.contains("agentwarden-no-such-node --version"), "{missing}");
    }
}
