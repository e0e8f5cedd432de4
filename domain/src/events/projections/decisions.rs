//! Decisions over time: allow and deny counts per hour (UTC) of `recorded_at`, over every
//! event that decides: `delegation_evaluated`, `lineage_checked`, `tool_call_authorized`, and
//! the hook's `subagent_spawn_evaluated`, `subagent_stopped`, `session_stopped` and
//! `hook_tool_evaluated` (H-30).

use std::collections::BTreeMap;

use serde::Serialize;

use super::{Projection, Recorded};
use crate::audit::{EnvelopeRef, Timestamp};
use crate::verdict::Decision;

/// Decision counts per hour.
#[derive(Clone, Copy, Debug, Default)]
pub struct Decisions;

/// The state of [`Decisions`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DecisionsState {
    /// Per hour, keyed by the hour's first instant (`2026-02-21T09:00:00.000Z`); the key's
    /// fixed format sorts chronologically.
    pub hours: BTreeMap<String, DecisionCounts>,
    /// Over the whole log.
    pub total: DecisionCounts,
    /// The last event's hour and its key: events come in time order, so most need no new key.
    #[serde(skip)]
    last_hour: Option<(Timestamp, String)>,
}

/// Allow and deny counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DecisionCounts {
    /// Allows.
    pub allow: u64,
    /// Denies.
    pub deny: u64,
}

impl DecisionCounts {
    fn add(&mut self, decision: Decision) {
        match decision {
            Decision::Allow => self.allow += 1,
            Decision::Deny => self.deny += 1,
        }
    }
}

/// The first instant of the hour `at` falls in.
pub(crate) fn hour_of(at: Timestamp) -> Timestamp {
    Timestamp::saturating_from_unix_millis(at.unix_millis() - at.unix_millis().rem_euclid(3_600_000))
}

impl Projection for Decisions {
    type State = DecisionsState;

    fn wants(&self, envelope: &EnvelopeRef<'_>) -> bool {
        super::DECISION_EVENTS.contains(&envelope.event_type())
    }

    fn apply(&self, state: &mut DecisionsState, event: Recorded<'_>) {
        let Some(decision) = event.event.decision() else { return };
        let hour = hour_of(event.envelope.recorded_at);
        if !matches!(&state.last_hour, Some((last, _)) if *last == hour) {
            state.last_hour = Some((hour, hour.to_string()));
        }
        if let Some((_, key)) = &state.last_hour {
            match state.hours.get_mut(key) {
                Some(counts) => counts.add(decision),
                None => state.hours.entry(key.clone()).or_default().add(decision),
            }
        }
        state.total.add(decision);
    }
}
