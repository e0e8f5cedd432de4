//! Where Codex reads its own command rules, as Warden reads them before it hands Codex a confined
//! call (C-22): Codex judges its exec policy on the input a hook hands back, so behind
//! `warden-confine` a `forbidden` or `prompt` rule would not see the command. A rules file that
//! mentions either word stops the rewrite.

use agentwarden_domain::sessions::{ClientRules, RuleSource};

/// The folders of Codex's exec-policy files: the system's, the user's (`~/.codex`, or
/// `$CODEX_HOME` where it is set), and each project layer's `.codex` from the project's root down
/// to the working directory (`./`).
pub const RULES_FOLDERS: [&str; 4] =
    ["/etc/codex/rules", "~/.codex/rules", "$CODEX_HOME/rules", "./.codex/rules"];
/// The ending of an exec-policy file Codex loads.
pub const RULES_ENDING: &str = ".rules";
/// The decisions of Codex's exec policy that refuse or ask.
pub const REFUSING: [&str; 2] = ["forbidden", "prompt"];

/// Codex's own rules for a shell call, as Warden reads them before a rewrite (C-22).
pub fn client_rules() -> ClientRules {
    let refusing: Vec<String> = REFUSING.iter().map(|w| (*w).to_owned()).collect();
    let sources = RULES_FOLDERS
        .iter()
        .map(|place| RuleSource {
            place: (*place).to_owned(),
            ending: Some(RULES_ENDING.to_owned()),
            refusing: refusing.clone(),
        })
        .collect();
    ClientRules::Files { sources }
}
