//! `cargo xtask agent-sdk-install` and `cargo xtask agent-sdk`: the example harnesses built on
//! the Claude Agent SDK (issue 51, item 3), run for real.
//!
//! The TypeScript SDK `@anthropic-ai/claude-agent-sdk` is pinned, exactly, by
//! `examples/agent-sdk/typescript/package.json` and its lock, installed as the CLIs are (`npm ci
//! --ignore-scripts` into `target/agent-sdk/typescript/`); its package bundles its own Claude
//! Code, whose version is checked. The Python SDK `claude-agent-sdk` is pinned with everything
//! it pulls in by `examples/agent-sdk/python/requirements.txt`, installed with `pip install
//! --target target/agent-sdk/python` when the installed copy of that file differs; it bundles a
//! Claude Code too. `run` installs both, then runs `tests/tests/agent_sdk_real.rs` with
//! `--ignored`. H-41 holds as for the other suites: under `CI=true` a suite that cannot run fails
//! `cargo xtask ci`; elsewhere it is a loud skip.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use crate::claude_code::{CannotRun, Pinned, install_pinned};
use crate::root;

/// `@anthropic-ai/claude-agent-sdk`, pinned by `examples/agent-sdk/typescript/`.
const TYPESCRIPT: Pinned = Pinned {
    label: "Claude Agent SDK (TypeScript)",
    package: "@anthropic-ai/claude-agent-sdk",
    package_dir: "examples/agent-sdk/typescript",
    install_dir: "target/agent-sdk/typescript",
    binary: "node_modules/@anthropic-ai/claude-agent-sdk-linux-x64/claude",
    reports: Some("2.1.328"),
};

/// Where the Python SDK is pinned, and where it is installed.
const PYTHON_PINS: &str = "examples/agent-sdk/python/requirements.txt";
const PYTHON_DIR: &str = "target/agent-sdk/python";
/// The Claude Code the Python SDK bundles, and the version it says.
const PYTHON_CLAUDE: &str = "claude_agent_sdk/_bundled/claude";
const PYTHON_CLAUDE_VERSION: &str = "2.1.327";

/// The two installs the suite runs: the TypeScript SDK's directory (its `node_modules`) and
/// the Python SDK's (a `PYTHONPATH` entry).
pub(crate) struct Installed {
    pub(crate) typescript: PathBuf,
    pub(crate) python: PathBuf,
}

/// Installs both SDKs when needed.
pub(crate) fn install() -> Result<Installed, CannotRun> {
    let runs =
        |program: &str| Command::new(program).arg("--version").output().is_ok_and(|o| o.status.success());
    if !runs("node") {
        return Err(CannotRun(
            "`node --version` does not run: the TypeScript harness is a Node program".into(),
        ));
    }
    if !runs("python3") {
        return Err(CannotRun("`python3 --version` does not run: the Python harness needs it".into()));
    }
    let claude = install_pinned(&TYPESCRIPT)?;
    let typescript = claude
        .ancestors()
        .find(|dir| dir.ends_with("node_modules"))
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .ok_or_else(|| CannotRun(format!("{} is not inside a node_modules", claude.display())))?;
    Ok(Installed { typescript, python: install_python()? })
}

/// `pip install --target` of the pinned requirements, when the installed copy differs.
fn install_python() -> Result<PathBuf, CannotRun> {
    let pins = root().join(PYTHON_PINS);
    let dir = root().join(PYTHON_DIR);
    let installed_pins = dir.join("requirements.txt");
    let wanted = std::fs::read(&pins).map_err(|e| CannotRun(format!("cannot read {PYTHON_PINS}: {e}")))?;
    let claude = dir.join(PYTHON_CLAUDE);
    if !(claude.is_file() && std::fs::read(&installed_pins).ok() == Some(wanted)) {
        println!("==> installing the Python Claude Agent SDK into {PYTHON_DIR} (pip install --target)");
        let started = Instant::now();
        // A half-installed tree must not pass for a good one next time: cleared first, and the
        // copy of the pins written only after a good install.
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| CannotRun(format!("cannot create {PYTHON_DIR}: {e}")))?;
        let status = Command::new("python3")
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--no-input",
                "--root-user-action=ignore",
                "--target",
            ])
            .arg(&dir)
            .arg("-r")
            .arg(&pins)
            .status()
            .map_err(|e| CannotRun(format!("cannot run pip: {e}")))?;
        if !status.success() {
            return Err(CannotRun(format!("`pip install -r {PYTHON_PINS}` failed ({status})")));
        }
        std::fs::copy(&pins, &installed_pins)
            .map_err(|e| CannotRun(format!("cannot copy {PYTHON_PINS}: {e}")))?;
        println!("==> installed in {:.0} s", started.elapsed().as_secs_f64());
    }
    let out = Command::new(&claude)
        .arg("--version")
        .output()
        .map_err(|e| CannotRun(format!("cannot run `{}`: {e}", claude.display())))?;
    let reported = String::from_utf8_lossy(&out.stdout);
    if !reported.split_whitespace().any(|word| word == PYTHON_CLAUDE_VERSION) {
        return Err(CannotRun(format!(
            "`{} --version` says {:?}, the pin bundles {PYTHON_CLAUDE_VERSION}",
            claude.display(),
            reported.trim()
        )));
    }
    Ok(dir)
}

/// Runs the suite with both SDKs installed. `Err` names what failed.
pub(crate) fn run_suite(installed: &Installed) -> Result<(), String> {
    let mut args = vec![
        "test",
        "--locked",
        "--workspace",
        "--all-features",
        "--test",
        "agent_sdk_real",
        "--",
        "--ignored",
        "--test-threads",
        "2",
    ];
    // Managed settings are tried in a mount namespace, which needs root (CI runs as root).
    let root_user = Command::new("id").arg("-u").output().is_ok_and(|o| o.stdout.trim_ascii() == b"0");
    if !root_user {
        if crate::claude_code::under_ci() {
            return Err("real Claude Agent SDK: the root_only_ scenarios need root under CI=true".into());
        }
        println!("==> real Claude Agent SDK: the root_only_ scenarios are SKIPPED, NOT PASSED: not root");
        args.extend(["--skip", "root_only_"]);
    }
    let python = installed.python.to_string_lossy();
    crate::claude_code::run_real_suite_with(
        "real Claude Agent SDK",
        &args,
        &[("AGENTWARDEN_AGENT_SDK_PYTHON", &python)],
        ("AGENTWARDEN_AGENT_SDK_TYPESCRIPT", &installed.typescript),
        "cargo xtask agent-sdk",
    )
}

/// `cargo xtask agent-sdk-install`.
pub(crate) fn install_command() -> Result<(), String> {
    let installed = install().map_err(|CannotRun(why)| why)?;
    println!("{}\n{}", installed.typescript.display(), installed.python.display());
    Ok(())
}

/// `cargo xtask agent-sdk`: install when needed, then run the suite; a suite that cannot run is
/// an error here, whatever `CI` says.
pub(crate) fn run() -> Result<(), String> {
    let installed = install().map_err(|CannotRun(why)| format!("real Claude Agent SDK cannot run: {why}"))?;
    run_suite(&installed)
}
