//! Warden's hooks as installed, whatever the harness: each harness's `setup::installed` reads
//! them back from where its harness reads them (Claude Code's H-11, H-14; Codex's C-10; Gemini
//! CLI's), names the form in force and checks each line with what is here. What every harness
//! gives the doctor is a list of [`Line`]s: the canary runs them and the server check reads which
//! server they ask.

use std::path::{Path, PathBuf};

use crate::check::Check;

/// One installed hook, whatever the harness.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// The event it is under.
    pub event: String,
    /// The command line.
    pub command: String,
    /// The harness's timeout for it, in seconds.
    pub timeout: Option<u64>,
    /// The socket its `--server` names, and the user `--server-uid` names (V-48, V-49).
    pub server: Option<(PathBuf, Option<u32>)>,
}

/// A file a harness reads that cannot be read (U-1): the reader's reason, which names it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot read {0}")]
pub struct Unreadable(#[source] pub agentwarden::files::UntrustedError);

/// A file a harness reads, as text: `None` when it does not exist, an error that names it when
/// it cannot be read.
pub fn read_text(path: &Path) -> Result<Option<String>, Unreadable> {
    // By descriptor, like every read of a file an agent can touch (U-1).
    match agentwarden::files::read_text(None, path, agentwarden::MAX_INPUT_BYTES) {
        Ok(text) => Ok(Some(text)),
        Err(agentwarden::files::UntrustedError::Missing { .. }) => Ok(None),
        Err(e) => Err(Unreadable(e)),
    }
}

/// Each line of a harness that runs its hooks in the project (Codex, Gemini CLI), as `(event,
/// findings)`: every binary exists, every line names the configuration checked here
/// (`config_path`), the tail fails closed, the numbers leave margin; `init` is the fix.
pub fn check_lines_by_path(
    lines: Vec<(String, agentwarden_protocol::hook_line::LineFindings)>,
    config_path: &Path,
    harness: &str,
    init: &str,
    checks: &mut Vec<Check>,
) {
    let canonical = |path: &Path| std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let wanted = canonical(config_path);
    let mut binaries = Vec::new();
    let (mut problems, mut open, mut elsewhere) = (Vec::new(), Vec::new(), Vec::new());
    let mut endings = Vec::new();
    for (event, found) in lines {
        if let Some(binary) = found.binary
            && !binaries.contains(&binary)
        {
            binaries.push(binary);
        }
        if found.config.as_deref().map(canonical) != Some(wanted.clone()) {
            let named =
                found.config.map_or_else(|| "no configuration".to_owned(), |c| format!("`{}`", c.display()));
            elsewhere.push(format!("{event} names {named}"));
        }
        if !found.fail_closed {
            open.push(event);
        }
        endings.extend(found.ending);
        problems.extend(found.problems);
    }
    check_binaries(&binaries, init, checks);
    checks.push(if elsewhere.is_empty() {
        Check::ok("configuration", format!("every line names `{}`", config_path.display()))
    } else {
        Check::fail(
            "configuration",
            format!(
                "{}, not `{}`: the hook decides by another configuration than the one checked here",
                elsewhere.join("; "),
                config_path.display()
            ),
            init,
        )
    });
    let fail_closed = "every line turns an exit other than 0 and 2 into exit 2 with a reason, and every stop's \
                       line a failure into the halt (H-57)";
    tail_and_budget((&open, &endings), &problems, harness, fail_closed, init, checks);
}

/// The findings every harness's lines share: the events whose line lacks the fail-closed tail
/// (`open`, H-9) or fails the wrong way for its event (`endings`, H-57), and what is wrong with
/// their budgets (`problems`, H-10), as two checks whose fix is `init`; `ok_tail` says what a
/// passing tail does in `harness`'s terms.
pub fn tail_and_budget(
    (open, endings): (&[String], &[String]),
    problems: &[String],
    harness: &str,
    ok_tail: &str,
    init: &str,
    checks: &mut Vec<Check>,
) {
    let mut failing = Vec::new();
    if !open.is_empty() {
        failing.push(format!(
            "the line for {} lacks the `|| exit 2` tail: a crash or a missing binary would let the call run",
            open.join(", ")
        ));
    }
    failing.extend(endings.iter().cloned());
    checks.push(if failing.is_empty() {
        Check::ok("fail-closed", ok_tail)
    } else {
        Check::fail("fail-closed", failing.join("; "), init)
    });
    checks.push(if problems.is_empty() {
        Check::ok(
            "timeout",
            format!("every deadline lies below {harness}'s timeout, with the lock wait inside it"),
        )
    } else {
        Check::fail("timeout", problems.join("; "), init)
    });
}

/// The installed lines do not all name the same server and user (V-48).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the installed lines do not all name the same server (`--server`, `--server-uid`)")]
pub struct MixedServers;

/// The socket the installed lines name with `--server` (the client form `init --server`
/// writes), with the user their `--server-uid` names (V-49): `None` when none names one. An
/// error when some lines name one and others do not, or they name different sockets or users:
/// the harness would then ask two deciders, and doctor cannot say which one is checked (V-48).
pub fn server_named(lines: &[Line]) -> Result<Option<(PathBuf, Option<u32>)>, MixedServers> {
    match lines.first() {
        None => Ok(None),
        Some(first) if lines.iter().all(|l| l.server == first.server) => Ok(first.server.clone()),
        Some(_) => Err(MixedServers),
    }
}

/// Each binary the lines run exists and is executable, or the check says how to fix it.
pub fn check_binaries(binaries: &[PathBuf], fix: &str, checks: &mut Vec<Check>) {
    for binary in binaries {
        let usable = std::fs::metadata(binary).is_ok_and(|m| {
            use std::os::unix::fs::PermissionsExt;
            m.is_file() && m.permissions().mode() & 0o111 != 0
        });
        checks.push(if usable {
            Check::ok("binary", format!("`{}` exists and is executable", binary.display()))
        } else {
            Check::fail(
                "binary",
                format!(
                    "`{}` is missing or not executable: every hook call would fail (the line's tail makes that a block)",
                    binary.display()
                ),
                format!("build it again, or {fix} with `--warden PATH`"),
            )
        });
    }
}

/// The rewriting-hooks check (H-55, H-56, C-18): passed when `found` is empty, else failed with
/// `what` (the harness's own words for the other hooks and their rulings) and everything found,
/// and `fix`.
pub fn rewriting_check(found: &[String], what: &str, fix: &str) -> Check {
    if found.is_empty() {
        Check::ok(
            "rewriting hooks",
            "no other hook can hand a tool another input than the one Warden approved",
        )
    } else {
        Check::fail("rewriting hooks", format!("{what}: {}", found.join("; ")), fix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_server_is_the_one_every_line_names_or_none() {
        let line = |server: Option<&str>, uid: Option<u32>| Line {
            event: "PreToolUse".to_owned(),
            command: String::new(),
            timeout: Some(30),
            server: server.map(|s| (PathBuf::from(s), uid)),
        };
        assert_eq!(server_named(&[]), Ok(None));
        assert_eq!(server_named(&[line(None, None), line(None, None)]), Ok(None), "direct mode");
        assert_eq!(
            server_named(&[line(Some("/run/a.sock"), None), line(Some("/run/a.sock"), None)]),
            Ok(Some((PathBuf::from("/run/a.sock"), None)))
        );
        assert!(
            server_named(&[line(Some("/run/a.sock"), None), line(Some("/run/b.sock"), None)]).is_err(),
            "two servers"
        );
        assert!(
            server_named(&[line(Some("/run/a.sock"), None), line(None, None)]).is_err(),
            "one line asks none"
        );
        assert!(
            server_named(&[line(Some("/run/a.sock"), None), line(Some("/run/a.sock"), Some(998))]).is_err(),
            "two users of one server"
        );
    }
}
