//! `warden-hook`: the resident service's hook client as a binary of its own (V-34).
//!
//! `warden hook` through a server spends most of its time becoming a process: the `warden`
//! binary is large (its dynamic relocations touch every page of its read-only data), and clap
//! builds the whole command tree — every subcommand, every argument, every help text — before
//! it reads one argument. The client needs none of it. `warden-hook` reads the same command line
//! as `warden … hook` (so `warden init claude-code --server` installs it by swapping the binary
//! and `warden doctor` reads the line back unchanged), parsed by hand, and then runs exactly
//! the thin client of `warden hook` ([`super::hook::begin`], [`super::hook::through_server`]):
//! the same configuration, the same `[server] uid` check, the same frames, the same checks of
//! the answer, the same deadline watchdog.
//!
//! V-34: it only asks a server. With no `--server` on its command line (the only thing that
//! names the hook's server, V-49), it exits 2 and says to use `warden hook`: it never decides by itself and
//! never opens a store. `--store` and `--fsync` name a store it will not open: refused (exit 2);
//! `--lock-timeout-ms` is accepted and ignored, as `warden hook` ignores it with a server. Any
//! other argument is refused (exit 2). A panic is exit 2 (Claude Code lets any other code run
//! the call).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use super::EXIT_OK;
use super::hook::HookArgs;
use agentwarden_claude_code::wire::HOOK_FAILED;

const USAGE: &str = "usage: warden-hook [--lock-timeout-ms MS] hook [--config FILE] --server PATH \
                     [--server-uid UID] [--deadline-ms MS] < EVENT\n\
                     The hook client of the resident service (`warden serve`): sends one Claude Code \
                     hook event to the server and prints its answer; exit 2 when it cannot.";

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
enum Asked {
    Hook(HookArgs),
    Help,
    Version,
}

/// Reads `[--lock-timeout-ms MS] hook [--config FILE] [--server PATH] [--server-uid UID]
/// [--deadline-ms MS]`, each option also as `--name=value`.
fn parse(args: impl IntoIterator<Item = std::ffi::OsString>) -> Result<Asked, String> {
    let mut args = args.into_iter();
    let mut hook = false;
    let (mut config, mut server, mut server_uid, mut deadline_ms) = (None, None, None, None);
    while let Some(arg) = args.next() {
        let text = arg.to_str().ok_or_else(|| format!("`{}` is not UTF-8", arg.to_string_lossy()))?;
        let (name, inline) = match text.split_once('=') {
            Some((name, value)) if name.starts_with("--") => (name, Some(value.to_owned())),
            _ => (text, None),
        };
        let mut value = || -> Result<String, String> {
            match inline.clone() {
                Some(value) => Ok(value),
                None => args
                    .next()
                    .and_then(|v| v.into_string().ok())
                    .ok_or_else(|| format!("`{name}` needs a UTF-8 value")),
            }
        };
        let number = |name: &str, value: String| {
            value.parse::<u64>().map_err(|_| format!("`{name} {value}` is not a number of milliseconds"))
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
                return Err(format!("`{name}`: warden-hook opens no store; the server holds it"));
            }
            ("--config", true) => config = Some(PathBuf::from(value()?)),
            ("--server", true) => server = Some(PathBuf::from(value()?)),
            ("--server-uid", true) => {
                let text = value()?;
                let uid =
                    text.parse::<u32>().map_err(|_| format!("`--server-uid {text}` is not a user id"))?;
                server_uid = Some(uid);
            }
            ("--deadline-ms", true) => deadline_ms = Some(number(name, value()?)?),
            _ => return Err(format!("unexpected argument `{text}`")),
        }
    }
    if !hook {
        return Err("the `hook` command is missing".to_owned());
    }
    if server_uid.is_some() && server.is_none() {
        return Err("`--server-uid` names the user of a server, and no `--server` is given".to_owned());
    }
    let deadline_ms = deadline_ms.unwrap_or(super::wiring::DEFAULT_DEADLINE_MS);
    Ok(Asked::Hook(HookArgs::new(config, deadline_ms, server, server_uid)))
}

/// Runs `warden-hook` with the process's arguments and returns its exit code.
pub(super) fn main() -> ExitCode {
    std::panic::set_hook(Box::new(|info| {
        eprintln!("warden-hook: internal_error: {info}");
        std::process::exit(i32::from(HOOK_FAILED));
    }));
    let args = match parse(std::env::args_os().skip(1)) {
        Ok(Asked::Hook(args)) => args,
        Ok(Asked::Help) => {
            println!("{USAGE}");
            return ExitCode::from(EXIT_OK);
        }
        Ok(Asked::Version) => {
            println!("warden-hook {}", env!("CARGO_PKG_VERSION"));
            return ExitCode::from(EXIT_OK);
        }
        Err(why) => {
            eprintln!("warden-hook: usage_invalid: {why}\n{USAGE}");
            return ExitCode::from(HOOK_FAILED);
        }
    };
    match super::hook::begin(args) {
        Err(f) => failed(&f.reason),
        Ok(begun) if begun.is_client() => super::answer_through_server(begun, "warden-hook"),
        Ok(_) => failed(
            "server_unavailable: no `--server` on the command line (only the installed line names the \
             server, V-49); warden-hook only asks a server, `warden hook` decides without one",
        ),
    }
}

fn failed(reason: &str) -> ExitCode {
    eprintln!("warden-hook: {reason}");
    let _ = std::io::stderr().flush();
    ExitCode::from(HOOK_FAILED)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(line: &str) -> Result<Asked, String> {
        parse(line.split_whitespace().map(std::ffi::OsString::from))
    }

    #[test]
    fn the_installed_line_is_read_and_anything_else_refused() {
        let hook = |config: Option<&str>, deadline, server: Option<&str>| {
            Ok(Asked::Hook(HookArgs::new(
                config.map(PathBuf::from),
                deadline,
                server.map(PathBuf::from),
                None,
            )))
        };
        let default = super::super::wiring::DEFAULT_DEADLINE_MS;
        let rows: [(&str, Result<Asked, String>, &str); 10] = [
            (
                "--lock-timeout-ms 5000 hook --config c.toml --server /s --deadline-ms 28000",
                hook(Some("c.toml"), 28000, Some("/s")),
                "what init installs",
            ),
            ("hook", hook(None, default, None), "the bare command"),
            (
                "hook --server /s --server-uid 998",
                Ok(Asked::Hook(HookArgs::new(None, default, Some(PathBuf::from("/s")), Some(998)))),
                "the server's user",
            ),
            ("hook --server=/s --config=c.toml", hook(Some("c.toml"), default, Some("/s")), "`=` forms"),
            ("hook --deadline-ms 100 --deadline-ms 200", hook(None, 200, None), "the last one wins"),
            ("hook --lock-timeout-ms 5", hook(None, default, None), "a global option after `hook`"),
            ("hook --version", Ok(Asked::Version), "the version"),
            ("--help", Ok(Asked::Help), "the help"),
            ("--lock-timeout-ms 5000 hook --json", Err(String::new()), "an option warden hook lacks"),
            ("--store /x hook", Err(String::new()), "a store it would not open"),
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
        ] {
            assert!(read(refused).is_err(), "`{refused}` is refused");
        }
    }
}
