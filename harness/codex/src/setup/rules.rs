//! Codex's own command rules beside Warden's confinement (C-21, C-22): where Codex reads its exec
//! policy, which of its rules files Warden cannot honour behind the launcher, and the sandbox
//! its configuration asks for.
//!
//! Codex judges its exec policy (`prefix_rule(pattern, decision)` lines in each configuration
//! layer's `rules/*.rules`) on the input a `PreToolUse` hook hands back, not the model's (held
//! against the pinned client: `tests/tests/codex_real/rewrite.rs`). Behind `warden-confine` a
//! rule sees the launcher: a `forbidden` or `prompt` rule would stop applying, an `allow` rule
//! would only stop taking the call out of Codex's sandbox (narrower). So a file that mentions a
//! refusing decision at all, read as text and not parsed, stops the rewrite (C-22).

use std::path::{Path, PathBuf};

use super::config::PROJECT_FILE;
use super::places::SYSTEM_DIR;
use agentwarden_protocol::settings_file::SettingsError;

/// The folder of a configuration layer that holds its exec-policy files.
pub const RULES_DIR: &str = "rules";
/// The ending of an exec-policy file Codex loads.
pub const RULES_EXTENSION: &str = "rules";
/// The decisions of Codex's exec policy that refuse or ask: behind the launcher they would not
/// apply (C-22).
pub use crate::wire::client_rules::REFUSING;
/// The only `sandbox_mode` beside which Warden's launcher can make its namespaces (C-21).
pub const CONFINABLE_SANDBOX: &str = "danger-full-access";

/// Every folder Codex reads exec-policy files from: the system layer's, the user's layer in
/// `codex_home` (when it is known), and each project layer's of `project_layers` (outermost
/// first), each once.
pub fn rules_dirs(codex_home: Option<&Path>, project_layers: &[PathBuf]) -> Vec<PathBuf> {
    let dot_codex = |project: &PathBuf| {
        project.join(PROJECT_FILE).parent().map_or_else(|| project.join(".codex"), Path::to_path_buf)
    };
    let mut dirs = vec![Path::new(SYSTEM_DIR).join(RULES_DIR)];
    dirs.extend(codex_home.map(|home| home.join(RULES_DIR)));
    dirs.extend(project_layers.iter().map(|p| dot_codex(p).join(RULES_DIR)));
    let mut seen = Vec::new();
    dirs.retain(|dir| {
        let first = !seen.contains(dir);
        seen.push(dir.clone());
        first
    });
    dirs
}

/// Whether the file name `name` is one Codex loads as an exec policy (`*.rules`).
pub fn is_rules_file(name: &str) -> bool {
    name.strip_suffix(RULES_EXTENSION).is_some_and(|stem| stem.len() > 1 && stem.ends_with('.'))
}

/// Whether an exec-policy file's `text` may hold a rule that refuses or asks: any mention of
/// [`REFUSING`]'s words, in a rule, a string or a comment (C-22). Read as text, never parsed, so
/// that no spelling of a decision Warden does not know gets past it.
pub fn refuses(text: &str) -> bool {
    REFUSING.iter().any(|word| text.contains(word))
}

/// The `sandbox_mode` a Codex configuration's `text` sets at its top level: `Ok(None)` when it
/// sets none, an error that says why when the text is not TOML or the mode is not a string.
pub fn sandbox_mode(text: &str) -> Result<Option<String>, SettingsError> {
    let document: toml_edit::DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| {
        SettingsError::NotValidConfiguration { format: "TOML", detail: e.to_string() }
    })?;
    match document.get("sandbox_mode") {
        None => Ok(None),
        Some(mode) => mode
            .as_str()
            .map(|m| Some(m.to_owned()))
            .ok_or_else(|| SettingsError::NotAString { key: "sandbox_mode".to_owned() }),
    }
}

/// Why the sandbox the configurations' `modes` (each file's, in the order Codex layers them,
/// the last one set winning) leave in force keeps the launcher from running (C-21): `None` only
/// when the one in force is [`CONFINABLE_SANDBOX`]; none set is Codex's own default sandbox.
pub fn sandbox_refusing_launcher(modes: &[Option<String>]) -> Option<String> {
    match modes.iter().rev().find_map(Option::as_deref) {
        Some(CONFINABLE_SANDBOX) => None,
        Some(other) => Some(format!("`sandbox_mode = \"{other}\"`")),
        None => Some("no `sandbox_mode`: Codex's default sandbox".to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_layer_has_its_rules_folder_once() {
        let layers = [PathBuf::from("/p"), PathBuf::from("/p/sub")];
        let dirs: Vec<String> =
            rules_dirs(Some(Path::new("/h")), &layers).iter().map(|d| d.display().to_string()).collect();
        assert_eq!(dirs, ["/etc/codex/rules", "/h/rules", "/p/.codex/rules", "/p/sub/.codex/rules"]);
        let home_in_project = rules_dirs(Some(Path::new("/p/.codex")), &[PathBuf::from("/p")]);
        assert_eq!(
            home_in_project.len(),
            2,
            "the home that is a project layer is read once: {home_in_project:?}"
        );
    }

    #[test]
    fn only_dot_rules_files_are_codexs() {
        for (name, expected) in [
            ("default.rules", true),
            ("a.b.rules", true),
            (".rules", false),
            ("rules", false),
            ("default.rules.bak", false),
            ("defaultrules", false),
        ] {
            assert_eq!(is_rules_file(name), expected, "{name}");
        }
    }

    /// Table (C-22): any mention of a refusing decision stops the rewrite; `allow` rules alone,
    /// and a rule without a decision (Codex's default is `allow`), do not.
    #[test]
    fn a_file_that_mentions_a_refusing_decision_refuses() {
        let rows = [
            ("prefix_rule(pattern = [\"git\", \"push\"], decision = \"forbidden\")", true, "forbidden"),
            ("prefix_rule(pattern = [\"gh\"], decision = \"prompt\")", true, "prompt"),
            ("prefix_rule(pattern=['rm'],decision='forbidden')", true, "single quotes, no spaces"),
            ("# decision = \"forbidden\" one day\n", true, "a comment counts"),
            ("prefix_rule(pattern = [\"ls\"], decision = \"allow\")", false, "allow alone"),
            ("prefix_rule(pattern = [\"ls\"])", false, "no decision: allow"),
            ("", false, "empty"),
        ];
        for (text, expected, why) in rows {
            assert_eq!(refuses(text), expected, "{why}");
        }
    }

    /// Table (C-21): only `danger-full-access` in force lets the launcher make its namespaces; the
    /// last file that sets a mode wins, and none set is Codex's default sandbox.
    #[test]
    fn a_sandbox_beside_the_launcher_is_named() {
        let dfa = || Some("danger-full-access".to_owned());
        let ws = || Some("workspace-write".to_owned());
        let rows: [(Vec<Option<String>>, bool); 6] = [
            (vec![dfa()], false),
            (vec![ws(), dfa()], false),
            (vec![dfa(), ws()], true),
            (vec![dfa(), None], false),
            (vec![None, None], true),
            (vec![], true),
        ];
        for (modes, named) in rows {
            assert_eq!(sandbox_refusing_launcher(&modes).is_some(), named, "{modes:?}");
        }
        assert_eq!(sandbox_mode("sandbox_mode = \"read-only\"").unwrap().as_deref(), Some("read-only"));
        assert_eq!(sandbox_mode("model = \"m\"\n[profiles.x]\nsandbox_mode = \"read-only\""), Ok(None));
        assert!(sandbox_mode("sandbox_mode = 1").is_err());
        assert!(sandbox_mode("sandbox_mode = ").is_err_and(|e| e.to_string().contains("not valid TOML")));
    }
}
