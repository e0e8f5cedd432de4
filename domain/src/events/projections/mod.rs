//! Projections: pure folds over the audit log that rebuild the views an investigation asks for.
//!
//! A projection is `(state, event) -> state`: [`Projection::apply`] reads one verified,
//! decoded event and updates its state in place. It reads nothing else — no clock, no store —
//! so replaying the same log always rebuilds the same state, and a state rebuilt from seq 1
//! equals one folded over a prefix and then updated with the rest (property-tested). The
//! application streams the log into a projection page by page (`Warden::replay`); nothing here
//! holds the log.
//!
//! [`Projection::wants`] lets a projection skip events it never reads before they are decoded,
//! which is most of the cost of a replay. It sees only the envelope (type, correlation ids).

mod approvals;
mod decisions;
mod denials;
mod fan_out;
mod shadow;
mod spawn_tree;
mod timeline;
mod violations;

#[cfg(test)]
mod tests;

use serde::Serialize;

use super::catalogue::AuditEvent;
use crate::audit::EnvelopeRef;

pub use approvals::{ApprovalRecord, Approvals, ApprovalsState, Delegation};
pub use decisions::{DecisionCounts, Decisions, DecisionsState};
pub use denials::{Denials, DenialsState, UNKNOWN_PERSONA};
pub use fan_out::{FanOutRun, FanOutRuns, FanOutState, RecordedChunk, RecordedMerge};
pub use shadow::{Shadow, ShadowState, WouldDeny};
pub use spawn_tree::{SpawnTree, SpawnTreeState, SpawnTrees, SpawnedAgent};
pub use timeline::{Timeline, TimelineEntry};
pub use violations::{RecordedViolation, Violations, ViolationsState};

/// One event as a projection sees it: the envelope (position, time, correlation ids) and the
/// payload decoded at today's version.
#[derive(Clone, Copy, Debug)]
pub struct Recorded<'a> {
    /// The envelope, borrowed from the stored body (its chain position already verified by the
    /// caller).
    pub envelope: &'a EnvelopeRef<'a>,
    /// The payload, upcast to today's type.
    pub event: &'a AuditEvent,
}

/// A fold over the audit log.
pub trait Projection {
    /// What the fold builds. `Default` is the state of an empty log.
    type State: Default + Serialize;

    /// True if [`Projection::apply`] reads events like this one; others are not even decoded.
    fn wants(&self, envelope: &EnvelopeRef<'_>) -> bool {
        let _ = envelope;
        true
    }

    /// Updates `state` with one event, in log order.
    fn apply(&self, state: &mut Self::State, event: Recorded<'_>);
}

/// Folds `events` into `state`, skipping those the projection does not want.
pub fn fold<'a, P: Projection>(
    projection: &P,
    state: &mut P::State,
    events: impl IntoIterator<Item = Recorded<'a>>,
) {
    for event in events {
        if projection.wants(event.envelope) {
            projection.apply(state, event);
        }
    }
}

/// The events that record a decision (allow or deny), counted by `decisions` and `denials`
/// alike (H-30).
pub(crate) const DECISION_EVENTS: &[&str] = &[
    "delegation_evaluated",
    "lineage_checked",
    "tool_call_authorized",
    "subagent_spawn_evaluated",
    "subagent_stopped",
    "session_stopped",
    "session_ended",
    "hook_tool_evaluated",
];

/// The projections the command line can replay by name.
pub const NAMES: &[&str] =
    &["approvals", "denials", "spawn-tree", "fan-out", "violations", "decisions", "shadow"];

pub use super::explain::snake_name;
