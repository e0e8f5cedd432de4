//! `warden init gemini`: Warden's hooks in a Gemini CLI project's `.gemini/settings.json`, the
//! user's settings (`--user`) or, with `--system FILE`, a system settings file for an
//! administrator to install (N-14). The command line prepares the line and protects the guard's
//! own files; this reads Gemini's settings through the reader it is handed and says what to
//! write.

use std::path::{Path, PathBuf};

use agentwarden_doctor::init::{InitOptions, InitPlaces, Prepared};
use agentwarden_doctor::{FileWrite, InstallError, Installing, Read};

use crate::setup::settings::{self, EVENTS, merge_hooks};

/// Merge Warden's hooks into the project's `.gemini/settings.json` (other keys are kept) and
/// add the guard's own files to `[guardrails] protected`.
#[derive(Debug, clap::Args)]
pub struct InitArgs {
    // `--project` and `--warden`, as every harness's `init` takes them.
    #[command(flatten)]
    places: InitPlaces,
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
}

impl InitOptions for InitArgs {
    fn places(&self) -> &InitPlaces {
        &self.places
    }

    fn timeout(&self) -> u64 {
        self.timeout
    }

    fn install(&self, prepared: &Prepared, read: Read<'_>) -> Result<Installing, InstallError> {
        install(&prepared.project, self.system.as_deref(), self.user, &prepared.command, self.timeout, read)
    }
}

/// What `warden init gemini` writes and says for the hook line `command` with Gemini's
/// `timeout` (seconds; written in milliseconds): the system settings at `system`, else the
/// user's settings when `user`, else the project's. `Err` says why nothing is written.
pub fn install(
    project: &Path,
    system: Option<&Path>,
    user: bool,
    command: &str,
    timeout: u64,
    read: Read<'_>,
) -> Result<Installing, InstallError> {
    let user_file = match user {
        false => None,
        true => {
            Some(settings::user_file(std::env::var_os(settings::HOME_ENV), std::env::var_os("HOME")).ok_or(
                InstallError::NoPlace {
                    what: "user settings",
                    fix: "set GEMINI_CLI_HOME or HOME, or install in the project",
                },
            )?)
        }
    };
    let target = system
        .map(Path::to_path_buf)
        .or_else(|| user_file.clone())
        .unwrap_or_else(|| project.join(settings::PROJECT_FILE));
    let text = read(project, &target)?.unwrap_or_default();
    let merged = merge_hooks(&text, command, timeout.saturating_mul(1000))
        .map_err(|e| InstallError::file(&target, e))?;
    let events: Vec<&str> = EVENTS.iter().map(|(event, _)| *event).collect();
    let events = events.join(", ");
    let said = match system {
        Some(file) => vec![
            format!("wrote Gemini CLI's system hooks to {} ({events}; timeout {timeout} s)", file.display()),
            format!(
                "  an administrator installs it: sudo install -D -o root -m 644 {} {} (no group- or \
                 other-writable directory on its path, or Gemini skips it)",
                file.display(),
                settings::SYSTEM_FILE
            ),
        ],
        None if user => vec![
            format!(
                "merged Warden's hooks into the user's {} ({events}; timeout {timeout} s)",
                target.display()
            ),
            "  they run in every project; an agent running as you can edit them: for hooks it cannot \
             remove, use --system (docs/gemini.md)"
                .to_owned(),
        ],
        None => vec![
            format!("merged Warden's hooks into {} ({events}; timeout {timeout} s)", target.display()),
            "  Gemini reads a project's settings only in a trusted folder; for hooks an agent cannot \
             remove, use --system (docs/gemini.md)"
                .to_owned(),
        ],
    };
    let next = format!(
        "next: commit these files, seal and approve (`warden seal`, `warden approve`), check with \
         `warden doctor --harness gemini --project {}`, then run Gemini with AGENTWARDEN_ENABLE_SUBAGENTS=true",
        project.display()
    );
    let make = target.parent().map(Path::to_path_buf);
    Ok(Installing {
        writes: vec![FileWrite { root: project.to_path_buf(), path: target, text: merged, make }],
        said,
        next,
        ..Installing::default()
    })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::install;

    /// The system form writes the file given, the project's form the project's settings, each
    /// with its folder made first; the timeout is written in milliseconds.
    #[test]
    fn the_form_chooses_the_file_and_its_folder_is_made_first() {
        let project = Path::new("/p/x");
        let mut none = |_: &Path, _: &Path| Ok(None);
        let system = install(project, Some(Path::new("/tmp/s.json")), false, "warden hook", 30, &mut none);
        let system = system.unwrap_or_default();
        let write = system.writes.first();
        assert_eq!(write.map(|w| w.path.as_path()), Some(Path::new("/tmp/s.json")));
        assert_eq!(write.and_then(|w| w.make.as_deref()), Some(Path::new("/tmp")));
        assert!(write.is_some_and(|w| w.text.contains("30000")), "{system:?}");

        let in_project = install(project, None, false, "warden hook", 30, &mut none).unwrap_or_default();
        let write = in_project.writes.first();
        assert_eq!(write.map(|w| w.path.as_path()), Some(Path::new("/p/x/.gemini/settings.json")));
        assert!(in_project.next.contains("warden doctor --harness gemini --project /p/x"));
    }
}
