//! What happened in one session, in log order: one line per event filed under the session,
//! with its decision (if it decides) and a one-sentence summary.

use serde::Serialize;

use super::{Projection, Recorded};
use crate::audit::EnvelopeRef;
use crate::events::explain::summary;
use crate::verdict::Decision;

/// The timeline of the session with this id.
#[derive(Clone, Debug)]
pub struct Timeline {
    /// The session id.
    pub session: String,
}

/// One event of a timeline.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TimelineEntry {
    /// Its position in the log.
    pub seq: u64,
    /// When.
    pub recorded_at: String,
    /// Who.
    pub actor: String,
    /// The event type.
    pub event_type: String,
    /// Allow or deny, for events that decide.
    pub decision: Option<Decision>,
    /// In words.
    pub summary: String,
}

impl Projection for Timeline {
    type State = Vec<TimelineEntry>;

    fn wants(&self, envelope: &EnvelopeRef<'_>) -> bool {
        envelope.session() == Some(self.session.as_str())
    }

    fn apply(&self, state: &mut Vec<TimelineEntry>, event: Recorded<'_>) {
        let envelope = event.envelope;
        if !self.wants(envelope) {
            return;
        }
        state.push(TimelineEntry {
            seq: envelope.seq,
            recorded_at: envelope.recorded_at.to_string(),
            actor: envelope.actor().to_owned(),
            event_type: envelope.event_type().to_owned(),
            decision: event.event.decision(),
            summary: summary(event.event),
        });
    }
}
