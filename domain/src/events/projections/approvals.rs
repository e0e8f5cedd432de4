//! What ran under each approval reference, and who approved it: every `delegation_evaluated`
//! event, grouped by its `approval_ref` (G-6, G-10).
//!
//! An evaluation is filed under its reference whatever its decision — a denied evaluation that
//! carried a valid reference is part of the approval's story. Evaluations whose reference did
//! not pass its gate have none and are only counted.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::{Projection, Recorded};
use crate::audit::EnvelopeRef;
use crate::events::AuditEvent;
use crate::verdict::Decision;

/// Delegations by approval reference.
#[derive(Clone, Copy, Debug, Default)]
pub struct Approvals;

/// The state of [`Approvals`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ApprovalsState {
    /// Each reference and what was evaluated under it, by reference.
    pub by_ref: BTreeMap<String, ApprovalRecord>,
    /// Evaluations without a usable reference.
    pub without_ref: u64,
}

/// One approval reference.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ApprovalRecord {
    /// Everyone named as approver (`approvedBy`) under this reference.
    pub approved_by: BTreeSet<String>,
    /// How many evaluations allowed a delegation.
    pub allowed: u64,
    /// How many were denied.
    pub denied: u64,
    /// Every subagent ever delegated under it.
    pub subagents: BTreeSet<String>,
    /// Each evaluation, in log order.
    pub evaluations: Vec<Delegation>,
}

/// One evaluation under a reference.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Delegation {
    /// Its event.
    pub seq: u64,
    /// When.
    pub recorded_at: String,
    /// The harness session.
    pub session: Option<String>,
    /// The persona.
    pub persona: Option<String>,
    /// Allow or deny.
    pub decision: Decision,
    /// The subagents delegated.
    pub delegated: Vec<String>,
    /// Who approved, as this evaluation said.
    pub approved_by: Option<String>,
}

impl Projection for Approvals {
    type State = ApprovalsState;

    fn wants(&self, envelope: &EnvelopeRef<'_>) -> bool {
        matches!(envelope.event_type(), "delegation_evaluated" | "subagent_spawn_evaluated")
    }

    fn apply(&self, state: &mut ApprovalsState, event: Recorded<'_>) {
        let denied_spawn;
        let report = match event.event {
            AuditEvent::DelegationEvaluated(report) => report.as_ref(),
            // The hook's gate report, with the spawn's own decision: what the gate allowed but
            // the lineage denied did not run under the approval.
            AuditEvent::SpawnEvaluated(spawn) if spawn.decision == Decision::Deny => {
                denied_spawn = crate::governance::GateReport {
                    decision: Decision::Deny,
                    delegated: Vec::new(),
                    ..spawn.gate.clone()
                };
                &denied_spawn
            }
            AuditEvent::SpawnEvaluated(spawn) => &spawn.gate,
            _ => return,
        };
        let Some(approval_ref) = &report.approval_ref else {
            state.without_ref += 1;
            return;
        };
        let record = state.by_ref.entry(approval_ref.clone()).or_default();
        match report.decision {
            Decision::Allow => record.allowed += 1,
            Decision::Deny => record.denied += 1,
        }
        record.approved_by.extend(report.approved_by.iter().cloned());
        record.subagents.extend(report.delegated.iter().cloned());
        record.evaluations.push(Delegation {
            seq: event.envelope.seq,
            recorded_at: event.envelope.recorded_at.to_string(),
            session: event.envelope.session().map(str::to_owned),
            persona: report.persona.clone(),
            decision: report.decision,
            delegated: report.delegated.clone(),
            approved_by: report.approved_by.clone(),
        });
    }
}
