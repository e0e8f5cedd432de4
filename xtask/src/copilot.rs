//! `cargo xtask copilot-install` and `cargo xtask copilot`: the GitHub Copilot CLI real-client
//! suite (issue 51).
//!
//! The npm package `@github/copilot` is pinned, exactly, by `tests/copilot/package.json` and its
//! `package-lock.json`, installed as the others are (`npm ci --ignore-scripts` into
//! `target/copilot/`). The package is a loader; the suite runs its native binary
//! (`@github/copilot-linux-x64/copilot`), which unpacks its JavaScript on first run under
//! `$XDG_CACHE_HOME/copilot` (here `target/copilot/cache`, shared by every run). `run` installs,
//! then runs `tests/tests/copilot_real.rs` with `--ignored`. H-41 holds as for the other suites:
//! under `CI=true` a suite that cannot run fails `cargo xtask ci`; elsewhere it is a loud skip.

use std::path::{Path, PathBuf};

use crate::claude_code::{CannotRun, Pinned, install_pinned};

/// `@github/copilot`, pinned by `tests/copilot/`.
const COPILOT: Pinned = Pinned {
    label: "Copilot CLI",
    package: "@github/copilot",
    package_dir: "tests/copilot",
    install_dir: "target/copilot",
    binary: "node_modules/@github/copilot-linux-x64/copilot",
    reports: None,
};

/// Installs the pinned Copilot CLI into `target/copilot/` when needed; returns its binary.
pub(crate) fn install() -> Result<PathBuf, CannotRun> {
    install_pinned(&COPILOT)
}

/// Runs the suite with `copilot` (already installed). `Err` names what failed.
pub(crate) fn run_suite(copilot: &Path) -> Result<(), String> {
    let mut args = vec![
        "test",
        "--locked",
        "--workspace",
        "--all-features",
        "--test",
        "copilot_real",
        "--",
        "--ignored",
        "--test-threads",
        "2",
    ];
    // The managed form is tried in a mount namespace, which needs root (CI runs as root).
    let root_user =
        std::process::Command::new("id").arg("-u").output().is_ok_and(|o| o.stdout.trim_ascii() == b"0");
    if !root_user {
        if crate::claude_code::under_ci() {
            return Err("real Copilot CLI: the root_only_ scenarios need root under CI=true".into());
        }
        println!("==> real Copilot CLI: the root_only_ scenarios are SKIPPED, NOT PASSED: not root");
        args.extend(["--skip", "root_only_"]);
    }
    crate::claude_code::run_real_suite(
        "real Copilot CLI",
        &args,
        ("AGENTWARDEN_COPILOT_BIN", copilot),
        "cargo xtask copilot",
    )
}

/// `cargo xtask copilot-install`.
pub(crate) fn install_command() -> Result<(), String> {
    let binary = install().map_err(|CannotRun(why)| why)?;
    println!("{}", binary.display());
    Ok(())
}

/// `cargo xtask copilot`: install when needed, then run the suite; a suite that cannot run is an
/// error here, whatever `CI` says.
pub(crate) fn run() -> Result<(), String> {
    let binary = install().map_err(|CannotRun(why)| format!("real Copilot CLI cannot run: {why}"))?;
    run_suite(&binary)
}
