//! `warden init claude-code`: put Warden on a Claude Code project's hook path, in the project's
//! settings or as a managed-settings drop-in, and make the guard protect its own files. As for
//! `init codex` and `init gemini`, the line is prepared and the guard's own files protected here,
//! and what to write into the harness's files and say is planned by its crate
//! (`agentwarden_claude_code::setup::install`, N-17).
//!
//! H-6: Claude Code has no fail-closed switch for command hooks: a hook that times out, or
//! exits with anything but 2, lets the call run. So the installed line is built to fail closed
//! (`agentwarden_claude_code::setup::line`: absolute binary, `|| exit 2` tail, a deadline below
//! the timeout), `init`
//! refuses a timeout without margin over the lock wait, and Warden itself turns every internal
//! failure into exit 2.
//!
//! H-12, H-17: what every harness's `init` shares — the guard's own files protected, the files
//! written by descriptor, the store ignored by git — is `agentwarden_doctor::init`'s.
//!
//! H-13: `init claude-code --managed FILE` writes the hooks, with `"allowManagedHooksOnly":
//! true`, to FILE instead of the project's settings, for an administrator to install where an
//! agent running as the user cannot write (on Linux `/etc/claude-code/managed-settings.json`,
//! or a drop-in in `/etc/claude-code/managed-settings.d/`). Claude Code then runs only managed
//! hooks: an edit of `.claude/settings.json` cannot remove Warden's from the next session. The
//! line names `$CLAUDE_PROJECT_DIR/agentwarden.toml`, so on such a machine every project Claude
//! Code opens must have one: a project without it gets exit 2, every governed call blocked.
//!
use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Subcommand;

use agentwarden_doctor::init::{Prepared, Preparing, ignore_store, read_text};
use agentwarden_doctor::{Installing, Read};

use super::wiring;
use super::{EXIT_OK, Failure};

use agentwarden::config::CONFIG_FILE;

/// `warden init [HARNESS]`: one harness by name, or, with none, every harness the project or the
/// user's home shows is used (N-18).
#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub(super) struct InitArgs {
    #[command(subcommand)]
    command: Option<InitCommand>,
    /// With no harness named: the project's root directory [default: the nearest directory, from
    /// here upward, with an `agentwarden.toml` (N-1), else this one].
    #[arg(long, value_name = "DIR")]
    project: Option<PathBuf>,
    /// With no harness named: the `warden` binary the hooks run (default: this one).
    #[arg(long, value_name = "PATH")]
    warden: Option<PathBuf>,
}

/// `warden init` with no harness named: each harness whose signs (its folder in the project or
/// in the user's home, N-18) are found is installed as `warden init HARNESS --project DIR` would
/// install it, in the registry's order, each under a line saying what was found. Only what each
/// harness's own `init` writes by default is written — the project's files, and what that
/// harness needs to load them (Codex's trust of the project) — never a managed or user-level
/// form, which a human asks for by name. None found is a refusal naming the commands; the first
/// harness whose `init` refuses stops the rest, and its refusal is the command's.
pub(super) fn init_args(
    args: InitArgs,
    given: &super::trust::Given,
    lock_ms: u64,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    use clap::FromArgMatches;
    if let Some(command) = args.command {
        return init(command, given, lock_ms, out);
    }
    let project = match args.project {
        Some(project) => project,
        None => agentwarden::config::project_root().map_err(|e| Failure::usage(e.to_string()))?,
    };
    let found = super::integrations::found(&project, std::env::home_dir().as_deref());
    if found.is_empty() {
        let names = super::integrations::names();
        return Err(Failure::usage(format!(
            "no harness is used in `{}` or in your home (none of {}); name the one to set up: warden init {}",
            project.display(),
            super::integrations::signs_said(),
            names.join("|")
        )));
    }
    for (harness, seen) in found {
        writeln!(out, "== {}: found {}", harness.name(), seen.join(", "))?;
        let mut argv: Vec<std::ffi::OsString> = vec!["init".into(), harness.command().into()];
        argv.extend(["--project".into(), project.clone().into_os_string()]);
        if let Some(warden) = &args.warden {
            argv.extend(["--warden".into(), warden.clone().into_os_string()]);
        }
        let command = InitCommand::augment_subcommands(clap::Command::new("init"))
            .try_get_matches_from(argv)
            .and_then(|matches| InitCommand::from_arg_matches(&matches))
            .map_err(|e| Failure::usage(format!("`{}`: {e}", harness.init())))?;
        let code = init(command, given, lock_ms, out)?;
        if code != EXIT_OK {
            return Ok(code);
        }
    }
    Ok(EXIT_OK)
}

#[derive(Debug, Subcommand)]
pub(super) enum InitCommand {
    /// Merge Warden's hook entries into `.claude/settings.json` (other keys are kept), and add
    /// the guard's own files to `[guardrails] protected`.
    ClaudeCode {
        /// The project's root directory [default: the nearest directory, from here upward, with an
        /// `agentwarden.toml` (N-1), else this one].
        #[arg(long, value_name = "DIR")]
        project: Option<PathBuf>,
        /// The `warden` binary the hook runs (default: this one).
        #[arg(long, value_name = "PATH")]
        warden: Option<PathBuf>,
        /// Claude Code's timeout for each hook call, in seconds: at least the lock wait
        /// (`--lock-timeout-ms`) plus 3 s.
        #[arg(long, default_value_t = 30, value_name = "SECONDS")]
        timeout: u64,
        /// Write the hooks with `allowManagedHooksOnly` to FILE, a managed-settings drop-in
        /// for an administrator to install (e.g. in `/etc/claude-code/managed-settings.d/`),
        /// instead of merging them into `.claude/settings.json`.
        #[arg(long, value_name = "FILE")]
        managed: Option<PathBuf>,
        /// The global `--server`: install the thin client of the resident service at this
        /// socket (`warden serve`) instead of the direct hook: it opens no store, and exits 2
        /// when the server does not answer (V-10, V-67).
        #[arg(skip)]
        server: Option<PathBuf>,
    },
    /// Merge Warden's hooks into the project's `.codex/config.toml` (other keys are kept), trust
    /// the project in Codex's home, and add the guard's own files to `[guardrails] protected`.
    Codex {
        /// The project's root directory [default: the nearest directory, from here upward, with an
        /// `agentwarden.toml` (N-1), else this one].
        #[arg(long, value_name = "DIR")]
        project: Option<PathBuf>,
        /// The `warden` binary the hook runs (default: this one).
        #[arg(long, value_name = "PATH")]
        warden: Option<PathBuf>,
        /// Codex's timeout for each hook call, in seconds: at least the lock wait
        /// (`--lock-timeout-ms`) plus 3 s.
        #[arg(long, default_value_t = 30, value_name = "SECONDS")]
        timeout: u64,
        /// Write the hooks with `allow_managed_hooks_only` to FILE, for an administrator to
        /// install as `/etc/codex/requirements.toml`, instead of the project's configuration.
        #[arg(long, value_name = "FILE")]
        managed: Option<PathBuf>,
        /// The global `--server`: install the thin client of the resident service at this
        /// socket (`warden serve`) (V-67).
        #[arg(skip)]
        server: Option<PathBuf>,
        /// Codex's home, where the project is trusted [default: `$CODEX_HOME`, else `~/.codex`].
        #[arg(long, value_name = "DIR")]
        codex_home: Option<PathBuf>,
    },
    /// Merge Warden's hooks into the project's `.gemini/settings.json` (other keys are kept) and
    /// add the guard's own files to `[guardrails] protected`.
    Gemini {
        /// The project's root directory [default: the nearest directory, from here upward, with an
        /// `agentwarden.toml` (N-1), else this one].
        #[arg(long, value_name = "DIR")]
        project: Option<PathBuf>,
        /// The `warden` binary the hook runs (default: this one).
        #[arg(long, value_name = "PATH")]
        warden: Option<PathBuf>,
        /// Gemini's timeout for each hook call, in seconds (written in milliseconds): at least
        /// the lock wait (`--lock-timeout-ms`) plus 3 s.
        #[arg(long, default_value_t = 30, value_name = "SECONDS")]
        timeout: u64,
        /// Write the hooks to FILE, for an administrator to install as
        /// `/etc/gemini-cli/settings.json`, instead of the project's settings.
        #[arg(long, value_name = "FILE", conflicts_with = "user")]
        system: Option<PathBuf>,
        /// Merge the hooks into the user's settings (`$GEMINI_CLI_HOME/.gemini/settings.json`,
        /// else `~/.gemini/settings.json`), for every project, instead of the project's settings.
        #[arg(long)]
        user: bool,
        /// The global `--server`: install the thin client of the resident service at this
        /// socket (`warden serve`) (V-67).
        #[arg(skip)]
        server: Option<PathBuf>,
    },
    /// Write Warden's hooks to the project's `.github/hooks/agentwarden.json` (or the user's
    /// hooks folder) and add the guard's own files to `[guardrails] protected`.
    Copilot {
        /// The project's root directory [default: the nearest directory, from here upward, with an
        /// `agentwarden.toml` (N-1), else this one].
        #[arg(long, value_name = "DIR")]
        project: Option<PathBuf>,
        /// The `warden` binary the hook runs (default: this one).
        #[arg(long, value_name = "PATH")]
        warden: Option<PathBuf>,
        /// Copilot's timeout for each hook call (`timeoutSec`), in seconds: at least the lock
        /// wait (`--lock-timeout-ms`) plus 3 s.
        #[arg(long, default_value_t = 30, value_name = "SECONDS")]
        timeout: u64,
        /// Write the hooks to the user's hooks folder (`$COPILOT_HOME/hooks/agentwarden.json`,
        /// else `~/.copilot/hooks/agentwarden.json`), which Copilot loads in every project with no
        /// trust step, instead of the project's `.github/hooks`.
        #[arg(long, conflicts_with = "managed")]
        user: bool,
        /// Write Warden's hooks as a managed plugin to DIR (its `managed-settings.json`, merged,
        /// and `agentwarden-marketplace/`), for an administrator to install as
        /// `/etc/github-copilot`: Copilot then runs them for every user (H-75).
        #[arg(long, value_name = "DIR")]
        managed: Option<PathBuf>,
        /// The global `--server`: install the thin client of the resident service at this
        /// socket (`warden serve`) (V-67).
        #[arg(skip)]
        server: Option<PathBuf>,
    },
}

/// The lines `init` writes ask the server the command line names, as the user the command line
/// names: a configuration that names a server or its user the command line does not is refused
/// (V-67). A direct line records into the project's store (`--store` on the line); a store named
/// elsewhere — a configuration's `[store] url`, or `--store` — is not written on it, so `init`
/// refuses rather than install lines that record somewhere else than the human named: with a
/// fleet store, install the client form (`--server`), whose server holds it.
fn init_trusted(project: Option<&Path>, given: &super::trust::Given) -> Result<(), Failure> {
    let project = match project {
        Some(project) => project.to_path_buf(),
        None => agentwarden::config::project_root().map_err(|e| Failure::usage(e.to_string()))?,
    };
    let direct = given.server.is_none();
    if let Some(config) = super::trust::load(Some(&project.join(CONFIG_FILE))) {
        super::trust::refuse_configured(given, &config, direct)?;
    }
    // The project's own store, named on the command line, is what the lines name.
    let default = |store: &str| {
        let named = std::path::absolute(store).ok();
        let own = std::path::absolute(project.join(agentwarden::DEFAULT_STORE)).ok();
        let canonical = |p: Option<PathBuf>| p.map(|p| std::fs::canonicalize(&p).unwrap_or(p));
        named.is_some() && canonical(named) == canonical(own)
    };
    match (&given.store, direct) {
        (Some(store), true) if !default(store) => Err(super::trust::refused(format!(
            "--store `{store}`: the direct lines `warden init` writes record into the project's store \
             (`.agentwarden/audit`); for another store install the client form (--server PATH, the server \
             holding it), or write the line's --store by hand (V-67)"
        ))),
        _ => Ok(()),
    }
}

/// `warden init claude-code` (N-17): the line prepared and the guard's own files protected as for
/// the other harnesses, the settings read and planned by the harness crate with the deny rules
/// made here (K-13), then written, the configuration first, and what was done said.
fn init_settings(
    args: Preparing<'_>,
    managed: Option<&Path>,
    timeout: u64,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    use agentwarden_claude_code::setup::install::install;
    let args_harness = args.harness;
    let prepared = Prepared::prepare(args).map_err(Failure::usage)?;
    let rules = prepared.config.allowed_signers.as_deref();
    let rules = args_harness.deny_rules(&prepared.project, rules, Some(&prepared.exe));
    let (installing, rules_said) =
        install(&prepared.project, managed, &prepared.command, timeout, &rules, &mut read_text)
            .map_err(Failure::usage)?;
    let Prepared {
        project,
        config_path,
        added,
        own,
        deadline,
        lock_ms,
        command,
        exe,
        served,
        hook_binary,
        ..
    } = &prepared;
    prepared.write(&installing).map_err(Failure::usage)?;
    for line in &installing.said {
        writeln!(out, "{line}")?;
    }
    writeln!(out, "  command: {command}")?;
    if *served && hook_binary.is_none() {
        writeln!(
            out,
            "  (no `warden-hook` beside `{}`: the client is `warden hook`, which starts slower)",
            exe.display()
        )?;
    }
    writeln!(out, "{rules_said}")?;
    writeln!(out, "  deadline: {deadline} ms (lock wait {lock_ms} ms)")?;
    if added.is_empty() {
        writeln!(out, "`[guardrails] protected` already covers {}", own.join(", "))?;
    } else {
        writeln!(
            out,
            "added to `[guardrails] protected` in {}: {}",
            config_path.display(),
            added.join(", ")
        )?;
    }
    said_last(project, &installing, out)
}

/// `warden init codex`, `init gemini` and `init copilot` (N-14): the line prepared and the guard's
/// own files protected, the harness's files read and planned by its crate (`plan`), then every
/// file written, the configuration first, and what was done said.
fn init_by_path(
    args: Preparing<'_>,
    plan: impl FnOnce(&Path, &str, Read<'_>) -> Result<Installing, String>,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    let prepared = Prepared::prepare(args).map_err(Failure::usage)?;
    let installing = plan(&prepared.project, &prepared.command, &mut read_text).map_err(Failure::usage)?;
    prepared.write(&installing).map_err(Failure::usage)?;
    let Prepared { project, added, own, deadline, lock_ms, command, .. } = &prepared;
    for line in &installing.said {
        writeln!(out, "{line}")?;
    }
    writeln!(out, "  command: {command}")?;
    writeln!(out, "  deadline: {deadline} ms (lock wait {lock_ms} ms)")?;
    if added.is_empty() {
        writeln!(out, "`[guardrails] protected` already covers {}", own.join(", "))?;
    } else {
        writeln!(out, "`[guardrails] protected` += {}", added.join(", "))?;
    }
    said_last(project, &installing, out)
}

/// The store ignored by git (H-17), and the human's next step said.
fn said_last(project: &Path, installing: &Installing, out: &mut dyn Write) -> Result<u8, Failure> {
    if let Some(said) = ignore_store(project).map_err(Failure::usage)? {
        writeln!(out, "{said}")?;
    }
    writeln!(out, "{}", installing.next)?;
    Ok(EXIT_OK)
}

/// `warden init`. The server the lines ask is the global `--server` (V-67); a configuration
/// that names a server the command line does not is refused (`init_trusted`).
pub(super) fn init(
    command: InitCommand,
    given: &super::trust::Given,
    lock_ms: u64,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    // The harness by its name in the registry, and what `init` is given for it.
    let preparing = |name: &str, project, warden, timeout| Preparing {
        project,
        warden,
        server: given.server.clone(),
        server_uid: given.server_uid,
        lock_ms,
        timeout,
        harness: super::integrations::by_name(name),
        client: wiring::client_binary,
    };
    match command {
        InitCommand::ClaudeCode { project, warden, timeout, managed, .. } => {
            init_trusted(project.as_deref(), given)?;
            init_settings(
                preparing("claude-code", project, warden, timeout),
                managed.as_deref(),
                timeout,
                out,
            )
        }
        InitCommand::Codex { project, warden, timeout, managed, codex_home, .. } => {
            use agentwarden_codex::setup::install::install;
            init_trusted(project.as_deref(), given)?;
            let plan = |project: &Path, command: &str, read: Read<'_>| {
                install(project, managed.as_deref(), codex_home, command, timeout, read)
            };
            init_by_path(preparing("codex", project, warden, timeout), plan, out)
        }
        InitCommand::Gemini { project, warden, timeout, system, user, .. } => {
            use agentwarden_gemini::setup::install::install;
            init_trusted(project.as_deref(), given)?;
            let plan = |project: &Path, command: &str, read: Read<'_>| {
                install(project, system.as_deref(), user, command, timeout, read)
            };
            init_by_path(preparing("gemini", project, warden, timeout), plan, out)
        }
        InitCommand::Copilot { project, warden, timeout, user, managed, .. } => {
            use agentwarden_copilot::setup::install::install;
            init_trusted(project.as_deref(), given)?;
            let plan = |project: &Path, command: &str, read: Read<'_>| match &managed {
                Some(dir) => {
                    agentwarden_copilot::setup::managed::install(dir, project, command, timeout, read)
                }
                None => install(project, user, command, timeout, read),
            };
            init_by_path(preparing("copilot", project, warden, timeout), plan, out)
        }
    }
}
