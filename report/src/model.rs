//! What a report holds: plain, serialisable facts read from the verified log, one value per
//! section of the page. Everything here is data; the page (`crate::page`) renders it, and
//! nothing in it is markup.

use std::collections::BTreeMap;

use serde::Serialize;

use agentwarden::audit::{Envelope, EnvelopeRef};
use agentwarden::events::projections::{Projection, Recorded, SpawnTreeState, SpawnTrees, SpawnedAgent};
use agentwarden::events::{AuditEvent, explain};
use agentwarden::verdict::Decision;

/// The most characters of one value kept in the page (a reason, a path, a raw payload).
const MAX_TEXT: usize = 2000;

/// The most notes kept per row.
const MAX_NOTES: usize = 20;

/// The whole report, embedded in the page as JSON.
#[derive(Debug, Default, Serialize)]
pub struct Report {
    pub(crate) generated_at: String,
    pub(crate) window: Window,
    pub(crate) chain: Chain,
    pub(crate) rows: Vec<Row>,
    pub(crate) trees: Vec<Tree>,
    pub(crate) records: Records,
    pub(crate) violations: Vec<ViolationRow>,
    /// Events in the window this reader could not decode (ruling A-28).
    pub(crate) undecodable: u64,
}

/// Which events the report covers.
#[derive(Debug, Default, Serialize)]
pub(crate) struct Window {
    pub(crate) session: Option<String>,
    pub(crate) since: Option<String>,
    pub(crate) until: Option<String>,
}

/// The chain's verification, shown first.
#[derive(Debug, Default, Serialize)]
pub(crate) struct Chain {
    pub(crate) intact: bool,
    /// The last seq read and verified (every event shown is at or before it).
    pub(crate) verified_through: u64,
    pub(crate) head_hash: String,
    /// The first broken seq and why, when the chain does not verify.
    pub(crate) broken: Option<Broken>,
    /// The checkpoint's verdict, when one was given.
    pub(crate) checkpoint: Option<CheckpointVerdict>,
}

#[derive(Debug, Serialize)]
pub(crate) struct Broken {
    pub(crate) seq: u64,
    pub(crate) why: String,
}

#[derive(Debug, Serialize)]
pub(crate) struct CheckpointVerdict {
    pub(crate) ok: bool,
    pub(crate) text: String,
}

/// One event of the window.
#[derive(Debug, Serialize)]
pub(crate) struct Row {
    pub(crate) seq: u64,
    pub(crate) at: String,
    pub(crate) actor: String,
    pub(crate) session: Option<String>,
    #[serde(rename = "type")]
    pub(crate) event_type: String,
    /// `allow`, `deny`, `block` (a stop or settings change held back), or none.
    pub(crate) verdict: Option<&'static str>,
    pub(crate) summary: String,
    /// The acting or spawned agent, `type id`, when the event names one.
    pub(crate) agent: Option<String>,
    /// Each failed check: the denial's layer (kind and name), rule (code) and reason.
    pub(crate) failed: Vec<Failed>,
    pub(crate) notes: Vec<String>,
    /// Why this reader could not decode it (then `raw` holds its payload, truncated).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) undecodable: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) raw: Option<String>,
}

#[derive(Debug, Serialize)]
pub(crate) struct Failed {
    pub(crate) layer: String,
    pub(crate) code: Option<String>,
    pub(crate) reason: String,
}

/// One session's spawn tree.
#[derive(Debug, Serialize)]
pub(crate) struct Tree {
    pub(crate) session: Option<String>,
    pub(crate) agents: Vec<Agent>,
    pub(crate) unrecorded: u64,
}

#[derive(Debug, Serialize)]
pub(crate) struct Agent {
    pub(crate) id: String,
    #[serde(rename = "type")]
    pub(crate) agent_type: String,
    pub(crate) depth: u64,
    pub(crate) parent: Option<String>,
    pub(crate) other_parents: Vec<String>,
    pub(crate) checks: u64,
    pub(crate) denied: u64,
    pub(crate) untracked: bool,
    /// The decision that let it start or refused it: the first event that named it.
    pub(crate) start: Start,
}

#[derive(Debug, Serialize)]
pub(crate) struct Start {
    pub(crate) seq: u64,
    /// The event decided about this agent (its spawn, or a check it was the newest agent of);
    /// false when it only named the agent as an ancestor (a root, say): then no verdict.
    pub(crate) decided: bool,
    pub(crate) verdict: Option<&'static str>,
    pub(crate) reason: Option<String>,
}

/// The seal and approvals in force at the log's head, with their signatures' verdicts.
#[derive(Debug, Default, Serialize)]
pub(crate) struct Records {
    pub(crate) as_of: u64,
    /// Why they could not be read (a broken chain, an unreadable key list).
    pub(crate) unavailable: Option<String>,
    pub(crate) seal: Option<SealRow>,
    pub(crate) approvals: Vec<ApprovalRow>,
}

#[derive(Debug, Serialize)]
pub(crate) struct SealRow {
    pub(crate) seq: u64,
    pub(crate) by: Option<String>,
    pub(crate) files: Vec<String>,
    pub(crate) signature: SignatureRow,
}

#[derive(Debug, Serialize)]
pub(crate) struct ApprovalRow {
    pub(crate) approval_ref: String,
    pub(crate) seq: u64,
    pub(crate) approved_by: Option<String>,
    pub(crate) expires_at: Option<String>,
    pub(crate) state: String,
    pub(crate) personas: Vec<String>,
    pub(crate) subagents: Vec<String>,
    pub(crate) signature: SignatureRow,
    /// The decisions of the window that ran under it.
    pub(crate) used_by: Vec<u64>,
}

/// Who signed, and whether the signature verified.
#[derive(Debug, Serialize)]
pub(crate) struct SignatureRow {
    pub(crate) principal: Option<String>,
    /// `verified`, `refused`, `not_checked` (no `allowed_signers` configured) or `unsigned`.
    pub(crate) status: &'static str,
    pub(crate) why: Option<String>,
}

/// A protected path changed: by the guard (`guardrail_violation`) or seen at a stop.
#[derive(Debug, Serialize)]
pub(crate) struct ViolationRow {
    pub(crate) seq: u64,
    pub(crate) at: String,
    pub(crate) who: String,
    pub(crate) kind: String,
    pub(crate) changed: Vec<String>,
    pub(crate) reverted: bool,
    pub(crate) error: String,
}

/// `text`, cut to `MAX_TEXT` characters (marked with `…`).
pub(crate) fn clip(text: &str) -> String {
    match text.char_indices().nth(MAX_TEXT) {
        Some((at, _)) => format!("{}…", text.get(..at).unwrap_or_default()),
        None => text.to_owned(),
    }
}

/// The verdict label of an event: a held-back stop or settings change is a `block`.
pub(crate) fn verdict(event: &AuditEvent) -> Option<&'static str> {
    Some(match event.decision()? {
        Decision::Allow => "allow",
        Decision::Deny
            if matches!(event, AuditEvent::SubagentStopped(_) | AuditEvent::ConfigChangeBlocked(_)) =>
        {
            "block"
        }
        Decision::Deny => "deny",
    })
}

/// Folds the window's events into rows, trees, violations and approval uses.
#[derive(Debug, Default)]
pub(crate) struct Collector {
    pub(crate) rows: Vec<Row>,
    pub(crate) trees: SpawnTreeState,
    pub(crate) violations: Vec<ViolationRow>,
    pub(crate) approval_uses: BTreeMap<String, Vec<u64>>,
    pub(crate) undecodable: u64,
}

impl Collector {
    /// One event of the window, decoded (`Ok`) or not.
    pub(crate) fn push(
        &mut self,
        envelope: &EnvelopeRef<'_>,
        owned: &Envelope,
        event: Result<AuditEvent, String>,
    ) {
        let event = match event {
            Ok(event) => event,
            Err(why) => {
                self.undecodable += 1;
                self.rows.push(Row {
                    undecodable: Some(clip(&why)),
                    raw: Some(clip(envelope.payload())),
                    ..base_row(envelope, "this reader cannot decode this event".to_owned())
                });
                return;
            }
        };
        if SpawnTrees.wants(envelope) {
            SpawnTrees.apply(&mut self.trees, Recorded { envelope, event: &event });
        }
        self.note_uses(envelope.seq, &event);
        if let Some(violation) = violation(envelope, &event) {
            self.violations.push(violation);
        }
        let explanation = explain(owned, &event);
        let failed = explanation
            .checks
            .iter()
            .filter(|c| !c.passed)
            .map(|c| Failed {
                layer: clip(&format!("{} {}", c.kind, c.name)),
                code: c.code.as_ref().map(ToString::to_string),
                reason: clip(&c.reason),
            })
            .collect();
        let agent = agent_of(&event).or_else(|| {
            explanation.lineage.as_ref().and_then(|l| l.last()).map(|a| format!("{} {}", a.agent_type, a.id))
        });
        self.rows.push(Row {
            verdict: verdict(&event),
            agent: agent.map(|a| clip(&a)),
            failed,
            notes: explanation.notes.iter().take(MAX_NOTES).map(|n| clip(n)).collect(),
            ..base_row(envelope, clip(&explanation.summary))
        });
    }

    fn note_uses(&mut self, seq: u64, event: &AuditEvent) {
        let approval_ref = match event {
            AuditEvent::DelegationEvaluated(report) => report.approval_ref.as_ref(),
            AuditEvent::SpawnEvaluated(spawn) => spawn.gate.approval_ref.as_ref(),
            _ => None,
        };
        if let Some(approval_ref) = approval_ref {
            self.approval_uses.entry(approval_ref.clone()).or_default().push(seq);
        }
    }

    /// The spawn trees, each agent with the decision of the event that first named it.
    pub(crate) fn trees(&self) -> Vec<Tree> {
        let by_seq: BTreeMap<u64, &Row> = self.rows.iter().map(|r| (r.seq, r)).collect();
        let sessions = self.trees.sessions.iter().map(|(id, tree)| (Some(id.clone()), tree));
        let without =
            std::iter::once((None, &self.trees.without_session)).filter(|(_, t)| !t.agents.is_empty());
        sessions
            .chain(without)
            .map(|(session, tree)| Tree {
                session,
                unrecorded: tree.unrecorded,
                agents: tree.agents.iter().map(|(id, a)| agent(id, a, by_seq.get(&a.first_seq))).collect(),
            })
            .collect()
    }
}

/// One agent of a tree, with the decision of the event that first named it when that event
/// decided about it (its spawn, or a check it was the newest agent of).
fn agent(id: &str, a: &SpawnedAgent, first: Option<&&Row>) -> Agent {
    let names = |name: &str| {
        first.and_then(|r| r.agent.as_deref()).is_some_and(|agent| agent.ends_with(&format!(" {name}")))
    };
    let decided = names(id) || a.tool_use_id.as_deref().is_some_and(names);
    let row = first.filter(|_| decided);
    Agent {
        id: clip(id),
        agent_type: clip(&a.agent_type),
        depth: a.spawn_depth,
        parent: a.parent.as_deref().map(clip),
        other_parents: a.other_parents.iter().map(|p| clip(p)).collect(),
        checks: a.checks,
        denied: a.denied,
        untracked: a.untracked,
        start: Start {
            seq: a.first_seq,
            decided,
            verdict: row.and_then(|r| r.verdict),
            reason: row.and_then(|r| r.failed.first()).map(|f| f.reason.clone()),
        },
    }
}

fn base_row(envelope: &EnvelopeRef<'_>, summary: String) -> Row {
    Row {
        seq: envelope.seq,
        at: envelope.recorded_at.to_string(),
        actor: clip(envelope.actor()),
        session: envelope.session().map(clip),
        event_type: clip(envelope.event_type()),
        verdict: None,
        summary,
        agent: None,
        failed: Vec::new(),
        notes: Vec::new(),
        undecodable: None,
        raw: None,
    }
}

/// The agent a hook event names (lineage events are read from their lineage).
fn agent_of(event: &AuditEvent) -> Option<String> {
    let named = |agent_type: &str, id: Option<&str>| match id {
        Some(id) => format!("{agent_type} {id}"),
        None => agent_type.to_owned(),
    };
    match event {
        AuditEvent::SpawnEvaluated(e) => Some(format!(
            "{} → {}",
            named(&e.persona, e.agent_id.as_deref()),
            named(&e.subagent_type, Some(&e.tool_use_id))
        )),
        AuditEvent::SubagentStarted(e) => Some(named(&e.agent_type, Some(&e.agent_id))),
        AuditEvent::SubagentStopped(e) => Some(named(&e.agent_type, Some(&e.agent_id))),
        AuditEvent::HookToolEvaluated(e) => match (&e.agent_type, &e.agent_id) {
            (None, None) => None,
            (t, id) => Some(named(t.as_deref().unwrap_or("(unknown)"), id.as_deref())),
        },
        AuditEvent::ToolCallAuthorized(e) => {
            e.agent.as_ref().map(|a| named(a.agent_type.as_str(), Some(&a.id)))
        }
        _ => None,
    }
}

/// A protected path changed, from a guard check or a subagent's stop.
fn violation(envelope: &EnvelopeRef<'_>, event: &AuditEvent) -> Option<ViolationRow> {
    let at = envelope.recorded_at.to_string();
    match event {
        AuditEvent::GuardrailViolation(v) => Some(ViolationRow {
            seq: envelope.seq,
            at,
            who: clip(&format!("run {} item {}", v.details.run_id, v.details.item_id)),
            kind: clip(&v.violation_type),
            changed: v.details.changed_files.iter().map(|f| clip(f)).collect(),
            reverted: v.details.reverted,
            error: clip(&v.details.revert_error),
        }),
        AuditEvent::SubagentStopped(e) if !e.changed_files.is_empty() => Some(ViolationRow {
            seq: envelope.seq,
            at,
            who: clip(&format!("{} {}", e.agent_type, e.agent_id)),
            kind: "protected path changed by a subagent".to_owned(),
            changed: e.changed_files.iter().map(|f| clip(f)).collect(),
            reverted: e.reverted,
            error: String::new(),
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use agentwarden::audit::Envelope;
    use agentwarden::events::decode;

    use super::{MAX_TEXT, clip, verdict};

    const GOLDEN: &str = include_str!("../../domain/src/audit/testdata/log.jsonl");

    fn event(seq: usize, edit: impl FnOnce(&mut serde_json::Value)) -> agentwarden::events::AuditEvent {
        let line = GOLDEN.lines().nth(seq - 1).unwrap_or_default();
        let mut value: serde_json::Value = serde_json::from_str(line).unwrap_or_default();
        edit(&mut value);
        let envelope: Envelope = serde_json::from_value(value).unwrap_or_else(|e| unreachable!("{e}"));
        decode(&envelope).unwrap_or_else(|e| unreachable!("{e}"))
    }

    #[test]
    fn a_held_back_stop_is_a_block_and_other_denials_are_denies() {
        let stop_denied = |v: &mut serde_json::Value| v["payload"]["decision"] = "deny".into();
        // (event, expected, why)
        let rows = [
            (event(1, |_| {}), Some("allow"), "the gate allowed (Example 1)"),
            (event(3, |_| {}), Some("deny"), "the gate denied (Example 3)"),
            (event(8, |_| {}), Some("deny"), "a tool call denied at its delegation layer"),
            (event(21, |_| {}), Some("deny"), "a spawn refused"),
            (event(24, |_| {}), Some("allow"), "a subagent allowed to stop"),
            (event(24, stop_denied), Some("block"), "a stop held back: the subagent goes on"),
            (event(17, |_| {}), None, "a seal decides nothing"),
            (event(26, |_| {}), None, "a note decides nothing"),
        ];
        for (event, expected, why) in rows {
            assert_eq!(verdict(&event), expected, "{why}");
        }
    }

    #[test]
    fn long_values_are_cut_on_a_character_boundary() {
        // (value, expected length in characters, why)
        let long = "é".repeat(MAX_TEXT + 5);
        let rows = [
            ("short".to_owned(), 5, "kept whole"),
            ("x".repeat(MAX_TEXT), MAX_TEXT, "exactly the limit: kept whole"),
            (long, MAX_TEXT + 1, "cut, with the ellipsis, never inside a character"),
        ];
        for (value, chars, why) in rows {
            assert_eq!(clip(&value).chars().count(), chars, "{why}");
        }
    }
}
