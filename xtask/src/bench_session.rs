//! `cargo xtask bench session`: the whole-session rows (issue 36, item 5; issue 50, item 6).
//! The real clients (Claude Code, Codex CLI, Gemini CLI and Copilot CLI, pinned and installed as their
//! suites install them), offline, a subagent's N shell calls with no hook, with the no-op hook,
//! with Warden through the service and with Warden confining each call, interleaved in one run; the binary doing it is the tests crate's `session_bench`
//! (its doc says what it runs and how it checks that each session did what was asked).

use std::path::Path;
use std::process::Command;

use crate::cargo;
use crate::claude_code::CannotRun;
use crate::measure::{exec, target_dir};

/// Runs the session rows with the release binaries in `bin`; `args` go to `session_bench`
/// (`--calls N`, `--rounds R`, `--harness claude-code|codex|gemini|copilot|all`).
/// With `baseline`, another build's binaries: a fifth arm, Warden through that build's service.
pub(crate) fn run(bin: &Path, baseline: Option<&Path>, args: &[String]) -> Result<(), String> {
    let cannot = |CannotRun(why)| format!("the session bench cannot run: {why}");
    let claude = crate::claude_code::install().map_err(cannot)?;
    let codex = crate::codex::install().map_err(cannot)?;
    let gemini = crate::gemini::install().map_err(cannot)?;
    let copilot = crate::copilot::install().map_err(cannot)?;
    exec(Command::new(cargo()).args([
        "build",
        "--release",
        "--quiet",
        "--locked",
        "-p",
        "agentwarden-tests",
        "--bin",
        "session_bench",
    ]))?;
    let bench = target_dir().join("release").join("session_bench");
    let baseline: Vec<&std::ffi::OsStr> =
        baseline.map(|dir| vec!["--baseline-bin".as_ref(), dir.as_os_str()]).unwrap_or_default();
    println!(
        "\n$ session_bench --bin {} {} {}",
        bin.display(),
        baseline.iter().map(|a| a.to_string_lossy()).collect::<Vec<_>>().join(" "),
        args.join(" ")
    );
    exec(
        Command::new(bench)
            .arg("--bin")
            .arg(bin)
            .args(&baseline)
            .args(args)
            .env("AGENTWARDEN_CLAUDE_BIN", claude)
            .env("AGENTWARDEN_CODEX_BIN", codex)
            .env("AGENTWARDEN_GEMINI_BIN", gemini)
            .env("AGENTWARDEN_COPILOT_BIN", copilot),
    )
}
