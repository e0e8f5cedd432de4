//! The manifests' text (spec 003, issue 22: the domain owns manifest validation): TOML with one
//! `[agents.NAME]` table per agent type — `can_spawn` (names), `max_spawn_depth` (required), and
//! `tools` (tool rules, [`ToolRule`](super::ToolRule)'s syntax, T-1) — and nothing else (an unknown key is an error).
//! Every error carries the line it was found on; an agent type declared twice, in one text or
//! across the texts of one set, is an error naming where it was first declared. Reading the
//! files is the application's; this is what their bytes mean.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::model::{Manifest, Manifests};
use super::rules::ToolRule;
use crate::governance::Name;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    agents: BTreeMap<String, toml::Spanned<Entry>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    #[serde(default)]
    can_spawn: Vec<String>,
    max_spawn_depth: u64,
    #[serde(default)]
    tools: Vec<toml::Spanned<String>>,
}

/// Why a manifest text was refused, and on which line (1-based) when one is known.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ManifestError {
    /// The line, when the error has one.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

/// Manifests read from one or more texts, each agent type declared once across them all.
#[derive(Debug, Default)]
pub struct ManifestSet {
    manifests: Manifests,
    first: BTreeMap<Name, (String, usize)>,
}

fn line_at(text: &str, offset: usize) -> usize {
    text.get(..offset).unwrap_or("").matches('\n').count() + 1
}

fn at(line: usize, message: impl Into<String>) -> ManifestError {
    ManifestError { line: Some(line), message: message.into() }
}

impl ManifestSet {
    /// An empty set.
    pub fn new() -> ManifestSet {
        ManifestSet::default()
    }

    /// Adds the agent types of `text`, named `source` (a file's path) in the error of a later
    /// duplicate. All or nothing: on an error, nothing of `text` is added.
    pub fn add_text(&mut self, source: &str, text: &str) -> Result<(), ManifestError> {
        let file: File = toml::from_str(text).map_err(|e| ManifestError {
            line: e.span().map(|span| line_at(text, span.start)),
            message: e.message().to_owned(),
        })?;
        let mut parsed = Vec::with_capacity(file.agents.len());
        for (agent_type, entry) in file.agents {
            let line = line_at(text, entry.span().start);
            let entry = entry.into_inner();
            let agent_type = Name::new(&agent_type).map_err(|e| at(line, format!("agent type {e}")))?;
            if let Some((first_source, first_line)) = self.first.get(&agent_type) {
                return Err(at(
                    line,
                    format!(
                        "agent type `{agent_type}` is declared again (first in {first_source}:{first_line})"
                    ),
                ));
            }
            let can_spawn = entry
                .can_spawn
                .iter()
                .map(|t| Name::new(t).map_err(|e| at(line, format!("can_spawn: {e}"))))
                .collect::<Result<Vec<_>, _>>()?;
            // Each rule parsed here; one Warden cannot read exactly stops the load (T-1).
            let tools = entry
                .tools
                .iter()
                .map(|rule| {
                    ToolRule::parse(rule.get_ref())
                        .map_err(|e| at(line_at(text, rule.span().start), format!("tools: {e}")))
                })
                .collect::<Result<Vec<_>, _>>()?;
            parsed.push((
                agent_type,
                line,
                Manifest { can_spawn, max_spawn_depth: entry.max_spawn_depth, tools: tools.into() },
            ));
        }
        for (agent_type, line, manifest) in parsed {
            self.first.insert(agent_type.clone(), (source.to_owned(), line));
            self.manifests.insert(agent_type, manifest);
        }
        Ok(())
    }

    /// The manifests.
    pub fn into_manifests(self) -> Manifests {
        self.manifests
    }
}

/// The manifests of one text.
pub fn parse_manifest_text(source: &str, text: &str) -> Result<Manifests, ManifestError> {
    let mut set = ManifestSet::new();
    set.add_text(source, text)?;
    Ok(set.into_manifests())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manifest_is_read_with_its_rules() {
        let text = "[agents.planner]\ncan_spawn = [\"researcher\"]\nmax_spawn_depth = 2\ntools = [\"Read\", \"Bash(npm test:*)\"]\n";
        let manifests = parse_manifest_text("m.toml", text).unwrap();
        let planner = manifests.get(&Name::new("planner").unwrap()).unwrap();
        assert_eq!(planner.max_spawn_depth, 2);
        assert_eq!(planner.can_spawn, vec![Name::new("researcher").unwrap()]);
    }

    #[test]
    fn each_refusal_names_its_line() {
        let cases: [(&str, usize, &str); 5] = [
            ("[agents.a]\nmax_spawn_depth = 1\ncolour = 3\n", 3, "colour"),
            ("[agents.a]\ncan_spawn = []\n", 1, "max_spawn_depth"),
            ("[agents.a]\nmax_spawn_depth = 1\ntools = [\n  \"Read\",\n  \"Bash(\",\n]\n", 5, "tools"),
            ("[agents.\"a b\"]\nmax_spawn_depth = 1\n", 1, "agent type"),
            ("[agents.a]\nmax_spawn_depth = \"one\"\n", 2, ""),
        ];
        for (text, line, word) in cases {
            let error = parse_manifest_text("m.toml", text).unwrap_err();
            assert_eq!(error.line, Some(line), "{text:?}: {error:?}");
            assert!(error.message.contains(word), "{text:?}: {error:?}");
        }
    }

    #[test]
    fn an_agent_type_declared_twice_across_texts_names_the_first_and_adds_nothing() {
        let mut set = ManifestSet::new();
        set.add_text("a.toml", "[agents.a]\nmax_spawn_depth = 1\n").unwrap();
        let error = set
            .add_text("c.toml", "[agents.b]\nmax_spawn_depth = 1\n\n[agents.a]\nmax_spawn_depth = 3\n")
            .unwrap_err();
        assert_eq!(error.line, Some(4));
        assert!(error.message.contains("first in a.toml:1"), "{error:?}");
        let manifests = set.into_manifests();
        assert!(!manifests.contains_key(&Name::new("b").unwrap()), "all or nothing");
        assert_eq!(manifests.get(&Name::new("a").unwrap()).unwrap().max_spawn_depth, 1);
    }
}
