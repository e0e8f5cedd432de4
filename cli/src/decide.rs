//! The decision commands (issue 20, V-13, V-54): `warden gate`, `lineage check`, `authorize`,
//! `result validate`, `guard check`, `approvals` and `seal --show`. Each is read into a typed
//! question ([`Question`], its paths made absolute against the working directory), answered
//! here with the use case the server runs (`agentwarden::questions`) or by the server, and
//! the typed outcome printed by `agentwarden-report` (`text::outcome`) as the command's flags
//! ask: args → question → local or client → render, the same output, `--json` contract and
//! events in both modes.
//!
//! V-13, V-67: with a server named (`--server PATH` on the command line, and only there: a
//! configuration's `[server] socket` without it refuses the command, [`super::trust`]), the
//! question goes to it as a `decide` request with the command's canonical
//! configuration file. The options that pick a store (`--store`, `--fsync`, `--lock-timeout-ms`)
//! choose nothing there; `--store` on the command line with a server configured is refused
//! (exit 2): it names a store the server does not hold.
//!
//! V-14: never unguarded. A configured server that cannot be reached, does not answer within
//! `--server-timeout-ms`, refuses the request or answers anything but this question's outcome:
//! the client answers the same question against a store that refuses everything, with that reason
//! — exactly what direct mode does on an unusable store: the gate, `lineage check` and
//! `authorize` deny at `audit`, `result validate` is invalid (exit 1), `guard check`, `approvals`
//! and `seal --show` fail with exit 3. Nothing is decided without the server's store, and nothing
//! falls back to it.
//!
//! V-54: a question names files by absolute path: relative ones are resolved here, against the
//! client's working directory, before anything is asked (`AbsolutePath::resolved`); the server
//! never changes its own.
//!
//! V-17: the human verbs (`seal`, `approve`, `revoke`, `release`) are never served: they record a
//! human's act, which the agent must not reach through the socket. With a server configured that
//! answers, they refuse (`server_holds_store`, exit 2) and say what to do: stop the server, run
//! the verb, start the server again. With the server down they run directly as always.
//!
//! V-20: `warden audit` is not served, reads included: in the isolated deployment the socket is
//! the agent's to reach, and the log is what the store's permissions keep from it. V-65 narrows
//! it: `audit checkpoint` and `audit prove` ask the server (`audit::served`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use agentwarden::code::Code;
use agentwarden::questions::{Checked, Unanswered, decide};
use agentwarden::{Config, Warden, WardenError, store::StoreError};
use agentwarden_protocol::{AbsolutePath, ClientError, Outcome, Question};

use super::client::ServerArgs;
use super::trust::Server;
use super::{Command, EXIT_NO, EXIT_OK, EXIT_USAGE, Failure, guard::GuardCommand, lineage::LineageCommand};
use super::{decision_exit, result::ResultCommand, unavailable};
use agentwarden::stores::Stores;
use agentwarden_report::text::outcome::{Shown, Unprinted};

/// A decision command, read: its question, what it was asked with and how it prints the answer.
pub(super) struct Asked<'a> {
    /// The question, its paths absolute.
    pub(super) question: Question,
    /// `--config`, when the command has one.
    config: Option<&'a Path>,
    server: &'a ServerArgs,
    /// `--json`, and the file `result validate` names.
    pub(super) shown: Shown<'a>,
}

/// A path of a question, absolute (V-54, `AbsolutePath::resolved`).
fn absolute(path: &Path) -> Result<AbsolutePath, Failure> {
    AbsolutePath::resolved(path).map_err(Failure::usage)
}

/// The question `command` asks, when it is a decision command.
pub(super) fn asked(command: &Command) -> Result<Option<Asked<'_>>, Failure> {
    fn asked<'a>(
        question: Question,
        config: &'a Option<PathBuf>,
        server: &'a ServerArgs,
        json: bool,
    ) -> Result<Option<Asked<'a>>, Failure> {
        let shown = Shown { json, ..Shown::default() };
        Ok(Some(Asked { question, config: config.as_deref(), server, shown }))
    }
    match command {
        Command::Gate(a) => {
            asked(Question::Gate { request: absolute(&a.request)? }, &a.config, &a.server, a.json)
        }
        Command::Lineage(LineageCommand::Check { lineage, config, server, json }) => {
            asked(Question::LineageCheck { lineage: absolute(lineage)? }, config, server, *json)
        }
        Command::Authorize(a) => {
            asked(Question::Authorize { request: absolute(&a.request)? }, &a.config, &a.server, a.json)
        }
        Command::Result(ResultCommand::Validate { file, item, run, server, json }) => {
            let question =
                Question::ResultValidate { file: absolute(file)?, item: item.clone(), run: run.clone() };
            let shown = Shown { json: *json, file: Some(file), subagents: None };
            Ok(Some(Asked { question, config: None, server, shown }))
        }
        Command::Guard(GuardCommand::Check {
            snapshot,
            revert,
            item,
            run,
            artifacts,
            root,
            config,
            server,
            json,
        }) => {
            let question = Question::GuardCheck {
                snapshot: absolute(snapshot)?,
                revert: *revert,
                item: item.clone(),
                run: run.clone(),
                artifacts: absolute(artifacts)?,
                root: absolute(root)?,
            };
            asked(question, config, server, *json)
        }
        Command::Approvals(a) => asked(Question::Approvals {}, &a.config, &a.server, a.json),
        Command::Seal(a) if a.show => asked(Question::SealShow {}, &a.config, &a.server, a.json),
        _ => Ok(None),
    }
}

/// Answers `asked`: by the server when one is configured (V-13, V-14), else here. Also returns
/// the configuration the command was read with (the renderer's hints read it).
pub(super) async fn answer(
    asked: Asked<'_>,
    stores: &Stores,
    server: Option<&Server>,
) -> Result<(Outcome, Option<Config>), Failure> {
    let Asked { question, config, server: options, .. } = asked;
    let timeout = Duration::from_millis(options.server_timeout_ms);
    // The server is the command line's alone (V-67).
    let Some(Server { socket, uid }) = server.cloned() else {
        return local(question, config, stores).await;
    };
    if let Some(store) = &stores.explicit {
        return Err(Failure::usage(format!(
            "--store `{store}` names a store, but the server at `{}` answers this command from its own; drop \
             --store, or --server",
            socket.display()
        )));
    }
    let loaded = Config::load(config);
    let asked = (|| {
        // A configuration that cannot be read cannot be named to the server (V-16).
        loaded.as_ref().map_err(|e| ClientError::new(Code::ConfigInvalid, e.to_string()))?;
        // The server must know which project asks (V-16).
        let file = agentwarden_server::config_file(config)?.ok_or_else(|| {
            ClientError::new(
                Code::ServerConfigMismatch,
                "no configuration (`--config`, or an `agentwarden.toml` from here upward) names the project",
            )
        })?;
        let file = file.into_os_string().into_string().map_err(|f| {
            ClientError::new(
                Code::RequestInvalid,
                format!("the configuration `{}` is not UTF-8", f.to_string_lossy()),
            )
        })?;
        let file =
            AbsolutePath::new(file).map_err(|e| ClientError::new(Code::RequestInvalid, e.to_string()))?;
        agentwarden_protocol::decide(&socket, uid, file, &question, timeout)
    })();
    match asked {
        Ok(outcome) => Ok((outcome, loaded.ok())),
        Err(why) => {
            tracing::error!(reason = %why, "no usable answer from the server; failing as on an unusable store");
            let config = loaded.map_err(Failure::usage)?;
            let checked = checked(question)?;
            let refused = WardenError::Store(StoreError::Unavailable { reason: why.to_string() });
            let warden = opened(&checked, Err(refused), Some(config.clone()))?;
            let outcome = decide(&warden, default_harness(), checked).await.map_err(failure)?;
            Ok((outcome, Some(config)))
        }
    }
}

/// Direct mode: the question's arguments checked before any store is opened, then the
/// store opened and the question answered with the use case the server runs.
async fn local(
    question: Question,
    config: Option<&Path>,
    stores: &Stores,
) -> Result<(Outcome, Option<Config>), Failure> {
    if matches!(question, Question::ResultValidate { .. }) {
        // `result validate` reads no configuration: the project's store, as every such command.
        let checked = checked(question)?;
        let warden = opened(&checked, stores.open_plain(true), None)?;
        let outcome = decide(&warden, default_harness(), checked).await.map_err(failure)?;
        return Ok((outcome, None));
    }
    let config = Config::load(config).map_err(Failure::usage)?;
    let create = !matches!(question, Question::SealShow {});
    let checked = checked(question)?;
    let warden = opened(&checked, stores.open(config.clone(), create), Some(config.clone()))?;
    let outcome = decide(&warden, default_harness(), checked).await.map_err(failure)?;
    Ok((outcome, Some(config)))
}

/// The harness a decision command reads a request's tool input as (`warden authorize`): the
/// registry's default, as the server's (C-7).
fn default_harness() -> &'static dyn agentwarden::harness::Harness {
    agentwarden_hook_client::HookHarness::default().harness()
}

/// The question checked.
fn checked(question: Question) -> Result<Checked, Failure> {
    agentwarden::questions::checked(question).map_err(failure)
}

/// The Warden a question is answered with: the store opened, or, for a decision, one on a store
/// that refuses everything with the reason it could not be.
fn opened(
    question: &Checked,
    warden: Result<Warden, WardenError>,
    config: Option<Config>,
) -> Result<Warden, Failure> {
    match warden {
        Ok(warden) => Ok(warden),
        Err(e) if question.decides() => unavailable(config, &e),
        Err(e) => Err(Failure::from(e)),
    }
}

/// An unanswered question as the command line fails: a usage error, or the store's.
fn failure(error: Unanswered) -> Failure {
    match error {
        Unanswered::Input(reason) => Failure::usage(reason),
        Unanswered::Warden(e) => Failure::from(e),
    }
}

/// Prints `outcome` as the command that asked, `shown`, prints it (`agentwarden-report`), and
/// returns its exit code: a decision's (0 allow, 1 deny), 1 for an invalid result or a guard's
/// violation, else 0.
pub(super) fn render<'a>(
    mut shown: Shown<'a>,
    outcome: Outcome,
    config: Option<&'a Config>,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    let (exit, unprinted) = match &outcome {
        Outcome::Gate { report, .. } => (decision_exit(report.decision), "deny: "),
        Outcome::LineageCheck { decision, .. } => (decision_exit(*decision), "deny: "),
        Outcome::Authorize { authorization, .. } => (decision_exit(authorization.decision), "deny: "),
        Outcome::ResultValidate { validation, .. } if !validation.valid => (EXIT_NO, ""),
        Outcome::GuardCheck { clean: false, .. } => (EXIT_NO, ""),
        _ => (EXIT_OK, ""),
    };
    shown.subagents = config.map(|c| &c.subagents);
    agentwarden_report::text::outcome::outcome(outcome, &shown, out).map_err(|e| match e {
        Unprinted::Io(e) => Failure::from(e),
        Unprinted::Json(e) => Failure::no(format!("{unprinted}{e}")),
    })?;
    Ok(exit)
}

/// A human verb while a server configured for it answers is refused, naming the fix (V-17).
/// The server probed is the command line's `--server` alone (V-67).
pub(super) fn refuse_human_verb(command: &Command, server: Option<&Server>) -> Result<(), Failure> {
    let verb = match command {
        Command::Seal(a) if !a.show => "seal",
        Command::Approve(_) => "approve",
        Command::Revoke(_) => "revoke",
        Command::Release(_) => "release",
        _ => return Ok(()),
    };
    let Some(Server { socket, uid }) = server else {
        return Ok(());
    };
    match agentwarden_protocol::status(socket, *uid, HUMAN_PROBE) {
        Ok(agentwarden_protocol::ServerStatus { pid, .. }) => Err(Failure::new(
            EXIT_USAGE,
            Code::ServerHoldsStore,
            format!(
                "the server at `{}` (pid {pid}) holds the store and `warden {verb}` is not served; stop the \
                 server (`kill -TERM {pid}` or your service manager), run `warden {verb}` again, then start \
                 the server",
                socket.display()
            ),
        )),
        _ => Ok(()),
    }
}

/// How long a human verb waits to learn whether the server answers.
const HUMAN_PROBE: Duration = Duration::from_millis(2_000);
