//! `warden init gemini`: put Warden on a Gemini CLI project's hook path (issue 40), in the
//! project's `.gemini/settings.json` or, with `--system FILE`, in a system settings file for an
//! administrator to install as `/etc/gemini-cli/settings.json`; and make the guard protect its
//! own files and keep the store out of git, as `init codex` does (H-12, H-17).
//!
//! The installed line is `init codex`'s, built to fail closed the same way (H-6, H-9, H-10): an
//! absolute binary, the store and the configuration by absolute path, `hook --harness gemini`,
//! a deadline below Gemini's timeout (Warden answers and exits before it, so nothing is left on
//! the pipes when Gemini kills the shell), and the `|| exit 2` tail, which turns a missing
//! binary or a crash into exit 2 with a reason on stderr — the one failure Gemini does not run
//! the call on (M-1). Gemini reads a project's settings only in a trusted folder, and a user's
//! settings can switch a hook off by name (`hooksConfig.disabled`): `warden doctor --harness
//! gemini` says both; the system form is the deployment an agent running as the user cannot
//! edit (docs/gemini.md).

use std::io::Write;
use std::path::PathBuf;

use agentwarden_gemini::setup::line::{deadline_for, hook_command};
use agentwarden_gemini::setup::settings::{self, EVENTS, PROTECTED_FILES, merge_hooks};

use super::super::{EXIT_OK, Failure};
use super::{ByPath, ByPathArgs, ignore_store, read_text_file, write_atomically};

/// `warden init gemini`'s options.
pub(super) struct Options {
    pub(super) project: Option<PathBuf>,
    pub(super) warden: Option<PathBuf>,
    pub(super) timeout: u64,
    pub(super) system: Option<PathBuf>,
    pub(super) user: bool,
    pub(super) server: Option<PathBuf>,
    pub(super) server_uid: Option<u32>,
}

pub(super) fn init(options: Options, lock_ms: u64, out: &mut dyn Write) -> Result<u8, Failure> {
    let Options { project, warden, timeout, system, user, server, server_uid } = options;
    let ByPath { project, config_path, new_config, added, own, deadline, command } =
        ByPath::prepare(ByPathArgs {
            project,
            warden,
            server,
            server_uid,
            lock_ms,
            deadline: deadline_for(timeout, lock_ms),
            guide: "docs/gemini.md",
            files: ("Gemini CLI's settings", &PROTECTED_FILES),
            line: hook_command,
        })?;
    let user_file = match user {
        false => None,
        true => Some(
            settings::user_file(std::env::var_os(settings::HOME_ENV), std::env::var_os("HOME")).ok_or_else(
                || Failure::usage("no user settings: set GEMINI_CLI_HOME or HOME, or install in the project"),
            )?,
        ),
    };
    let target =
        system.clone().or_else(|| user_file.clone()).unwrap_or_else(|| project.join(settings::PROJECT_FILE));
    let text = read_text_file(&project, &target)?.unwrap_or_default();
    let merged = merge_hooks(&text, &command, timeout.saturating_mul(1000))
        .map_err(|e| Failure::usage(format!("`{}`: {e}; nothing written", target.display())))?;

    if !added.is_empty() {
        write_atomically(&project, &config_path, &new_config)?;
    }
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| Failure::usage(format!("`{}`: {e}", parent.display())))?;
    }
    write_atomically(&project, &target, &merged)?;
    let events: Vec<&str> = EVENTS.iter().map(|(event, _)| *event).collect();
    let events = events.join(", ");
    match &system {
        Some(file) => {
            writeln!(
                out,
                "wrote Gemini CLI's system hooks to {} ({events}; timeout {timeout} s)",
                file.display()
            )?;
            writeln!(
                out,
                "  an administrator installs it: sudo install -D -o root -m 644 {} {} (no group- or \
                 other-writable directory on its path, or Gemini skips it)",
                file.display(),
                settings::SYSTEM_FILE
            )?;
        }
        None if user => {
            writeln!(
                out,
                "merged Warden's hooks into the user's {} ({events}; timeout {timeout} s)",
                target.display()
            )?;
            writeln!(
                out,
                "  they run in every project; an agent running as you can edit them: for hooks it cannot \
                 remove, use --system (docs/gemini.md)"
            )?;
        }
        None => {
            writeln!(out, "merged Warden's hooks into {} ({events}; timeout {timeout} s)", target.display())?;
            writeln!(
                out,
                "  Gemini reads a project's settings only in a trusted folder; for hooks an agent cannot \
                 remove, use --system (docs/gemini.md)"
            )?;
        }
    }
    writeln!(out, "  command: {command}")?;
    writeln!(out, "  deadline: {deadline} ms (lock wait {lock_ms} ms)")?;
    if added.is_empty() {
        writeln!(out, "`[guardrails] protected` already covers {}", own.join(", "))?;
    } else {
        writeln!(out, "`[guardrails] protected` += {}", added.join(", "))?;
    }
    ignore_store(&project, out)?;
    writeln!(
        out,
        "next: commit these files, seal and approve (`warden seal`, `warden approve`), check with \
         `warden doctor --harness gemini --project {}`, then run Gemini with AGENTWARDEN_ENABLE_SUBAGENTS=true",
        project.display()
    )?;
    Ok(EXIT_OK)
}
