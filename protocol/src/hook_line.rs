//! The form of the command line a harness runs as Warden's hook, whichever harness installs
//! it: how it fails closed, how its time is budgeted, how a path is quoted in it, and how it is
//! read back. Each integration (`agentwarden-claude-code`, `agentwarden-codex`) builds its own
//! line from these pieces and words its refusals in its harness's terms.
//!
//! No harness has a fail-closed switch that covers every failure of a command hook, so the line
//! ends in [`FAIL_CLOSED`], which turns every exit but 0 and 2 — a missing binary (127), a
//! crash (101), a signal (128 + n), a plain 1 — into exit 2 with a line on stderr (H-9); and it
//! passes `--deadline-ms`, the bound the hook answers within, below the harness's timeout by
//! [`START_MS`] and [`ANSWER_MS`], with [`DECIDE_MS`] left after the store's lock wait (H-10).
//!
//! H-57: the line of an event whose block the harness answers by prompting the model again (a
//! stop) ends instead in [`HALT_ON_ANY_EXIT`] or [`HALT_UNLESS_TWO`], after the hook's
//! [`FLAG`](crate::halt::FLAG): a failure there halts the session with its reason
//! ([`crate::halt`]), whether the binary says it or cannot run at all ([`halting`]).

use std::path::{Path, PathBuf};

/// The exit code of a hook that could not answer, whatever harness runs it: what the fail-closed
/// tail keeps and turns every other failure into (H-9, C-1, M-1).
pub const HOOK_FAILED: u8 = 2;

/// The tail of the installed line: any exit but 0 and 2 becomes 2, with a line on stderr (the
/// reason a harness needs to block, H-9, C-1).
pub const FAIL_CLOSED: &str =
    r#"|| { rc=$?; [ "$rc" -eq 2 ] || echo "warden: the hook exited $rc; blocked" >&2; exit 2; }"#;

/// The tail of a stop's line for a harness whose block is exit 0 with JSON (Claude Code): any
/// exit but 0 — a missing binary (127), a crash, a failure the binary could not say as the halt
/// — becomes the halt, exit 0 with `{"continue":false,"stopReason":…}` (H-57).
pub const HALT_ON_ANY_EXIT: &str = concat!(
    r#"|| { rc=$?; printf '%s\n' '{"continue":false,"stopReason":"Agent Warden stopped the session: "#,
    r#"its hook exited '"$rc"' without an answer (127: its binary is missing; 126: it cannot be run; "#,
    r#"over 128: it was killed) (fix it, then check with `warden doctor`)"}'; exit 0; }"#
);

/// The tail of a stop's line for a harness whose block is exit 2 with a reason on stderr
/// (Codex, Gemini CLI): exit 2 passes as it is (a block Warden decided), any other exit but 0
/// becomes the halt (H-57).
pub const HALT_UNLESS_TWO: &str = concat!(
    r#"|| { rc=$?; [ "$rc" -eq 2 ] && exit 2; printf '%s\n' '{"continue":false,"stopReason":"Agent Warden stopped the session: "#,
    r#"its hook exited '"$rc"' without an answer (127: its binary is missing; 126: it cannot be run; "#,
    r#"over 128: it was killed) (fix it, then check with `warden doctor`)"}'; exit 0; }"#
);

/// `command`, a line that ends in [`FAIL_CLOSED`], as a stop's line (H-57): the hook's
/// [`FLAG`](crate::halt::FLAG), then `tail` ([`HALT_ON_ANY_EXIT`] or [`HALT_UNLESS_TWO`]) in
/// place of [`FAIL_CLOSED`]. Any other text is returned as it is.
pub fn halting(command: &str, tail: &str) -> String {
    match command.strip_suffix(FAIL_CLOSED) {
        Some(head) => format!("{head}{} {tail}", crate::halt::FLAG),
        None => command.to_owned(),
    }
}

/// Budget before the hook starts its clock: the harness spawning the shell, the shell starting
/// the binary, the binary coming up (H-10).
pub const START_MS: u64 = 1_000;
/// Budget after the deadline: writing the answer, exiting, the harness reading it (H-10).
pub const ANSWER_MS: u64 = 1_000;
/// Budget inside the deadline after the store's lock is taken: catching up, deciding,
/// appending and flushing the decision (H-10).
pub const DECIDE_MS: u64 = 1_000;

/// Why a hook line's time budget does not hold (H-10), by cause (X-97): each variant carries
/// the numbers it was told from, and says what mends it; `harness` is named as its user knows
/// it. More causes may come as lines gain numbers.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BudgetError {
    /// The harness's timeout leaves no margin over the lock wait, the time to decide, to start
    /// and to answer: the harness would give up first and let the call run.
    #[error(
        "a {harness} timeout of {timeout_s} s leaves no margin over the store's lock wait of {lock_ms} ms \
         (lock wait + {DECIDE_MS} ms to decide + {START_MS} ms to start + {ANSWER_MS} ms to answer): \
         {harness} would give up first and let the call run; use --timeout {minimum} or more, or a \
         lower --lock-timeout-ms"
    )]
    NoMargin {
        /// The harness, as its user knows it.
        harness: String,
        /// Its timeout, in seconds.
        timeout_s: u64,
        /// The store's lock wait, in milliseconds.
        lock_ms: u64,
        /// The least timeout that leaves the margin, in seconds.
        minimum: u64,
    },
    /// The line's deadline lies too close to the harness's timeout.
    #[error(
        "`--deadline-ms {deadline_ms}` is too close to the {harness} timeout of {timeout_s} s \
         (at most {wanted} ms leaves {START_MS} ms to start and {ANSWER_MS} ms to answer)"
    )]
    DeadlineTooClose {
        /// The harness, as its user knows it.
        harness: String,
        /// Its timeout, in seconds.
        timeout_s: u64,
        /// The line's deadline, in milliseconds.
        deadline_ms: u64,
        /// The latest deadline that fits, in milliseconds.
        wanted: u64,
    },
    /// The lock wait fills the deadline: no time is left to decide.
    #[error("the lock wait of {lock_ms} ms leaves no time to decide within `--deadline-ms {deadline_ms}`")]
    NoTimeToDecide {
        /// The store's lock wait, in milliseconds.
        lock_ms: u64,
        /// The line's deadline, in milliseconds.
        deadline_ms: u64,
    },
    /// The hook has no `timeout`: the harness's default applies, which is not checked.
    #[error("no `timeout`: {harness}'s default applies, unchecked")]
    NoTimeout {
        /// The harness, as its user knows it.
        harness: String,
    },
    /// The line has no `--lock-timeout-ms`.
    #[error("no `--lock-timeout-ms` on the line")]
    NoLockWait,
    /// The line has no `--deadline-ms`: the hook has no bound below the timeout.
    #[error("no `--deadline-ms` on the line: the hook has no bound below the timeout")]
    NoDeadline,
}

/// The deadline for a `harness` timeout of `timeout_s` and a lock wait of `lock_ms`, or why the
/// timeout leaves no margin (named after `harness`, as its user knows it).
pub fn deadline_for(harness: &str, timeout_s: u64, lock_ms: u64) -> Result<u64, BudgetError> {
    let deadline = timeout_s.saturating_mul(1_000).saturating_sub(START_MS + ANSWER_MS);
    let needed = lock_ms.saturating_add(DECIDE_MS);
    if timeout_s.saturating_mul(1_000) >= needed.saturating_add(START_MS + ANSWER_MS) {
        return Ok(deadline);
    }
    let minimum = needed.saturating_add(START_MS + ANSWER_MS).div_ceil(1_000);
    Err(BudgetError::NoMargin { harness: harness.to_owned(), timeout_s, lock_ms, minimum })
}

/// Checks that an installed line's numbers fit a `harness` timeout: the deadline lies below it
/// by the start and answer margins, and the lock wait fits in the deadline with time to decide.
pub fn check_budget(
    harness: &str,
    timeout_s: u64,
    lock_ms: u64,
    deadline_ms: u64,
) -> Result<(), BudgetError> {
    let wanted = deadline_for(harness, timeout_s, lock_ms)?;
    if deadline_ms > wanted {
        return Err(BudgetError::DeadlineTooClose {
            harness: harness.to_owned(),
            timeout_s,
            deadline_ms,
            wanted,
        });
    }
    if lock_ms.saturating_add(DECIDE_MS) > deadline_ms {
        return Err(BudgetError::NoTimeToDecide { lock_ms, deadline_ms });
    }
    Ok(())
}

/// The hook line of a harness that runs its hooks in the project with no variable naming it
/// (Codex, Gemini CLI): `exe`, then, direct, the store of `project` and its configuration
/// `config` by absolute path, or, with `server`, the socket and the user the server must run
/// as (V-10, V-49; `exe` is then `warden-hook` when there is one, V-34); `mark` (`" hook
/// --harness NAME "`) says whose line it is; the deadline and the [`FAIL_CLOSED`] tail end it.
pub fn command_by_path(
    exe: &Path,
    mark: &str,
    project: &Path,
    config: &Path,
    lock_ms: u64,
    deadline_ms: u64,
    server: Option<(&Path, Option<u32>)>,
) -> String {
    let config = shell_quote(config);
    match server {
        None => format!(
            "{} --store {} --lock-timeout-ms {lock_ms}{mark}--config {config} --deadline-ms {deadline_ms} {FAIL_CLOSED}",
            shell_quote(exe),
            shell_quote(&project.join(".agentwarden").join("audit")),
        ),
        Some((socket, uid)) => format!(
            "{} --lock-timeout-ms {lock_ms}{mark}--config {config} --server {}{} --deadline-ms {deadline_ms} {FAIL_CLOSED}",
            shell_quote(exe),
            shell_quote(socket),
            uid.map(|uid| format!(" --server-uid {uid}")).unwrap_or_default(),
        ),
    }
}

/// What one installed hook line of a harness that runs hooks in the project says, checked (H-9,
/// H-10): its binary, the configuration it names, its tail, and what is wrong with its form or
/// its budget, each said whole.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineFindings {
    /// The binary the line runs, when it starts with an absolute, quoted one.
    pub binary: Option<PathBuf>,
    /// The configuration the line names.
    pub config: Option<PathBuf>,
    /// The line ends in a fail-closed tail (at a stop, the halt, H-57).
    pub fail_closed: bool,
    /// What is wrong with how the line fails for its event (H-57): a stop's line that blocks, a
    /// tool call's that halts.
    pub ending: Option<String>,
    /// What is wrong with its budget or its form, each said whole.
    pub problems: Vec<String>,
}

/// The line `command` installed for `event`, checked against `harness`'s timeout of
/// `timeout_s` seconds (`None`: the harness's default, which is not checked); `halting`: the
/// event is one whose block `harness` retries, so its line must halt on a failure (H-57).
pub fn check_line(
    harness: &str,
    event: &str,
    command: &str,
    timeout_s: Option<u64>,
    halting: bool,
) -> LineFindings {
    let parsed = parse(command);
    let mut problems = Vec::new();
    if parsed.binary.is_none() {
        problems.push(format!("{event}: the line does not start with an absolute, quoted binary"));
    }
    let ending = check_ending(harness, event, &parsed, halting);
    let budget = match (timeout_s, parsed.lock_ms, parsed.deadline_ms) {
        (Some(timeout), Some(lock), Some(deadline)) => check_budget(harness, timeout, lock, deadline),
        (None, _, _) => Err(BudgetError::NoTimeout { harness: harness.to_owned() }),
        (_, None, _) => Err(BudgetError::NoLockWait),
        (_, _, None) => Err(BudgetError::NoDeadline),
    };
    if let Err(why) = budget {
        problems.push(format!("{event}: {why}"));
    }
    LineFindings {
        binary: parsed.binary,
        config: parsed.config,
        fail_closed: parsed.fail_closed,
        ending,
        problems,
    }
}

/// What is wrong with how a line for `event` fails, if anything (H-57): a stop's line that
/// blocks on a failure (which `harness` retries without end), or another event's line that halts
/// (a tool call's failure must deny it). A line with no fail-closed tail at all is said by
/// [`LineFindings::fail_closed`].
pub fn check_ending(harness: &str, event: &str, line: &HookLine, halting: bool) -> Option<String> {
    match (halting, line.halts, line.fail_closed) {
        (true, false, true) => Some(format!(
            "{event}: a failure blocks the stop, which {harness} answers by prompting the model again \
             without end; the line must end in the halt (`{}` and its tail)",
            crate::halt::FLAG
        )),
        (false, true, _) => Some(format!(
            "{event}: a failure halts the session where it must deny or block (`{}` belongs on the \
             stop events only)",
            crate::halt::FLAG
        )),
        _ => None,
    }
}

/// `path` in single quotes for `sh`, a quote in it closed, escaped and reopened.
pub fn shell_quote(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', r"'\''"))
}

/// What an installed line says, read back.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HookLine {
    /// The binary, when the line starts with a single-quoted path.
    pub binary: Option<PathBuf>,
    /// The configuration `--config` names, when single-quoted.
    pub config: Option<PathBuf>,
    /// What `--lock-timeout-ms` says.
    pub lock_ms: Option<u64>,
    /// What `--deadline-ms` says.
    pub deadline_ms: Option<u64>,
    /// The line fails closed: it ends in [`FAIL_CLOSED`], or it halts ([`HookLine::halts`]).
    pub fail_closed: bool,
    /// The line halts on a failure (H-57): it carries the hook's
    /// [`FLAG`](crate::halt::FLAG) and ends in [`HALT_ON_ANY_EXIT`] or [`HALT_UNLESS_TWO`].
    pub halts: bool,
    /// The socket `--server` names, single-quoted: the server the line asks (V-48).
    pub server: Option<PathBuf>,
    /// The user `--server-uid` names: the server's, as the line believes it (V-49).
    pub server_uid: Option<u32>,
}

/// The single-quoted path `text` starts with, as [`shell_quote`] writes it.
fn unquote(text: &str) -> Option<PathBuf> {
    let mut rest = text.strip_prefix('\'')?;
    let mut path = String::new();
    loop {
        let (part, after) = rest.split_once('\'')?;
        path.push_str(part);
        match after.strip_prefix(r"\''") {
            Some(more) => {
                path.push('\'');
                rest = more;
            }
            None => return Some(PathBuf::from(path)),
        }
    }
}

fn number_after(command: &str, flag: &str) -> Option<u64> {
    let (_, rest) = command.split_once(&format!(" {flag} "))?;
    rest.split_whitespace().next()?.parse().ok()
}

/// An installed line read back: what of the form above it has.
pub fn parse(command: &str) -> HookLine {
    let trimmed = command.trim_end();
    let halts = command.contains(&format!(" {} ", crate::halt::FLAG))
        && (trimmed.ends_with(HALT_ON_ANY_EXIT) || trimmed.ends_with(HALT_UNLESS_TWO));
    HookLine {
        binary: unquote(command),
        config: command.split_once(" --config ").and_then(|(_, rest)| unquote(rest)),
        lock_ms: number_after(command, "--lock-timeout-ms"),
        deadline_ms: number_after(command, "--deadline-ms"),
        fail_closed: trimmed.ends_with(FAIL_CLOSED) || halts,
        halts,
        server: command.split_once(" --server ").and_then(|(_, rest)| unquote(rest)),
        server_uid: number_after(command, "--server-uid").and_then(|uid| u32::try_from(uid).ok()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_survives_a_quote_in_the_path_and_reads_back() {
        let quoted = shell_quote(Path::new("/a b/it's/warden"));
        assert_eq!(quoted, r"'/a b/it'\''s/warden'");
        assert_eq!(unquote(&quoted), Some(PathBuf::from("/a b/it's/warden")));
        assert_eq!(unquote("warden hook"), None);
        assert_eq!(unquote("'unterminated"), None);
    }

    #[test]
    fn a_line_reads_back_what_it_says() {
        let line = format!(
            "'/w/warden' --store '/p/.agentwarden/audit' --lock-timeout-ms 5000 hook --config '/p q/a.toml' \
             --server '/run/it'\\''s.sock' --server-uid 998 --deadline-ms 28000 {FAIL_CLOSED}"
        );
        assert_eq!(
            parse(&line),
            HookLine {
                binary: Some(PathBuf::from("/w/warden")),
                config: Some(PathBuf::from("/p q/a.toml")),
                lock_ms: Some(5000),
                deadline_ms: Some(28000),
                fail_closed: true,
                halts: false,
                server: Some(PathBuf::from("/run/it's.sock")),
                server_uid: Some(998),
            }
        );
        assert_eq!(parse("warden hook"), HookLine::default());
        assert_eq!(parse("'/w' hook --server-uid 4294967296").server_uid, None, "not a uid");
    }

    /// A stop's line carries the flag and the halt tail, reads back as halting (and fail
    /// closed), and each event's line is checked for the ending its event needs (H-57).
    #[test]
    fn a_stops_line_halts_and_reads_back() {
        let line = format!("'/w/warden' --lock-timeout-ms 5000 hook --deadline-ms 28000 {FAIL_CLOSED}");
        for tail in [HALT_ON_ANY_EXIT, HALT_UNLESS_TWO] {
            let stop = halting(&line, tail);
            assert!(stop.ends_with(&format!("--deadline-ms 28000 --halt-on-failure {tail}")), "{stop}");
            let read = parse(&stop);
            assert_eq!((read.halts, read.fail_closed, read.deadline_ms), (true, true, Some(28000)), "{stop}");
            assert_eq!(check_ending("X", "Stop", &read, true), None);
            assert!(check_ending("X", "PreToolUse", &read, false).is_some_and(|p| p.contains("halts")));
            let unflagged = stop.replace(" --halt-on-failure", "");
            assert!(!parse(&unflagged).halts, "a halt tail without the flag: the binary still blocks");
        }
        let read = parse(&line);
        assert!(!read.halts && read.fail_closed);
        let blocking = check_ending("Some CLI", "Stop", &read, true).unwrap();
        assert!(blocking.contains("Some CLI answers by prompting the model again"), "{blocking}");
        assert_eq!(check_ending("Some CLI", "PreToolUse", &read, false), None);
        assert_eq!(halting("true", HALT_ON_ANY_EXIT), "true", "not Warden's form: left as it is");
    }

    /// What each tail makes of each exit, run by `sh` as the harnesses run it: the halt
    /// reads back as one, with the exit code in its reason; exit 2 passes the tail that keeps it (H-57).
    #[test]
    fn each_tail_says_each_exit_as_its_harness_needs() {
        // (the command's exit, the tail, the exit and whether stdout is the halt, why)
        let rows: [(&str, &str, i32, bool, &str); 8] = [
            ("sh -c 'exit 0'", HALT_ON_ANY_EXIT, 0, false, "an answer: nothing added"),
            ("sh -c 'exit 2'", HALT_ON_ANY_EXIT, 0, true, "Claude Code: exit 2 is a failure, halted"),
            ("sh -c 'exit 101'", HALT_ON_ANY_EXIT, 0, true, "a crash"),
            ("/nonexistent/warden", HALT_ON_ANY_EXIT, 0, true, "a missing binary"),
            ("sh -c 'exit 0'", HALT_UNLESS_TWO, 0, false, "an answer: nothing added"),
            ("sh -c 'exit 2'", HALT_UNLESS_TWO, 2, false, "Codex, Gemini: exit 2 is Warden's block, kept"),
            ("sh -c 'exit 1'", HALT_UNLESS_TWO, 0, true, "exit 1"),
            ("/nonexistent/warden", HALT_UNLESS_TWO, 0, true, "a missing binary"),
        ];
        for (command, tail, exit, halts, why) in rows {
            let line = halting(&format!("{command} {FAIL_CLOSED}"), tail);
            let out = std::process::Command::new("sh").arg("-c").arg(&line).output().unwrap();
            assert_eq!(out.status.code(), Some(exit), "{why}: {line}");
            let stdout = String::from_utf8(out.stdout).unwrap();
            let read = crate::halt::read_back(0, stdout.strip_suffix('\n'), None);
            assert_eq!(read.is_ok(), halts, "{why}: {stdout:?}");
            if let Ok(reason) = read {
                assert!(reason.as_str().starts_with("its hook exited "), "{why}: {reason}");
            }
        }
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(halting(&format!("/nonexistent/warden {FAIL_CLOSED}"), HALT_UNLESS_TWO))
            .output()
            .unwrap();
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert!(
            stdout.contains("its hook exited 127 without an answer (127: its binary is missing"),
            "{stdout}"
        );
    }

    #[test]
    fn a_timeout_must_cover_the_lock_wait_and_the_margins() {
        // (timeout s, lock wait ms, expected deadline or refusal, why)
        let table = [
            (30, 5000, Ok(28000), "the default: 28 s deadline, 5 s lock wait"),
            (8, 5000, Ok(6000), "the smallest timeout over a 5 s lock wait"),
            (7, 5000, Err(()), "1 s short"),
            (2, 5000, Err(()), "a 2 s timeout"),
            (3, 0, Ok(1000), "no lock wait: 1 s to decide"),
            (0, 0, Err(()), "no time at all"),
        ];
        for (timeout, lock, expected, why) in table {
            assert_eq!(deadline_for("Some CLI", timeout, lock).map_err(|_| ()), expected, "{why}");
        }
        let refusal = deadline_for("Some CLI", 2, 5000).unwrap_err().to_string();
        assert!(
            refusal.contains("a Some CLI timeout of 2 s") && refusal.contains("--timeout 8"),
            "{refusal}"
        );
        assert!(check_budget("Some CLI", 30, 5000, 28000).is_ok());
        let close = check_budget("Some CLI", 30, 5000, 29500).unwrap_err().to_string();
        assert!(close.contains("too close to the Some CLI timeout"), "{close}");
        assert!(check_budget("Some CLI", 30, 5000, 5500).is_err(), "lock wait fills the deadline");
    }
}
