//! Copilot CLI as `warden doctor` checks it (N-15): what the doctor's one path for every harness
//! asks of this integration, answered from the rest of `setup`.

use std::path::{Path, PathBuf};

use agentwarden_doctor::{CanaryAnswer, Check, EnvFile, Integration, Line, Signs};
use agentwarden_domain::sessions::Harness;
use serde_json::Value;

use super::{canary, hooks, installed};

/// Copilot CLI as `warden doctor` checks it and `warden init` installs it: the same object its hook
/// reads events and prints answers as.
impl Integration for crate::wire::Copilot {
    fn signs(&self) -> Signs {
        Signs {
            project: &[".github/copilot", ".github/hooks", ".github/copilot-instructions.md"],
            home: &[".copilot"],
        }
    }

    fn guide(&self) -> &'static str {
        "docs/copilot.md"
    }

    fn installed(
        &self,
        project: &Path,
        config_path: &Path,
        _managed: &[PathBuf],
        _home: Option<PathBuf>,
        checks: &mut Vec<Check>,
    ) -> Vec<Line> {
        installed::check(project, config_path, checks)
    }

    fn protected_files(&self) -> (&'static str, &'static [&'static str]) {
        ("Copilot CLI's hooks and settings", &hooks::PROTECTED_FILES)
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

    /// Copilot CLI 1.0.102 was not seen to load a file into its environment (docs/copilot.md).
    fn env_files(&self, _project: &Path, _home: Option<PathBuf>) -> Vec<EnvFile> {
        Vec::new()
    }

    fn tool_event(&self) -> &'static str {
        "PreToolUse"
    }

    fn canary_event(&self, session: &str, project: &Path, subagent: &str) -> String {
        canary::event(session, project, subagent)
    }

    /// Copilot reads Claude Code's bytes from its Claude-style hooks (H-68): only exit 0 with
    /// `permissionDecision: "deny"` is a deny; exit 2 blocks without deciding.
    fn read_canary(&self, code: Option<i32>, stdout: &str, stderr: &str) -> CanaryAnswer {
        let last = stderr.lines().last().unwrap_or("").trim().to_owned();
        match code {
            Some(0) => {
                let answer: Value = serde_json::from_str(stdout.trim()).unwrap_or(Value::Null);
                let decision =
                    answer.pointer("/hookSpecificOutput/permissionDecision").and_then(Value::as_str);
                let reason =
                    answer.pointer("/hookSpecificOutput/permissionDecisionReason").and_then(Value::as_str);
                match decision {
                    Some("deny") => CanaryAnswer::Denied(reason.unwrap_or("").to_owned()),
                    _ => CanaryAnswer::LetThrough,
                }
            }
            Some(2) => CanaryAnswer::CannotDecide(last),
            other => CanaryAnswer::Exited(other, last),
        }
    }
}
