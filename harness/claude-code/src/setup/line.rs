//! The command line `warden init claude-code` installs as Claude Code's hook, and its time
//! budget: built here, read back here for `warden doctor`.
//!
//! Claude Code has no fail-closed switch for command hooks: a timeout, or any exit but 2,
//! lets the call run (H-6). So the installed line
//!
//! - names the binary by absolute path and pins the store, the lock wait and the deadline;
//! - ends in [`FAIL_CLOSED`], which turns every exit but 0 and 2 — a missing binary (127), a
//!   crash (101), a signal (128 + n), a plain 1 — into exit 2 (H-9);
//! - passes `--deadline-ms`, the bound `warden hook` answers within (exit 2 when it passes),
//!   below the Claude Code timeout by the [`START_MS`] and [`ANSWER_MS`] margins; and the lock
//!   wait leaves [`DECIDE_MS`] inside the deadline (H-10).

use std::path::Path;

use serde_json::Value;

/// What marks a hook command as Warden's (older installs ended with it).
pub const MARK: &str = r#"hook --config "$CLAUDE_PROJECT_DIR/agentwarden.toml""#;

pub use agentwarden_protocol::hook_line::{
    ANSWER_MS, BudgetError, DECIDE_MS, FAIL_CLOSED, HALT_ON_ANY_EXIT, HookLine, START_MS, check_ending,
    halting, parse, shell_quote,
};

/// `warden hook`'s deadline when no `--deadline-ms` is given: what `init` installs with its
/// default timeout of [`DEFAULT_TIMEOUT_S`] (H-10).
pub const DEFAULT_DEADLINE_MS: u64 = DEFAULT_TIMEOUT_S * 1_000 - START_MS - ANSWER_MS;

/// Claude Code's timeout for each hook call that `init` installs unless told otherwise, in
/// seconds.
pub const DEFAULT_TIMEOUT_S: u64 = 30;

/// How the refusals name the harness.
const HARNESS: &str = "Claude Code";

/// The deadline for a Claude Code `timeout_s` and a lock wait of `lock_ms`, or why the
/// timeout leaves no margin (H-10).
pub fn deadline_for(timeout_s: u64, lock_ms: u64) -> Result<u64, BudgetError> {
    agentwarden_protocol::hook_line::deadline_for(HARNESS, timeout_s, lock_ms)
}

/// Checks that an installed entry's numbers fit a Claude Code timeout (H-10).
pub fn check_budget(timeout_s: u64, lock_ms: u64, deadline_ms: u64) -> Result<(), BudgetError> {
    agentwarden_protocol::hook_line::check_budget(HARNESS, timeout_s, lock_ms, deadline_ms)
}

/// The hook command for `warden` at `exe`: direct (it opens the project's store), or, with
/// `server`, the thin client of the resident service at that socket (V-10: no `--store`, the
/// server holds it; `--lock-timeout-ms` stays, so the budget reads back the same), and with its
/// uid, `--server-uid` (V-49: the line names the server and its user). `exe` is then
/// `warden-hook` when there is one (V-34): it reads the same line.
pub fn hook_command(
    exe: &Path,
    lock_ms: u64,
    deadline_ms: u64,
    server: Option<(&Path, Option<u32>)>,
) -> String {
    match server {
        None => format!(
            r#"{} --store "$CLAUDE_PROJECT_DIR/.agentwarden/audit" --lock-timeout-ms {lock_ms} {MARK} --deadline-ms {deadline_ms} {FAIL_CLOSED}"#,
            shell_quote(exe)
        ),
        Some((socket, uid)) => format!(
            r#"{} --lock-timeout-ms {lock_ms} {MARK} --server {}{} --deadline-ms {deadline_ms} {FAIL_CLOSED}"#,
            shell_quote(exe),
            shell_quote(socket),
            uid.map(|uid| format!(" --server-uid {uid}")).unwrap_or_default(),
        ),
    }
}

/// Whether a hook entry of Claude Code's settings (`{"type": "command", "command": …}`) is
/// Warden's.
pub fn is_ours(hook: &Value) -> bool {
    hook.get("command").and_then(Value::as_str).is_some_and(|c| c.contains(MARK))
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    #[test]
    fn the_installed_line_reads_back() {
        let client =
            hook_command(Path::new("/w/warden"), 5000, 28000, Some((Path::new("/run/a b/w.sock"), None)));
        assert!(client.contains(r"--server '/run/a b/w.sock' --deadline-ms"), "{client}");
        assert!(!client.contains("--store"), "the client form opens no store: {client}");
        assert!(is_ours(&serde_json::json!({"command": client})));
        let read = parse(&client);
        assert_eq!((read.lock_ms, read.deadline_ms, read.fail_closed), (Some(5000), Some(28000), true));
        assert_eq!(read.server, Some(PathBuf::from("/run/a b/w.sock")), "{client}");
        assert_eq!(read.server_uid, None, "{client}");
        let pinned =
            hook_command(Path::new("/w/warden"), 5000, 28000, Some((Path::new("/run/w.sock"), Some(998))));
        assert!(pinned.contains(r"--server '/run/w.sock' --server-uid 998 --deadline-ms"), "{pinned}");
        assert_eq!(
            (parse(&pinned).server_uid, parse(&pinned).deadline_ms),
            (Some(998), Some(28000)),
            "{pinned}"
        );
        let quoted =
            hook_command(Path::new("/w/warden"), 5000, 28000, Some((Path::new("/run/it's.sock"), None)));
        assert_eq!(parse(&quoted).server, Some(PathBuf::from("/run/it's.sock")), "{quoted}");
        let line = hook_command(Path::new("/a b/it's/warden"), 5000, 28000, None);
        assert_eq!(
            parse(&line),
            HookLine {
                binary: Some(PathBuf::from("/a b/it's/warden")),
                config: None,
                lock_ms: Some(5000),
                deadline_ms: Some(28000),
                fail_closed: true,
                halts: false,
                server: None,
                server_uid: None,
            }
        );
        assert!(is_ours(&serde_json::json!({"command": line})));
        assert_eq!(parse("warden hook"), HookLine::default());
    }

    #[test]
    fn a_timeout_must_cover_the_lock_wait_and_the_margins() {
        // (timeout s, lock wait ms, expected deadline or refusal, why)
        let table = [
            (30, 5000, Ok(28000), "the default: 28 s deadline, 5 s lock wait"),
            (8, 5000, Ok(6000), "the smallest timeout over a 5 s lock wait"),
            (7, 5000, Err(()), "1 s short"),
            (2, 5000, Err(()), "the issue's --timeout 2"),
            (3, 0, Ok(1000), "no lock wait: 1 s to decide"),
            (0, 0, Err(()), "no time at all"),
        ];
        for (timeout, lock, expected, why) in table {
            assert_eq!(deadline_for(timeout, lock).map_err(|_| ()), expected, "{why}");
        }
        assert_eq!(deadline_for(DEFAULT_TIMEOUT_S, 5000), Ok(DEFAULT_DEADLINE_MS));
        let refusal = deadline_for(2, 5000).unwrap_err().to_string();
        assert!(refusal.contains("--timeout 8"), "{refusal}");
        assert!(check_budget(30, 5000, 28000).is_ok());
        assert!(check_budget(30, 5000, 29500).is_err(), "deadline too close to the timeout");
        assert!(check_budget(30, 5000, 5500).is_err(), "lock wait fills the deadline");
    }
}
