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

/// Why the sandbox that a Codex configuration's `text` asks for keeps the launcher from running
/// (C-21): `Some(mode)` for a `sandbox_mode` other than [`CONFINABLE_SANDBOX`], `None` when it is
/// that or is not set at the top level (Codex's own default is then its own business; doctor
/// names it only where it is written). Text that is not TOML is `Some` with why.
pub fn sandbox_refusing_launcher(text: &str) -> Option<String> {
    let document: toml_edit::DocumentMut = match text.parse() {
        Ok(document) => document,
        Err(e) => return Some(format!("a configuration that is not valid TOML ({e})")),
    };
    let mode = document.get("sandbox_mode")?;
    match mode.as_str() {
        Some(CONFINABLE_SANDBOX) => None,
        Some(other) => Some(format!("`sandbox_mode = \"{other}\"`")),
        None => Some("a `sandbox_mode` that is not a string".to_owned()),
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

    /// Table (C-21): only `danger-full-access`, or no top-level `sandbox_mode`, lets the launcher
    /// make its namespaces.
    #[test]
    fn a_sandbox_beside_the_launcher_is_named() {
        let rows = [
            ("sandbox_mode = \"danger-full-access\"", None),
            ("model = \"m\"", None),
            ("[profiles.x]\nsandbox_mode = \"read-only\"", None),
            ("sandbox_mode = \"workspace-write\"", Some("`sandbox_mode = \"workspace-write\"`")),
            ("sandbox_mode = \"read-only\"", Some("`sandbox_mode = \"read-only\"`")),
            ("sandbox_mode = 1", Some("a `sandbox_mode` that is not a string")),
        ];
        for (text, expected) in rows {
            assert_eq!(sandbox_refusing_launcher(text).as_deref(), expected, "{text}");
        }
        assert!(sandbox_refusing_launcher("sandbox_mode = ").is_some_and(|w| w.contains("not valid TOML")));
    }
}
