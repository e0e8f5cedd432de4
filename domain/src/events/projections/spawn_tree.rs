//! The spawn tree of each session, from the lineages recorded by `lineage_checked` and
//! `tool_call_authorized` (L-1: a lineage lists the root first).
//!
//! Every consecutive pair of a recorded lineage is an edge parent → child. An agent keeps the
//! first parent it was seen with; a different parent seen later is kept beside it in
//! `other_parents` rather than overwriting it — two lineages that disagree about who spawned an
//! agent are themselves a finding. Lineages longer than 64 agents are recorded only by digest
//! (L-8); they are counted as `unrecorded`. Events without a session form their own tree.
//!
//! H-31 (one node per agent): the hook records a spawn's child under its tool-call id (the
//! agent has no id yet), and the agent's `subagent_started` names both. At that event the
//! node is renamed to the agent's id — its children (recorded under the agent id) join it — so
//! an agent appears once. An agent that started matching no allowed spawn is a root of its own,
//! marked `untracked`.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::{Projection, Recorded};
use crate::audit::EnvelopeRef;
use crate::events::AuditEvent;
use crate::lineage::AgentIdentifier;
use crate::verdict::Decision;

/// Spawn trees by session.
#[derive(Clone, Copy, Debug, Default)]
pub struct SpawnTrees;

/// The state of [`SpawnTrees`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SpawnTreeState {
    /// Each session's tree.
    pub sessions: BTreeMap<String, SpawnTree>,
    /// The tree of lineages recorded without a session.
    pub without_session: SpawnTree,
}

/// One session's agents.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SpawnTree {
    /// Every agent seen, by id.
    pub agents: BTreeMap<String, SpawnedAgent>,
    /// Lineages recorded only by length and digest.
    pub unrecorded: u64,
}

/// One agent of a tree.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SpawnedAgent {
    /// Its type.
    pub agent_type: String,
    /// Its depth, as first seen.
    pub spawn_depth: u64,
    /// The parent it was first seen with; `None` for a root.
    pub parent: Option<String>,
    /// Other parents later lineages named (a disagreement worth investigating).
    pub other_parents: BTreeSet<String>,
    /// The first event that named it.
    pub first_seq: u64,
    /// How many checks ended with this agent (it was the newest child, or the acting agent).
    pub checks: u64,
    /// How many of those were denied.
    pub denied: u64,
    /// The tool call that spawned it, once it started (H-31).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    /// It started matching no allowed spawn (H-2, H-23).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub untracked: bool,
}

impl SpawnTree {
    /// The roots, in id order.
    pub fn roots(&self) -> impl Iterator<Item = (&String, &SpawnedAgent)> {
        self.agents.iter().filter(|(_, a)| a.parent.is_none())
    }

    /// The children of `id` (by first parent), in id order.
    pub fn children<'a>(&'a self, id: &'a str) -> impl Iterator<Item = (&'a String, &'a SpawnedAgent)> {
        self.agents.iter().filter(move |(_, a)| a.parent.as_deref() == Some(id))
    }

    fn add(&mut self, seq: u64, lineage: &[AgentIdentifier], decision: Decision) {
        let mut parent: Option<&str> = None;
        for agent in lineage {
            let entry = self.agents.entry(agent.id.clone()).or_insert_with(|| SpawnedAgent {
                agent_type: agent.agent_type.as_str().to_owned(),
                spawn_depth: agent.spawn_depth,
                parent: parent.map(str::to_owned),
                other_parents: BTreeSet::new(),
                first_seq: seq,
                checks: 0,
                denied: 0,
                tool_use_id: None,
                untracked: false,
            });
            if entry.parent.as_deref() != parent {
                entry.other_parents.insert(parent.unwrap_or("(root)").to_owned());
            }
            parent = Some(agent.id.as_str());
        }
        if let Some(last) = lineage.last().and_then(|a| self.agents.get_mut(&a.id)) {
            last.checks += 1;
            if decision == Decision::Deny {
                last.denied += 1;
            }
        }
    }
}

impl SpawnTree {
    /// The node of the spawn `tool_use_id` becomes the node of `agent_id` (H-31).
    fn started(&mut self, seq: u64, e: &crate::sessions::SubagentStarted) {
        let spawned = e.tool_use_id.as_ref().and_then(|t| self.agents.remove(t).map(|node| (t, node)));
        match spawned {
            Some((tool_use_id, mut node)) => {
                for child in self.agents.values_mut() {
                    if child.parent.as_deref() == Some(tool_use_id.as_str()) {
                        child.parent = Some(e.agent_id.clone());
                    }
                }
                node.tool_use_id = Some(tool_use_id.clone());
                match self.agents.get_mut(&e.agent_id) {
                    // Already named by a lineage under its own id: one node, the counts summed.
                    Some(existing) => {
                        existing.checks += node.checks;
                        existing.denied += node.denied;
                        existing.first_seq = existing.first_seq.min(node.first_seq);
                        existing.tool_use_id = node.tool_use_id;
                    }
                    None => {
                        self.agents.insert(e.agent_id.clone(), node);
                    }
                }
            }
            None => {
                self.agents.entry(e.agent_id.clone()).or_insert_with(|| SpawnedAgent {
                    agent_type: e.agent_type.clone(),
                    spawn_depth: e.depth.unwrap_or(0),
                    parent: e.parent.clone(),
                    other_parents: BTreeSet::new(),
                    first_seq: seq,
                    checks: 0,
                    denied: 0,
                    tool_use_id: e.tool_use_id.clone(),
                    untracked: e.tool_use_id.is_none(),
                });
            }
        }
    }
}

impl Projection for SpawnTrees {
    type State = SpawnTreeState;

    fn wants(&self, envelope: &EnvelopeRef<'_>) -> bool {
        matches!(
            envelope.event_type(),
            "lineage_checked" | "tool_call_authorized" | "subagent_spawn_evaluated" | "subagent_started"
        )
    }

    fn apply(&self, state: &mut SpawnTreeState, event: Recorded<'_>) {
        let (lineage, decision) = match event.event {
            AuditEvent::LineageChecked(e) => (&e.lineage, e.decision),
            AuditEvent::ToolCallAuthorized(e) => (&e.lineage, e.authorization.decision),
            AuditEvent::SpawnEvaluated(e) => {
                let tree = match event.envelope.session() {
                    Some(session) => state.sessions.entry(session.to_owned()).or_default(),
                    None => &mut state.without_session,
                };
                tree.add(event.envelope.seq, &e.lineage_agents, e.decision);
                return;
            }
            AuditEvent::SubagentStarted(e) => {
                let tree = match event.envelope.session() {
                    Some(session) => state.sessions.entry(session.to_owned()).or_default(),
                    None => &mut state.without_session,
                };
                tree.started(event.envelope.seq, e);
                return;
            }
            _ => return,
        };
        let tree = match event.envelope.session() {
            Some(session) => state.sessions.entry(session.to_owned()).or_default(),
            None => &mut state.without_session,
        };
        match lineage {
            Some(lineage) => tree.add(event.envelope.seq, lineage, decision),
            None => tree.unrecorded += 1,
        }
    }
}
