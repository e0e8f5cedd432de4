//! `warden doctor`: check that everything Warden reads in a Claude Code, Codex or Gemini CLI project is
//! usable, and that the installed hook really blocks — by running it.
//!
//! H-14: the entries are read back from where Claude Code reads them and each line checked
//! (each harness crate's `setup::installed`, N-13: the form in force, `disableAllHooks`, a missing binary, a line
//! without the `|| exit 2` tail, a timeout without margin over the lock wait and the
//! deadline). C-10: with `--harness codex`, Codex's hooks the same way: the managed
//! requirements or the project's configuration, the project trusted in Codex's home, each event
//! `init codex` installs, the binary, the configuration the lines name, the tail, the timeout's
//! margin; then its canary (C-11). Here: what would make a guarded session unsafe or useless —
//! no git repository where reverts need one (any protected path: reverts restore what git `HEAD` holds),
//! `.agentwarden/` not ignored by git (a subagent's `git add -A && git commit` would take the
//! log into history), the guard's own files not protected (H-12), no seal in force, no active
//! approval. Then the canary (H-15, [`agentwarden_doctor::canary()`]) runs each installed line.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::json;

use super::trust::{Given, Server, Trusted};
use super::{EXIT_NO, EXIT_OK, Failure};
use agentwarden::Config;
use agentwarden_doctor::Check;

#[derive(Debug, clap::Args)]
pub(super) struct DoctorArgs {
    /// The project's root directory [default: the nearest directory, from here upward, with an
    /// `agentwarden.toml` (N-1), else this one].
    #[arg(long, value_name = "DIR")]
    project: Option<PathBuf>,
    /// The configuration (default: `agentwarden.toml` in the project).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// A managed-settings file to read instead of `/etc/claude-code/managed-settings.json` and
    /// `/etc/claude-code/managed-settings.d/*.json` (repeatable, in merge order); with
    /// `--harness codex`, the managed requirements instead of `/etc/codex/requirements.toml`;
    /// with `--harness gemini`, the system settings instead of `/etc/gemini-cli/settings.json`.
    #[arg(long, value_name = "FILE")]
    managed: Vec<PathBuf>,
    /// The harness whose installed hooks are checked (C-10) [default: every harness whose
    /// Warden hooks are installed for the project or whose folder the project holds, each in turn; when none is, the first of the
    /// values, whose checks name the hooks missing] (N-18).
    #[arg(long, value_name = "NAME", value_parser = agentwarden_hook_client::HookHarness::names())]
    harness: Option<String>,
    /// With `--harness codex`: Codex's home, where the project must be trusted [default:
    /// `$CODEX_HOME`, else `~/.codex`].
    #[arg(id = "codex_home", long = "codex-home", value_name = "DIR")]
    harness_home: Option<PathBuf>,
    /// Print the checks as one JSON object.
    #[arg(long)]
    json: bool,
}

/// A server whose configuration names witnesses and no log key refuses to start unless its
/// command line gives one: said here before it is met at `warden serve`.
fn witnesses_fed(config: &Config) -> Option<Check> {
    match (config.server_witnesses.len(), &config.server_log_key) {
        (0, _) => None,
        (n, Some(key)) => Some(Check::ok(
            "witnesses",
            format!("the server signs with `{}` and submits to {n} witness(es)", key.display()),
        )),
        (n, None) => Some(Check::warn(
            "witnesses",
            agentwarden_server::unfed_witnesses(n),
            "set `[server] log_key` (`warden audit keygen`), or start `warden serve --log-key FILE`",
        )),
    }
}

/// The configuration doctor checks: `--config`, else the project's `agentwarden.toml`.
fn config_path(args: &DoctorArgs) -> Result<PathBuf, Failure> {
    let project = match &args.project {
        Some(project) => project.clone(),
        None => agentwarden::config::project_root().map_err(Failure::usage)?,
    };
    Ok(args.config.clone().unwrap_or_else(|| project.join(agentwarden::config::CONFIG_FILE)))
}

/// Doctor's trust root (V-67): its command line's `--server` and `--store`, once the
/// configuration it checks names none they do not.
pub(super) fn trusted(args: &DoctorArgs, given: &Given) -> Result<Trusted, Failure> {
    let config = config_path(args).ok().and_then(|path| super::trust::load(Some(&path)));
    // With a server named, doctor asks it and opens no store.
    Ok(super::trust::resolve(given, config.as_ref(), true)?)
}

/// `warden doctor`: the harness `--harness` names, else every harness whose Warden hooks are
/// installed for the project or whose folder the project holds (N-18), one after the other, each under its name, and Claude Code's
/// checks when none is (they say the hooks are missing). One harness prints as it always did;
/// with several, each one's findings follow a line naming it, and `--json` prints one object
/// with each harness's (N-18). The exit is 0 only when every harness checked is healthy.
pub(super) async fn doctor(
    args: DoctorArgs,
    store: &Path,
    trusted_server: Option<&Server>,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    let project = match &args.project {
        Some(project) => project.clone(),
        None => agentwarden::config::project_root().map_err(Failure::usage)?,
    };
    let project = std::fs::canonicalize(&project)
        .map_err(|e| Failure::usage(format!("`{}`: {e}", project.display())))?;
    let harnesses = match &args.harness {
        Some(name) => vec![super::integrations::by_name(name)],
        None => {
            let config_path =
                args.config.clone().unwrap_or_else(|| project.join(agentwarden::config::CONFIG_FILE));
            let installed =
                super::integrations::in_use(&project, &config_path, &args.managed, &args.harness_home);
            if installed.is_empty() { vec![super::integrations::by_name("")] } else { installed }
        }
    };
    let given = agentwarden_doctor::Checkup {
        project: &project,
        config_path: args.config.clone().unwrap_or_else(|| project.join(agentwarden::config::CONFIG_FILE)),
        managed: &args.managed,
        harness_home: args.harness_home.clone(),
        store,
        server: trusted_server.map(|s| (s.socket.clone(), s.uid)),
        profiles: &agentwarden_hook_client::HookHarness::profiles(),
        witnesses: witnesses_fed,
        deadline_ms: agentwarden_hook_client::DEFAULT_DEADLINE_MS,
    };
    let mut reports = Vec::new();
    for harness in &harnesses {
        reports.push((*harness, agentwarden_doctor::checkup(*harness, &given).await));
    }
    let healthy = reports.iter().all(|(_, checks)| checks.iter().all(|c| c.ok));
    let [(_, checks)] = reports.as_slice() else {
        if args.json {
            let each: Vec<_> = reports
                .iter()
                .map(|(harness, checks)| {
                    json!({"harness": harness.command(), "healthy": checks.iter().all(|c| c.ok), "checks": checks})
                })
                .collect();
            writeln!(out, "{}", json!({"healthy": healthy, "harnesses": each}))?;
        } else {
            for (harness, checks) in &reports {
                writeln!(out, "== {} (`--harness {}`)", harness.name(), harness.command())?;
                print_checks(checks, out)?;
            }
        }
        return Ok(if healthy { EXIT_OK } else { EXIT_NO });
    };
    if args.json {
        writeln!(out, "{}", json!({"healthy": healthy, "checks": checks}))?;
    } else {
        print_checks(checks, out)?;
    }
    Ok(if healthy { EXIT_OK } else { EXIT_NO })
}

/// Each finding as a line, its fix under it.
fn print_checks(checks: &[Check], out: &mut dyn Write) -> std::io::Result<()> {
    for c in checks {
        let mark = match (c.ok, &c.fix) {
            (true, None) => "ok  ",
            (true, Some(_)) => "warn",
            (false, _) => "FAIL",
        };
        writeln!(out, "{mark}  {}: {}", c.check, c.detail)?;
        if let Some(fix) = &c.fix {
            writeln!(out, "      fix: {fix}")?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod witness_tests {
    use super::*;

    /// Witnesses with no log key are said, with how to feed them.
    #[test]
    fn witnesses_without_a_log_key_are_said() {
        let config = |key: Option<&str>| Config {
            server_witnesses: vec![("http://w:1".into(), "w+1+a".into())],
            server_log_key: key.map(PathBuf::from),
            ..Config::default()
        };
        let unfed = witnesses_fed(&config(None)).unwrap();
        assert!(unfed.ok && unfed.fix.is_some(), "a warning: {unfed:?}");
        assert!(unfed.detail.contains("nothing would be signed"), "{unfed:?}");
        let fed = witnesses_fed(&config(Some("log.key"))).unwrap();
        assert!(fed.ok && fed.fix.is_none(), "{fed:?}");
        assert!(witnesses_fed(&Config::default()).is_none());
    }
}
