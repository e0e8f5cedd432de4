//! The command line `warden init codex` installs as Codex's hook, and its time budget: built
//! here, read back here for `warden doctor`.
//!
//! Codex runs the call on a hook's timeout, a missing binary, a crash and any exit but 2 with a
//! reason on stderr (C-1). So the line is Claude Code's in form (H-9, H-10): the binary, the
//! store and the configuration by absolute path (Codex runs hooks in the project with no
//! variable naming it), `hook --harness codex`, a deadline below Codex's timeout by the
//! [`START_MS`] and [`ANSWER_MS`] margins with [`DECIDE_MS`] left after the lock wait, and the
//! [`FAIL_CLOSED`] tail, which turns any other exit into exit 2 with a reason on stderr.

use std::path::Path;

/// What marks a Codex hook line as Warden's.
pub const MARK: &str = " hook --harness codex ";

pub use agentwarden_protocol::hook_line::{
    ANSWER_MS, BudgetError, DECIDE_MS, FAIL_CLOSED, HALT_UNLESS_TWO, HookLine, START_MS, halting, parse,
    shell_quote,
};

/// Codex's timeout for each hook call that `init codex` installs unless told otherwise, in
/// seconds.
pub const DEFAULT_TIMEOUT_S: u64 = 30;

/// How the refusals name the harness.
const HARNESS: &str = "Codex";

/// The deadline for a Codex `timeout_s` and a lock wait of `lock_ms`, or why the timeout leaves
/// no margin (H-10).
pub fn deadline_for(timeout_s: u64, lock_ms: u64) -> Result<u64, BudgetError> {
    agentwarden_protocol::hook_line::deadline_for(HARNESS, timeout_s, lock_ms)
}

/// Checks that an installed hook's numbers fit a Codex timeout (H-10).
pub fn check_budget(timeout_s: u64, lock_ms: u64, deadline_ms: u64) -> Result<(), BudgetError> {
    agentwarden_protocol::hook_line::check_budget(HARNESS, timeout_s, lock_ms, deadline_ms)
}

/// The hook line for Codex: direct (the store of `project` and its configuration `config` by
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

    /// The line fails closed as `init claude-code`'s does (H-9), names the store and the
    /// configuration by absolute path, and the harness; it reads back.
    #[test]
    fn the_installed_line_names_codex_fails_closed_and_reads_back() {
        let project = Path::new("/p q");
        let line = hook_command(
            Path::new("/w/warden"),
            project,
            &project.join("agentwarden.toml"),
            5000,
            28000,
            None,
        );
        assert!(line.starts_with("'/w/warden' --store '/p q/.agentwarden/audit' --lock-timeout-ms 5000 hook --harness codex --config '/p q/agentwarden.toml' --deadline-ms 28000 || "), "{line}");
        assert_eq!(
            parse(&line),
            HookLine {
                binary: Some(PathBuf::from("/w/warden")),
                config: Some(PathBuf::from("/p q/agentwarden.toml")),
                lock_ms: Some(5000),
                deadline_ms: Some(28000),
                fail_closed: true,
                halts: false,
                server: None,
                server_uid: None,
            }
        );
        let client = hook_command(
            Path::new("/w/warden-hook"),
            Path::new("/p"),
            Path::new("/p/agentwarden.toml"),
            5000,
            28000,
            Some((Path::new("/s.sock"), Some(7))),
        );
        assert!(
            client.contains("--server '/s.sock' --server-uid 7 --deadline-ms 28000")
                && !client.contains("--store"),
            "{client}"
        );
        let read = parse(&client);
        assert_eq!((read.server, read.server_uid), (Some(PathBuf::from("/s.sock")), Some(7)));
        assert_eq!(parse("warden hook"), HookLine::default());
    }

    #[test]
    fn a_codex_timeout_must_cover_the_lock_wait_and_the_margins() {
        // (timeout s, lock wait ms, expected deadline or refusal, why)
        let table = [
            (30, 5000, Ok(28000), "the default"),
            (8, 5000, Ok(6000), "the smallest timeout over a 5 s lock wait"),
            (7, 5000, Err(()), "1 s short"),
            (0, 0, Err(()), "no time at all"),
        ];
        for (timeout, lock, expected, why) in table {
            assert_eq!(deadline_for(timeout, lock).map_err(|_| ()), expected, "{why}");
        }
        let refusal = deadline_for(2, 5000).unwrap_err().to_string();
        assert!(refusal.contains("a Codex timeout of 2 s") && refusal.contains("--timeout 8"), "{refusal}");
        assert!(check_budget(30, 5000, 28000).is_ok());
        assert!(check_budget(30, 5000, 29500).is_err(), "deadline too close to the timeout");
        assert!(check_budget(30, 5000, 5500).is_err(), "lock wait fills the deadline");
    }
}
