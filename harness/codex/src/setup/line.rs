//! The command line `warden init codex` installs as Codex's hook, and its time budget: built
//! here, read back here for `warden doctor`.
//!
//! Codex runs the call on a hook's timeout, a missing binary, a crash and any exit but 2 with a
//! reason on stderr (C-1). So the line is Claude Code's in form (H-9, H-10): the binary, the
//! store and the configuration by absolute path (Codex runs hooks in the project with no
//! variable naming it), `hook --harness codex`, a deadline below Codex's timeout by the
//! [`START_MS`] and [`ANSWER_MS`] margins with [`DECIDE_MS`] left after the lock wait, and the
//! [`FAIL_CLOSED`] tail, which turns any other exit into exit 2 with a reason on stderr.

use std::path::{Path, PathBuf};

/// What marks a Codex hook line as Warden's.
pub const MARK: &str = " hook --harness codex ";

/// The tail of the installed line: any exit but 0 and 2 becomes 2, with a line on stderr (the
/// reason Codex needs to block, C-1).
pub const FAIL_CLOSED: &str =
    r#"|| { rc=$?; [ "$rc" -eq 2 ] || echo "warden: the hook exited $rc; blocked" >&2; exit 2; }"#;

/// Budget before `warden hook` starts its clock: Codex spawning the shell, the shell starting
/// `warden`, the runtime coming up (H-10).
pub const START_MS: u64 = 1_000;
/// Budget after the deadline: writing the answer, exiting, Codex reading it (H-10).
pub const ANSWER_MS: u64 = 1_000;
/// Budget inside the deadline after the store's lock is taken: deciding and recording (H-10).
pub const DECIDE_MS: u64 = 1_000;

/// Codex's timeout for each hook call that `init codex` installs unless told otherwise, in
/// seconds.
pub const DEFAULT_TIMEOUT_S: u64 = 30;

/// The deadline for a Codex `timeout_s` and a lock wait of `lock_ms`, or why the timeout leaves
/// no margin.
pub fn deadline_for(timeout_s: u64, lock_ms: u64) -> Result<u64, String> {
    let deadline = timeout_s.saturating_mul(1_000).saturating_sub(START_MS + ANSWER_MS);
    let needed = lock_ms.saturating_add(DECIDE_MS);
    if timeout_s.saturating_mul(1_000) >= needed.saturating_add(START_MS + ANSWER_MS) {
        return Ok(deadline);
    }
    let minimum = needed.saturating_add(START_MS + ANSWER_MS).div_ceil(1_000);
    Err(format!(
        "a Codex timeout of {timeout_s} s leaves no margin over the store's lock wait of {lock_ms} ms \
         (lock wait + {DECIDE_MS} ms to decide + {START_MS} ms to start + {ANSWER_MS} ms to answer): \
         Codex would give up first and run the call; use --timeout {minimum} or more, or a lower \
         --lock-timeout-ms"
    ))
}

/// Checks that an installed hook's numbers fit: the deadline lies below the timeout by the start
/// and answer margins, and the lock wait fits in the deadline with time to decide.
pub fn check_budget(timeout_s: u64, lock_ms: u64, deadline_ms: u64) -> Result<(), String> {
    let wanted = deadline_for(timeout_s, lock_ms)?;
    if deadline_ms > wanted {
        return Err(format!(
            "`--deadline-ms {deadline_ms}` is too close to the Codex timeout of {timeout_s} s \
             (at most {wanted} ms leaves {START_MS} ms to start and {ANSWER_MS} ms to answer)"
        ));
    }
    if lock_ms.saturating_add(DECIDE_MS) > deadline_ms {
        return Err(format!(
            "the lock wait of {lock_ms} ms leaves no time to decide within `--deadline-ms {deadline_ms}`"
        ));
    }
    Ok(())
}

/// `path` in single quotes for `sh`, a quote in it closed, escaped and reopened.
pub fn shell_quote(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', r"'\''"))
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
    let config = shell_quote(config);
    match server {
        None => format!(
            "{} --store {} --lock-timeout-ms {lock_ms}{MARK}--config {config} --deadline-ms {deadline_ms} {FAIL_CLOSED}",
            shell_quote(exe),
            shell_quote(&project.join(".agentwarden").join("audit")),
        ),
        Some((socket, uid)) => format!(
            "{} --lock-timeout-ms {lock_ms}{MARK}--config {config} --server {}{} --deadline-ms {deadline_ms} {FAIL_CLOSED}",
            shell_quote(exe),
            shell_quote(socket),
            uid.map(|uid| format!(" --server-uid {uid}")).unwrap_or_default(),
        ),
    }
}

/// What an installed line says, read back.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HookLine {
    /// The binary, when the line starts with a single-quoted path.
    pub binary: Option<PathBuf>,
    /// The configuration `--config` names, single-quoted.
    pub config: Option<PathBuf>,
    /// What `--lock-timeout-ms` says.
    pub lock_ms: Option<u64>,
    /// What `--deadline-ms` says.
    pub deadline_ms: Option<u64>,
    /// The line ends in [`FAIL_CLOSED`].
    pub fail_closed: bool,
    /// The socket `--server` names (V-48).
    pub server: Option<PathBuf>,
    /// The user `--server-uid` names (V-49).
    pub server_uid: Option<u32>,
}

fn unquote(command: &str) -> Option<PathBuf> {
    let mut rest = command.strip_prefix('\'')?;
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

/// An installed line read back: what of [`hook_command`]'s form it has.
pub fn parse(command: &str) -> HookLine {
    HookLine {
        binary: unquote(command),
        config: command.split_once(" --config ").and_then(|(_, rest)| unquote(rest)),
        lock_ms: number_after(command, "--lock-timeout-ms"),
        deadline_ms: number_after(command, "--deadline-ms"),
        fail_closed: command.trim_end().ends_with(FAIL_CLOSED),
        server: command.split_once(" --server ").and_then(|(_, rest)| unquote(rest)),
        server_uid: number_after(command, "--server-uid").and_then(|uid| u32::try_from(uid).ok()),
    }
}

#[cfg(test)]
mod tests {
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
        let refusal = deadline_for(2, 5000).unwrap_err();
        assert!(refusal.contains("a Codex timeout of 2 s") && refusal.contains("--timeout 8"), "{refusal}");
        assert!(check_budget(30, 5000, 28000).is_ok());
        assert!(check_budget(30, 5000, 29500).is_err(), "deadline too close to the timeout");
        assert!(check_budget(30, 5000, 5500).is_err(), "lock wait fills the deadline");
    }
}
