//! Where the kill switch may come from (G-25): only the environment a human starts the harness
//! from. Each harness also loads files into its environment at start — Gemini CLI `.env` files,
//! Codex `$CODEX_HOME/.env`, Claude Code its settings' `env` key — and a hook inherits that
//! environment; the agent's shell can write every one of those files, so a kill switch set in one
//! enables the next session's spawns with no human involved. `init` protects the project's ones
//! (`PROTECTED_FILES` of each harness); `doctor` names every one that sets the variable.

use std::path::{Path, PathBuf};

use crate::integration::{EnvFile, Integration};

/// Whether the dotenv `text` sets `var`: a line `VAR=…`, `export VAR=…` or `VAR: …` (the forms
/// Gemini's and Codex's readers take), whatever the value.
pub fn dotenv_sets(text: &str, var: &str) -> bool {
    text.lines().any(|line| {
        let line = line.trim_start();
        let line = line.strip_prefix("export ").map_or(line, str::trim_start);
        line.strip_prefix(var).is_some_and(|rest| {
            let rest = rest.trim_start();
            rest.starts_with('=') || rest.starts_with(':')
        })
    })
}

/// Every file `harness` loads into its environment that sets `var` (G-25). A file that cannot
/// be read sets nothing here: it cannot be loaded either.
pub fn kill_switch_files(
    harness: &dyn Integration,
    project: &Path,
    home: Option<PathBuf>,
    var: &str,
) -> Vec<PathBuf> {
    let read = |file: &Path| agentwarden::files::read_text(None, file, agentwarden::MAX_INPUT_BYTES);
    harness
        .env_files(project, home)
        .into_iter()
        .filter_map(|file| match file {
            EnvFile::Dotenv(file) => read(&file).is_ok_and(|text| dotenv_sets(&text, var)).then_some(file),
            EnvFile::Settings(file) => {
                read(&file).is_ok_and(|text| harness.settings_set(&text, var)).then_some(file)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a dotenv line sets, as the harnesses' readers take it (G-25).
    #[test]
    fn dotenv_lines_that_set_the_switch() {
        let var = "AGENTWARDEN_ENABLE_SUBAGENTS";
        let table: [(&str, bool, &str); 10] = [
            ("AGENTWARDEN_ENABLE_SUBAGENTS=true", true, "the plain form"),
            ("AGENTWARDEN_ENABLE_SUBAGENTS = true", true, "spaces around `=`"),
            ("  export AGENTWARDEN_ENABLE_SUBAGENTS=\"true\"", true, "exported, quoted, indented"),
            ("AGENTWARDEN_ENABLE_SUBAGENTS: true", true, "the colon form dotenv takes"),
            ("AGENTWARDEN_ENABLE_SUBAGENTS=false", true, "any value: the file is the problem"),
            ("GEMINI_API_KEY=x\nAGENTWARDEN_ENABLE_SUBAGENTS=true\n", true, "among other lines"),
            ("# AGENTWARDEN_ENABLE_SUBAGENTS=true", false, "a comment"),
            ("AGENTWARDEN_ENABLE_SUBAGENTS_X=true", false, "a longer name"),
            ("X_AGENTWARDEN_ENABLE_SUBAGENTS=true", false, "another name ending in it"),
            ("", false, "empty"),
        ];
        for (text, sets, why) in table {
            assert_eq!(dotenv_sets(text, var), sets, "{why}: {text:?}");
        }
    }
}
