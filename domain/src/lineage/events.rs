//! The lineage's events: a lineage check (`lineage_checked`) and a tool-call authorization
//! (`tool_call_authorized`), as they are recorded. The catalogue ([`crate::events`]) gathers
//! them with every other capability's events.

use serde::{Deserialize, Serialize};

use super::model::AgentIdentifier;
use super::pipeline::Authorization;
use super::walk::LineageVerdict;
use crate::verdict::Decision;

/// One lineage check (`lineage_checked`, version 2).
///
/// Version 1 called the number of agents `length`; version 2 calls it `lineage_length`, as
/// `tool_call_authorized` always has, so that one reader serves both (see [`crate::events::UPCASTS`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LineageChecked {
    /// Allow or deny.
    pub decision: Decision,
    /// The walker's verdict and failing pair (L-4).
    pub result: LineageVerdict,
    /// How many agents.
    pub lineage_length: usize,
    /// BLAKE3 of the lineage's JSON.
    pub lineage_digest: String,
    /// The lineage itself, when it has at most 64 agents.
    pub lineage: Option<Vec<AgentIdentifier>>,
}

/// One tool-call authorization (`tool_call_authorized`, version 1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolCallAuthorized {
    /// The acting agent, when the request could be read.
    pub agent: Option<AgentIdentifier>,
    /// The tool asked for, when the request could be read.
    pub tool: Option<String>,
    /// Every layer's verdict and the decision.
    pub authorization: Authorization,
    /// How many agents in the lineage.
    pub lineage_length: usize,
    /// BLAKE3 of the lineage's JSON.
    pub lineage_digest: String,
    /// The lineage itself, when it has at most 64 agents.
    pub lineage: Option<Vec<AgentIdentifier>>,
    /// Decided in shadow mode — the decision is what enforcing would have answered, and
    /// the call went ahead. Absent (false) in events recorded before the field existed (T-10).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub shadow: bool,
    /// For an allowed shell call: whether it runs confined, and what the kernel enforces
    /// (E-14). Absent for every other call, with `[confine] mode = "off"`, and in events
    /// recorded before the field existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confinement: Option<super::Applied>,
}

impl ToolCallAuthorized {
    /// The event for `authorization` of `tool` by `agent` with `lineage` (root first): the
    /// lineage recorded in full when it has at most [`super::RECORDED_LINEAGE_MAX`]
    /// agents, and always by length and digest (L-8).
    pub fn new(
        agent: Option<AgentIdentifier>,
        tool: Option<String>,
        authorization: Authorization,
        lineage: &[AgentIdentifier],
        shadow: bool,
    ) -> ToolCallAuthorized {
        ToolCallAuthorized {
            agent,
            tool,
            authorization,
            lineage_length: lineage.len(),
            lineage_digest: super::lineage_digest(lineage),
            lineage: (lineage.len() <= super::RECORDED_LINEAGE_MAX).then(|| lineage.to_vec()),
            shadow,
            confinement: None,
        }
    }
}
