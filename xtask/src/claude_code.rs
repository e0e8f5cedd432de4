//! `cargo xtask claude-code-install` and `cargo xtask claude-code`: the real-client suite.
//!
//! The npm package `@anthropic-ai/claude-code` is pinned, exactly, by
//! `tests/claude-code/package.json` and its `package-lock.json`. `install` copies both into
//! `target/claude-code/` (git-ignored) and runs `npm ci --ignore-scripts` there when the
//! installed lock differs or the binary is absent; the suite runs the native binary directly
//! (`postinstall` is not needed). `run` installs, then runs
//! `tests/tests/claude_code_real.rs` with `--ignored --skip pending::` (ruling H-40).
//!
//! Ruling H-41: under `CI=true` a suite that cannot run (no npm, an install that fails, a
//! platform without the pinned binary) fails `cargo xtask ci`; elsewhere the step prints
//! `SKIPPED` with the reason, and the final line says the suite was not run: a skip is never
//! reported as a pass.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use crate::{cargo, root};

/// A pinned npm package whose native binary a real-client suite runs.
pub(crate) struct Pinned {
    /// The suite's name in messages (`real Claude Code`).
    pub(crate) label: &'static str,
    /// The npm package.
    pub(crate) package: &'static str,
    /// Where its `package.json` and lock are, relative to the workspace root.
    pub(crate) package_dir: &'static str,
    /// Where it is installed, relative to the workspace root (git-ignored).
    pub(crate) install_dir: &'static str,
    /// The native binary, relative to the install directory.
    pub(crate) binary: &'static str,
    /// The version `binary --version` says, where it is not the package's (an SDK whose
    /// package bundles a Claude Code of another version); `None`: the package's.
    pub(crate) reports: Option<&'static str>,
}

/// `@anthropic-ai/claude-code`, pinned by `tests/claude-code/`.
const CLAUDE_CODE: Pinned = Pinned {
    label: "Claude Code",
    package: "@anthropic-ai/claude-code",
    package_dir: "tests/claude-code",
    install_dir: "target/claude-code",
    binary: "node_modules/@anthropic-ai/claude-code-linux-x64/claude",
    reports: None,
};

const FILES: [&str; 2] = ["package.json", "package-lock.json"];

/// The suite could not even start (as opposed to a test that failed).
#[derive(Debug)]
pub(crate) struct CannotRun(pub(crate) String);

/// True when `CI` is `true` (GitHub Actions, GitLab and most others set it).
pub(crate) fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// The pinned version, read from the package's `package.json`.
fn pinned_version(pinned: &Pinned, package_dir: &Path) -> Result<String, CannotRun> {
    let dir = pinned.package_dir;
    let manifest = std::fs::read_to_string(package_dir.join("package.json"))
        .map_err(|e| CannotRun(format!("cannot read {dir}/package.json: {e}")))?;
    let key = format!("\"{}\": \"", pinned.package);
    manifest
        .split_once(&key)
        .and_then(|(_, rest)| rest.split_once('"'))
        .map(|(version, _)| version.to_owned())
        .ok_or_else(|| CannotRun(format!("{dir}/package.json pins no {} version", pinned.package)))
}

/// Installs the pinned Claude Code into `target/claude-code/` when needed; returns the binary.
pub(crate) fn install() -> Result<PathBuf, CannotRun> {
    install_pinned(&CLAUDE_CODE)
}

/// Installs `pinned` into its install directory when needed (`npm ci --ignore-scripts`, when
/// the installed lock differs or the binary is absent); returns the binary, checked to say the
/// pinned version (H-41).
pub(crate) fn install_pinned(pinned: &Pinned) -> Result<PathBuf, CannotRun> {
    let Pinned { label, package, package_dir: dir, install_dir: into, binary, reports } = pinned;
    if !(cfg!(target_os = "linux") && cfg!(target_arch = "x86_64")) {
        return Err(CannotRun(format!("the suite runs the linux-x64 build of {label} only")));
    }
    let package_dir = root().join(dir);
    let install_dir = root().join(into);
    let binary = install_dir.join(binary);
    let version = pinned_version(pinned, &package_dir)?;
    let same_lock = |name: &str| {
        std::fs::read(package_dir.join(name))
            .ok()
            .is_some_and(|a| std::fs::read(install_dir.join(name)).ok() == Some(a))
    };
    if !(binary.is_file() && FILES.iter().all(|f| same_lock(f))) {
        let npm_ok = Command::new("npm").arg("--version").output().is_ok_and(|o| o.status.success());
        if !npm_ok {
            return Err(CannotRun(format!(
                "npm is not installed (the suite installs {label} with `npm ci`)"
            )));
        }
        println!("==> installing {package} {version} into {into} (npm ci)");
        let started = Instant::now();
        std::fs::create_dir_all(&install_dir).map_err(|e| CannotRun(format!("cannot create {into}: {e}")))?;
        for name in FILES {
            std::fs::copy(package_dir.join(name), install_dir.join(name))
                .map_err(|e| CannotRun(format!("cannot copy {dir}/{name}: {e}")))?;
        }
        let status = Command::new("npm")
            .args(["ci", "--ignore-scripts", "--no-audit", "--no-fund"])
            .current_dir(&install_dir)
            .status()
            .map_err(|e| CannotRun(format!("cannot run npm: {e}")))?;
        if !status.success() {
            // A half-installed tree must not pass for a good one next time.
            let _ = std::fs::remove_file(install_dir.join("package-lock.json"));
            return Err(CannotRun(format!("`npm ci` in {into} failed ({status})")));
        }
        println!("==> installed in {:.0} s", started.elapsed().as_secs_f64());
    }
    // A client that unpacks itself on first run (Copilot CLI) does so under the install
    // directory, not the user's home.
    let out = Command::new(&binary)
        .arg("--version")
        .env("XDG_CACHE_HOME", install_dir.join("cache"))
        .output()
        .map_err(|e| CannotRun(format!("cannot run `{}`: {e}", binary.display())))?;
    let reported = String::from_utf8_lossy(&out.stdout);
    let version = reports.map_or(version, str::to_owned);
    // `GitHub Copilot CLI 1.0.102.` ends its version with the sentence's full stop.
    if !reported.split_whitespace().any(|word| word.trim_end_matches('.') == version) {
        return Err(CannotRun(format!(
            "`{} --version` says {:?}, the pin is {version}",
            binary.display(),
            reported.trim()
        )));
    }
    Ok(binary)
}

/// Runs the suite with `claude` (already installed). `Err` names what failed.
pub(crate) fn run_suite(claude: &Path) -> Result<(), String> {
    // The confined scenarios run the launcher beside the suite's `warden` (H-63): build it, in
    // the same profile.
    let built = Command::new(env!("CARGO"))
        .args(["build", "--locked", "-p", "agentwarden-confine", "--bin", "warden-confine"])
        .status()
        .map_err(|e| format!("cargo build -p agentwarden-confine: {e}"))?;
    if !built.success() {
        return Err(format!("cargo build -p agentwarden-confine failed ({built})"));
    }
    // `--workspace --all-features`, as the test steps build: the same artifacts, no rebuild.
    let mut args = vec![
        "test",
        "--locked",
        "--workspace",
        "--all-features",
        "--test",
        "claude_code_real",
        "--",
        "--ignored",
        "--skip",
        "pending::",
        "--test-threads",
        "2",
    ];
    // Managed settings are tried in a mount namespace, which needs root (CI runs as root).
    let root_user = Command::new("id").arg("-u").output().is_ok_and(|o| o.stdout.trim_ascii() == b"0");
    if !root_user {
        if under_ci() {
            return Err("real Claude Code: the root_only_ scenarios need root under CI=true".into());
        }
        println!("==> real Claude Code: the root_only_ scenarios are SKIPPED, NOT PASSED: not root");
        args.extend(["--skip", "root_only_"]);
    }
    run_real_suite("real Claude Code", &args, ("AGENTWARDEN_CLAUDE_BIN", claude), "cargo xtask claude-code")
}

/// Runs a real-client suite: `cargo ARGS` with the client's binary named by `env`, timed, said
/// under `label`; `Err` names what failed and how to reproduce it (`again`).
pub(crate) fn run_real_suite(
    label: &str,
    args: &[&str],
    env: (&str, &Path),
    again: &str,
) -> Result<(), String> {
    run_real_suite_with(label, args, &[], env, again)
}

/// [`run_real_suite`] with more variables (`vars`) in the suite's environment.
pub(crate) fn run_real_suite_with(
    label: &str,
    args: &[&str],
    vars: &[(&str, &str)],
    env: (&str, &Path),
    again: &str,
) -> Result<(), String> {
    println!("==> {label}: cargo {}", args.join(" "));
    let started = Instant::now();
    let status = Command::new(cargo())
        .args(args)
        .envs(vars.iter().copied())
        .env(env.0, env.1)
        .status()
        .map_err(|e| format!("{label}: cannot run cargo: {e}"))?;
    let secs = started.elapsed().as_secs_f64();
    if status.success() {
        println!("==> {label}: ok ({secs:.1} s)");
        Ok(())
    } else {
        Err(format!("{label} failed ({status}, {secs:.1} s): reproduce with `{again}`"))
    }
}

/// `cargo xtask claude-code-install`.
pub(crate) fn install_command() -> Result<(), String> {
    let binary = install().map_err(|CannotRun(why)| why)?;
    println!("{}", binary.display());
    Ok(())
}

/// `cargo xtask claude-code`: install when needed, then run the suite. A suite that cannot
/// run is an error here, whatever `CI` says: the command was asked for by name.
pub(crate) fn run() -> Result<(), String> {
    let binary = install().map_err(|CannotRun(why)| format!("real Claude Code cannot run: {why}"))?;
    run_suite(&binary)
}
