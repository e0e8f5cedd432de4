//! Whom a recorded approval covers (G-21): the value an approval's event, its signed bytes and
//! the recorded approvals all hold, below each of them.

use serde::{Deserialize, Serialize};

/// Whom an approval covers; an empty list covers any.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scope {
    /// The personas that may delegate under it.
    #[serde(default)]
    pub personas: Vec<String>,
    /// The subagents that may be delegated under it.
    #[serde(default)]
    pub subagents: Vec<String>,
}

impl Scope {
    /// True when `persona` and every one of `subagents` are within the scope.
    pub fn covers(&self, persona: &str, subagents: &[&str]) -> bool {
        let persona_ok = self.personas.is_empty() || self.personas.iter().any(|p| p == persona);
        let subagents_ok =
            self.subagents.is_empty() || subagents.iter().all(|s| self.subagents.iter().any(|a| a == s));
        persona_ok && subagents_ok
    }

    pub(super) fn describe(&self) -> String {
        let list = |names: &[String]| if names.is_empty() { "any".to_owned() } else { names.join(", ") };
        format!("personas {}; subagents {}", list(&self.personas), list(&self.subagents))
    }
}
