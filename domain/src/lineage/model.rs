//! Agents in a lineage, and their manifests.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::governance::Name;

/// One agent of a lineage: its id, its type, and the depth it says it was spawned at.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentIdentifier {
    /// Unique within a lineage (L-3).
    pub id: String,
    /// The agent type, a key of the manifests.
    #[serde(rename = "type")]
    pub agent_type: Name,
    /// 0 for the root; each child is its parent's plus one (L-2).
    pub spawn_depth: u64,
}

/// What an agent type may do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Manifest {
    /// The types it may spawn.
    pub can_spawn: Vec<Name>,
    /// The deepest a child it spawns may be.
    pub max_spawn_depth: u64,
    /// The tools it may use, as tool rules ([`ToolRule`](super::ToolRule)'s syntax, T-1).
    pub tools: super::rule_set::ToolRuleSet,
}

/// Manifests by agent type.
pub type Manifests = HashMap<Name, Manifest>;
