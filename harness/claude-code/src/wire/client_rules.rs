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

#[cfg(test)]
mod tests {
    use super::*;

    /// The files Claude Code reads its permission rules from, in its order (H-61, X-86): a place
    /// missing here is a deny or ask rule Warden would not see before a rewrite.
    #[test]
    fn the_settings_places_are_claude_codes_own() {
        let ClientRules::Settings { permission_mode, sources } = client_rules(Some("default".into())) else {
            panic!("Claude Code's rules are its settings files");
        };
        assert_eq!(permission_mode.as_deref(), Some("default"));
        let places: Vec<(&str, Option<&str>)> =
            sources.iter().map(|s| (s.place.as_str(), s.ending.as_deref())).collect();
        assert_eq!(
            places,
            [
                ("/etc/claude-code/managed-settings.json", None),
                ("/etc/claude-code/managed-settings.d", Some(".json")),
                ("~/.claude/settings.json", None),
                ("^/.claude/settings.json", None),
                ("^/.claude/settings.local.json", None),
            ]
        );
        assert!(sources.iter().all(|s| s.refusing.is_empty()), "the rules themselves are judged");
    }
}
