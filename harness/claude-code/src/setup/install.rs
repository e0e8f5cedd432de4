//! `warden init claude-code`: Warden's hooks merged into the project's `.claude/settings.json`
//! (every other key kept) or, with `--managed FILE`, written with `allowManagedHooksOnly` to a
//! managed-settings drop-in for an administrator to install (H-11, H-13), with Claude Code's own
//! deny rules for the human verbs and the guard's files (K-12, K-13). The command line prepares
//! the line and the rules and protects the guard's own files; this reads the settings through the
//! reader it is handed and says what to write (N-14, N-17), as `init codex` and `init gemini` do.

use std::path::Path;

use agentwarden_doctor::{FileWrite, Installing, Read};
use serde_json::{Map, Value};

use crate::setup::settings::{self, EVENTS, add_deny_rules, merge_hooks};

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
) -> Result<(Installing, String), String> {
    let target = managed.map_or_else(|| project.join(settings::PROJECT_FILE), Path::to_path_buf);
    let mut settings = match read(project, &target)? {
        None => Map::new(),
        Some(text) => match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(map)) => map,
            Ok(_) => return Err(format!("`{}` is not a JSON object; nothing written", target.display())),
            Err(e) => return Err(format!("`{}`: {e}; nothing written", target.display())),
        },
    };
    merge_hooks(&mut settings, command, timeout)
        .map_err(|e| format!("`{}`: {e}; nothing written", target.display()))?;
    let denied = add_deny_rules(&mut settings, rules)
        .map_err(|e| format!("`{}`: {e}; nothing written", target.display()))?;
    if managed.is_some() {
        settings.insert(settings::MANAGED_ONLY.into(), Value::Bool(true));
    }
    let mut text = serde_json::to_string_pretty(&Value::Object(settings))
        .map_err(|e| format!("cannot encode the settings: {e}"))?;
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
    Ok((Installing { writes, said, next }, rules_said))
}
