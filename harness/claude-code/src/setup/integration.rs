//! Claude Code as `warden doctor` checks it (N-15): what the doctor's one path for every harness
//! asks of this integration, answered from the rest of `setup`.

use std::path::{Path, PathBuf};

use agentwarden_doctor::{CanaryAnswer, Check, EnvFile, HookLineFn, Integration, Line, Signs};
use agentwarden_domain::sessions::Harness;

use super::{canary, install, installed, line, settings};

/// Claude Code as `warden doctor` checks it and `warden init` installs it: the same object its hook
/// reads events and prints answers as.
impl Integration for crate::wire::ClaudeCode {
    fn signs(&self) -> Signs {
        Signs { project: &[".claude", "CLAUDE.md"], home: &[".claude", ".claude.json"] }
    }

    fn guide(&self) -> &'static str {
        "the README's \"Guard Claude Code\""
    }

    fn installed(
        &self,
        project: &Path,
        _config_path: &Path,
        managed: &[PathBuf],
        _home: Option<PathBuf>,
        checks: &mut Vec<Check>,
    ) -> Vec<Line> {
        installed::check(project, managed, checks)
    }

    fn deny_rules_in_force(&self, project: &Path, managed: &[PathBuf]) -> Option<Vec<String>> {
        Some(installed::deny_rules_in_force(project, managed))
    }

    fn protected_files(&self) -> (&'static str, &'static [&'static str]) {
        ("Claude Code's settings", &settings::PROTECTED_FILES)
    }

    fn init_command(&self) -> clap::Command {
        agentwarden_doctor::init::init_command::<install::InitArgs>(self.command())
    }

    fn init_options(
        &self,
        matches: &clap::ArgMatches,
    ) -> Result<Box<dyn agentwarden_doctor::init::InitOptions>, clap::Error> {
        agentwarden_doctor::init::init_options::<install::InitArgs>(matches)
    }

    fn deadline_for(
        &self,
        timeout_s: u64,
        lock_ms: u64,
    ) -> Result<u64, agentwarden_protocol::hook_line::BudgetError> {
        line::deadline_for(timeout_s, lock_ms)
    }

    fn hook_line(&self) -> HookLineFn {
        |binary, _, _, lock_ms, deadline, server| line::hook_command(binary, lock_ms, deadline, server)
    }

    fn deny_rules(&self, project: &Path, allowed_signers: Option<&Path>, exe: Option<&Path>) -> Vec<String> {
        install::deny_rules(project, allowed_signers, exe)
    }

    fn env_files(&self, project: &Path, _home: Option<PathBuf>) -> Vec<EnvFile> {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        settings::env_settings(project, home.as_deref()).into_iter().map(EnvFile::Settings).collect()
    }

    fn settings_set(&self, text: &str, var: &str) -> bool {
        settings::env_sets(text, var)
    }

    fn tool_event(&self) -> &'static str {
        "PreToolUse"
    }

    fn canary_environment(&self, project: &Path) -> Vec<(&'static str, String)> {
        canary::environment(project)
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
