//! The command line `warden-hook` reads: `[--lock-timeout-ms MS] hook [--config FILE] [--server
//! PATH] [--server-uid UID] [--deadline-ms MS] [--harness NAME] [--halt-on-failure]`, each option
//! also as `--name=value`, as `warden hook` reads it (V-34).

use std::path::PathBuf;

/// The usage line printed with `--help` and after a refused command line.
pub const USAGE: &str = "usage: warden-hook [--lock-timeout-ms MS] hook [--config FILE] --server PATH \
                         [--server-uid UID] [--deadline-ms MS] [--harness claude-code|codex|gemini|copilot] [--halt-on-failure] < EVENT\n\
                         The hook client of the resident service (`warden serve`): sends one Claude Code, \
                         Codex, Gemini CLI or Copilot CLI hook event to the server and prints its answer; exit 2 when it cannot \
                         (with --halt-on-failure, on a stop's line: the harness's halt, H-57).";

/// What the hook's command line names (V-49): the configuration, the deadline, the server and
/// its user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HookLine {
    /// `--config`: the configuration (default: the project's `agentwarden.toml`, from the
    /// working directory upward).
    pub config: Option<PathBuf>,
    /// `--deadline-ms`: answer within this many milliseconds of starting, or exit 2 (H-10).
    pub deadline_ms: u64,
    /// `--server`: the server's socket; the only thing that names it (V-49).
    pub server: Option<PathBuf>,
    /// `--server-uid`: believe only a server running as this user (V-12, V-49).
    pub server_uid: Option<u32>,
    /// `--harness`: the harness that calls the hook (default: Claude Code).
    pub harness: super::HookHarness,
    /// `--halt-on-failure`: a failure halts the session instead of blocking the stop (H-57);
    /// only a stop's line carries it.
    pub halt_on_failure: bool,
}

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
pub enum Asked {
    /// Ask the server.
    Hook(HookLine),
    /// Print the usage.
    Help,
    /// Print the version.
    Version,
}

/// Why the command line is refused: a usage error (exit 2, with the usage line).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LineError {
    /// An argument that is not UTF-8, shown lossily.
    #[error("`{arg}` is not UTF-8")]
    NotUtf8 { arg: String },
    /// An option given without its value, or with one that is not UTF-8.
    #[error("`{name}` needs a UTF-8 value")]
    NeedsValue { name: String },
    /// `--lock-timeout-ms` or `--deadline-ms` with a value that is no number.
    #[error("`{name} {value}` is not a number of milliseconds")]
    NotMilliseconds { name: String, value: String },
    /// `--store` or `--fsync`: the hook client opens no store (V-49).
    #[error("`{name}`: warden-hook opens no store; the server holds it")]
    OpensNoStore { name: String },
    /// `--server-uid` with a value that is no user id.
    #[error("`--server-uid {value}` is not a user id")]
    NotUid { value: String },
    /// `--harness` names no harness.
    #[error(transparent)]
    Harness(#[from] super::harness::UnknownHarness),
    /// An argument the line does not take.
    #[error("unexpected argument `{arg}`")]
    Unexpected { arg: String },
    /// No `hook` command.
    #[error("the `hook` command is missing")]
    NoHook,
    /// An option given twice (V-72).
    #[error("`{name}` is given twice")]
    Repeated { name: String },
    /// `--server-uid` without `--server` (V-49).
    #[error("`--server-uid` names the user of a server, and no `--server` is given")]
    UidWithoutServer,
}

/// Reads the command line (without the program's name), or says why it is refused. The reading
/// is strict: besides what it does not take, it refuses what `warden`'s own parser reads
/// otherwise or refuses — an option given twice, an empty value, and a value given apart that
/// begins with `-` (but `-` itself), which `warden` reads as an option — so that `warden-hook`
/// and `warden hook` read one line one way: what this takes, `warden hook` reads as the same
/// line, and `warden hook --server` may answer through it before building its command tree
/// (V-71, V-72; the command line's `the_hook_line_read_early_is_the_line_clap_reads` checks it
/// against that parser).
pub fn parse(args: impl IntoIterator<Item = std::ffi::OsString>) -> Result<Asked, LineError> {
    let mut args = args.into_iter();
    let mut given: Vec<String> = Vec::new();
    let mut hook = false;
    let (mut config, mut server, mut server_uid, mut deadline_ms) = (None, None, None, None);
    let mut harness = super::HookHarness::default();
    let mut halt_on_failure = false;
    while let Some(arg) = args.next() {
        let text =
            arg.to_str().ok_or_else(|| LineError::NotUtf8 { arg: arg.to_string_lossy().into_owned() })?;
        let (name, inline) = match text.split_once('=') {
            Some((name, value)) if name.starts_with("--") => (name, Some(value.to_owned())),
            _ => (text, None),
        };
        if name.starts_with("--") {
            if given.iter().any(|seen| seen == name) {
                return Err(LineError::Repeated { name: name.to_owned() });
            }
            given.push(name.to_owned());
        }
        let mut value = || -> Result<String, LineError> {
            let value = match inline.clone() {
                Some(value) => Some(value),
                None => {
                    args.next().and_then(|v| v.into_string().ok()).filter(|v| v == "-" || !v.starts_with('-'))
                }
            };
            value.filter(|v| !v.is_empty()).ok_or_else(|| LineError::NeedsValue { name: name.to_owned() })
        };
        let number = |name: &str, value: String| {
            value.parse::<u64>().map_err(|_| LineError::NotMilliseconds { name: name.to_owned(), value })
        };
        match (name, hook) {
            ("--help" | "-h", _) => return Ok(Asked::Help),
            ("--version" | "-V", _) => return Ok(Asked::Version),
            ("hook", false) => hook = true,
            // Global options of `warden`, accepted before or after `hook` as clap accepts them.
            ("--lock-timeout-ms", _) => {
                number(name, value()?)?;
            }
            ("--store" | "--fsync", _) => {
                return Err(LineError::OpensNoStore { name: name.to_owned() });
            }
            ("--config", true) => config = Some(PathBuf::from(value()?)),
            ("--server", true) => server = Some(PathBuf::from(value()?)),
            ("--server-uid", true) => {
                let text = value()?;
                let uid = text.parse::<u32>().map_err(|_| LineError::NotUid { value: text })?;
                server_uid = Some(uid);
            }
            ("--deadline-ms", true) => deadline_ms = Some(number(name, value()?)?),
            ("--harness", true) => harness = super::HookHarness::parse(&value()?)?,
            ("--halt-on-failure", true) if inline.is_none() => halt_on_failure = true,
            _ => return Err(LineError::Unexpected { arg: text.to_owned() }),
        }
    }
    if !hook {
        return Err(LineError::NoHook);
    }
    if server_uid.is_some() && server.is_none() {
        return Err(LineError::UidWithoutServer);
    }
    let deadline_ms = deadline_ms.unwrap_or(super::DEFAULT_DEADLINE_MS);
    Ok(Asked::Hook(HookLine { config, deadline_ms, server, server_uid, harness, halt_on_failure }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(line: &str) -> Result<Asked, LineError> {
        parse(line.split_whitespace().map(std::ffi::OsString::from))
    }

    fn hook(config: Option<&str>, deadline_ms: u64, server: Option<&str>, server_uid: Option<u32>) -> Asked {
        Asked::Hook(HookLine {
            config: config.map(PathBuf::from),
            deadline_ms,
            server: server.map(PathBuf::from),
            server_uid,
            harness: crate::HookHarness::default(),
            halt_on_failure: false,
        })
    }

    #[test]
    fn the_installed_line_is_read_and_anything_else_refused() {
        let default = crate::DEFAULT_DEADLINE_MS;
        let halting = Asked::Hook(HookLine {
            halt_on_failure: true,
            ..match hook(Some("c.toml"), 28000, Some("/s"), None) {
                Asked::Hook(line) => line,
                other => panic!("{other:?}"),
            }
        });
        let rows: [(&str, Result<Asked, ()>, &str); 10] = [
            (
                "--lock-timeout-ms 5000 hook --config c.toml --server /s --deadline-ms 28000 --halt-on-failure",
                Ok(halting),
                "a stop's line (H-57)",
            ),
            (
                "--lock-timeout-ms 5000 hook --config c.toml --server /s --deadline-ms 28000",
                Ok(hook(Some("c.toml"), 28000, Some("/s"), None)),
                "what init installs",
            ),
            ("hook", Ok(hook(None, default, None, None)), "the bare command"),
            (
                "hook --server /s --server-uid 998",
                Ok(hook(None, default, Some("/s"), Some(998))),
                "the server's user",
            ),
            (
                "hook --server=/s --config=c.toml",
                Ok(hook(Some("c.toml"), default, Some("/s"), None)),
                "`=` forms",
            ),
            ("hook --lock-timeout-ms 5", Ok(hook(None, default, None, None)), "a global option after `hook`"),
            ("hook --version", Ok(Asked::Version), "the version"),
            ("--help", Ok(Asked::Help), "the help"),
            ("--lock-timeout-ms 5000 hook --json", Err(()), "an option warden hook lacks"),
            ("--store /x hook", Err(()), "a store it would not open"),
        ];
        for (line, expected, why) in rows {
            match (read(line), expected) {
                (Ok(got), Ok(expected)) => assert_eq!(got, expected, "{why}"),
                (Err(_), Err(_)) => {}
                (got, _) => panic!("{why}: `{line}` read as {got:?}"),
            }
        }
        for refused in [
            "",
            "gate",
            "--fsync hook",
            "hook --config",
            "hook --deadline-ms soon",
            "--server /s hook",
            "hook --store /x",
            "hook hook",
            "--lock-timeout-ms x hook",
            "hook --server-uid 998",
            "hook --server /s --server-uid -1",
            "hook --server /s --server-uid root",
            "--halt-on-failure hook",
            "hook --halt-on-failure=yes",
        ] {
            assert!(read(refused).is_err(), "`{refused}` is refused");
        }
    }

    /// The reading is strict: a line is refused where `warden`'s parser reads it otherwise or
    /// refuses it (V-71, V-72) — `warden-hook` once took the last of a repeated option where
    /// `warden hook` refused the line.
    #[test]
    fn a_line_warden_reads_otherwise_is_refused() {
        let read = |line: &str| parse(line.split(' ').map(std::ffi::OsString::from));
        for installed in [
            "--lock-timeout-ms 5000 hook --config c.toml --server /s --deadline-ms 28000 --halt-on-failure",
            "hook --server=/s --config=c.toml --harness codex --server-uid 998",
            "hook --server /s --config -",
        ] {
            assert!(matches!(read(installed), Ok(Asked::Hook(_))), "`{installed}`");
        }
        for (line, refused) in [
            (
                "hook --deadline-ms 100 --deadline-ms 200",
                LineError::Repeated { name: "--deadline-ms".into() },
            ),
            (
                "--lock-timeout-ms 1 hook --lock-timeout-ms=2",
                LineError::Repeated { name: "--lock-timeout-ms".into() },
            ),
            ("hook --server /s --server=/t", LineError::Repeated { name: "--server".into() }),
            ("hook --server=", LineError::NeedsValue { name: "--server".into() }),
            ("hook --server ", LineError::NeedsValue { name: "--server".into() }),
            ("hook --server /s --config -x", LineError::NeedsValue { name: "--config".into() }),
        ] {
            assert_eq!(read(line), Err(refused), "`{line}`");
        }
    }
}
