//! `warden init HARNESS`: put Warden on a harness's hook path, in the project's settings or in a
//! managed form for an administrator to install, and make the guard protect its own files. Each
//! harness's subcommand — its options, their help — and what it writes into its own files and
//! says are its integration crate's (`Integration::init_command`, `InitOptions::install`, N-14,
//! N-17); here the subcommands are taken from the registry by name, the line prepared and the
//! guard's own files protected, the files written, and what was done said.
//!
//! H-12, H-17: what every harness's `init` shares — the guard's own files protected, the files
//! written by descriptor, the store ignored by git — is `agentwarden_doctor::init`'s.

use std::io::Write;
use std::path::{Path, PathBuf};

use agentwarden_doctor::Integration;
use agentwarden_doctor::init::{InitOptions, Prepared, Preparing, ignore_store, read_text};

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

/// `warden init NAME`: the harness the registry knows by that name, and what its own subcommand
/// parsed. The global `--server` is not among them: `init` takes it from the command line (V-67).
pub(super) struct InitCommand {
    harness: &'static dyn Integration,
    options: Box<dyn InitOptions>,
}

impl std::fmt::Debug for InitCommand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InitCommand")
            .field("harness", &self.harness.command())
            .field("options", &self.options)
            .finish()
    }
}

/// Each harness's subcommand, in the registry's order.
impl clap::Subcommand for InitCommand {
    fn augment_subcommands(command: clap::Command) -> clap::Command {
        super::integrations::all()
            .into_iter()
            .fold(command, |command, harness| command.subcommand(harness.init_command()))
    }

    fn augment_subcommands_for_update(command: clap::Command) -> clap::Command {
        Self::augment_subcommands(command)
    }

    fn has_subcommand(name: &str) -> bool {
        super::integrations::named(name).is_some()
    }
}

impl clap::FromArgMatches for InitCommand {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let (harness, options) = matches
            .subcommand()
            .and_then(|(name, matches)| super::integrations::named(name).map(|harness| (harness, matches)))
            .ok_or_else(|| clap::Error::new(clap::error::ErrorKind::MissingSubcommand))?;
        Ok(InitCommand { harness, options: harness.init_options(options)? })
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
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
    if let Some(command) = args.command {
        return init(command, given, lock_ms, out);
    }
    let project = match args.project {
        Some(project) => project,
        None => agentwarden::config::project_root().map_err(Failure::usage)?,
    };
    let found = super::integrations::found(&project, std::env::home_dir().as_deref());
    if found.is_empty() {
        let names = agentwarden_hook_client::HookHarness::names();
        return Err(Failure::usage(format!(
            "no harness is used in `{}` or in your home (none of {}); name the one to set up: warden init {}",
            project.display(),
            super::integrations::signs_said(),
            names.join("|")
        )));
    }
    for (harness, seen) in found {
        writeln!(out, "== {}: found {}", harness.name(), seen.join(", "))?;
        let mut argv: Vec<std::ffi::OsString> = vec![harness.command().into()];
        argv.extend(["--project".into(), project.clone().into_os_string()]);
        if let Some(warden) = &args.warden {
            argv.extend(["--warden".into(), warden.clone().into_os_string()]);
        }
        let options = harness
            .init_command()
            .try_get_matches_from(argv)
            .and_then(|matches| harness.init_options(&matches))
            .map_err(|e| Failure::usage(format!("`{}`: {e}", harness.init())))?;
        let code = init(InitCommand { harness, options }, given, lock_ms, out)?;
        if code != EXIT_OK {
            return Ok(code);
        }
    }
    Ok(EXIT_OK)
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
        None => agentwarden::config::project_root().map_err(Failure::usage)?,
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

/// `warden init HARNESS` (N-14, N-17): the line prepared and the guard's own files protected,
/// the harness's files read and planned by its integration, then every file written, the
/// configuration first, and what was done said: the store ignored by git (H-17) and the human's
/// next step last. The server the lines ask is the global `--server` (V-67); a configuration
/// that names a server the command line does not is refused (`init_trusted`).
pub(super) fn init(
    command: InitCommand,
    given: &super::trust::Given,
    lock_ms: u64,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    let InitCommand { harness, options } = command;
    init_trusted(options.project(), given)?;
    let prepared = Prepared::prepare(Preparing {
        project: options.project().map(Path::to_path_buf),
        warden: options.warden().map(Path::to_path_buf),
        server: given.server.clone(),
        server_uid: given.server_uid,
        lock_ms,
        timeout: options.timeout(),
        harness,
        client: wiring::client_binary,
    })
    .map_err(Failure::usage)?;
    let installing = options.install(&prepared, &mut read_text).map_err(Failure::usage)?;
    prepared.write(&installing).map_err(Failure::usage)?;
    for line in prepared.said(&installing) {
        writeln!(out, "{line}")?;
    }
    if let Some(said) = ignore_store(&prepared.project).map_err(Failure::usage)? {
        writeln!(out, "{said}")?;
    }
    writeln!(out, "{}", installing.next)?;
    Ok(EXIT_OK)
}
