//! Where Gemini CLI reads its own command rules, as Warden reads them before it hands Gemini a
//! confined call (M-30): Gemini judges its policy engine on the merged input, so behind
//! `warden-confine` a `deny` or `ask_user` rule would not see the command. A policy file that
//! mentions either word, or a settings file that adds policies or excludes tools, stops the
//! rewrite.

use agentwarden_domain::sessions::{ClientRules, RuleSource};

/// The folders of the policy files of the user's and the administrator's tiers: the
/// administrator's on Linux, the user's beneath `~` or `$GEMINI_CLI_HOME` where it is set.
pub const POLICY_FOLDERS: [&str; 3] =
    ["/etc/gemini-cli/policies", "~/.gemini/policies", "$GEMINI_CLI_HOME/.gemini/policies"];
/// The ending of a policy file Gemini loads.
pub const POLICY_ENDING: &str = ".toml";
/// The decisions of Gemini's policy engine that refuse or ask.
pub const REFUSING: [&str; 2] = ["deny", "ask_user"];
/// The settings files Gemini merges: the system's, the user's, the project's (each folder from
/// the project's root down to the working directory).
pub const SETTINGS_FILES: [&str; 4] = [
    "/etc/gemini-cli/settings.json",
    "~/.gemini/settings.json",
    "$GEMINI_CLI_HOME/.gemini/settings.json",
    "./.gemini/settings.json",
];
/// The keys of a settings file that add policy files or exclude tools, as they are written in
/// its JSON (quoted): any mention stops the rewrite.
pub const SETTINGS_REFUSING: [&str; 3] = ["\"policyPaths\"", "\"adminPolicyPaths\"", "\"exclude\""];

/// Gemini's own rules for a shell call, as Warden reads them before a rewrite (M-30).
pub fn client_rules() -> ClientRules {
    let words = |list: &[&str]| list.iter().map(|w| (*w).to_owned()).collect::<Vec<String>>();
    let folders = POLICY_FOLDERS.iter().map(|place| RuleSource {
        place: (*place).to_owned(),
        ending: Some(POLICY_ENDING.to_owned()),
        refusing: words(&REFUSING),
    });
    let settings = SETTINGS_FILES.iter().map(|place| RuleSource {
        place: (*place).to_owned(),
        ending: None,
        refusing: words(&SETTINGS_REFUSING),
    });
    ClientRules::Files { sources: folders.chain(settings).collect() }
}
