//! Guardrail violations (spec 004, R-2 … R-10): every `guardrail_violation` event with its
//! changed files and whether the revert succeeded, and the counts an investigator checks first
//! — above all, how many were *not* reverted.

use serde::Serialize;

use super::{Projection, Recorded};
use crate::audit::EnvelopeRef;
use crate::events::AuditEvent;

/// Guardrail violations.
#[derive(Clone, Copy, Debug, Default)]
pub struct Violations;

/// The state of [`Violations`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ViolationsState {
    /// How many violations.
    pub total: u64,
    /// How many were reverted and verified.
    pub reverted: u64,
    /// How many were not: the protected tree may still be changed.
    pub not_reverted: u64,
    /// Each violation, in log order.
    pub violations: Vec<RecordedViolation>,
}

/// One violation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RecordedViolation {
    /// Its event.
    pub seq: u64,
    /// When.
    pub recorded_at: String,
    /// The run.
    pub run_id: String,
    /// The work item.
    pub item_id: String,
    /// The kind of violation.
    pub violation_type: String,
    /// Every changed protected path.
    pub changed_files: Vec<String>,
    /// Was it reverted (and verified)?
    pub reverted: bool,
    /// What could not be reverted, if anything.
    pub revert_error: String,
}

impl Projection for Violations {
    type State = ViolationsState;

    fn wants(&self, envelope: &EnvelopeRef<'_>) -> bool {
        envelope.event_type() == "guardrail_violation"
    }

    fn apply(&self, state: &mut ViolationsState, event: Recorded<'_>) {
        let AuditEvent::GuardrailViolation(violation) = event.event else { return };
        let details = &violation.details;
        state.total += 1;
        if details.reverted {
            state.reverted += 1;
        } else {
            state.not_reverted += 1;
        }
        state.violations.push(RecordedViolation {
            seq: event.envelope.seq,
            recorded_at: event.envelope.recorded_at.to_string(),
            run_id: details.run_id.clone(),
            item_id: details.item_id.clone(),
            violation_type: violation.violation_type.clone(),
            changed_files: details.changed_files.clone(),
            reverted: details.reverted,
            revert_error: details.revert_error.clone(),
        });
    }
}
