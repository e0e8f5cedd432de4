//! The `warden` command line: a thin clap layer over the [`agentwarden::Warden`] use cases.
//!
//! Exit codes (documented in the README):
//!
//! | code | meaning |
//! | --- | --- |
//! | 0 | success; `gate`: allow; `verify`: the log is intact |
//! | 1 | the answer is no: `gate` denied, `verify` found a break, or the store does not verify |
//! | 2 | usage: bad arguments or an unreadable/malformed input file |
//! | 3 | the store is unavailable: locked by another process past the wait, or an I/O error |
//!
//! Diagnostics go to stderr through `tracing` (filtered by `RUST_LOG`, default `warn`); stdout
//! carries only the command's output, so `--json` output is never mixed with logs.

mod audit;
mod client;
mod decide;
mod doctor;
mod failure;
mod fanout;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
mod gate;
mod guard;
mod help;
mod hook;
mod integrations;
mod lineage;
mod reference;
mod release;
mod result;
mod serve;
mod setup;
mod signed;
mod trust;
mod wiring;
mod witness;

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{FromArgMatches, Parser, Subcommand};

use agentwarden::code::Code;
use agentwarden::{
    Warden, WardenError,
    store::{Durability, SledConfig},
};
use failure::Failure;

/// Exit code: success.
pub const EXIT_OK: u8 = 0;
/// Exit code: the answer is no (integrity failure, and later: deny).
pub const EXIT_NO: u8 = 1;
/// Exit code: usage error or bad input.
pub const EXIT_USAGE: u8 = 2;
/// Exit code: the store is unavailable.
pub const EXIT_STORE: u8 = 3;

/// Agent Warden: the fail-closed governance kernel for AI-agent harnesses.
#[derive(Debug, Parser)]
#[command(name = "warden", version, about, max_term_width = 100)]
struct Cli {
    // The global options are hidden from every subcommand's help and listed once (`help.rs`).
    /// The event store: the embedded store's directory, or a `postgres://` URL for the fleet
    /// store [default: .agentwarden/audit in the project's root: the nearest directory upward
    /// with an agentwarden.toml]. Only this option names it: a configuration's `[store] url`
    /// without it is refused, and so is `AGENTWARDEN_STORE` (V-67).
    #[arg(long, global = true, hide = true, value_name = "DIR|URL")]
    store: Option<String>,
    /// The resident service (`warden serve`) at this socket: the decision commands, `status`,
    /// `audit checkpoint|prove|witness-request` and the hook ask it; `init` installs lines that
    /// ask it. Only this option names it: a configuration's `[server] socket` without it is
    /// refused, and so is `AGENTWARDEN_SERVER` (V-67).
    #[arg(long, global = true, hide = true, value_name = "PATH")]
    server: Option<PathBuf>,
    /// With --server: believe only a server running as this user (its connection's peer); a
    /// configuration's `[server] uid` must be the same, and without this option is refused
    /// (V-12, V-67).
    #[arg(long, global = true, hide = true, value_name = "UID", requires = "server")]
    server_uid: Option<u32>,
    /// Also fsync the log file on every commit (survives a machine crash, not only a process
    /// crash).
    #[arg(long, global = true, hide = true)]
    fsync: bool,
    /// How long to wait for another process to release the store, in milliseconds.
    #[arg(long, global = true, hide = true, default_value_t = 5000, value_name = "MS")]
    lock_timeout_ms: u64,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// May this persona inject these subagents? Exit 0 allow, 1 deny, 2 usage.
    Gate(gate::GateArgs),
    /// Check agent lineages against the manifests. Exit 0 allow, 1 deny, 2 usage.
    #[command(subcommand)]
    Lineage(lineage::LineageCommand),
    /// May this agent, with this lineage, use this tool? Exit 0 allow, 1 deny, 2 usage.
    Authorize(lineage::AuthorizeArgs),
    /// Fan-out / fan-in: plan, run and merge parallel chunk agents.
    #[command(subcommand)]
    Fanout(fanout::FanoutCommand),
    /// Protected-path integrity: snapshot, check, revert. Exit 0 clean, 1 violation, 2 usage.
    #[command(subcommand)]
    Guard(guard::GuardCommand),
    /// Validate agent results. Exit 0 valid, 1 invalid, 2 usage.
    #[command(subcommand)]
    Result(result::ResultCommand),
    /// Read, verify and export the audit log.
    #[command(subcommand)]
    Audit(audit::AuditCommand),
    /// The hook every harness calls (Claude Code, Codex CLI, Gemini CLI, Copilot CLI; `--harness`): reads one
    /// hook event on stdin and answers in that harness's protocol. Exit 0 when allowed (with
    /// Claude Code's or Copilot's deny or block on stdout when refused); 2 when refused in Codex's or Gemini's
    /// protocol, or when it cannot decide.
    Hook(hook::HookArgs),
    /// Seal the context: record the digest of every file decisions depend on (or --show the
    /// seal in force). Refused inside an agent's session (Claude Code, Codex CLI, Gemini CLI, Copilot CLI).
    Seal(hook::SealArgs),
    /// Approve the pipeline run under a reference (recorded). Refused inside an agent's session
    /// (Claude Code, Codex CLI, Gemini CLI, Copilot CLI).
    Approve(hook::ApproveArgs),
    /// Withdraw an approval, or every approval and the seal (recorded). Refused inside an agent's
    /// session (Claude Code, Codex CLI, Gemini CLI, Copilot CLI).
    Revoke(hook::RevokeArgs),
    /// List the recorded approvals with their state, and the seal.
    Approvals(hook::ApprovalsArgs),
    /// Lift a session's quarantine after checking the workspace (recorded). Refused inside an
    /// agent's session (Claude Code, Codex CLI, Gemini CLI, Copilot CLI).
    Release(release::ReleaseArgs),
    /// Set up a harness (`warden init claude-code`, `codex`, `gemini` or `copilot`): merge Warden's hooks
    /// into its settings (or write a managed form for an administrator) and add the guard's own
    /// files to the protected paths. With no harness named, every harness the project or your
    /// home shows is used, each as its own `init` would.
    Init(setup::InitArgs),
    /// Check a harness's setup (`--harness claude-code`, `codex`, `gemini` or `copilot`: its installed hooks,
    /// run on a canary spawn), the persona and agent files, the manifests, the store, the seal
    /// and the approvals; say what to fix. Exit 0 when all is well, 1 otherwise.
    Doctor(doctor::DoctorArgs),
    /// The resident service: hold the store open and answer `warden hook`, the decision commands
    /// and `warden status` over a Unix domain socket (`docs/server-protocol.md`). SIGTERM drains
    /// and exits 0.
    Serve(serve::ServeArgs),
    /// Whether the resident service answers: its store's head, uptime, requests served and its
    /// span export's counts (V-61).
    /// Exit 0 when it answers, 1 when it does not.
    Status(client::StatusArgs),
    /// Witness other logs: cosign a signed checkpoint only when the log extends the last one
    /// cosigned; refuse a rollback or a fork (exit 1).
    #[command(subcommand)]
    Witness(witness::WitnessCommand),
    /// Print the shell completion script for bash, zsh or fish (generated from this command
    /// line's definition).
    Completions(reference::CompletionsArgs),
    /// Write warden.1 and one manual page per subcommand into DIR (`cargo xtask reference`
    /// checks docs/man/ with it).
    #[command(hide = true)]
    Manpages(reference::ManpagesArgs),
}

/// A Warden on a store that refuses everything with `error`'s reason.
pub(crate) fn unavailable(
    config: Option<agentwarden::Config>,
    error: &WardenError,
) -> Result<Warden, Failure> {
    tracing::error!(error = %error, "the store cannot be used; deciding against an unavailable store");
    let store = std::sync::Arc::new(agentwarden::store::UnavailableEventStore::new(error.to_string()));
    let builder = Warden::builder().event_store(store).without_state();
    let builder = match config {
        Some(config) => builder.config(config),
        None => builder,
    };
    builder.build().map_err(|e| Failure::no(format!("deny: the audit log is unavailable: {e}")))
}

/// The exit code of a decision.
pub(crate) fn decision_exit(decision: agentwarden::verdict::Decision) -> u8 {
    match decision {
        agentwarden::verdict::Decision::Allow => EXIT_OK,
        agentwarden::verdict::Decision::Deny => EXIT_NO,
    }
}

/// `warden`'s command-line definition, as `warden --help` shows it: the one the tests walk to
/// hold every subcommand to the trust root (V-67).
#[doc(hidden)]
pub fn command() -> clap::Command {
    help::command()
}

/// Runs `warden` with the process's arguments and returns its exit code.
pub fn main() -> ExitCode {
    // `warden hook --server …` is `warden-hook`'s client (V-34): a line that client reads as
    // the command tree would is answered through it before the tree is built, which costs more
    // than the answer (V-71, issue 49 item 8); any other line, the same client's included, is read by
    // the tree below as before.
    if let Some(line) = hook_line_read_early(std::env::args_os().skip(1)) {
        let settle = agentwarden_hook_client::run::Settle::new();
        agentwarden_hook_client::run::panic_fails(settle.clone(), "warden", line.halt_on_failure);
        return agentwarden_hook_client::answer_through_server(&line, "warden", &settle);
    }
    let parsed =
        help::command().try_get_matches().and_then(|m| Cli::from_arg_matches(&m).map(|cli| (cli, m)));
    let (mut cli, json) = match parsed {
        Ok((cli, matches)) => {
            let json = wants_json(&matches);
            (cli, json)
        }
        Err(e) => {
            if e.use_stderr()
                && std::env::args_os().any(|a| a == "hook")
                && agentwarden_hook_client::run::halting_line(std::env::args_os())
            {
                // A stop's line this binary cannot read still halts, with clap's reason (H-57).
                let text = e.render().to_string();
                let first = text.lines().next().unwrap_or_default();
                let why = agentwarden_protocol::ClientError::new(
                    Code::UsageInvalid,
                    first.strip_prefix("error: ").unwrap_or(first),
                );
                return ExitCode::from(agentwarden_hook_client::run::exit_failed(
                    "warden",
                    &why.to_string(),
                    true,
                ));
            }
            let _ = e.print();
            if !e.use_stderr() {
                return ExitCode::from(EXIT_OK);
            }
            // The arguments could not be read, but `--json` was among them.
            let json = std::env::args_os().take_while(|a| a != "--").any(|a| a == "--json");
            if json {
                let text = e.render().to_string();
                let first = text.lines().next().unwrap_or_default();
                let reason = first.strip_prefix("error: ").unwrap_or(first).to_owned();
                let _ = print_error_object(&mut std::io::stdout().lock(), &Failure::usage(reason));
            }
            return ExitCode::from(EXIT_USAGE);
        }
    };
    // Claude Code lets a tool call run on any exit code but 2: a hook that panics must still
    // exit 2, never 101.
    let is_hook = matches!(cli.command, Command::Hook(_));
    // On a stop's line every failure of the hook is the harness's halt, not exit 2 (H-57).
    let halts = matches!(&cli.command, Command::Hook(args) if args.halts());
    // No variable chooses the server or the store: set, they refuse every command but the hook,
    // whose installed line names all it trusts and which ignores them (its environment comes
    // from settings the agent can write) (V-49, V-67).
    if !is_hook && let Err(f) = trust::refuse_variables(|name| std::env::var_os(name)).map_err(Failure::from)
    {
        if json {
            let _ = print_error_object(&mut std::io::stdout().lock(), &f);
        }
        return fail(&f);
    }
    give_the_hook_its_server(&mut cli);
    // The hook call's one claim on its answer, which its watchdog, its panic hook and every
    // failure it returns ask before they write.
    let settle = agentwarden_hook_client::run::Settle::new();
    if is_hook {
        agentwarden_hook_client::run::panic_fails(settle.clone(), "warden", halts);
    }
    // `warden hook` reads its input and picks its route before anything else starts: the
    // thin client (`warden-hook`'s, V-34) asks the server without a runtime or a log subscriber
    // (it logs nothing) (V-29).
    let mut begun = None;
    if let Command::Hook(args) = &cli.command {
        if let Some(line) = args.server_line() {
            return agentwarden_hook_client::answer_through_server(&line, "warden", &settle);
        }
        match hook::begin(args.clone(), settle.clone()) {
            Err(f) => return hook_fail(&f, halts, &settle),
            Ok(direct) => begun = Some(direct),
        }
    }
    init_tracing();
    // One thread for every command. The server decides on a thread of its own (the
    // decider, V-7) while this one accepts connections and reads and writes their frames as
    // tasks: moving a frame is cheap, and a second pool of workers only added wakeups (V-44).
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build();
    let runtime = match runtime {
        Ok(runtime) => runtime,
        Err(e) => {
            let exit = if is_hook { agentwarden_protocol::hook_line::HOOK_FAILED } else { EXIT_STORE };
            let failure = Failure { exit, code: None, reason: format!("cannot start the runtime: {e}") };
            return if is_hook { hook_fail(&failure, halts, &settle) } else { fail(&failure) };
        }
    };
    let _file_size_limit = survive_file_size_limit(&runtime);
    let mut stdout = Counted { inner: std::io::BufWriter::new(std::io::stdout().lock()), written: false };
    let result = runtime.block_on(run(cli, begun, &mut stdout)).and_then(|code| {
        stdout.flush()?;
        Ok(code)
    });
    // A `--json` command that failed before printing its object prints one for the failure.
    if let Err(f) = &result
        && json
        && !is_hook
        && !stdout.written
        && f.exit != EXIT_OK
    {
        let _ = print_error_object(&mut stdout, f).and_then(|()| stdout.flush());
    }
    match result {
        Ok(code) => ExitCode::from(code),
        Err(f) if f.exit == EXIT_OK && !is_hook => ExitCode::from(EXIT_OK),
        Err(f) if is_hook => {
            drop(stdout);
            hook_fail(&f, halts, &settle)
        }
        Err(f) => fail(&f),
    }
}

/// `args` (without the program's name) as `warden-hook` reads them, when they are a
/// hook's line through a server (`--server`): the line the command tree reads them as, or `None`
/// for the tree to read (`the_hook_line_read_early_is_the_line_clap_reads`).
fn hook_line_read_early(
    args: impl IntoIterator<Item = std::ffi::OsString>,
) -> Option<agentwarden_hook_client::HookLine> {
    match agentwarden_hook_client::line::parse(args) {
        Ok(agentwarden_hook_client::line::Asked::Hook(line)) if line.server.is_some() => Some(line),
        _ => None,
    }
}

/// The hook's server is its line's `--server`, a global option of the tree (V-49).
fn give_the_hook_its_server(cli: &mut Cli) {
    if let Command::Hook(args) = &mut cli.command {
        args.server = cli.server.clone();
        args.server_uid = cli.server_uid;
    }
}

/// A write past the process's file-size limit (`ulimit -f`) raises `SIGXFSZ`, whose default
/// action kills the process: a hook killed that way exits 153, which Claude Code reads as "go
/// ahead" (found by the fault tests). With a handler installed the write fails with `EFBIG`
/// instead, and the store's error becomes a deny like any other. The handler lives as long as
/// the returned value.
fn survive_file_size_limit(runtime: &tokio::runtime::Runtime) -> Option<tokio::signal::unix::Signal> {
    // `SIGXFSZ` is 25 on these Linux architectures; elsewhere the default action stays.
    let known = cfg!(all(
        target_os = "linux",
        any(
            target_arch = "x86_64",
            target_arch = "x86",
            target_arch = "aarch64",
            target_arch = "arm",
            target_arch = "riscv64"
        )
    ));
    let _context = runtime.enter();
    known.then(|| tokio::signal::unix::signal(tokio::signal::unix::SignalKind::from_raw(25)).ok()).flatten()
}

/// Whether the (sub)command given has `--json` set.
fn wants_json(matches: &clap::ArgMatches) -> bool {
    matches.try_get_one::<bool>("json").ok().flatten().copied().unwrap_or(false)
        || matches.subcommand().is_some_and(|(_, sub)| wants_json(sub))
}

/// The one object a `--json` command prints when it fails before printing its own:
/// `{"error": {"exit": N, "reason": "…"}}`, the exit code and the line stderr gets (X-73: the
/// code, when the failure has one, is the reason's first word, as on stderr).
fn print_error_object(out: &mut dyn Write, failure: &Failure) -> std::io::Result<()> {
    let object = serde_json::json!({"error": {"exit": failure.exit, "reason": failure.line()}});
    writeln!(out, "{object}")
}

/// Stdout, remembering whether anything was written to it.
struct Counted<W: Write> {
    inner: W,
    written: bool,
}

impl<W: Write> Write for Counted<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.written |= n > 0;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// The hook's failure: exit 2 with its line on stderr, or, on a stop's line (`halts`), the
/// harness's halt with that line as its reason (H-57).
/// Says the hook's failure as its line asks, unless the deadline's watchdog claimed the answer
/// first: it is then writing its own failure and ending the process, and this thread writes
/// nothing (one answer per call, X-99).
fn hook_fail(failure: &Failure, halts: bool, settle: &agentwarden_hook_client::run::Settle) -> ExitCode {
    if !settle.claim() {
        agentwarden_hook_client::run::leave_to_watchdog()
    }
    let code = agentwarden_hook_client::run::exit_failed("warden", &failure.line(), halts);
    // Fault injection for the tests, in debug builds only: the process lingers after its failure
    // is written, as a descheduled one would, past a deadline its watchdog still runs to.
    #[cfg(debug_assertions)]
    if let Some(ms) = std::env::var("AGENTWARDEN_FAULT_LINGER_MS").ok().and_then(|ms| ms.parse().ok()) {
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
    ExitCode::from(code)
}

fn fail(failure: &Failure) -> ExitCode {
    eprintln!("warden: {}", failure.line());
    ExitCode::from(failure.exit)
}

fn init_tracing() {
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    let filter = std::env::var("RUST_LOG")
        .ok()
        .and_then(|spec| spec.parse::<tracing_subscriber::filter::Targets>().ok())
        .unwrap_or_else(|| tracing_subscriber::filter::Targets::new().with_default(tracing::Level::WARN));
    let layer = tracing_subscriber::fmt::layer()
        .with_writer(|| Masked(std::io::stderr()))
        .with_ansi(std::io::stderr().is_terminal())
        .with_target(false);
    let _ = tracing_subscriber::registry().with(layer).with(filter).try_init();
}

/// The log's writer: each record as written, with every credential it quotes masked. The
/// formatter writes a record in one `write_all`, so a URL is never cut between two writes.
struct Masked<W: Write>(W);

impl<W: Write> Write for Masked<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        self.0.write_all(agentwarden::observe::credentials(&text).as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// A decision command that reached the match of the others: it was answered above.
fn not_asked() -> Failure {
    Failure::new(EXIT_USAGE, Code::InternalError, "a decision command was not asked")
}

/// The trust root of `command` (V-67): the command line's server and store, once the
/// configuration the command reads was held to them. The hook keeps its own rule (V-49: its
/// line names the server; a configured store without `--store` is refused where it opens the
/// store); `serve` and `init` read their configuration by rules of their own
/// (`trust::refuse_implicit_server_config`, and `init` writes the configured store on its
/// lines); the witness, the keys, `verify-proof`, `fanout merge` and the reference open no
/// store and ask no server.
fn trusted(command: &Command, given: &trust::Given) -> Result<trust::Trusted, Failure> {
    use audit::AuditCommand as A;
    // Which configuration the command reads, and whether it is answered by the server `--server`
    // names rather than opening a store.
    let served = matches!(
        command,
        Command::Gate(_)
            | Command::Authorize(_)
            | Command::Lineage(_)
            | Command::Approvals(_)
            | Command::Status(_)
            | Command::Result(_)
            | Command::Guard(guard::GuardCommand::Check { .. })
            | Command::Audit(A::Checkpoint { .. } | A::Prove { .. } | A::WitnessRequest { .. })
    ) || matches!(command, Command::Seal(a) if a.show());
    let config: Option<Option<&std::path::Path>> = match command {
        Command::Gate(a) => Some(a.config.as_deref()),
        Command::Authorize(a) => Some(a.config.as_deref()),
        Command::Lineage(lineage::LineageCommand::Check { config, .. })
        | Command::Guard(
            guard::GuardCommand::Snapshot { config, .. }
            | guard::GuardCommand::Run { config, .. }
            | guard::GuardCommand::Check { config, .. },
        )
        | Command::Fanout(
            fanout::FanoutCommand::Plan { config, .. } | fanout::FanoutCommand::Run { config, .. },
        ) => Some(config.as_deref()),
        Command::Seal(a) => Some(a.config.as_deref()),
        Command::Approve(a) => Some(a.config.as_deref()),
        Command::Revoke(a) => Some(a.config.as_deref()),
        Command::Approvals(a) => Some(a.config.as_deref()),
        Command::Release(a) => Some(a.config.as_deref()),
        Command::Status(a) => Some(a.config()),
        Command::Doctor(a) => return doctor::trusted(a, given),
        Command::Audit(A::Report(a)) => Some(a.config()),
        Command::Audit(A::Keygen { .. } | A::VerifyProof { .. }) => None,
        Command::Audit(_) | Command::Result(_) => Some(None),
        Command::Hook(_)
        | Command::Serve(_)
        | Command::Init(_)
        | Command::Witness(_)
        | Command::Fanout(fanout::FanoutCommand::Merge { .. })
        | Command::Completions(_)
        | Command::Manpages(_) => None,
    };
    match config {
        Some(path) => Ok(trust::resolve(given, trust::load(path).as_ref(), served)?),
        None => Ok(trust::trusted(given)),
    }
}

async fn run(cli: Cli, begun: Option<hook::Begun>, out: &mut dyn Write) -> Result<u8, Failure> {
    let sled = SledConfig::new(agentwarden::DEFAULT_STORE)
        .durability(if cli.fsync { Durability::Fsync } else { Durability::Flush })
        .lock_timeout(Duration::from_millis(cli.lock_timeout_ms));
    let given =
        trust::Given { server: cli.server.clone(), server_uid: cli.server_uid, store: cli.store.clone() };
    // Who decides and which log, from the command line alone, once for every command (V-67).
    let trusted = trusted(&cli.command, &given)?;
    let stores = agentwarden::stores::Stores { explicit: trusted.store.clone(), sled, follow_config: false };
    // A decision command is a question, answered here or by the server, rendered here (V-13, V-54).
    if let Some(asked) = decide::asked(&cli.command)? {
        let shown = asked.shown;
        let (outcome, config) = decide::answer(asked, &stores, trusted.server.as_ref()).await?;
        return decide::render(shown, outcome, config.as_ref(), out);
    }
    decide::refuse_human_verb(&cli.command, trusted.server.as_ref())?;
    match cli.command {
        // The decision commands were answered above.
        Command::Gate(_) | Command::Lineage(_) | Command::Authorize(_) | Command::Approvals(_) => {
            Err(not_asked())
        }
        Command::Fanout(command) => fanout::run(command, |config| stores.open(config, true), out).await,
        Command::Guard(command) => guard::run(command, |config| stores.open(config, true), out).await,
        Command::Result(_) => Err(not_asked()),
        Command::Audit(audit::AuditCommand::Copy { from, to, batch }) => {
            audit::copy::run(&from, &to, batch, &stores.sled, out).await
        }
        // It reads the configuration (the signers the records' signatures are checked against).
        Command::Audit(audit::AuditCommand::Report(args)) => {
            audit::report::run(args, |config| stores.open(config, false), out).await
        }
        Command::Audit(command) => {
            // Only a command that writes may create the store.
            let create = command.writes();
            // A checkpoint and a proof ask the server holding the store, when one is
            // configured and no --store names another (V-65).
            let served = match command.served() {
                true => audit::served::named(&trusted),
                false => None,
            };
            // `verify --checkpoint` opens with the configuration it holds to the seal.
            let open = |config: Option<agentwarden::Config>| match config {
                Some(config) => stores.open(config, create),
                None => stores.open_plain(create),
            };
            audit::run(command, served.as_ref(), open, out).await
        }
        Command::Hook(_) => {
            let begun = begun
                .ok_or_else(|| Failure::new(EXIT_USAGE, Code::InternalError, "the hook was not begun"))?;
            let storage = |config: &agentwarden::Config| {
                agentwarden::HookStorage::for_store(stores.location(Some(config)).ok().as_ref(), &config.root)
            };
            hook::hook(begun, stores.explicit.is_some(), storage, |config| stores.open(config, true), out)
                .await
        }
        Command::Release(args) => {
            let storage = |config: &agentwarden::Config| {
                agentwarden::HookStorage::for_store(stores.location(Some(config)).ok().as_ref(), &config.root)
            };
            release::run(args, storage, |config| stores.open(config, false), out).await
        }
        Command::Seal(args) => {
            let create = !args.show();
            hook::seal(args, |config| stores.open(config, create), out).await
        }
        Command::Approve(args) => hook::approve(args, |config| stores.open(config, true), out).await,
        Command::Revoke(args) => hook::revoke(args, |config| stores.open(config, true), out).await,
        Command::Init(args) => setup::init_args(args, &given, cli.lock_timeout_ms, out),
        Command::Serve(args) => serve::serve(args, &given, &stores, out).await,
        Command::Status(args) => client::status(args, trusted.server.as_ref(), out),
        Command::Witness(command) => witness::run(command, out).await,
        Command::Completions(args) => reference::completions(&args, out),
        Command::Manpages(args) => reference::manpages(&args, out),
        Command::Doctor(args) => {
            let store = PathBuf::from(cli.store.as_deref().unwrap_or(agentwarden::DEFAULT_STORE));
            doctor::doctor(args, &store, trusted.server.as_ref(), out).await
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What the command tree reads `args` as, when it reads them as a hook's line through a
    /// server: the line `main` hands `warden-hook`'s client after the tree.
    fn read_by_the_tree(args: &[&str]) -> Option<agentwarden_hook_client::HookLine> {
        let matches =
            help::command().try_get_matches_from(std::iter::once("warden").chain(args.iter().copied()));
        let mut cli = Cli::from_arg_matches(&matches.ok()?).ok()?;
        give_the_hook_its_server(&mut cli);
        match &cli.command {
            Command::Hook(args) => args.server_line(),
            _ => None,
        }
    }

    fn read_early(args: &[&str]) -> Option<agentwarden_hook_client::HookLine> {
        hook_line_read_early(args.iter().map(std::ffi::OsString::from))
    }

    /// The lines `warden init … --server` installs with `warden` as the client, in each form,
    /// are answered before the tree is built, as the tree reads them.
    #[test]
    fn a_server_line_is_read_early_as_the_tree_reads_it() {
        for line in [
            "--lock-timeout-ms 5000 hook --config c.toml --server /s --deadline-ms 28000",
            "--lock-timeout-ms 5000 hook --harness codex --config c.toml --server /s --server-uid 998 --deadline-ms 28000",
            "--lock-timeout-ms 5000 hook --config c.toml --server /s --deadline-ms 28000 --halt-on-failure",
            "hook --server=/s --harness=gemini --config=c.toml",
            "hook --server /s --config -",
        ] {
            let args: Vec<&str> = line.split_whitespace().collect();
            let early = read_early(&args);
            assert!(early.is_some(), "`{line}` is read early");
            assert_eq!(early, read_by_the_tree(&args), "`{line}`");
        }
        // What the client refuses (a repeated option, a value the tree reads as an option) or
        // does not send to a server, the tree reads.
        for line in [
            "hook --server /s --deadline-ms 1 --deadline-ms 2",
            "hook --server /s --halt-on-failure --halt-on-failure",
            "hook --server /s --config -x",
            "hook --config c.toml",
            "--server /s hook",
            "hook --server /s --json",
        ] {
            let args: Vec<&str> = line.split_whitespace().collect();
            assert_eq!(read_early(&args), None, "`{line}` is left to the tree");
        }
    }

    /// Pieces of a line: options with and without their values, in the forms either parser may
    /// read differently.
    const PIECES: &[&[&str]] = &[
        &["--server", "/s"],
        &["--server=/s"],
        &["--server", ""],
        &["--server="],
        &["--server", "-"],
        &["--server", "-x"],
        &["--server-uid", "0"],
        &["--server-uid=998"],
        &["--server-uid", "-1"],
        &["--config", "c.toml"],
        &["--config=-x"],
        &["--config", "-x"],
        &["--config", "-"],
        &["--deadline-ms", "100"],
        &["--deadline-ms=0"],
        &["--deadline-ms", "-5"],
        &["--harness", "codex"],
        &["--harness=copilot"],
        &["--harness", "Codex"],
        &["--halt-on-failure"],
        &["--halt-on-failure=true"],
        &["--lock-timeout-ms", "5000"],
        &["--lock-timeout-ms=1"],
        &["--store", "/x"],
        &["--fsync"],
        &["--json"],
        &["--"],
        &["-h"],
        &["--version"],
        &["gate"],
        &["hook"],
        &["-"],
        &[""],
    ];

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        /// Whatever line is answered before the command tree is built, the tree reads as the same
        /// hook's line through the same server: the early path takes no line the tree refuses or
        /// reads otherwise (issue 49 item 8).
        #[test]
        fn the_hook_line_read_early_is_the_line_clap_reads(
            before in prop::collection::vec(prop::sample::select(PIECES), 0..3),
            after in prop::collection::vec(prop::sample::select(PIECES), 0..5),
        ) {
            let args: Vec<&str> = before
                .iter()
                .flat_map(|piece| piece.iter().copied())
                .chain(std::iter::once("hook"))
                .chain(after.iter().flat_map(|piece| piece.iter().copied()))
                .collect();
            if let Some(early) = read_early(&args) {
                prop_assert_eq!(Some(early), read_by_the_tree(&args), "{:?}", args);
            }
        }
    }
}
