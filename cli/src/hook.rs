//! `warden hook` (the Claude Code hook) and the human approval commands `warden seal`,
//! `warden approve`, `warden revoke`.
//!
//! H-5, C-9: the approval commands refuse to run inside an agent harness's session
//! (`CLAUDECODE` or `CODEX_THREAD_ID` set in their environment, as Claude Code and Codex set them
//! for the commands their agents run): an agent must not be able to approve its own delegations
//! by running `warden approve` through a shell tool.

use std::io::{Read, Write};
use std::path::PathBuf;

use agentwarden::audit::Actor;
use agentwarden::sessions::MAX_HOOK_INPUT;

use super::{EXIT_USAGE, Failure};
use agentwarden::code::Code;
use agentwarden::human::ApprovalRequest;
use agentwarden::{Config, Warden, WardenError};
use agentwarden_hook_client::run::Settle;
use agentwarden_protocol::hook_line::HOOK_FAILED;

#[derive(Clone, Debug, PartialEq, Eq, clap::Args)]
pub(super) struct HookArgs {
    /// The configuration (default: the project's `agentwarden.toml`, from here upward).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Answer within this many milliseconds of starting, or exit 2 (H-10): below the harness's
    /// hook timeout, past which Claude Code, Codex CLI and Gemini CLI let the call run.
    #[arg(long, default_value_t = agentwarden_hook_client::DEFAULT_DEADLINE_MS, value_name = "MS")]
    deadline_ms: u64,
    /// The global `--server`: ask the resident service at this socket (`warden serve`) instead
    /// of deciding here. Only the line's option names it: not `AGENTWARDEN_SERVER`, not
    /// `[server] socket` (V-49).
    #[arg(skip)]
    pub(super) server: Option<PathBuf>,
    /// The global `--server-uid`: believe only a server running as this user (its connection's
    /// peer); `[server] uid` in the configuration, when set, must be the same (V-12, V-49).
    #[arg(skip)]
    pub(super) server_uid: Option<u32>,
    /// The harness that calls the hook: how its event is read and its answer printed
    /// (issue 36).
    #[arg(long, value_name = "NAME", default_value = "claude-code",
          value_parser = clap::builder::PossibleValuesParser::new(agentwarden_hook_client::HookHarness::names()))]
    harness: String,
    /// A failure halts the session (the harness's `continue: false` with the reason) instead of
    /// exit 2: on the lines of the events whose block the harness answers by prompting the model
    /// again (its stops), which `warden init` installs it on; never on a tool call's (H-57).
    #[arg(long)]
    halt_on_failure: bool,
}

impl HookArgs {
    /// With `--server`: the command line `warden-hook` would read (V-34), which asks the server
    /// as `warden-hook` does; `None` decides here.
    pub(super) fn server_line(&self) -> Option<agentwarden_hook_client::HookLine> {
        self.server.as_ref().map(|server| agentwarden_hook_client::HookLine {
            config: self.config.clone(),
            deadline_ms: self.deadline_ms,
            server: Some(server.clone()),
            server_uid: self.server_uid,
            harness: self.harness(),
            halt_on_failure: self.halt_on_failure,
        })
    }

    /// `--halt-on-failure`: a failure is the harness's halt (H-57).
    pub(super) fn halts(&self) -> bool {
        self.halt_on_failure
    }

    /// `--harness`: its values are the parser's, so any other is refused before this.
    pub(super) fn harness(&self) -> agentwarden_hook_client::HookHarness {
        agentwarden_hook_client::HookHarness::parse(&self.harness).unwrap_or_default()
    }
}

/// Who performs a human approval command.
#[derive(Debug, clap::Args)]
pub(super) struct ByArgs {
    /// Who does it (recorded in the event).
    #[arg(long, value_name = "NAME")]
    by: Option<String>,
}

/// `warden seal`.
#[derive(Debug, clap::Args)]
pub(super) struct SealArgs {
    /// The configuration whose files are sealed (default: the project's `agentwarden.toml`,
    /// from here upward).
    #[arg(long, value_name = "FILE")]
    pub(super) config: Option<PathBuf>,
    /// Show the seal in force instead of sealing.
    #[arg(long)]
    pub(super) show: bool,
    /// With --show: print it as JSON.
    #[arg(long, requires = "show")]
    pub(super) json: bool,
    #[command(flatten)]
    by: ByArgs,
    #[command(flatten)]
    key: super::signed::KeyArgs,
    /// With --show: the server to ask (V-13); sealing is never served (V-17).
    #[command(flatten)]
    pub(super) server: super::client::ServerArgs,
}

impl SealArgs {
    /// Only `--show` reads; sealing writes (and may create the store).
    pub(super) fn show(&self) -> bool {
        self.show
    }
}

/// `warden approve`.
#[derive(Debug, clap::Args)]
pub(super) struct ApproveArgs {
    /// The approval's reference, as the gate's `approvalRef` (e.g. `GATE-2026-02-21-001`).
    #[arg(long = "ref", value_name = "REF")]
    reference: String,
    /// It expires after this long: `90s`, `30m`, `8h`, `7d`.
    #[arg(long, value_name = "DURATION")]
    expires_in: Option<String>,
    /// Whom it covers, repeatable: `persona:NAME` or `subagent:NAME` (default: anyone).
    #[arg(long, value_name = "persona:NAME|subagent:NAME")]
    scope: Vec<String>,
    #[command(flatten)]
    by: ByArgs,
    #[command(flatten)]
    key: super::signed::KeyArgs,
    /// The configuration (default: the project's `agentwarden.toml`, from here upward):
    /// its `[approvals] allowed_signers` says whether the approval must be signed.
    #[arg(long, value_name = "FILE")]
    pub(super) config: Option<PathBuf>,
}

/// `warden revoke`.
#[derive(Debug, clap::Args)]
pub(super) struct RevokeArgs {
    /// The approval to revoke (it must be in force); without it, every approval and the seal.
    #[arg(long = "ref", value_name = "REF")]
    reference: Option<String>,
    #[command(flatten)]
    by: ByArgs,
    #[command(flatten)]
    key: super::signed::KeyArgs,
    /// The configuration (default: the project's `agentwarden.toml`, from here upward).
    #[arg(long, value_name = "FILE")]
    pub(super) config: Option<PathBuf>,
}

/// `warden approvals`.
#[derive(Debug, clap::Args)]
pub(super) struct ApprovalsArgs {
    /// One JSON object.
    #[arg(long)]
    pub(super) json: bool,
    /// The configuration (default: the project's `agentwarden.toml`, from here upward):
    /// with `[approvals] allowed_signers`, records whose signature does not verify are shown
    /// refused.
    #[arg(long, value_name = "FILE")]
    pub(super) config: Option<PathBuf>,
    #[command(flatten)]
    pub(super) server: super::client::ServerArgs,
}

/// `warden hook` (deciding here) once its input is read: the watchdog runs (H-10).
pub(super) struct Begun {
    args: HookArgs,
    settle: Settle,
    input: String,
    loaded: Result<Config, agentwarden::ConfigError>,
}

/// The hook's failure: exit 2 with its code.
fn hook_failed(code: Code, reason: String) -> Failure {
    Failure::new(HOOK_FAILED, code, reason)
}

/// Starts `warden hook` deciding here: the deadline's watchdog, stdin, the configuration.
/// With `--server` the hook is `warden-hook`'s client instead ([`HookArgs::server_line`]).
///
/// Who decides is named by the hook's command line alone — the line a human installed, which
/// the agent cannot change for this call — never by a file or variable the agent can write: a
/// server only by `--server` (not `AGENTWARDEN_SERVER`, not `[server] socket`), its user by
/// `--server-uid` (the configuration's `[server] uid` may only agree), the store by `--store`
/// (not `AGENTWARDEN_STORE`, `cli::main`), the deadline by `--deadline-ms` (V-49). Whatever
/// the configuration says besides is held against the seal where it decides (T-11).
pub(super) fn begin(args: HookArgs, settle: Settle) -> Result<Begun, Failure> {
    agentwarden_hook_client::run::watchdog(args.deadline_ms, settle.clone(), args.halt_on_failure)
        .map_err(|e| hook_failed(Code::InternalError, format!("cannot start the deadline watchdog: {e}")))?;
    let mut input = String::new();
    let limit = u64::try_from(MAX_HOOK_INPUT).unwrap_or(u64::MAX).saturating_add(1);
    std::io::stdin()
        .take(limit)
        .read_to_string(&mut input)
        .map_err(|e| hook_failed(Code::HookInputInvalid, format!("cannot read stdin: {e}")))?;
    let loaded = Config::load(args.config.as_deref());
    Ok(Begun { args, settle, input, loaded })
}

/// Runs `warden hook`: every failure, whatever its cause, is exit 2 with one line on stderr;
/// so is an answer not ready within `--deadline-ms`. What needs no store is decided before it is opened
/// (`agentwarden::before_store`: the quarantine marker, writes into protected paths, the fast
/// path of H-24); a store that cannot be opened then gives the deny already known, or exit 2
/// (and quarantines the session at a stop, H-28).
pub(super) async fn hook(
    begun: Begun,
    store_named: bool,
    storage: impl FnOnce(&Config) -> agentwarden::HookStorage,
    open: impl FnOnce(Config) -> Result<Warden, WardenError>,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    let Begun { args, settle, input, loaded } = begun;
    let answer = |answer: agentwarden::HookAnswer, out: &mut dyn Write| {
        answer_with(args.harness(), answer, &settle, args.halt_on_failure, out)
    };
    let config = loaded.map_err(|e| hook_failed(Code::ConfigInvalid, e.to_string()))?;
    // The store is the line's `--store`: a configuration's `[store] url` without it is refused,
    // never followed (V-49, V-67).
    if config.store.is_some() && !store_named {
        let file = config.source.as_deref().map_or_else(String::new, |p| format!(" in `{}`", p.display()));
        return Err(hook_failed(
            Code::TrustRootRefused,
            format!(
                "`[store] url`{file} names a store, and the hook's line names none: put --store DIR|URL on the \
                 installed line (`warden init`) (V-67)"
            ),
        ));
    }
    // A section no harness reads (a misspelt key) is refused, never left unread (U-19).
    let unread = config.sections_no_harness_reads(&agentwarden_hook_client::HookHarness::profiles());
    if let Some(section) = unread.first() {
        return Err(hook_failed(Code::ConfigInvalid, unread_section(&config, section)));
    }
    let storage = storage(&config);
    // Decoded once, answered through the hook's one entry, as the server answers.
    let harness = args.harness();
    let parsed = harness.decode(&input);
    let open = |config| {
        let warden = open(config)?;
        // Fault injection for the tests, in debug builds only: a panic mid-decision, with the
        // store open, must still be exit 2 (the panic hook in `cli::main`), never Rust's 101,
        // which Claude Code would let through.
        #[cfg(debug_assertions)]
        if std::env::var_os("AGENTWARDEN_FAULT_PANIC").is_some() {
            #[expect(clippy::panic, reason = "fault injection for the tests; not in release builds")]
            {
                panic!("fault injected by AGENTWARDEN_FAULT_PANIC");
            }
        }
        Ok(warden)
    };
    let decided = agentwarden::answer_hook(config, &storage, &input, parsed, open).await;
    answer(decided, out)
}

/// Why `config` is refused for its section `[section]`, which no harness reads (U-19).
pub(super) fn unread_section(config: &Config, section: &str) -> String {
    let file = config.source.as_deref().map_or_else(String::new, |p| format!(" in `{}`", p.display()));
    let keys: Vec<String> = agentwarden_hook_client::HookHarness::profiles()
        .iter()
        .map(|p| format!("`[{}]`", p.terms.section))
        .collect();
    format!(
        "`[{}]`{file} is a section no harness reads: each harness reads its own ({}); rename or remove it (U-19)",
        section.escape_debug(),
        keys.join(", ")
    )
}

/// Writes the answer unless the watchdog settled first (it is then ending the process with
/// exit 2, or the halt); `line`: the deadline and whether a failure halts (H-57).
fn answer_with(
    harness: agentwarden_hook_client::HookHarness,
    answer: agentwarden::HookAnswer,
    settle: &Settle,
    halt: bool,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    // The watchdog settled first and is ending the process with its own failure: one answer
    // only (H-16, H-57).
    if !settle.claim() {
        agentwarden_hook_client::run::leave_to_watchdog()
    }
    let failed = |reason: String| Failure { exit: HOOK_FAILED, code: None, reason };
    // As the harness reads it, the same for every harness as `warden-hook` prints it: a stop's
    // line halts on a failure (H-57); Claude Code's exit 2 names the hook on stderr; Codex's and
    // Gemini's name the answer (C-1, M-1), and a confined call's allow is exit 0 with its one
    // line on stdout (C-20, M-29).
    let printed = harness.print_on(&answer, "warden", halt);
    if let Some(stdout) = &printed.stdout {
        writeln!(out, "{stdout}").map_err(|e| failed(format!("cannot write the answer: {e}")))?;
    }
    if let Some(stderr) = &printed.stderr {
        out.flush().map_err(|e| failed(format!("cannot write the answer: {e}")))?;
        eprintln!("{stderr}");
    }
    Ok(printed.exit_code)
}

/// A human verb run inside an agent's session is refused before any store is opened (H-5, C-9).
fn refuse_inside_an_agent_session() -> Result<(), Failure> {
    Ok(agentwarden::human::refuse_inside_an_agent_session(|var| std::env::var_os(var).is_some(), "approves")?)
}

/// `--by`, checked before any store is opened (the facade checks it too).
fn name(by: ByArgs) -> Result<Option<String>, Failure> {
    match by.by {
        Some(by) => {
            Actor::new(by.clone()).map_err(|e| Failure::usage(format!("--by: {e}")))?;
            Ok(Some(by))
        }
        None => Ok(None),
    }
}

/// `warden seal`: the context is sealed, and what was sealed is recorded (G-20).
pub(super) async fn seal(
    args: SealArgs,
    open: impl FnOnce(Config) -> Result<Warden, WardenError>,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    if !args.show {
        // Before any store is opened (or created).
        refuse_inside_an_agent_session()?;
    }
    let by = name(args.by)?;
    let config = Config::load(args.config.as_deref()).map_err(Failure::usage)?;
    if !args.show {
        // What would be sealed is known before any store is opened (or created) (N-3).
        agentwarden::human::refuse_nothing_to_seal(&config).await?;
    }
    if args.show {
        return Err(Failure::new(EXIT_USAGE, Code::InternalError, "`seal --show` is a question"));
    }
    let warden = open(config)?;
    let appended = warden.seal(&args.key.signer(by)).await?;
    super::signed::print(&appended, out)
}

/// `--expires-in`: a positive duration (`90s`, `30m`, `8h`, `7d`) in milliseconds.
fn parse_duration(text: &str) -> Result<i64, Failure> {
    agentwarden_report::duration_ms(text).filter(|ms| *ms > 0).ok_or_else(|| {
        Failure::usage(format!("--expires-in `{text}` is not a duration like `90s`, `30m`, `8h` or `7d`"))
    })
}

/// `warden approve --ref REF`: the pipeline run is approved under `REF` (G-21).
pub(super) async fn approve(
    args: ApproveArgs,
    open: impl FnOnce(Config) -> Result<Warden, WardenError>,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    refuse_inside_an_agent_session()?;
    let expires_in_ms = args.expires_in.as_deref().map(parse_duration).transpose()?;
    let request = ApprovalRequest { reference: args.reference, scope: args.scope, expires_in_ms };
    let by = name(args.by)?;
    let config = Config::load(args.config.as_deref()).map_err(Failure::usage)?;
    let warden = open(config)?;
    let appended = warden.approve(&request, &args.key.signer(by)).await?;
    super::signed::print(&appended, out)
}

/// `warden revoke [--ref REF]`: one approval, or every approval and the seal, withdrawn.
pub(super) async fn revoke(
    args: RevokeArgs,
    open: impl FnOnce(Config) -> Result<Warden, WardenError>,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    refuse_inside_an_agent_session()?;
    let by = name(args.by)?;
    let config = Config::load(args.config.as_deref()).map_err(Failure::usage)?;
    let warden = open(config)?;
    let appended = warden.revoke(args.reference.as_deref(), &args.key.signer(by)).await?;
    super::signed::print(&appended, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_or_are_usage_errors() {
        assert_eq!(parse_duration("90s").unwrap(), 90_000);
        assert_eq!(parse_duration("2h").unwrap(), 7_200_000);
        assert_eq!(parse_duration("7d").unwrap(), 604_800_000);
        for bad in ["", "h", "10", "0m", "-1h", "1.5h", "3w", "99999999999999999999d"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }
}
