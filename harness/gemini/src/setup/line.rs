//! The command line `warden init gemini` installs as Gemini CLI's hook, and its time budget:
//! built here, read back here for `warden doctor`.
//!
//! Gemini runs the call on a hook's timeout, a crash and any exit but 2 with a reason on stderr
//! (M-1), and its timeout kills only the shell it runs the hook in, so a process still holding
//! the pipes holds the call past it (issue 40). So the line is Codex's in form (H-9, H-10): the
//! binary, the store and the configuration by absolute path, `hook --harness gemini`, a
//! deadline below Gemini's timeout by the [`START_MS`] and [`ANSWER_MS`] margins — Warden
//! answers and exits before the timeout, so nothing is left on the pipes — and the
//! [`FAIL_CLOSED`] tail, which turns any other exit into exit 2 with a reason on stderr.

use std::path::Path;

/// What marks a Gemini hook line as Warden's.
pub const MARK: &str = " hook --harness gemini ";

pub use agentwarden_protocol::hook_line::{
    ANSWER_MS, BudgetError, DECIDE_MS, FAIL_CLOSED, HALT_UNLESS_TWO, HookLine, START_MS, halting, parse,
    shell_quote,
};

/// Gemini's timeout for each hook call that `init gemini` installs unless told otherwise, in
/// seconds (written to the settings in milliseconds, Gemini's unit).
pub const DEFAULT_TIMEOUT_S: u64 = 30;

/// How the refusals name the harness.
const HARNESS: &str = "Gemini CLI";

/// The deadline for a Gemini timeout of `timeout_s` and a lock wait of `lock_ms`, or why the
/// timeout leaves no margin (H-10).
pub fn deadline_for(timeout_s: u64, lock_ms: u64) -> Result<u64, BudgetError> {
    agentwarden_protocol::hook_line::deadline_for(HARNESS, timeout_s, lock_ms)
}

/// Checks that an installed hook's numbers fit a Gemini timeout of `timeout_ms` (H-10): a
/// timeout that is not whole seconds is checked as the seconds it holds, rounded down.
pub fn check_budget(timeout_ms: u64, lock_ms: u64, deadline_ms: u64) -> Result<(), BudgetError> {
    agentwarden_protocol::hook_line::check_budget(HARNESS, timeout_ms / 1000, lock_ms, deadline_ms)
}

/// The hook line for Gemini: direct (the store of `project` and its configuration `config` by
/// absolute path), or the client of the server at `server` with the user it must run as
/// (V-10, V-49); `exe` is then `warden-hook` when there is one (V-34).
pub fn hook_command(
    exe: &Path,
    project: &Path,
    config: &Path,
    lock_ms: u64,
    deadline_ms: u64,
    server: Option<(&Path, Option<u32>)>,
) -> String {
    agentwarden_protocol::hook_line::command_by_path(exe, MARK, project, config, lock_ms, deadline_ms, server)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    /// The line fails closed (H-9), names the store, the configuration and the harness, and
    /// reads back; the budget holds Gemini's timeout in milliseconds.
    #[test]
    fn the_installed_line_names_gemini_fails_closed_and_reads_back() {
        let project = Path::new("/p q");
        let line = hook_command(
            Path::new("/w/warden"),
            project,
            &project.join("agentwarden.toml"),
            5000,
            28000,
            None,
        );
        assert!(
            line.starts_with("'/w/warden' --store '/p q/.agentwarden/audit' --lock-timeout-ms 5000 hook --harness gemini --config '/p q/agentwarden.toml' --deadline-ms 28000 || "),
            "{line}"
        );
        let read = parse(&line);
        assert_eq!(
            (read.binary, read.deadline_ms, read.lock_ms, read.fail_closed),
            (Some(PathBuf::from("/w/warden")), Some(28000), Some(5000), true)
        );
        assert_eq!(deadline_for(30, 5000), Ok(28000));
        assert!(deadline_for(2, 5000).is_err());
        assert!(check_budget(30_000, 5000, 28000).is_ok());
        assert!(check_budget(29_999, 5000, 28000).is_err(), "29 s whole: the margin is gone");
    }
}
