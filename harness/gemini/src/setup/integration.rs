//! Gemini CLI as `warden doctor` checks it (N-15): what the doctor's one path for every harness
//! asks of this integration, answered from the rest of `setup`. Gemini's home is
//! `$GEMINI_CLI_HOME`, else the user's home.

use std::path::{Path, PathBuf};

use agentwarden_doctor::{CanaryAnswer, Check, EnvFile, Integration, Line, Signs};
use agentwarden_domain::sessions::{Harness, HookAnswer};

use super::{canary, installed, settings};
use crate::wire::{HOOK_STOPS, read_back};

/// Gemini CLI as `warden doctor` checks it and `warden init` installs it: the same object its hook
/// reads events and prints answers as.
impl Integration for crate::wire::Gemini {
    fn signs(&self) -> Signs {
        Signs { project: &[".gemini", "GEMINI.md"], home: &[".gemini"] }
    }

    fn guide(&self) -> &'static str {
        "docs/gemini.md"
    }

    fn installed(
        &self,
        project: &Path,
        config_path: &Path,
        managed: &[PathBuf],
        _home: Option<PathBuf>,
        checks: &mut Vec<Check>,
    ) -> Vec<Line> {
        installed::check(project, config_path, managed, checks)
    }

    fn check_confinement(&self, project: &Path, _home: Option<PathBuf>, checks: &mut Vec<Check>) {
        installed::check_confinement(project, checks);
    }

    fn protected_files(&self) -> (&'static str, &'static [&'static str]) {
        ("Gemini CLI's settings", &settings::PROTECTED_FILES)
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

    fn env_files(&self, project: &Path, _home: Option<PathBuf>) -> Vec<EnvFile> {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let gemini_home = std::env::var_os(settings::HOME_ENV).map(PathBuf::from);
        settings::env_files(project, gemini_home.as_deref(), home.as_deref())
            .into_iter()
            .map(EnvFile::Dotenv)
            .collect()
    }

    fn tool_event(&self) -> &'static str {
        "BeforeTool"
    }

    fn canary_event(&self, session: &str, project: &Path, subagent: &str) -> String {
        canary::event(session, project, subagent)
    }

    /// Gemini reads the exit code and stderr as Codex does (M-1): only exit 2 with a deny's
    /// reason is a deny; exit 0 runs the spawn, another exit 2 blocks without deciding.
    fn read_canary(&self, code: Option<i32>, stdout: &str, stderr: &str) -> CanaryAnswer {
        let last = stderr.lines().last().unwrap_or("").trim().to_owned();
        let stdout = Some(stdout).filter(|s| !s.trim().is_empty());
        let stderr = Some(stderr.trim_end()).filter(|s| !s.is_empty());
        match code {
            Some(0) => CanaryAnswer::LetThrough,
            Some(code) if code == i32::from(HOOK_STOPS) => match read_back(HOOK_STOPS, stdout, stderr) {
                Ok(HookAnswer::Deny { reason }) => CanaryAnswer::Denied(reason.to_string()),
                _ => CanaryAnswer::CannotDecide(last),
            },
            other => CanaryAnswer::Exited(other, last),
        }
    }
}
