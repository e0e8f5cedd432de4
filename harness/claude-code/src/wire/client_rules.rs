//! Where Claude Code reads its own permission rules, as Warden reads them before it hands Claude
//! Code a confined call (H-61, X-86): Claude Code judges its rules against the input a hook hands
//! back, so Warden judges the command as sent against the same files first. Which files those are
//! is this integration's knowledge; the application only reads and judges them.

use agentwarden_domain::sessions::{ClientRules, RuleSource};

/// Claude Code's settings files, in the order it reads them: the managed file, the managed
/// folder's `.json` files (by name), the user's, the project's and the project's local one (at
/// the project's root alone: `^/`).
pub const SETTINGS_PLACES: [(&str, Option<&str>); 5] = [
    ("/etc/claude-code/managed-settings.json", None),
    ("/etc/claude-code/managed-settings.d", Some(".json")),
    ("~/.claude/settings.json", None),
    ("^/.claude/settings.json", None),
    ("^/.claude/settings.local.json", None),
];

/// Claude Code's own rules for a shell call run in `permission_mode`, as Warden reads them
/// before a rewrite (H-61).
pub fn client_rules(permission_mode: Option<String>) -> ClientRules {
    let sources = SETTINGS_PLACES
        .iter()
        .map(|(place, ending)| RuleSource {
            place: (*place).to_owned(),
            ending: ending.map(str::to_owned),
            refusing: Vec::new(),
        })
        .collect();
    ClientRules::Settings { permission_mode, sources }
}
