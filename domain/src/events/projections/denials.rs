//! Denials by gate, by layer, by code and by persona, from every event that decides (the hook's
//! included, H-30).
//!
//! Each denial is counted once, under its first failure (G-1: the first failure is the
//! denial's cause; the others are in the event). The persona of a denial is the one that asked
//! for the power it was refused: the gate's persona for `delegation_evaluated`, the acting
//! agent's type for `tool_call_authorized`, the parent of the failing pair for
//! `lineage_checked` (the agent that tried to spawn), the subagent's type for the hook's
//! `subagent_stopped` and `hook_tool_evaluated`. Where the event cannot say (an unreadable
//! request, a lineage too long to record, the main session's `session_stopped`), the persona is
//! [`UNKNOWN_PERSONA`], which no name can spell (G-14).

use std::collections::BTreeMap;

use serde::Serialize;

use super::{Projection, Recorded, snake_name};
use crate::audit::EnvelopeRef;
use crate::events::AuditEvent;
use crate::verdict::Decision;

/// The persona of a denial whose event does not name one.
pub const UNKNOWN_PERSONA: &str = "(unknown)";

/// Denial counts.
#[derive(Clone, Copy, Debug, Default)]
pub struct Denials;

/// The state of [`Denials`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DenialsState {
    /// How many decisions were denials.
    pub denials: u64,
    /// Subagent-gate denials by the stage of their first failure (a gate, `candidates`, `audit`).
    pub by_gate: BTreeMap<String, u64>,
    /// Tool-call and lineage denials by layer (`capability`, `delegation`, `lineage`).
    pub by_layer: BTreeMap<String, u64>,
    /// Every denial by the code of its first failure.
    pub by_code: BTreeMap<String, u64>,
    /// Every denial by persona (or agent type).
    pub by_persona: BTreeMap<String, u64>,
}

impl Projection for Denials {
    type State = DenialsState;

    fn wants(&self, envelope: &EnvelopeRef<'_>) -> bool {
        super::DECISION_EVENTS.contains(&envelope.event_type())
    }

    fn apply(&self, state: &mut DenialsState, event: Recorded<'_>) {
        if event.event.decision() != Some(Decision::Deny) {
            return;
        }
        let (code, persona) = match event.event {
            AuditEvent::DelegationEvaluated(report) => {
                let failure = report.first_failure.as_ref();
                let stage = failure.map_or("unknown", |f| f.gate.as_str());
                *state.by_gate.entry(stage.to_owned()).or_default() += 1;
                (failure.map(|f| f.code.to_string()), report.persona.clone())
            }
            AuditEvent::ToolCallAuthorized(event) => {
                let failure = event.authorization.first_failure.as_ref();
                let layer = failure.map_or_else(|| "unknown".to_owned(), |f| snake_name(&f.name));
                *state.by_layer.entry(layer).or_default() += 1;
                let persona = event.agent.as_ref().map(|a| a.agent_type.as_str().to_owned());
                (failure.map(|f| f.code.to_string()), persona)
            }
            AuditEvent::SpawnEvaluated(event) => {
                // The hook's stage is `gate: NAME` for a gate, else the layer (`lineage`, `audit`).
                let failure = event.first_failure.as_ref();
                let stage = failure.map_or("unknown", |f| f.stage.as_str());
                match stage.strip_prefix("gate: ") {
                    Some(gate) => *state.by_gate.entry(gate.to_owned()).or_default() += 1,
                    None => *state.by_layer.entry(stage.to_owned()).or_default() += 1,
                }
                (failure.map(|f| f.code.to_string()), Some(event.persona.clone()))
            }
            AuditEvent::SubagentStopped(event) => {
                // A blocked stop counts under the stage of its first reason (`guardrails`, `result`).
                let failure = event.failures.first();
                let stage = failure.map_or("unknown", |f| f.stage.as_str());
                *state.by_layer.entry(stage.to_owned()).or_default() += 1;
                (failure.map(|f| f.code.to_string()), Some(event.agent_type.clone()))
            }
            AuditEvent::SessionStopped(event) => {
                // The main session's blocked stop (H-46), under its first reason's stage.
                let failure = event.failures.first();
                let stage = failure.map_or("unknown", |f| f.stage.as_str());
                *state.by_layer.entry(stage.to_owned()).or_default() += 1;
                (failure.map(|f| f.code.to_string()), None)
            }
            AuditEvent::SessionEnded(event) => {
                // The session's end that found a change (H-48), under its first reason's stage.
                let failure = event.failures.first();
                let stage = failure.map_or("unknown", |f| f.stage.as_str());
                *state.by_layer.entry(stage.to_owned()).or_default() += 1;
                (failure.map(|f| f.code.to_string()), None)
            }
            AuditEvent::HookToolEvaluated(event) => {
                let failure = event.failure.as_ref();
                let stage = failure.map_or("unknown", |f| f.stage.as_str());
                *state.by_layer.entry(stage.to_owned()).or_default() += 1;
                (failure.map(|f| f.code.to_string()), event.agent_type.clone())
            }
            AuditEvent::LineageChecked(event) => {
                *state.by_layer.entry("lineage".to_owned()).or_default() += 1;
                let parent = event.result.pair.and_then(|pair| {
                    event
                        .lineage
                        .as_ref()
                        .and_then(|l| l.get(pair.parent))
                        .map(|a| a.agent_type.as_str().to_owned())
                });
                (event.result.verdict.code().map(ToString::to_string), parent)
            }
            _ => return,
        };
        state.denials += 1;
        *state.by_code.entry(code.unwrap_or_else(|| "unknown".to_owned())).or_default() += 1;
        *state.by_persona.entry(persona.unwrap_or_else(|| UNKNOWN_PERSONA.to_owned())).or_default() += 1;
    }
}
