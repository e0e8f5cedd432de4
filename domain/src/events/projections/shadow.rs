//! What enforcing the manifests' tool rules would have broken (T-10): every tool call recorded
//! in shadow mode whose rules would have denied it, counted per agent type, call (in rule
//! syntax: the rule that was missing), layer and code, with the first and last time it was
//! seen — so a team can tighten manifests before it turns enforcement on.

use std::collections::BTreeMap;

use serde::{Serialize, Serializer};

use super::{Projection, Recorded, snake_name};
use crate::audit::EnvelopeRef;
use crate::events::AuditEvent;
use crate::verdict::Decision;

/// The shadow projection.
#[derive(Clone, Copy, Debug, Default)]
pub struct Shadow;

/// One call enforcing would have denied, and how often.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct WouldDeny {
    /// The calling agent's type (`(unknown)` when the event cannot say).
    pub agent_type: String,
    /// The call in rule syntax: the rule the manifests lack.
    pub tool: String,
    /// The first layer that would have failed.
    pub layer: String,
    /// Its code.
    pub code: String,
    /// How many such calls.
    pub count: u64,
    /// The first one's sequence number.
    pub first_seq: u64,
    /// The last one's.
    pub last_seq: u64,
}

/// The state of [`Shadow`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ShadowState {
    /// Tool calls recorded in shadow mode.
    pub calls: u64,
    /// Of those, the ones enforcing would have denied, by (agent type, tool, layer, code).
    pub would_deny: BTreeMap<(String, String, String, String), WouldDeny>,
}

impl Serialize for ShadowState {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Shown<'a> {
            calls: u64,
            would_deny: Vec<&'a WouldDeny>,
        }
        Shown { calls: self.calls, would_deny: self.would_deny.values().collect() }.serialize(serializer)
    }
}

impl Projection for Shadow {
    type State = ShadowState;

    fn wants(&self, envelope: &EnvelopeRef<'_>) -> bool {
        envelope.event_type() == "tool_call_authorized"
    }

    fn apply(&self, state: &mut ShadowState, event: Recorded<'_>) {
        let AuditEvent::ToolCallAuthorized(call) = event.event else { return };
        if !call.shadow {
            return;
        }
        state.calls += 1;
        if call.authorization.decision != Decision::Deny {
            return;
        }
        let failure = call.authorization.first_failure.as_ref();
        let agent_type = call
            .agent
            .as_ref()
            .map_or_else(|| super::UNKNOWN_PERSONA.to_owned(), |a| a.agent_type.as_str().to_owned());
        let tool = call.tool.clone().unwrap_or_else(|| "?".to_owned());
        let layer = failure.map_or_else(|| "unknown".to_owned(), |f| snake_name(&f.name));
        let code = failure.map_or_else(|| "unknown".to_owned(), |f| f.code.to_string());
        let seq = event.envelope.seq;
        let row = state
            .would_deny
            .entry((agent_type.clone(), tool.clone(), layer.clone(), code.clone()))
            .or_insert_with(|| WouldDeny {
                agent_type,
                tool,
                layer,
                code,
                count: 0,
                first_seq: seq,
                last_seq: seq,
            });
        row.count += 1;
        row.last_seq = seq;
    }
}
