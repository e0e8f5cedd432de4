//! The decision commands through the resident service (issue 20): `warden gate`, `lineage
//! check`, `authorize`, `result validate`, `guard check`, `approvals` and `seal --show` send
//! their arguments to `warden serve`, which runs the same command on the store it holds.
//!
//! V-13: a `run` request carries the command's arguments as the client was given them, its
//! working directory and its canonical configuration file. The server parses them with the same
//! definitions, refuses any command not on [`parts`]'s list (`command_not_served`), and runs the
//! same command function with an `open` that hands out the server's Warden, its stdout captured.
//! The client prints that stdout and exits with that code: the same output, `--json` contract and
//! events as direct mode. The options that pick a store (`--store`, `--fsync`,
//! `--lock-timeout-ms`) are ignored by the server; `--store` on the client's command line with a
//! server configured is refused (exit 2): it names a store the server does not hold.
//!
//! V-14: never unguarded. A configured server that cannot be reached, does not answer within
//! `--server-timeout-ms`, refuses the request or answers nonsense: the client runs the same
//! command against a store that refuses everything, with that reason — exactly what direct mode
//! does on an unusable store (A-22): the gate, `lineage check` and `authorize` deny at `audit`,
//! `result validate` is invalid (exit 1), `guard check`, `approvals` and `seal --show` fail with
//! exit 3. Nothing is decided without the server's store, and nothing falls back to it.
//!
//! V-15: relative paths resolve against the client's working directory. The decider (one thread,
//! one request at a time, V-7) changes the process's working directory to the client's for the
//! command and back after it; every path the server itself holds (socket, store, configuration)
//! is made absolute before it serves, so the change moves none of them. A path argument that
//! leads into the server's store or its socket's directory is refused (`path_refused`): in the
//! isolated deployment (V-11) the server reads and writes with its own user's rights, and the
//! agent must not borrow them to read or plant files in the store.
//!
//! V-16: one configuration per server (V-3) holds for every request; a `run` request must name
//! one (an `agentwarden.toml` in the working directory, or `--config`): with none, the server
//! cannot know which project asks, and refuses (`server_config_mismatch`).
//!
//! V-17: the human verbs (`seal`, `approve`, `revoke`, `release`) are never served: they record
//! a human's act, which the agent must not reach through the socket. With a server configured
//! that answers, they refuse (`server_holds_store`, exit 2) and say what to do: stop the server,
//! run the verb, start the server again. With the server down they run directly as always.
//!
//! V-20: `warden audit` is not served, reads included: in the isolated deployment the socket is
//! the agent's to reach, and the log is what the store's permissions keep from it. Stop the
//! server to read an embedded store; a PostgreSQL store is read directly meanwhile.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::{Command, Failure, guard::GuardCommand, lineage::LineageCommand, result::ResultCommand};
use agentwarden::{Config, StoreError, Warden, WardenError};
use agentwarden_protocol::{Answer, Request};

/// `--server` on a served command (V-13).
#[derive(Debug, Clone, clap::Args)]
pub(super) struct ServerArgs {
    /// Ask the resident service at this socket (`warden serve`) instead of opening the store
    /// [default: `AGENTWARDEN_SERVER`, else `[server] socket` in the configuration].
    #[arg(long, value_name = "PATH")]
    server: Option<PathBuf>,
    /// How long to wait for the server's answer; past it the command fails as on an unusable
    /// store (V-14).
    #[arg(long, default_value_t = 10_000, value_name = "MS")]
    server_timeout_ms: u64,
}

/// What the client and the server need of a served command.
pub(super) struct Parts<'a> {
    /// `--config`, when the command has one.
    pub(super) config: Option<&'a mut Option<PathBuf>>,
    server: &'a ServerArgs,
    /// Every other path argument.
    pub(super) paths: Vec<&'a Path>,
}

/// The served commands (V-13), and their parts; `None` for every other command.
pub(super) fn parts(command: &mut Command) -> Option<Parts<'_>> {
    let parts = |config, server, paths| Some(Parts { config, server, paths });
    match command {
        Command::Gate(a) => parts(Some(&mut a.config), &a.server, vec![a.request.as_path()]),
        Command::Lineage(LineageCommand::Check { lineage, config, server, .. }) => {
            parts(Some(config), server, vec![lineage.as_path()])
        }
        Command::Authorize(a) => parts(Some(&mut a.config), &a.server, vec![a.request.as_path()]),
        Command::Result(ResultCommand::Validate { file, server, .. }) => {
            parts(None, server, vec![file.as_path()])
        }
        Command::Guard(GuardCommand::Check { snapshot, artifacts, root, config, server, .. }) => {
            parts(Some(config), server, vec![snapshot.as_path(), artifacts.as_path(), root.as_path()])
        }
        Command::Approvals(a) => parts(Some(&mut a.config), &a.server, Vec::new()),
        Command::Seal(a) if a.show => parts(Some(&mut a.config), &a.server, Vec::new()),
        _ => None,
    }
}

/// Runs a served command with `open` (the server's Warden, or a store that refuses everything).
pub(super) async fn dispatch(
    command: Command,
    open: &dyn Fn(Config) -> Result<Warden, WardenError>,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    match command {
        Command::Gate(args) => super::gate::run(args, open, out).await,
        Command::Lineage(command) => super::lineage::check(command, open, out).await,
        Command::Authorize(args) => super::lineage::authorize(args, open, out).await,
        Command::Result(command) => super::result::run(command, || open(Config::default()), out).await,
        Command::Guard(command) => super::guard::run(command, open, out).await,
        Command::Approvals(args) => super::hook::approvals(args, open, out).await,
        Command::Seal(args) => super::hook::seal(args, open, out).await,
        _ => Err(Failure::usage("command_not_served: this command is not served")),
    }
}

/// Where a served command goes.
pub(super) struct Route {
    /// The server, or why none can be asked (the command then fails as on an unusable store).
    target: Result<(PathBuf, Option<u32>), String>,
    config: Option<String>,
    timeout: Duration,
}

/// V-13: the route of `command` when it is served and a server is configured; `None` runs it
/// directly. `--store` on the command line with a server configured is a usage error.
pub(super) fn route(command: &mut Command) -> Result<Option<Route>, Failure> {
    let Some(parts) = parts(command) else { return Ok(None) };
    let flag = parts.server.server.clone();
    let timeout = Duration::from_millis(parts.server.server_timeout_ms);
    let config_arg = parts.config.and_then(|c| c.clone());
    let explicit = match super::client::explicit_server(flag.as_deref()) {
        Ok(explicit) => explicit,
        Err(why) => return Ok(Some(Route { target: Err(why), config: None, timeout })),
    };
    let loaded = Config::load(config_arg.as_deref());
    let Some(socket) = explicit.or_else(|| loaded.as_ref().ok().and_then(|c| c.server.clone())) else {
        return Ok(None);
    };
    if std::env::args_os().any(|a| a == "--store" || a.to_string_lossy().starts_with("--store=")) {
        return Err(Failure::usage(format!(
            "--store names a store, but the server at `{}` answers this command from its own; drop --store, \
             or run without a server configured",
            socket.display()
        )));
    }
    // V-12: a configuration that cannot be read cannot say which server to trust.
    let checked = loaded.map_err(|e| format!("config_invalid: {e}")).and_then(|loaded| {
        let config = agentwarden_server::config_file(config_arg.as_deref())?;
        Ok((loaded.server_uid, config.map(|p| p.to_string_lossy().into_owned())))
    });
    Ok(Some(match checked {
        Ok((uid, config)) => Route { target: Ok((socket, uid)), config, timeout },
        Err(why) => Route { target: Err(why), config: None, timeout },
    }))
}

/// V-13, V-14: asks the server and prints its answer; anything else fails as direct mode does
/// on an unusable store.
pub(super) async fn forward(command: Command, route: Route, out: &mut dyn Write) -> Result<u8, Failure> {
    let asked = route.target.and_then(|(socket, uid)| {
        let argv = std::env::args_os()
            .skip(1)
            .map(|a| {
                a.into_string().map_err(|a| format!("the argument `{}` is not UTF-8", a.to_string_lossy()))
            })
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("request_invalid: {e}"))?;
        let cwd = std::env::current_dir()
            .map_err(|e| format!("request_invalid: no working directory: {e}"))?
            .to_string_lossy()
            .into_owned();
        let deadline_ms = u64::try_from(route.timeout.as_millis()).unwrap_or(u64::MAX);
        let request = Request::Run { argv, cwd, config: route.config, deadline_ms: Some(deadline_ms) };
        agentwarden_protocol::exchange(&socket, uid, &request, route.timeout)
            .and_then(|answer| checked(answer, &socket))
    });
    match asked {
        Ok((exit_code, stdout, stderr)) => {
            out.write_all(stdout.as_bytes())?;
            match (exit_code, stderr) {
                (super::EXIT_OK, _) => Ok(super::EXIT_OK),
                (code, Some(reason)) => Err(Failure { code, reason }),
                (code, None) => Ok(code),
            }
        }
        Err(why) => {
            tracing::error!(reason = %why, "no usable answer from the server; failing as on an unusable store");
            let refuse = move |_: Config| -> Result<Warden, WardenError> {
                Err(WardenError::Store(StoreError::Unavailable { reason: why.clone() }))
            };
            dispatch(command, &refuse, out).await
        }
    }
}

/// A `run` answer the client may print (V-14), or why not.
fn checked(answer: Answer, socket: &Path) -> Result<(u8, String, Option<String>), String> {
    let invalid = |why: &str| format!("server_answer_invalid: the server at `{}` {why}", socket.display());
    match answer {
        Answer::Run { exit_code, stdout, stderr } => {
            if exit_code > super::EXIT_STORE {
                return Err(invalid(&format!("answered exit code {exit_code}")));
            }
            if exit_code != super::EXIT_OK && stdout.is_empty() && stderr.as_deref().is_none_or(str::is_empty)
            {
                return Err(invalid("answered a failure without output or reason"));
            }
            if stderr.as_deref().is_some_and(|r| r.contains('\n')) {
                return Err(invalid("answered a reason of more than one line"));
            }
            Ok((exit_code, stdout, stderr))
        }
        Answer::Error { code, reason } => Err(format!("{code}: {reason}")),
        Answer::Hook { .. } | Answer::Status { .. } => Err(invalid("answered another kind of request")),
    }
}

/// V-17: a human verb while a server configured for it answers is refused, naming the fix.
pub(super) fn refuse_human_verb(command: &Command) -> Result<(), Failure> {
    let (verb, config, flag) = match command {
        Command::Seal(a) if !a.show => ("seal", a.config.as_deref(), a.server.server.as_deref()),
        Command::Approve(a) => ("approve", a.config.as_deref(), None),
        Command::Revoke(a) => ("revoke", a.config.as_deref(), None),
        Command::Release(a) => ("release", a.config.as_deref(), None),
        _ => return Ok(()),
    };
    let loaded = Config::load(config).ok();
    let explicit = super::client::explicit_server(flag).ok().flatten();
    let Some(socket) = explicit.or_else(|| loaded.as_ref().and_then(|c| c.server.clone())) else {
        return Ok(());
    };
    let uid = loaded.and_then(|c| c.server_uid);
    match agentwarden_protocol::exchange(&socket, uid, &Request::Status {}, HUMAN_PROBE) {
        Ok(Answer::Status { pid, .. }) => Err(Failure::usage(format!(
            "server_holds_store: the server at `{}` (pid {pid}) holds the store and `warden {verb}` is not \
             served; stop the server (`kill -TERM {pid}` or your service manager), run `warden {verb}` again, \
             then start the server",
            socket.display()
        ))),
        _ => Ok(()),
    }
}

/// How long a human verb waits to learn whether the server answers.
const HUMAN_PROBE: Duration = Duration::from_millis(2_000);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_well_formed_run_answer_is_printed() {
        let socket = Path::new("/s");
        let run = |exit_code, stdout: &str, stderr: Option<&str>| Answer::Run {
            exit_code,
            stdout: stdout.to_owned(),
            stderr: stderr.map(str::to_owned),
        };
        assert!(checked(run(0, "ALLOW\n", None), socket).is_ok());
        assert!(checked(run(1, "DENY\n", None), socket).is_ok());
        assert!(checked(run(2, "", Some("usage")), socket).is_ok());
        for (nonsense, why) in [
            (run(4, "x", None), "exit 4"),
            (run(1, "", None), "a failure without output or reason"),
            (run(3, "", Some("")), "an empty reason"),
            (run(2, "", Some("a\nb")), "two lines"),
            (
                Answer::Hook { decision: agentwarden_protocol::HookDecision::Proceed, reason: None },
                "a hook answer",
            ),
            (Answer::error(agentwarden_domain::code::Code::CommandNotServed, "r"), "an error"),
        ] {
            assert!(checked(nonsense, socket).is_err(), "{why}");
        }
    }
}
