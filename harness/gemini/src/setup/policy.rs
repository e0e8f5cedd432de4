//! Gemini CLI's own policy engine beside Warden's confinement (M-30): where Gemini reads policy
//! rules, and which of them Warden cannot honour behind the launcher.
//!
//! Gemini runs a `BeforeTool` hook first and judges its policy engine after, on the merged input
//! (held against the pinned client: `tests/tests/gemini_real/rewrite.rs`). Behind
//! `warden-confine` a rule that names a command sees the launcher: a `deny` or `ask_user` rule
//! would stop applying, an `allow` rule would only match less (narrower). So a policy file that
//! mentions a refusing decision at all, read as text and not parsed, stops the rewrite; so does
//! a settings file that excludes the shell by a command (`tools.exclude`), which Gemini turns
//! into such a rule.

use agentwarden_protocol::settings_file::SettingsError;
use serde_json::Value;

/// The user's policy folder, beneath Gemini's home (`~/.gemini`).
pub const USER_POLICIES: &str = ".gemini/policies";
/// The administrator's policy folder on Linux.
pub const ADMIN_POLICIES: &str = "/etc/gemini-cli/policies";
/// The ending of a policy file Gemini loads.
pub const POLICY_EXTENSION: &str = ".toml";
/// The decisions of Gemini's policy engine that refuse or ask: behind the launcher they would
/// not apply (M-30).
pub use crate::wire::client_rules::REFUSING;
/// The shell tool, as a settings file's `tools.exclude` names it.
pub const SHELL_TOOL: &str = "run_shell_command";

/// Whether a policy file's `text` may hold a rule that refuses or asks: any mention of
/// [`REFUSING`]'s words (M-30). Read as text, never parsed.
pub fn refuses(text: &str) -> bool {
    REFUSING.iter().any(|word| text.contains(word))
}

/// What a settings file's `text` adds to Gemini's policy: the files and folders its
/// `policyPaths` and `adminPolicyPaths` name (each read as the policy folders are), and whether
/// its `tools.exclude` names the shell (a refusing rule of its own). Text that is not JSON, or
/// a list that is not of strings, is an error that says why: the caller treats it as refusing.
pub fn settings_policy(text: &str) -> Result<(Vec<String>, bool), SettingsError> {
    let settings: Value = serde_json::from_str(text)
        .map_err(|e| SettingsError::NotValid { format: "JSON", detail: e.to_string() })?;
    let strings = |value: Option<&Value>, what: &str| -> Result<Vec<String>, SettingsError> {
        match value {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| {
                    item.as_str()
                        .map(str::to_owned)
                        .ok_or_else(|| SettingsError::NonString { key: what.to_owned() })
                })
                .collect(),
            Some(_) => Err(SettingsError::Shape { key: what.to_owned(), expected: "a list" }),
        }
    };
    let mut paths = strings(settings.get("policyPaths"), "policyPaths")?;
    paths.extend(strings(settings.get("adminPolicyPaths"), "adminPolicyPaths")?);
    let excluded = strings(settings.get("tools").and_then(|t| t.get("exclude")), "tools.exclude")?;
    let shell_excluded = excluded.iter().any(|tool| tool.contains(SHELL_TOOL) || tool.contains("ShellTool"));
    Ok((paths, shell_excluded))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Table (M-30): any mention of a refusing decision stops the rewrite; `allow` rules alone do
    /// not.
    #[test]
    fn a_policy_that_mentions_a_refusing_decision_refuses() {
        let rows = [
            (
                "[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = \"rm\"\ndecision = \"deny\"\n",
                true,
            ),
            ("[[rule]]\ntoolName = \"run_shell_command\"\ndecision = \"ask_user\"\n", true),
            ("# decision = \"deny\" later\n", true),
            (
                "[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = \"git\"\ndecision = \"allow\"\n",
                false,
            ),
            ("", false),
        ];
        for (text, expected) in rows {
            assert_eq!(refuses(text), expected, "{text}");
        }
    }

    #[test]
    fn a_settings_file_adds_its_policy_paths_and_its_shell_exclusions() {
        /// The settings' text, and the paths and shell exclusion read (`None`: refused).
        type Row<'a> = (&'a str, Option<(Vec<&'a str>, bool)>);
        let rows: [Row<'_>; 6] = [
            ("{}", Some((vec![], false))),
            (
                r#"{"policyPaths": ["/a"], "adminPolicyPaths": ["/b.toml"]}"#,
                Some((vec!["/a", "/b.toml"], false)),
            ),
            (r#"{"tools": {"exclude": ["run_shell_command(rm)"]}}"#, Some((vec![], true))),
            (r#"{"tools": {"exclude": ["web_fetch"]}}"#, Some((vec![], false))),
            (r#"{"policyPaths": "/a"}"#, None),
            ("{not json", None),
        ];
        for (text, expected) in rows {
            let got = settings_policy(text).ok();
            let expected = expected.map(|(paths, excluded)| {
                (paths.into_iter().map(str::to_owned).collect::<Vec<_>>(), excluded)
            });
            assert_eq!(got, expected, "{text}");
        }
    }
}
