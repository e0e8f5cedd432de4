//! Codex as `warden doctor` checks it (N-15): what the doctor's one path for every harness asks
//! of this integration, answered from the rest of `setup`. Codex's home is the one given, else
//! `$CODEX_HOME`, else `~/.codex` ([`config::home`]).

use std::path::{Path, PathBuf};

use agentwarden_doctor::{CanaryAnswer, Check, EnvFile, Integration, Line, Signs};
use agentwarden_domain::sessions::Harness;

use super::{canary, config, installed};

/// Codex as `warden doctor` checks it and `warden init` installs it: the same object its hook
/// reads events and prints answers as.
impl Integration for crate::wire::Codex {
    fn signs(&self) -> Signs {
        Signs { project: &[".codex"], home: &[".codex"] }
    }

    fn guide(&self) -> &'static str {
        "docs/codex.md"
    }

    fn installed(
        &self,
        project: &Path,
        config_path: &Path,
        managed: &[PathBuf],
        home: Option<PathBuf>,
        checks: &mut Vec<Check>,
    ) -> Vec<Line> {
        installed::check(project, config_path, managed, home, checks)
    }

    fn check_confinement(&self, project: &Path, home: Option<PathBuf>, checks: &mut Vec<Check>) {
        installed::check_confinement(project, home, checks);
    }

    fn protected_files(&self) -> (&'static str, &'static [&'static str]) {
        ("Codex's configuration", &config::PROTECTED_FILES)
    }

    fn init_command(&self) -> clap::Command {
        agentwarden_doctor::init::init_command::<super::install::InitArgs>(self.command())
    }

    fn init_options(
        &self,
        matches: &clap::ArgMatches,
    ) -> Result<Box<dyn agentwarden_doctor::init::InitOptions>, clap::Error> {
        agentwarden_doctor::init::init_options::<super::install::InitArgs>(matches)
    }

    fn deadline_for(
        &self,
        timeout_s: u64,
        lock_ms: u64,
    ) -> Result<u64, agentwarden_protocol::hook_line::BudgetError> {
        super::line::deadline_for(timeout_s, lock_ms)
    }

    fn hook_line(&self) -> agentwarden_doctor::HookLineFn {
        super::line::hook_command
    }

    fn env_files(&self, project: &Path, home: Option<PathBuf>) -> Vec<EnvFile> {
        let home = config::home(home, std::env::var_os(config::HOME_ENV), std::env::var_os("HOME"));
        config::env_files(project, home.as_deref()).into_iter().map(EnvFile::Dotenv).collect()
    }

    fn tool_event(&self) -> &'static str {
        "PreToolUse"
    }

    fn canary_event(&self, session: &str, project: &Path, subagent: &str) -> String {
        canary::event(session, project, subagent)
    }

    fn read_canary(&self, code: Option<i32>, stdout: &str, stderr: &str) -> CanaryAnswer {
        match canary::read_answer(code, stdout, stderr) {
            canary::CanaryAnswer::Denied(reason) => CanaryAnswer::Denied(reason),
            canary::CanaryAnswer::LetThrough => CanaryAnswer::LetThrough,
            canary::CanaryAnswer::CannotDecide(last) => CanaryAnswer::CannotDecide(last),
            canary::CanaryAnswer::Exited(code, last) => CanaryAnswer::Exited(code, last),
        }
    }
}
