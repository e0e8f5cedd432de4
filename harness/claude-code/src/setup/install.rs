//! `warden init claude-code`: Warden's hooks merged into the project's `.claude/settings.json`
//! (every other key kept) or, with `--managed FILE`, written with `allowManagedHooksOnly` to a
//! managed-settings drop-in for an administrator to install (H-11, H-13), with Claude Code's own
//! deny rules for the human verbs and the guard's files (K-12, K-13). The command line prepares
//! the line and the rules and protects the guard's own files; this reads the settings through the
//! reader it is handed and says what to write (N-14, N-17), as `init codex` and `init gemini` do.
//!
//! H-6: Claude Code has no fail-closed switch for command hooks: a hook that times out, or
//! exits with anything but 2, lets the call run. So the installed line is built to fail closed
//! ([`line`](super::line): absolute binary, `|| exit 2` tail, a deadline below the timeout),
//! `init` refuses a timeout without margin over the lock wait, and Warden itself turns every
//! internal failure into exit 2.
//!
//! H-13: `init claude-code --managed FILE` writes the hooks, with `"allowManagedHooksOnly":
//! true`, to FILE instead of the project's settings, for an administrator to install where an
//! agent running as the user cannot write (on Linux `/etc/claude-code/managed-settings.json`,
//! or a drop-in in `/etc/claude-code/managed-settings.d/`). Claude Code then runs only managed
//! hooks: an edit of `.claude/settings.json` cannot remove Warden's from the next session. The
//! line names `$CLAUDE_PROJECT_DIR/agentwarden.toml`, so on such a machine every project Claude
//! Code opens must have one: a project without it gets exit 2, every governed call blocked.

use std::path::{Path, PathBuf};

use agentwarden_doctor::init::{CONFIG_FILE, InitOptions, InitPlaces, Prepared};
use agentwarden_doctor::{FileWrite, InstallError, Installing, Protecting, Read};
use serde_json::{Map, Value};

use crate::setup::settings::{self, EVENTS, add_deny_rules, merge_hooks};

/// Merge Warden's hook entries into `.claude/settings.json` (other keys are kept), and add
/// the guard's own files to `[guardrails] protected`.
#[derive(Debug, clap::Args)]
pub struct InitArgs {
    // `--project` and `--warden`, as every harness's `init` takes them.
    #[command(flatten)]
    places: InitPlaces,
    /// Claude Code's timeout for each hook call, in seconds: at least the lock wait
    /// (`--lock-timeout-ms`) plus 3 s.
    #[arg(long, default_value_t = 30, value_name = "SECONDS")]
    timeout: u64,
    /// Write the hooks with `allowManagedHooksOnly` to FILE, a managed-settings drop-in
    /// for an administrator to install (e.g. in `/etc/claude-code/managed-settings.d/`),
    /// instead of merging them into `.claude/settings.json`.
    #[arg(long, value_name = "FILE")]
    managed: Option<PathBuf>,
}

impl InitOptions for InitArgs {
    fn places(&self) -> &InitPlaces {
        &self.places
    }

    fn timeout(&self) -> u64 {
        self.timeout
    }

    /// The settings planned with Claude Code's deny rules (K-13) for the prepared project, its
    /// configuration's key list and binary; said after the line: a client line's slower start
    /// when no `warden-hook` is beside `warden` (V-34), then the rules.
    fn install(&self, prepared: &Prepared, read: Read<'_>) -> Result<Installing, InstallError> {
        let signers = prepared.config.allowed_signers.as_deref();
        let rules = deny_rules(&prepared.project, signers, Some(&prepared.exe));
        let (mut installing, rules_said) = install(
            &prepared.project,
            self.managed.as_deref(),
            &prepared.command,
            self.timeout,
            &rules,
            read,
        )?;
        if prepared.served && prepared.hook_binary.is_none() {
            installing.noted.push(format!(
                "  (no `warden-hook` beside `{}`: the client is `warden hook`, which starts slower)",
                prepared.exe.display()
            ));
        }
        installing.noted.push(rules_said);
        installing.protecting = Protecting::InFile;
        Ok(installing)
    }
}

/// Every rule `init claude-code` puts in `permissions.deny`: the human verbs by name and by
/// the installed binary's path `exe`, when known (`settings::human_verb_rules`, K-12, K-18),
/// and `Edit` rules for the store directory (`.agentwarden`), `agentwarden.toml` and, when
/// configured, `allowed_signers`, each from the filesystem root (`settings::edit_rule`) (K-13).
pub fn deny_rules(project: &Path, allowed_signers: Option<&Path>, exe: Option<&Path>) -> Vec<String> {
    // `path` from the filesystem root, through any link, for a rule of Claude Code's.
    let rule_path = |path: &Path| {
        std::fs::canonicalize(path)
            .or_else(|_| std::path::absolute(path))
            .unwrap_or_else(|_| path.to_path_buf())
    };
    let mut rules = settings::human_verb_rules(exe);
    rules.push(settings::edit_rule(&rule_path(&project.join(".agentwarden")), true));
    rules.push(settings::edit_rule(&rule_path(&project.join(CONFIG_FILE)), false));
    if let Some(signers) = allowed_signers {
        rules.push(settings::edit_rule(&rule_path(signers), false));
    }
    rules
}

/// What `warden init claude-code` writes and says for the hook line `command` with Claude Code's
/// `timeout` (seconds) and the deny rules `rules`: the drop-in at `managed`, else the project's
/// settings. Beside the plan, the line that says how many rules were added, which the command
/// line prints after the hook line. `Err` says why nothing is written.
pub fn install(
    project: &Path,
    managed: Option<&Path>,
    command: &str,
    timeout: u64,
    rules: &[String],
    read: Read<'_>,
) -> Result<(Installing, String), InstallError> {
    let target = managed.map_or_else(|| project.join(settings::PROJECT_FILE), Path::to_path_buf);
    let mut settings = match read(project, &target)? {
        None => Map::new(),
        Some(text) => match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(map)) => map,
            Ok(_) => return Err(InstallError::NotAnObject { file: target }),
            Err(e) => return Err(InstallError::file(&target, e)),
        },
    };
    merge_hooks(&mut settings, command, timeout).map_err(|e| InstallError::file(&target, e))?;
    let denied = add_deny_rules(&mut settings, rules).map_err(|e| InstallError::file(&target, e))?;
    if managed.is_some() {
        settings.insert(settings::MANAGED_ONLY.into(), Value::Bool(true));
    }
    let mut text = serde_json::to_string_pretty(&Value::Object(settings))
        .map_err(|e| InstallError::Encode(Box::new(e)))?;
    text.push('\n');
    let events = EVENTS
        .iter()
        .map(|(event, matcher)| matcher.map_or_else(|| (*event).to_owned(), |m| format!("{event} {m}")))
        .collect::<Vec<_>>()
        .join(", ");
    let said = match managed {
        None => {
            vec![format!("merged Warden's hooks into {} ({events}; timeout {timeout} s)", target.display())]
        }
        Some(file) => vec![
            format!(
                "wrote a managed-settings drop-in to {} ({events}; timeout {timeout} s; allowManagedHooksOnly)",
                file.display()
            ),
            format!(
                "  an administrator installs it: sudo install -D -o root -m 644 {} /etc/claude-code/managed-settings.d/50-agentwarden.json",
                file.display()
            ),
        ],
    };
    // Claude Code's own rules, beside the hook (K-13).
    let rules_said = format!(
        "  permissions.deny: {denied} rule(s) added, {} in all for the human verbs and edits of the store, \
         the configuration and the key list",
        rules.len()
    );
    let next = format!(
        "next: commit these files, seal and approve (`warden seal`, `warden approve`), then run `warden doctor --project {}`",
        project.display()
    );
    let writes = vec![FileWrite { root: project.to_path_buf(), path: target, text, make: None }];
    Ok((Installing { writes, said, next, ..Installing::default() }, rules_said))
}
