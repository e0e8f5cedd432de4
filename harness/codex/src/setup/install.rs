//! `warden init codex`: Warden's hooks in a Codex CLI project's `.codex/config.toml` (the
//! project trusted in Codex's home, without which Codex ignores a project's configuration
//! silently) or, with `--managed FILE`, as the hooks of Codex's managed requirements with
//! `allow_managed_hooks_only` (issue 36, N-14). The command line prepares the line — built to
//! fail closed as Claude Code's is (H-6, H-9, H-10, C-1) — and protects the guard's own files;
//! this reads Codex's files through the reader it is handed and says what to write.
//!
//! What `init codex` cannot do: Codex runs a hook from a user or project file only once it is
//! trusted (its own review, or `--dangerously-bypass-hook-trust`); managed hooks are trusted.
//! `init` trusts the project (`[projects."PATH"] trust_level = "trusted"` in Codex's home) and
//! says that the hooks must be reviewed; the managed form is the deployment where an agent
//! running as the user can neither remove nor untrust them (C-8).

use std::path::{Path, PathBuf};

use agentwarden_doctor::init::{InitOptions, InitPlaces, Prepared};
use agentwarden_doctor::{FileWrite, InstallError, Installing, Read};

use crate::setup::config::{self, EVENTS, merge_hooks, trust_project};

/// Merge Warden's hooks into the project's `.codex/config.toml` (other keys are kept), trust
/// the project in Codex's home, and add the guard's own files to `[guardrails] protected`.
#[derive(Debug, clap::Args)]
pub struct InitArgs {
    // `--project` and `--warden`, as every harness's `init` takes them.
    #[command(flatten)]
    places: InitPlaces,
    /// Codex's timeout for each hook call, in seconds: at least the lock wait
    /// (`--lock-timeout-ms`) plus 3 s.
    #[arg(long, default_value_t = 30, value_name = "SECONDS")]
    timeout: u64,
    /// Write the hooks with `allow_managed_hooks_only` to FILE, for an administrator to
    /// install as `/etc/codex/requirements.toml`, instead of the project's configuration.
    #[arg(long, value_name = "FILE")]
    managed: Option<PathBuf>,
    /// Codex's home, where the project is trusted [default: `$CODEX_HOME`, else `~/.codex`].
    #[arg(long, value_name = "DIR")]
    codex_home: Option<PathBuf>,
}

impl InitOptions for InitArgs {
    fn places(&self) -> &InitPlaces {
        &self.places
    }

    fn timeout(&self) -> u64 {
        self.timeout
    }

    fn install(&self, prepared: &Prepared, read: Read<'_>) -> Result<Installing, InstallError> {
        let (managed, home) = (self.managed.as_deref(), self.codex_home.clone());
        install(&prepared.project, managed, home, &prepared.command, self.timeout, read)
    }
}

/// What `warden init codex` writes and says for the hook line `command` with Codex's `timeout`
/// (seconds): the managed requirements at `managed`, else the project's configuration and the
/// project trusted in Codex's home (`home`: `--codex-home`, else `$CODEX_HOME`, else `~/.codex`).
/// `Err` says why nothing is written.
pub fn install(
    project: &Path,
    managed: Option<&Path>,
    home: Option<PathBuf>,
    command: &str,
    timeout: u64,
    read: Read<'_>,
) -> Result<Installing, InstallError> {
    let target = managed.map_or_else(|| project.join(config::PROJECT_FILE), Path::to_path_buf);
    let text = read(project, &target)?.unwrap_or_default();
    let merged = merge_hooks(&text, command, timeout, managed.is_some())
        .map_err(|e| InstallError::file(&target, e))?;
    let events = EVENTS.join(", ");
    let mut writes =
        vec![FileWrite { root: project.to_path_buf(), path: target.clone(), text: merged, make: None }];
    let said = match managed {
        Some(file) => vec![
            format!(
                "wrote Codex's managed hooks to {} ({events}; timeout {timeout} s; allow_managed_hooks_only)",
                file.display()
            ),
            format!(
                "  an administrator installs it: sudo install -D -o root -m 644 {} {}",
                file.display(),
                config::MANAGED_FILE
            ),
        ],
        None => {
            // Without a managed file, the project must be trusted in Codex's home or its hooks
            // are skipped silently.
            let home = config::home(home, std::env::var_os(config::HOME_ENV), std::env::var_os("HOME"))
                .ok_or(InstallError::NoPlace {
                    what: "Codex home",
                    fix: "give --codex-home DIR (or set CODEX_HOME or HOME)",
                })?;
            let file = home.join(config::HOME_FILE);
            let text = read(&home, &file)?.unwrap_or_default();
            let trusted = trust_project(&text, project).map_err(|e| InstallError::file(&file, e))?;
            writes.push(FileWrite {
                root: home.clone(),
                path: file.clone(),
                text: trusted,
                make: Some(home),
            });
            vec![
                format!("merged Warden's hooks into {} ({events}; timeout {timeout} s)", target.display()),
                format!("  trusted the project in {}", file.display()),
                "  Codex runs them once you trust them (review the hooks in Codex); for hooks an agent cannot \
                 remove, use --managed (docs/codex.md)"
                    .to_owned(),
            ]
        }
    };
    let next = format!(
        "next: commit these files, seal and approve (`warden seal`, `warden approve`), check with \
         `warden doctor --harness codex --project {}`, then run Codex with AGENTWARDEN_ENABLE_SUBAGENTS=true",
        project.display()
    );
    Ok(Installing { writes, said, next, ..Installing::default() })
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::install;

    /// The managed form writes the one file and trusts nothing; the project's form also trusts
    /// the project in the home given; an unreadable file is the refusal, nothing planned.
    #[test]
    fn each_form_writes_its_files_in_order_and_a_read_failure_plans_nothing() {
        let project = Path::new("/p/x");
        let mut none = |_: &Path, _: &Path| Ok(None);
        let managed = install(project, Some(Path::new("/tmp/req.toml")), None, "warden hook", 30, &mut none);
        let managed = managed.unwrap_or_default();
        let paths: Vec<&PathBuf> = managed.writes.iter().map(|w| &w.path).collect();
        assert_eq!(paths, [Path::new("/tmp/req.toml")]);
        assert!(managed.writes.iter().all(|w| w.text.contains("allow_managed_hooks_only")));
        assert!(managed.next.contains("warden doctor --harness codex --project /p/x"));

        let home = Some(PathBuf::from("/h/.codex"));
        let project_form =
            install(project, None, home.clone(), "warden hook", 30, &mut none).unwrap_or_default();
        let paths: Vec<&PathBuf> = project_form.writes.iter().map(|w| &w.path).collect();
        assert_eq!(paths, [Path::new("/p/x/.codex/config.toml"), Path::new("/h/.codex/config.toml")]);
        assert_eq!(project_form.writes.get(1).and_then(|w| w.make.clone()), home);

        let mut refused = |_: &Path, path: &Path| {
            Err(agentwarden_doctor::init::InitError::Unreadable(
                agentwarden_doctor::untrusted::UntrustedError::NotPlain { path: path.display().to_string() },
            ))
        };
        let refusal = install(project, None, Some(PathBuf::from("/h")), "warden hook", 30, &mut refused);
        let why = refusal.map(|_| ()).map_err(|e| e.to_string());
        assert!(
            why.as_ref().is_err_and(
                |why| why.contains("/p/x/.codex/config.toml") && why.ends_with("; nothing written")
            ),
            "{why:?}"
        );
    }
}
