//! What the hook knows between calls: the human approval in force and each session's spawn
//! tree. A projection of the audit log — a pure fold over its events — kept as of a head, so
//! that each hook call only applies the events recorded since (H-3).
//!
//! H-2 (matching an agent's start to its spawn): the harness's start event names the new
//! agent's id and type but not the tool call that spawned it. The agent is matched to a
//! pending allowed spawn of the same session and type: the deepest one, and among those the
//! oldest. Choosing the deepest when spawns of one type are pending at several depths is the
//! fail-closed choice: the agent is given the least remaining depth. An agent with no pending
//! spawn to match is recorded as untracked, and may spawn nothing.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::events::{SessionQuarantined, SessionReleased, SpawnEvaluated, SubagentStarted, SubagentStopped};
use super::request::{CallingAgent, ROOT_ID};
use crate::audit::{Head, Timestamp};
use crate::governance::{ApprovalState, Approvals, ApprovalsEvent, Name, RecordSignature};
use crate::lineage::AgentIdentifier;
use crate::verdict::{Code, Decision, Failed};

/// Sessions kept; the least recently active is forgotten first (its agents may then spawn
/// nothing).
pub const MAX_SESSIONS: usize = 256;
/// Allowed spawns awaiting their `SubagentStart`, per session; the oldest is dropped first.
pub const MAX_PENDING: usize = 64;

/// An allowed spawn whose agent has not started yet.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingSpawn {
    /// The `subagent_spawn_evaluated` event.
    pub seq: u64,
    /// The tool call.
    pub tool_use_id: String,
    /// The parent's agent id (`None`: the main session).
    pub parent: Option<String>,
    /// The type asked for.
    pub child_type: String,
    /// The child's depth.
    pub depth: u64,
    /// The `result.json` the prompt asks for.
    pub result_path: Option<String>,
    /// The approval the spawn was allowed under (H-21).
    #[serde(default)]
    pub approval_ref: Option<String>,
}

/// A subagent the hook has seen start.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrackedAgent {
    /// Its type.
    pub agent_type: String,
    /// Its parent's id (`None`: the main session).
    pub parent: Option<String>,
    /// Its depth; `None` when it matched no allowed spawn (untracked).
    pub depth: Option<u64>,
    /// The `result.json` it was asked for.
    pub result_path: Option<String>,
    /// The approval its spawn was allowed under: a `SendMessage` that resumes it re-checks it
    /// (H-21).
    #[serde(default)]
    pub approval_ref: Option<String>,
    /// It stopped (allowed); it stays known so that a `SendMessage` can resume it (H-21).
    #[serde(default)]
    pub stopped: bool,
    /// Where its protected paths are checked, when not the workspace root (H-27).
    #[serde(default)]
    pub root: Option<String>,
}

/// A session's quarantine (H-28).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Quarantine {
    /// The `session_quarantined` event.
    pub seq: u64,
    /// Its code.
    pub code: Code,
    /// Its reason.
    pub reason: String,
}

/// One session's spawn tree.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpawnTree {
    /// The last event of this session applied.
    pub last_seq: u64,
    /// Allowed spawns not yet started, oldest first.
    pub pending: Vec<PendingSpawn>,
    /// Running subagents by id.
    pub agents: BTreeMap<String, TrackedAgent>,
}

impl SpawnTree {
    /// An agent is tracked when a `SubagentStart` matched it to an allowed spawn. An agent
    /// that started untracked, or that the tree does not know at all, is not (H-23).
    pub fn is_tracked(&self, agent_id: &str) -> bool {
        self.agents.get(agent_id).is_some_and(|a| a.depth.is_some())
    }

    /// The tracked agents that started and have not stopped, in the order of their ids: the
    /// callers of an event a harness sends without one (M-2).
    pub fn running(&self) -> impl Iterator<Item = (&String, &TrackedAgent)> {
        self.agents.iter().filter(|(_, a)| a.depth.is_some() && !a.stopped)
    }

    /// The ids of the tracked agents (the fast path's index, H-24).
    pub fn tracked(&self) -> impl Iterator<Item = &String> {
        self.agents.iter().filter(|(_, a)| a.depth.is_some()).map(|(id, _)| id)
    }

    /// May a `SendMessage` resume `to`? Only a tracked agent of this session whose spawn
    /// was allowed under an approval that is still active at `now`; anything else (no target,
    /// an unknown or untracked agent, no approval, an approval revoked or expired) is a
    /// failure with its code. Returns the approval (H-21).
    pub fn may_resume(
        &self,
        to: Option<&str>,
        approvals: &Approvals,
        now: Timestamp,
    ) -> Result<String, Failed> {
        let to = to.ok_or_else(|| {
            Failed::new(
                Code::MessageTargetUnknown,
                "`SendMessage` names no agent in `to`; it cannot be checked",
            )
        })?;
        let agent = self.agents.get(to).filter(|a| a.depth.is_some()).ok_or_else(|| {
            Failed::new(
                Code::MessageTargetUnknown,
                format!("`{to}` is not an agent Warden allowed in this session; a message cannot start it"),
            )
        })?;
        let reference = agent.approval_ref.clone().ok_or_else(|| {
            Failed::new(
                Code::ApprovalNotActive,
                format!("agent `{to}` was started under no recorded approval"),
            )
        })?;
        let record = approvals.approvals.get(&reference);
        if let Some(refused) = record.and_then(|r| r.refused.as_ref()) {
            return Err(Failed::new(
                Code::ApprovalNotActive,
                format!(
                    "agent `{to}` runs under approval `{reference}`, which is not an approval ({refused})"
                ),
            ));
        }
        match record.map(|r| r.state(now)) {
            Some(ApprovalState::Active) => Ok(reference),
            Some(state) => Err(Failed::new(
                Code::ApprovalNotActive,
                format!(
                    "agent `{to}` runs under approval `{reference}`, which is {}; a human approves again with `warden approve`",
                    format!("{state:?}").to_lowercase()
                ),
            )),
            None => Err(Failed::new(
                Code::ApprovalNotActive,
                format!("agent `{to}` runs under approval `{reference}`, which is not recorded"),
            )),
        }
    }

    /// The pending spawn a `SubagentStart` of `agent_type` is matched to (H-2).
    pub fn match_start(&self, agent_type: &str) -> Option<&PendingSpawn> {
        self.pending
            .iter()
            .filter(|p| p.child_type == agent_type)
            .min_by_key(|p| (std::cmp::Reverse(p.depth), p.seq))
    }

    /// The lineage from the root to the caller, then the requested child (id `tool_use_id`),
    /// or why there is none: the caller is unknown, untracked, or not of the type it claims.
    pub fn lineage(
        &self,
        main: &Name,
        caller: Option<&CallingAgent>,
        child_type: &str,
        tool_use_id: &str,
    ) -> Result<Vec<AgentIdentifier>, Failed> {
        let mut chain = self.caller_lineage(main, caller)?;
        let depth = chain.last().map_or(0, |a| a.spawn_depth).saturating_add(1);
        chain.push(AgentIdentifier {
            id: tool_use_id.to_owned(),
            agent_type: name(child_type)?,
            spawn_depth: depth,
        });
        Ok(chain)
    }

    /// The lineage from the root (the main session, of type `main`) to the caller, or why there
    /// is none: the caller is unknown, untracked, or not of the type it claims.
    pub fn caller_lineage(
        &self,
        main: &Name,
        caller: Option<&CallingAgent>,
    ) -> Result<Vec<AgentIdentifier>, Failed> {
        let mut chain: Vec<AgentIdentifier> = Vec::new();
        let mut next = caller.map(|c| c.agent_id.clone());
        if let Some(caller) = caller {
            let tracked = self.agents.get(&caller.agent_id).ok_or_else(|| {
                Failed::new(
                    Code::AgentUnknown,
                    format!("agent `{}` was not started through a spawn Warden allowed", caller.agent_id),
                )
            })?;
            if tracked.agent_type != caller.agent_type {
                return Err(Failed::new(
                    Code::AgentTypeMismatch,
                    format!(
                        "agent `{}` claims type `{}` but was started as `{}`",
                        caller.agent_id, caller.agent_type, tracked.agent_type
                    ),
                ));
            }
        }
        while let Some(id) = next {
            if chain.len() > self.agents.len() {
                return Err(Failed::new(Code::LineageCycle, format!("the spawn tree loops at `{id}`")));
            }
            let agent = self.agents.get(&id).ok_or_else(|| {
                Failed::new(Code::AgentUnknown, format!("ancestor `{id}` is not in the session's spawn tree"))
            })?;
            let depth = agent.depth.ok_or_else(|| {
                Failed::new(
                    Code::AgentUntracked,
                    format!("agent `{id}` matched no allowed spawn when it started; it may spawn nothing"),
                )
            })?;
            chain.push(AgentIdentifier {
                id: id.clone(),
                agent_type: name(&agent.agent_type)?,
                spawn_depth: depth,
            });
            next = agent.parent.clone();
        }
        chain.push(AgentIdentifier { id: ROOT_ID.to_owned(), agent_type: main.clone(), spawn_depth: 0 });
        chain.reverse();
        Ok(chain)
    }

    /// `caller`'s tool call `tool` through the three layers — its manifest,
    /// every ancestor's (the main session's type, `main`, at the root), and the walk — against
    /// its recorded lineage. `None` for the main session's own calls (`caller` `None`), which
    /// the harness's own permissions govern. A caller with no lineage (unknown, untracked, of
    /// another type) is denied with that reason at every layer, with an empty lineage (T-9, issue 24).
    pub fn authorize_tool(
        &self,
        main: &Name,
        caller: Option<&CallingAgent>,
        tool: crate::lineage::ToolUse,
        manifests: &crate::lineage::Manifests,
    ) -> Option<(Vec<AgentIdentifier>, crate::lineage::Authorization)> {
        let caller = caller?;
        let lineage = match self.caller_lineage(main, Some(caller)) {
            Ok(lineage) => lineage,
            Err(verdict) => return Some((Vec::new(), crate::lineage::refuse(&verdict))),
        };
        let Some(agent) = lineage.last().cloned() else {
            return Some((
                Vec::new(),
                crate::lineage::refuse(&Failed::new(Code::AgentUnknown, "no lineage")),
            ));
        };
        let request = crate::lineage::ToolCall { agent, lineage: lineage.clone(), tool };
        let authorization = crate::lineage::authorize(&request, manifests);
        Some((lineage, authorization))
    }
}

fn name(raw: &str) -> Result<Name, Failed> {
    Name::new(raw).map_err(|e| Failed::new(Code::InvalidName, e.to_string()))
}

/// A recorded event as the sessions' records ([`SessionRecords::apply`]) read it: one of the
/// events they fold, borrowed, a human record (the seal and approvals they keep too), or
/// another event, which moves only the head. The event catalogue (`crate::events`, above this
/// module) says which of its events is which, so that the sessions never name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SessionsEvent<'a> {
    /// `subagent_spawn_evaluated`.
    Spawn(&'a SpawnEvaluated),
    /// `subagent_started`.
    Started(&'a SubagentStarted),
    /// `subagent_stopped`.
    Stopped(&'a SubagentStopped),
    /// `session_quarantined`.
    Quarantined(&'a SessionQuarantined),
    /// `session_released`.
    Released(&'a SessionReleased),
    /// `context_sealed`, `approval_granted` or `approval_revoked`.
    Human(ApprovalsEvent<'a>),
    /// Any other event.
    Other,
}

/// The records of the sessions: governance (the seal and approvals), each session's spawn tree,
/// quarantines and releases, as of `head` — a projection any harness integration feeds.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionRecords {
    /// The last event applied.
    pub head: Head,
    /// The recorded seal and approvals, set only by `warden seal`, `approve` and `revoke`.
    pub governance: Approvals,
    /// Spawn trees by session id.
    pub sessions: BTreeMap<String, SpawnTree>,
    /// Quarantined sessions (H-28), kept apart from the spawn trees so that no eviction of a
    /// quiet session can lift one.
    #[serde(default)]
    pub quarantined: BTreeMap<String, Quarantine>,
    /// Every release that lifted a quarantine, in log order, with what it lifted: the
    /// application puts the quarantine back when the release's signature does not verify (K-9).
    #[serde(default)]
    pub releases: Vec<Released>,
}

impl SessionRecords {
    /// Each session's last release, newest first: only it can stand between the session and
    /// its quarantine (K-9).
    pub fn last_releases(&self) -> Vec<Released> {
        let mut seen = std::collections::BTreeSet::new();
        self.releases.iter().rev().filter(|r| seen.insert(r.session.clone())).cloned().collect()
    }
}

/// A `session_released` that lifted a quarantine.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Released {
    /// The `session_released` event.
    pub seq: u64,
    /// The log's head before it (what its signature must name).
    pub after: Head,
    /// The session.
    pub session: String,
    /// The quarantine it lifted.
    pub lifted: Quarantine,
    /// Its signature, if it carries one.
    pub signature: Option<RecordSignature>,
}

impl SessionRecords {
    /// The spawn tree of `session` (empty if unknown).
    pub fn session(&self, session: &str) -> SpawnTree {
        self.session_ref(session).clone()
    }

    /// The spawn tree of `session`, borrowed (V-37: a decision that only reads it copies
    /// nothing); an empty tree when the session has none.
    pub fn session_ref(&self, session: &str) -> &SpawnTree {
        const EMPTY: &SpawnTree = &SpawnTree { last_seq: 0, pending: Vec::new(), agents: BTreeMap::new() };
        self.sessions.get(session).unwrap_or(EMPTY)
    }

    /// Applies the event at `head` (recorded under `session`). Events of other types change
    /// nothing but the head. `event` is a recorded event as this fold reads it: the catalogue's
    /// `&AuditEvent` converts (X-68: the sessions do not name the catalogue).
    pub fn apply<'a>(&mut self, head: Head, session: Option<&str>, event: impl Into<SessionsEvent<'a>>) {
        let after = self.head;
        self.head = head;
        let seq = head.seq;
        let event = event.into();
        let human = match event {
            SessionsEvent::Human(human) => human,
            _ => ApprovalsEvent::Other,
        };
        self.governance.apply(after, seq, human);
        match event {
            SessionsEvent::Spawn(e) => {
                if let Some(session) = session {
                    self.spawn(seq, session, e);
                }
            }
            SessionsEvent::Started(e) => {
                if let Some(session) = session {
                    self.started(seq, session, e);
                }
            }
            SessionsEvent::Stopped(e) => {
                if let Some(session) = session {
                    self.stopped(seq, session, e);
                }
            }
            SessionsEvent::Quarantined(e) => {
                if let Some(session) = session {
                    let quarantine = Quarantine { seq, code: e.code.clone(), reason: e.reason.clone() };
                    self.quarantined.entry(session.to_owned()).or_insert(quarantine);
                }
            }
            SessionsEvent::Released(e) => {
                if let Some(session) = session
                    && let Some(lifted) = self.quarantined.remove(session)
                {
                    self.releases.push(Released {
                        seq,
                        after,
                        session: session.to_owned(),
                        lifted,
                        signature: e.signature.clone(),
                    });
                }
            }
            SessionsEvent::Human(_) | SessionsEvent::Other => {}
        }
    }

    fn tree(&mut self, seq: u64, session: &str) -> &mut SpawnTree {
        if !self.sessions.contains_key(session) && self.sessions.len() >= MAX_SESSIONS {
            let oldest = self.sessions.iter().min_by_key(|(_, t)| t.last_seq).map(|(id, _)| id.clone());
            if let Some(oldest) = oldest {
                self.sessions.remove(&oldest);
            }
        }
        let tree = self.sessions.entry(session.to_owned()).or_default();
        tree.last_seq = seq;
        tree
    }

    fn spawn(&mut self, seq: u64, session: &str, e: &SpawnEvaluated) {
        if e.decision != Decision::Allow {
            return;
        }
        let depth = e.lineage_agents.last().map_or(1, |a| a.spawn_depth);
        let tree = self.tree(seq, session);
        if tree.pending.len() >= MAX_PENDING {
            tree.pending.remove(0);
        }
        tree.pending.push(PendingSpawn {
            seq,
            tool_use_id: e.tool_use_id.clone(),
            parent: e.agent_id.clone(),
            child_type: e.subagent_type.clone(),
            depth,
            result_path: e.result_path.clone(),
            approval_ref: e.gate.approval_ref.clone(),
        });
    }

    fn started(&mut self, seq: u64, session: &str, e: &SubagentStarted) {
        let tree = self.tree(seq, session);
        // A start of an agent already running replaces nothing: it matches no pending spawn,
        // and the agent keeps its place, its parent and its depth (H-54).
        if e.repeated {
            return;
        }
        let matched = e
            .tool_use_id
            .as_ref()
            .and_then(|id| tree.pending.iter().position(|p| &p.tool_use_id == id))
            .map(|i| tree.pending.remove(i));
        let agent = match matched {
            Some(p) => TrackedAgent {
                agent_type: e.agent_type.clone(),
                parent: p.parent,
                depth: Some(p.depth),
                result_path: p.result_path,
                approval_ref: p.approval_ref,
                stopped: false,
                root: e.root.clone(),
            },
            None => match tree.agents.get(&e.agent_id) {
                // A tracked agent that starts again (resumed by a `SendMessage` Warden allowed)
                // keeps its place: it is the same agent, of the same type.
                Some(known) if known.depth.is_some() && known.agent_type == e.agent_type => {
                    TrackedAgent { stopped: false, root: e.root.clone(), ..known.clone() }
                }
                _ => TrackedAgent {
                    agent_type: e.agent_type.clone(),
                    parent: None,
                    depth: None,
                    result_path: None,
                    approval_ref: None,
                    stopped: false,
                    root: e.root.clone(),
                },
            },
        };
        tree.agents.insert(e.agent_id.clone(), agent);
    }

    fn stopped(&mut self, seq: u64, session: &str, e: &SubagentStopped) {
        let tree = self.tree(seq, session);
        // An allowed stop ends the agent, and so does any stop its harness cannot block (M-6).
        if let (true, Some(agent)) =
            (e.decision == Decision::Allow || e.ended, tree.agents.get_mut(&e.agent_id))
        {
            agent.stopped = true;
        }
    }
}
