//! `cargo xtask ci | bench | codes | public-api | reference | demo | readme | fuzz | mutants |
//! torture | claude-code | differential | lines`: the project's automation, in Rust, with no dependencies (the public-API
//! renderer, a binary of its own behind the `public-api` feature, has its own: X-31).

mod agent_sdk;
mod bench;
mod bench_baseline;
mod bench_cedar;
mod bench_confine;
mod bench_export;
mod bench_server;
mod bench_session;
mod bench_tlog;
mod bench_work;
mod ci;
mod claude_code;
mod codes;
mod codex;
mod copilot;
mod demo;
mod differential;
mod fuzz;
mod gemini;
mod install;
mod lines;
mod links;
mod measure;
mod mutants;
mod public_api;
mod readme;
mod reference;
mod torture;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

const USAGE: &str =
    "usage: cargo xtask <ci | bench | codes | public-api | reference | demo | readme | fuzz | mutants | torture | claude-code | claude-code-install | differential | codex | codex-install | gemini | gemini-install | agent-sdk | agent-sdk-install | copilot | copilot-install | install | lines>
  ci      fmt check, clippy -D warnings, all tests, the real Claude Code, Codex, Gemini CLI and Copilot CLI suites, the Claude Agent SDK harnesses, the
          README's
          commands and guides, relative links, docs with warnings denied, the public API's
          snapshots, the CLI reference, benches compiled, cargo deny
  bench   run the criterion benches and print one summary table; `bench server`: only the
          resident service's rows, beside direct mode, and the OpenTelemetry export on and
          off (`bench server export`: only those), and the log's tree: a server that signs
          beside one that does not, proofs at 1M events (`bench server tlog`: only those);
          `bench cedar`: only the domain gate
          against Cedar's is_authorized on the same policy (xtask/cedar-bench, its own lock);
          `bench session [--calls N] [--rounds R] [--harness claude-code|codex|gemini|copilot|all]`: only the
          whole-session rows, the real clients with no hook, a no-op hook and Warden;
          `bench server|session --baseline REV`: the same rows of commit REV's build beside
          these, in one run, each within 3 % (`bench server work --baseline REV`: only each
          decision's instructions, callgrind's, beside that build's)
  codes   write docs/codes.md from the Code enum's table (a test fails when it is stale)
  public-api [--bless]  check the library crates' public API against docs/public-api/ (fails
          naming each crate whose surface changed); `--bless` rewrites the files
  reference [--check | --bless]  check docs/man/ and docs/completions/ against what `warden
          manpages` and `warden completions SHELL` generate (fails naming each stale file);
          `--bless` rewrites them
  demo    run warden on the bundled example with a fresh embedded store
  readme  check every relative link of the Markdown files, then run every ```sh block of
          README.md and of the guides in docs/, as written, in a temporary copy of the repository
  fuzz    [--seconds N] [TARGET…] run every fuzz target N seconds (default 60), seeded
  mutants [app] [ARGS…] cargo mutants over the domain crate (or the app's decision paths);
          fails under a 90 % score
  torture [--rounds N] [--seed S] N rounds (default 200) of 4 writers killed with SIGKILL at
          random moments; each round the store must reopen, verify and hold every decision
          a writer printed
  claude-code          install the pinned Claude Code CLI when absent (npm ci into
                       target/claude-code), then run the real-client suite
  claude-code-install  only install it, and print the binary's path
  differential [--cases N] [--seed S] [--classes all|A,B]  N generated rule/call cases
                       (default 120, seed 48, the classes not pending) through the pinned
                       Claude Code and Warden's matcher; prints the counts and every
                       more-permissive case with its seed; fails if there is one
  codex                install the pinned Codex CLI when absent (npm ci into target/codex),
                       then run its real-client suite
  codex-install        only install it, and print the binary's path
  gemini               install the pinned Gemini CLI when absent (npm ci into target/gemini),
                       then run its real-client suite (needs node)
  gemini-install       only install it, and print the script's path
  agent-sdk            install the pinned Claude Agent SDKs when absent (TypeScript: npm ci
                       into target/agent-sdk/typescript; Python: pip install --target
                       target/agent-sdk/python), then run the example harnesses' suite
                       (needs node and python3)
  agent-sdk-install    only install them, and print both directories
  copilot              install the pinned Copilot CLI when absent (npm ci into target/copilot),
                       then run its real-client suite
  copilot-install      only install it, and print the binary's path
  install [--root DIR] [--debug] [--check]  build `warden` and a statically linked
          `warden-hook` (the resident service's hook client; dynamically linked where static
          linking is not possible, saying why) into ~/.cargo/bin (or DIR/bin); `--check`: then
          check the installed pair answers hook events through `warden serve`
  lines   [DIR…]  the lines of Rust under each DIR (default cli/src) outside `#[cfg(test)]`
          items and test-only files, per file and in all";

/// The workspace root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

/// The cargo that runs xtask (`$CARGO`), else the one on the `PATH`.
fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())
}

/// True if `cargo SUBCOMMAND` is installed.
fn has_cargo_tool(subcommand: &str) -> bool {
    Command::new(cargo()).args([subcommand, "--version"]).output().is_ok_and(|o| o.status.success())
}

/// Makes `cargo SUBCOMMAND` available: `cargo install TOOL --locked` when it is not.
fn ensure_cargo_tool(subcommand: &str, tool: &str) -> Result<(), String> {
    if has_cargo_tool(subcommand) {
        return Ok(());
    }
    println!("==> installing {tool}");
    let started = Instant::now();
    let status = Command::new(cargo()).args(["install", tool, "--locked"]).status();
    if !status.is_ok_and(|s| s.success()) {
        return Err(format!("cannot install {tool}"));
    }
    println!("==> installed {tool} in {:.0} s", started.elapsed().as_secs_f64());
    Ok(())
}

/// What `cargo xtask` says to a command it does not know (or none): which, and the usage.
fn unknown(command: Option<&str>) -> String {
    match command {
        Some(name) => format!("xtask: unknown command `{name}`\n\n{USAGE}"),
        None => format!("xtask: no command given\n\n{USAGE}"),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("ci") => ci::run(),
        Some("bench") => bench::run(args.get(1..).unwrap_or_default()),
        Some("codes") => codes::run(),
        Some("public-api") => public_api::run(args.get(1..).unwrap_or_default()),
        Some("reference") => reference::run(args.get(1..).unwrap_or_default()),
        Some("demo") => demo::run(),
        Some("fuzz") => fuzz::run(args.get(1..).unwrap_or_default()),
        Some("mutants") => mutants::run(args.get(1..).unwrap_or_default()),
        Some("torture") => torture::run(args.get(1..).unwrap_or_default()),
        Some("claude-code") => claude_code::run(),
        Some("claude-code-install") => claude_code::install_command(),
        Some("differential") => differential::run(args.get(1..).unwrap_or_default()),
        Some("codex") => codex::run(),
        Some("codex-install") => codex::install_command(),
        Some("gemini") => gemini::run(),
        Some("gemini-install") => gemini::install_command(),
        Some("agent-sdk") => agent_sdk::run(),
        Some("agent-sdk-install") => agent_sdk::install_command(),
        Some("copilot") => copilot::run(),
        Some("copilot-install") => copilot::install_command(),
        Some("readme") => readme::run(),
        Some("install") => install::run(args.get(1..).unwrap_or_default()),
        Some("lines") => lines::run(args.get(1..).unwrap_or_default()),
        Some("-h" | "--help") => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        other => {
            eprintln!("{}", unknown(other));
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::unknown;

    #[test]
    fn an_unknown_command_is_named_before_the_usage() {
        let said = unknown(Some("tests"));
        assert!(said.starts_with("xtask: unknown command `tests`\n"), "{said}");
        assert!(said.contains("usage: cargo xtask <ci"), "{said}");
        assert!(unknown(None).starts_with("xtask: no command given"));
    }
}
