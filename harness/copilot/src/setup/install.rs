//! `warden init copilot`: Warden's hook file in the project's `.github/hooks/agentwarden.json`,
//! or with `--user` in the user's hooks folder (`$COPILOT_HOME/hooks`, else
//! `~/.copilot/hooks`), which Copilot loads with no trust step (H-70). The command line prepares
//! the line and protects the guard's own files; this says what to write. The file is Warden's
//! own: written whole, whatever it held.

use std::path::{Path, PathBuf};

use agentwarden_doctor::init::{InitOptions, InitPlaces, Prepared};
use agentwarden_doctor::{FileWrite, InstallError, Installing, Read};

use crate::setup::hooks::{self, EVENTS, hook_file};

/// Write Warden's hooks to the project's `.github/hooks/agentwarden.json` (or the user's
/// hooks folder) and add the guard's own files to `[guardrails] protected`.
#[derive(Debug, clap::Args)]
pub struct InitArgs {
    // `--project` and `--warden`, as every harness's `init` takes them.
    #[command(flatten)]
    places: InitPlaces,
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
}

impl InitOptions for InitArgs {
    fn places(&self) -> &InitPlaces {
        &self.places
    }

    fn timeout(&self) -> u64 {
        self.timeout
    }

    /// The managed plugin at `--managed DIR` (H-75), else the hook file.
    fn install(&self, prepared: &Prepared, read: Read<'_>) -> Result<Installing, InstallError> {
        let (project, command) = (&prepared.project, &prepared.command);
        match &self.managed {
            Some(dir) => super::managed::install(dir, project, command, self.timeout, read),
            None => install(project, self.user, command, self.timeout, read),
        }
    }
}

/// What `warden init copilot` writes and says for the hook line `command` with Copilot's
/// `timeout` (seconds): the user's hook file when `user`, else the project's. `Err` says why
/// nothing is written.
pub fn install(
    project: &Path,
    user: bool,
    command: &str,
    timeout: u64,
    read: Read<'_>,
) -> Result<Installing, InstallError> {
    let home = match user {
        false => None,
        true => {
            Some(hooks::copilot_home(std::env::var_os(hooks::HOME_ENV), std::env::var_os("HOME")).ok_or(
                InstallError::NoPlace {
                    what: "user hooks folder",
                    fix: "set COPILOT_HOME or HOME, or install in the project",
                },
            )?)
        }
    };
    let (root, target) = match &home {
        Some(home) => (home.clone(), home.join("hooks").join(hooks::FILE_NAME)),
        None => (project.to_path_buf(), project.join(hooks::PROJECT_FILE)),
    };
    // Read only to refuse a file that is there and not Warden's own (a hand-written one).
    if let Some(text) = read(&root, &target)?
        && !text.trim().is_empty()
    {
        let entries = hooks::read_all(&text).map_err(|e| InstallError::file(&target, e))?;
        if entries.iter().any(|e| !e.ours) {
            return Err(InstallError::ForeignHooks { file: target });
        }
    }
    let events = EVENTS.join(", ");
    let said = match home {
        Some(_) => vec![
            format!(
                "wrote Warden's hooks to the user's {} ({events}; timeout {timeout} s)",
                target.display()
            ),
            "  Copilot loads them in every project with no trust step; an agent running as you can edit \
             them (docs/copilot.md)"
                .to_owned(),
        ],
        None => vec![
            format!("wrote Warden's hooks to {} ({events}; timeout {timeout} s)", target.display()),
            "  Copilot reads a project's hooks only once the folder is trusted; `--user` installs them where \
             no trust is needed (docs/copilot.md)"
                .to_owned(),
        ],
    };
    let next = format!(
        "next: commit these files, seal and approve (`warden seal`, `warden approve`), check with \
         `warden doctor --harness copilot --project {}`, then run Copilot with AGENTWARDEN_ENABLE_SUBAGENTS=true",
        project.display()
    );
    let make = target.parent().map(Path::to_path_buf);
    Ok(Installing {
        writes: vec![FileWrite { root, path: target, text: hook_file(command, timeout), make }],
        said,
        next,
        ..Installing::default()
    })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::install;

    /// The project's form writes `.github/hooks/agentwarden.json`, its folder made first; a file
    /// there with another hook is refused.
    #[test]
    fn the_project_file_is_written_and_a_foreign_one_refused() {
        let project = Path::new("/p/x");
        let mut none = |_: &Path, _: &Path| Ok(None);
        let plan = install(project, false, "warden hook", 30, &mut none).unwrap_or_default();
        let write = plan.writes.first();
        assert_eq!(write.map(|w| w.path.as_path()), Some(Path::new("/p/x/.github/hooks/agentwarden.json")));
        assert_eq!(write.and_then(|w| w.make.as_deref()), Some(Path::new("/p/x/.github/hooks")));
        assert!(plan.next.contains("warden doctor --harness copilot --project /p/x"));
        let mut foreign = |_: &Path, _: &Path| {
            Ok(Some(
                r#"{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "lint"}]}}"#
                    .to_owned(),
            ))
        };
        assert!(install(project, false, "warden hook", 30, &mut foreign).is_err());
    }
}
