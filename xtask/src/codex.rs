//! `cargo xtask codex-install` and `cargo xtask codex`: the Codex real-client suite (issue 36).
//!
//! The npm package `@openai/codex` is pinned, exactly, by `tests/codex/package.json` and its
//! `package-lock.json`, installed as Claude Code's is (`npm ci --ignore-scripts` into
//! `target/codex/`, the native binary run directly). `run` installs, then runs
//! `tests/tests/codex_real.rs` with `--ignored`. H-41 holds as for Claude Code: under `CI=true`
//! a suite that cannot run fails `cargo xtask ci`; elsewhere it is a loud skip.

use std::path::{Path, PathBuf};

use crate::claude_code::{CannotRun, Pinned, install_pinned};

/// `@openai/codex`, pinned by `tests/codex/`.
const CODEX: Pinned = Pinned {
    label: "Codex",
    package: "@openai/codex",
    package_dir: "tests/codex",
    install_dir: "target/codex",
    binary: "node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex",
    reports: None,
};

/// Installs the pinned Codex into `target/codex/` when needed; returns the binary.
pub(crate) fn install() -> Result<PathBuf, CannotRun> {
    install_pinned(&CODEX)
}

/// Runs the suite with `codex` (already installed). `Err` names what failed.
pub(crate) fn run_suite(codex: &Path) -> Result<(), String> {
    let args = [
        "test",
        "--locked",
        "--workspace",
        "--all-features",
        "--test",
        "codex_real",
        "--",
        "--ignored",
        "--test-threads",
        "2",
    ];
    crate::claude_code::run_real_suite(
        "real Codex",
        &args,
        ("AGENTWARDEN_CODEX_BIN", codex),
        "cargo xtask codex",
    )
}

/// `cargo xtask codex-install`.
pub(crate) fn install_command() -> Result<(), String> {
    let binary = install().map_err(|CannotRun(why)| why)?;
    println!("{}", binary.display());
    Ok(())
}

/// `cargo xtask codex`: install when needed, then run the suite; a suite that cannot run is an
/// error here, whatever `CI` says.
pub(crate) fn run() -> Result<(), String> {
    let binary = install().map_err(|CannotRun(why)| format!("real Codex cannot run: {why}"))?;
    run_suite(&binary)
}
