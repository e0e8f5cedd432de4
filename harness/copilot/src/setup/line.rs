//! The command line `warden init copilot` installs as Copilot CLI's hook, and its time budget:
//! built here, read back here for `warden doctor`.
//!
//! Copilot kills a hook past its `timeoutSec` (30 s unless told) and then runs the call, as it
//! does for a hook that exits 0 with anything but its JSON; it refuses the call on exit 2, exit 1
//! and a missing program (seen with 1.0.102). So the line is Gemini's in form (H-9, H-10, H-69):
//! the binary, the store and the configuration by absolute path, `hook --harness copilot`, a
//! deadline below Copilot's timeout by the [`START_MS`] and [`ANSWER_MS`] margins — Warden
//! answers and exits before the timeout, on a timeout of its own as on a crash — and the
//! [`FAIL_CLOSED`] tail, which turns any other exit into exit 2 with a reason on stderr. The
//! stops' lines are the same: Copilot shows a stop's exit 2 and ends the stop, never prompting
//! again, so no line needs the halt of H-57 (H-72).

use std::path::Path;

/// What marks a Copilot hook line as Warden's.
pub const MARK: &str = " hook --harness copilot ";

pub use agentwarden_protocol::hook_line::{
    ANSWER_MS, BudgetError, DECIDE_MS, FAIL_CLOSED, HookLine, START_MS, parse, shell_quote,
};

/// Copilot's timeout for each hook call that `init copilot` installs unless told otherwise, in
/// seconds (`timeoutSec`, Copilot's default).
pub const DEFAULT_TIMEOUT_S: u64 = 30;

/// How the refusals name the harness.
const HARNESS: &str = "Copilot CLI";

/// The deadline for a Copilot timeout of `timeout_s` and a lock wait of `lock_ms`, or why the
/// timeout leaves no margin (H-10, H-69).
pub fn deadline_for(timeout_s: u64, lock_ms: u64) -> Result<u64, BudgetError> {
    agentwarden_protocol::hook_line::deadline_for(HARNESS, timeout_s, lock_ms)
}

/// Checks that an installed hook's numbers fit a Copilot timeout of `timeout_s` (H-10, H-69).
pub fn check_budget(timeout_s: u64, lock_ms: u64, deadline_ms: u64) -> Result<(), BudgetError> {
    agentwarden_protocol::hook_line::check_budget(HARNESS, timeout_s, lock_ms, deadline_ms)
}

/// The hook line for Copilot: direct (the store of `project` and its configuration `config` by
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
    /// reads back; its deadline leaves Copilot's timeout a margin (H-69).
    #[test]
    fn the_installed_line_names_copilot_fails_closed_and_reads_back() {
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
            line.starts_with("'/w/warden' --store '/p q/.agentwarden/audit' --lock-timeout-ms 5000 hook --harness copilot --config '/p q/agentwarden.toml' --deadline-ms 28000 || "),
            "{line}"
        );
        assert!(line.ends_with(FAIL_CLOSED), "{line}");
        let read = parse(&line);
        assert_eq!(
            (read.binary, read.deadline_ms, read.lock_ms, read.fail_closed),
            (Some(PathBuf::from("/w/warden")), Some(28000), Some(5000), true)
        );
        assert_eq!(deadline_for(30, 5000), Ok(28000));
        assert!(deadline_for(2, 5000).is_err());
        assert!(check_budget(30, 5000, 28000).is_ok());
        assert!(check_budget(29, 5000, 28000).is_err(), "the margin is gone");
    }
}
