//! `warden init codex`: put Warden on a Codex CLI project's hook path (issue 36), in the
//! project's `.codex/config.toml` (the project trusted in Codex's home, without which Codex
//! ignores a project's configuration silently) or, with `--managed FILE`, as the hooks of
//! Codex's managed requirements with `allow_managed_hooks_only`; and make the guard protect its
//! own files and keep the store out of git, as `init claude-code` does (H-12, H-17).
//!
//! The installed line is `init claude-code`'s, built to fail closed the same way (H-6, H-9,
//! H-10): an absolute binary, the store and the configuration by absolute path (Codex runs hooks
//! in the project with no variable naming it), `hook --harness codex`, a deadline below Codex's
//! timeout, and the `|| exit 2` tail, which turns a missing binary or a crash into exit 2 with a
//! reason on stderr — the one failure Codex does not run the call on (C-1).
//!
//! C-8: what `init codex` cannot do. Codex runs a hook from a user or project file only once it
//! is trusted (its own review, or `--dangerously-bypass-hook-trust`); managed hooks are trusted.
//! `init` trusts the project (`[projects."PATH"] trust_level = "trusted"` in Codex's home) and
//! says that the hooks must be reviewed; the managed form is the deployment where an agent
//! running as the user can neither remove nor untrust them.

use std::io::Write;
use std::path::PathBuf;

use agentwarden_codex::setup::config::{self, EVENTS, PROTECTED_FILES, merge_hooks, trust_project};
use agentwarden_codex::setup::line::{deadline_for, hook_command};

use super::super::{EXIT_OK, Failure};
use super::{ByPath, ByPathArgs, ignore_store, read_text_file, write_atomically};

/// `warden init codex`'s options.
pub(super) struct Options {
    pub(super) project: Option<PathBuf>,
    pub(super) warden: Option<PathBuf>,
    pub(super) timeout: u64,
    pub(super) managed: Option<PathBuf>,
    pub(super) server: Option<PathBuf>,
    pub(super) server_uid: Option<u32>,
    pub(super) codex_home: Option<PathBuf>,
}

/// Codex's home: `--codex-home`, else `$CODEX_HOME`, else `~/.codex`.
fn codex_home(given: Option<PathBuf>) -> Result<PathBuf, Failure> {
    config::home(given, std::env::var_os(config::HOME_ENV), std::env::var_os("HOME"))
        .ok_or_else(|| Failure::usage("no Codex home: give --codex-home DIR (or set CODEX_HOME or HOME)"))
}

pub(super) fn init(options: Options, lock_ms: u64, out: &mut dyn Write) -> Result<u8, Failure> {
    let Options { project, warden, timeout, managed, server, server_uid, codex_home: home } = options;
    let ByPath { project, config_path, new_config, added, own, deadline, command } =
        ByPath::prepare(ByPathArgs {
            project,
            warden,
            server,
            server_uid,
            lock_ms,
            deadline: deadline_for(timeout, lock_ms),
            guide: "docs/codex.md",
            files: ("Codex's configuration", &PROTECTED_FILES),
            line: hook_command,
        })?;
    let target = managed.clone().unwrap_or_else(|| project.join(config::PROJECT_FILE));
    let text = read_text_file(&project, &target)?.unwrap_or_default();
    let merged = merge_hooks(&text, &command, timeout, managed.is_some())
        .map_err(|e| Failure::usage(format!("`{}`: {e}; nothing written", target.display())))?;
    // Without a managed file, the project must be trusted in Codex's home or its hooks are
    // skipped silently.
    let trust = match &managed {
        Some(_) => None,
        None => {
            let home = codex_home(home)?;
            let file = home.join(config::HOME_FILE);
            let text = read_text_file(&home, &file)?.unwrap_or_default();
            let trusted = trust_project(&text, &project)
                .map_err(|e| Failure::usage(format!("`{}`: {e}; nothing written", file.display())))?;
            Some((home, file, trusted))
        }
    };

    if !added.is_empty() {
        write_atomically(&project, &config_path, &new_config)?;
    }
    write_atomically(&project, &target, &merged)?;
    let events = EVENTS.join(", ");
    match (&managed, &trust) {
        (Some(file), _) => {
            writeln!(
                out,
                "wrote Codex's managed hooks to {} ({events}; timeout {timeout} s; allow_managed_hooks_only)",
                file.display()
            )?;
            writeln!(
                out,
                "  an administrator installs it: sudo install -D -o root -m 644 {} {}",
                file.display(),
                config::MANAGED_FILE
            )?;
        }
        (None, Some((home, file, trusted))) => {
            std::fs::create_dir_all(home)
                .map_err(|e| Failure::usage(format!("`{}`: {e}", home.display())))?;
            write_atomically(home, file, trusted)?;
            writeln!(out, "merged Warden's hooks into {} ({events}; timeout {timeout} s)", target.display())?;
            writeln!(out, "  trusted the project in {}", file.display())?;
            writeln!(
                out,
                "  Codex runs them once you trust them (review the hooks in Codex); for hooks an agent cannot \
                 remove, use --managed (docs/codex.md)"
            )?;
        }
        (None, None) => {}
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
         `warden doctor --harness codex --project {}`, then run Codex with AGENTWARDEN_ENABLE_SUBAGENTS=true",
        project.display()
    )?;
    Ok(EXIT_OK)
}
