//! What `warden doctor` and `warden init` know of one harness, said by that harness's integration
//! crate (feature `doctor`) on the same object that reads its hook's events and prints its
//! answers: an [`Integration`] is a [`Harness`] that also says where its installed hooks are read
//! back, what its canary sends and how the answer reads, which files it loads into its
//! environment, what of its own the guard protects, and its `warden init NAME` subcommand with
//! what that parsed (N-19). One registry (the hook client's, feature `doctor`) holds each
//! harness once, chosen by name; the command line runs one path for all of them (N-15):
//! no `match` over the harnesses outside that registry.

use std::path::{Path, PathBuf};

use agentwarden::harness::Harness;

use crate::check::Check;
use crate::install::InitOptions;
use crate::lines::Line;

/// A harness's hook line for (binary, project, configuration, lock wait, deadline, the server
/// and its user).
pub type HookLineFn = fn(&Path, &Path, &Path, u64, u64, Option<(&Path, Option<u32>)>) -> String;

/// What the installed line's answer to the canary means to its harness (H-15, C-11).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CanaryAnswer {
    /// The spawn is denied, for this reason: the one answer that passes.
    Denied(String),
    /// The harness lets the spawn run.
    LetThrough,
    /// Blocked (exit 2), but the hook could not decide; its last line on stderr.
    CannotDecide(String),
    /// Any other exit (`None`: a signal): the harness lets the spawn run; the last line on stderr.
    Exited(Option<i32>, String),
}

/// A file a harness loads into its environment at start (G-25), as it reads a variable there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EnvFile {
    /// A dotenv file: a line `VAR=…`, `export VAR=…` or `VAR: …`.
    Dotenv(PathBuf),
    /// The harness's settings, read by [`Integration::settings_set`].
    Settings(PathBuf),
}

/// The paths whose presence shows a harness is used: relative to the project, and to the user's
/// home (N-18).
#[derive(Clone, Copy, Debug)]
pub struct Signs {
    /// Relative to the project's root (`.claude`).
    pub project: &'static [&'static str],
    /// Relative to the user's home (`.codex`).
    pub home: &'static [&'static str],
}

/// One harness as `warden doctor` checks it and `warden init` installs it (N-15), over the
/// [`Harness`] its hook answers as: its names ([`Harness::command`] on the command line,
/// [`Harness::name`] in a finding) and its profile are that harness's own, said once.
/// Each integration crate implements it on its one harness type; the registry lists them.
pub trait Integration: Harness {
    /// Where a human reads how to set it up, in a fix (`docs/codex.md`).
    fn guide(&self) -> &'static str;

    /// Where a project and a user's home show the harness is used, relative to each: what
    /// `warden init` with no harness named looks for (N-18).
    fn signs(&self) -> Signs;

    /// Its `warden init` command.
    fn init(&self) -> String {
        format!("warden init {}", self.command())
    }

    /// Its `warden init NAME` subcommand: the options it takes, its help (N-14).
    fn init_command(&self) -> clap::Command;

    /// What its `init_command` parsed into `matches`, its install with them.
    fn init_options(&self, matches: &clap::ArgMatches) -> Result<Box<dyn InitOptions>, clap::Error>;

    /// The deadline `warden init` puts on its line for the harness's `timeout` (seconds) over the
    /// lock wait `lock_ms`, or why that timeout leaves no margin (H-6).
    fn deadline_for(
        &self,
        timeout_s: u64,
        lock_ms: u64,
    ) -> Result<u64, agentwarden_protocol::hook_line::BudgetError>;

    /// The hook line `warden init` installs for it (H-6, H-9, H-10).
    fn hook_line(&self) -> HookLineFn;

    /// The deny rules `warden init` writes into the harness's own settings (K-13), for `project`,
    /// the configuration's `allowed_signers` and the installed binary `exe` when known; none by
    /// default.
    fn deny_rules(
        &self,
        _project: &Path,
        _allowed_signers: Option<&Path>,
        _exe: Option<&Path>,
    ) -> Vec<String> {
        Vec::new()
    }

    /// Warden's hooks as the harness would run them for `project`, read back and checked, as
    /// [`Line`]s: `managed` the managed or system files given instead of the usual ones, `home`
    /// the harness's home when the command line names one.
    fn installed(
        &self,
        project: &Path,
        config_path: &Path,
        managed: &[PathBuf],
        home: Option<PathBuf>,
        checks: &mut Vec<Check>,
    ) -> Vec<Line>;

    /// What the harness's own rules do to a confined call, for a project whose `[confine]` is not
    /// `off`; nothing by default.
    fn check_confinement(&self, _project: &Path, _home: Option<PathBuf>, _checks: &mut Vec<Check>) {}

    /// The harness's own deny rules in force for `project` (K-13), when Warden writes any.
    fn deny_rules_in_force(&self, _project: &Path, _managed: &[PathBuf]) -> Option<Vec<String>> {
        None
    }

    /// The harness's own files the guard protects (H-12, H-19), and how a finding names them.
    fn protected_files(&self) -> (&'static str, &'static [&'static str]);

    /// The files it loads into its environment at start that the agent's user can write (G-25);
    /// `home` the harness's home when the command line names one.
    fn env_files(&self, project: &Path, home: Option<PathBuf>) -> Vec<EnvFile>;

    /// Whether its settings' `text` set `var` ([`EnvFile::Settings`]).
    fn settings_set(&self, _text: &str, _var: &str) -> bool {
        false
    }

    /// The event its hook answers before a tool runs: where the canary's spawn goes.
    fn tool_event(&self) -> &'static str;

    /// The variables the harness gives a hook's process.
    fn canary_environment(&self, _project: &Path) -> Vec<(&'static str, String)> {
        Vec::new()
    }

    /// The spawn of `subagent` the canary asks for, in session `session`, as its hook input.
    fn canary_event(&self, session: &str, project: &Path, subagent: &str) -> String;

    /// The line's exit `code`, `stdout` and `stderr`, read as the harness reads them.
    fn read_canary(&self, code: Option<i32>, stdout: &str, stderr: &str) -> CanaryAnswer;
}
