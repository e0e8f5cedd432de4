//! Typed audit events, and the upcasting hook that reads old versions as today's types.
//!
//! Events are never rewritten: an event keeps the `event_version` it was written with. When a
//! payload's shape changes, its version goes up by one and a step is added to [`UPCASTS`] that
//! turns the old JSON into the new; [`decode`] applies the steps in order when it reads. Each
//! capability adds its own variants to [`AuditEvent`].

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::audit::{Envelope, EnvelopeRef, EventPayload};
use crate::fanout::{ChunkOutcome, Merged, Plan};
use crate::governance::{ApprovalGranted, ApprovalRevoked, ContextSealed, GateReport};
use crate::guardrails::{ResultValidation, Violation};
use crate::lineage::{LineageChecked, ToolCallAuthorized};
use crate::sessions::{
    ConfigChangeBlocked, HookInputRefused, HookToolEvaluated, SessionEnded, SessionQuarantined,
    SessionReleased, SessionStarted, SessionStopped, SpawnEvaluated, SubagentStarted, SubagentStopped,
};
use crate::verdict::Decision;

/// One `result.json` validation (`result_validated`, version 1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResultValidated {
    /// The file, as given.
    pub path: String,
    /// BLAKE3 of the file's bytes, when it could be read.
    pub digest: Option<String>,
    /// The verdict and every problem.
    pub validation: ResultValidation,
}

/// A fan-out plan (`fan_out_planned`, version 1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FanOutPlanned {
    /// The phase.
    pub phase: String,
    /// How many valid items.
    pub items: usize,
    /// Every value the validation changed, and every item dropped.
    pub warnings: Vec<String>,
    /// The plan: chunk sizes, or the single-agent reason.
    pub plan: PlanSummary,
}

/// A plan without its items (the items can be many; the event records sizes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "snake_case", deny_unknown_fields)]
pub enum PlanSummary {
    /// One agent, for this reason.
    SingleAgent {
        /// Why.
        reason: String,
    },
    /// Chunks of these sizes.
    FanOut {
        /// The strategy used.
        strategy: crate::fanout::Strategy,
        /// Items per chunk.
        chunk_sizes: Vec<usize>,
    },
}

impl From<&Plan> for PlanSummary {
    fn from(plan: &Plan) -> Self {
        match plan {
            Plan::SingleAgent { reason } => PlanSummary::SingleAgent { reason: reason.clone() },
            Plan::FanOut { strategy, chunks } => PlanSummary::FanOut {
                strategy: *strategy,
                chunk_sizes: chunks.iter().map(Vec::len).collect(),
            },
        }
    }
}

/// The merged outcome of a fan-out (`fan_out_merged`, version 1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FanOutMerged {
    /// The phase.
    pub phase: String,
    /// The merge.
    pub merged: Merged,
}

/// A note an operator adds to the log (`warden audit note`): an investigator's remark, a
/// marker around maintenance, the README's first events.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OperatorNote {
    /// The note's text.
    pub message: String,
}

/// Every event Agent Warden writes, at its current version.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum AuditEvent {
    /// `operator_note`, version 1.
    OperatorNote(OperatorNote),
    /// `delegation_evaluated`, version 1: one subagent-gate evaluation, with every gate's
    /// outcome, the candidates, the approval, and a digest of the metadata seen (G-10).
    DelegationEvaluated(Box<GateReport>),
    /// `lineage_checked`, version 2 (version 1 is upcast on read).
    LineageChecked(Box<LineageChecked>),
    /// `tool_call_authorized`, version 1.
    ToolCallAuthorized(Box<ToolCallAuthorized>),
    /// `result_validated`, version 1.
    ResultValidated(Box<ResultValidated>),
    /// `guardrail_violation`, version 1: the violation record of spec 004.
    GuardrailViolation(Box<Violation>),
    /// `fan_out_planned`, version 1.
    FanOutPlanned(Box<FanOutPlanned>),
    /// `chunk_finished`, version 1: one chunk's validated outcome.
    ChunkFinished(Box<ChunkOutcome>),
    /// `fan_out_merged`, version 1.
    FanOutMerged(Box<FanOutMerged>),
    /// `context_sealed`, version 1: `warden seal`.
    ContextSealed(ContextSealed),
    /// `approval_granted`, version 1: `warden approve`.
    ApprovalGranted(ApprovalGranted),
    /// `approval_revoked`, version 1: `warden revoke`.
    ApprovalRevoked(ApprovalRevoked),
    /// `subagent_spawn_evaluated`, version 1: the hook's decision on a `Task`/`Agent` call.
    SpawnEvaluated(Box<SpawnEvaluated>),
    /// `subagent_started`, version 1.
    SubagentStarted(Box<SubagentStarted>),
    /// `subagent_stopped`, version 1: the hook's stop check.
    SubagentStopped(Box<SubagentStopped>),
    /// `hook_tool_evaluated`, version 1: the hook's decision on another governed tool call.
    HookToolEvaluated(Box<HookToolEvaluated>),
    /// `session_quarantined`, version 1.
    SessionQuarantined(Box<SessionQuarantined>),
    /// `session_released`, version 1: `warden release`.
    SessionReleased(SessionReleased),
    /// `hook_input_refused`, version 1.
    HookInputRefused(Box<HookInputRefused>),
    /// `config_change_blocked`, version 1: a settings change the hook blocked (H-43).
    ConfigChangeBlocked(Box<ConfigChangeBlocked>),
    /// `session_started`, version 1: the main session's start, its snapshot taken (H-45).
    SessionStarted(Box<SessionStarted>),
    /// `session_stopped`, version 1: the main session's stop check (H-46).
    SessionStopped(Box<SessionStopped>),
    /// `session_ended`, version 1: the session's end, its protected paths put back (H-48).
    SessionEnded(Box<SessionEnded>),
}

/// The catalogue gives each draft its type, version and payload; the envelope knows no more.
impl EventPayload for AuditEvent {
    fn event_type(&self) -> &'static str {
        AuditEvent::event_type(self)
    }

    fn event_version(&self) -> u32 {
        AuditEvent::event_version(self)
    }

    fn write_payload(&self, out: &mut Vec<u8>) -> Result<(), serde_json::Error> {
        AuditEvent::write_payload(self, out)
    }
}

impl AuditEvent {
    /// The `event_type` written in the envelope.
    pub fn event_type(&self) -> &'static str {
        match self {
            AuditEvent::OperatorNote(_) => "operator_note",
            AuditEvent::DelegationEvaluated(_) => "delegation_evaluated",
            AuditEvent::LineageChecked(_) => "lineage_checked",
            AuditEvent::ToolCallAuthorized(_) => "tool_call_authorized",
            AuditEvent::ResultValidated(_) => "result_validated",
            AuditEvent::GuardrailViolation(_) => "guardrail_violation",
            AuditEvent::FanOutPlanned(_) => "fan_out_planned",
            AuditEvent::ChunkFinished(_) => "chunk_finished",
            AuditEvent::FanOutMerged(_) => "fan_out_merged",
            AuditEvent::ContextSealed(_) => "context_sealed",
            AuditEvent::ApprovalGranted(_) => "approval_granted",
            AuditEvent::ApprovalRevoked(_) => "approval_revoked",
            AuditEvent::SpawnEvaluated(_) => "subagent_spawn_evaluated",
            AuditEvent::SubagentStarted(_) => "subagent_started",
            AuditEvent::SubagentStopped(_) => "subagent_stopped",
            AuditEvent::HookToolEvaluated(_) => "hook_tool_evaluated",
            AuditEvent::SessionQuarantined(_) => "session_quarantined",
            AuditEvent::SessionReleased(_) => "session_released",
            AuditEvent::HookInputRefused(_) => "hook_input_refused",
            AuditEvent::ConfigChangeBlocked(_) => "config_change_blocked",
            AuditEvent::SessionStarted(_) => "session_started",
            AuditEvent::SessionStopped(_) => "session_stopped",
            AuditEvent::SessionEnded(_) => "session_ended",
        }
    }

    /// The current schema version of this event's payload.
    pub fn event_version(&self) -> u32 {
        match self {
            AuditEvent::LineageChecked(_) => 2,
            AuditEvent::OperatorNote(_)
            | AuditEvent::DelegationEvaluated(_)
            | AuditEvent::ToolCallAuthorized(_)
            | AuditEvent::ResultValidated(_)
            | AuditEvent::GuardrailViolation(_)
            | AuditEvent::FanOutPlanned(_)
            | AuditEvent::ChunkFinished(_)
            | AuditEvent::FanOutMerged(_)
            | AuditEvent::ContextSealed(_)
            | AuditEvent::ApprovalGranted(_)
            | AuditEvent::ApprovalRevoked(_)
            | AuditEvent::SpawnEvaluated(_)
            | AuditEvent::SubagentStarted(_)
            | AuditEvent::SubagentStopped(_)
            | AuditEvent::HookToolEvaluated(_)
            | AuditEvent::SessionQuarantined(_)
            | AuditEvent::SessionReleased(_)
            | AuditEvent::HookInputRefused(_)
            | AuditEvent::ConfigChangeBlocked(_)
            | AuditEvent::SessionStarted(_)
            | AuditEvent::SessionStopped(_)
            | AuditEvent::SessionEnded(_) => 1,
        }
    }

    /// The payload as JSON, written into `out` (the bytes [`AuditEvent::to_payload`] holds).
    pub(crate) fn write_payload(&self, out: &mut Vec<u8>) -> Result<(), serde_json::Error> {
        fn write<T: Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) -> Result<(), serde_json::Error> {
            serde_json::to_writer(out, value)
        }
        match self {
            AuditEvent::OperatorNote(note) => write(out, note),
            AuditEvent::DelegationEvaluated(report) => write(out, report),
            AuditEvent::LineageChecked(event) => write(out, event),
            AuditEvent::ToolCallAuthorized(event) => write(out, event),
            AuditEvent::ResultValidated(event) => write(out, event),
            AuditEvent::GuardrailViolation(event) => write(out, event),
            AuditEvent::FanOutPlanned(event) => write(out, event),
            AuditEvent::ChunkFinished(event) => write(out, event),
            AuditEvent::FanOutMerged(event) => write(out, event),
            AuditEvent::ContextSealed(event) => write(out, event),
            AuditEvent::ApprovalGranted(event) => write(out, event),
            AuditEvent::ApprovalRevoked(event) => write(out, event),
            AuditEvent::SpawnEvaluated(event) => write(out, event),
            AuditEvent::SubagentStarted(event) => write(out, event),
            AuditEvent::SubagentStopped(event) => write(out, event),
            AuditEvent::HookToolEvaluated(event) => write(out, event),
            AuditEvent::SessionQuarantined(event) => write(out, event),
            AuditEvent::SessionReleased(event) => write(out, event),
            AuditEvent::HookInputRefused(event) => write(out, event),
            AuditEvent::ConfigChangeBlocked(event) => write(out, event),
            AuditEvent::SessionStarted(event) => write(out, event),
            AuditEvent::SessionStopped(event) => write(out, event),
            AuditEvent::SessionEnded(event) => write(out, event),
        }
    }

    /// The payload as JSON, held as a raw JSON value (the bytes an event body carries).
    pub fn to_payload(&self) -> Result<Box<RawValue>, serde_json::Error> {
        let mut payload = Vec::new();
        self.write_payload(&mut payload)?;
        let text = String::from_utf8(payload).map_err(|e| serde::ser::Error::custom(e.to_string()))?;
        RawValue::from_string(text)
    }

    /// The allow/deny of a decision event (`delegation_evaluated`, `lineage_checked`,
    /// `tool_call_authorized`); `None` for events that record something else.
    pub fn decision(&self) -> Option<Decision> {
        match self {
            AuditEvent::DelegationEvaluated(report) => Some(report.decision),
            AuditEvent::LineageChecked(event) => Some(event.decision),
            // A call decided in shadow mode ran: that is the decision that was made (T-10).
            AuditEvent::ToolCallAuthorized(event) if event.shadow => Some(Decision::Allow),
            AuditEvent::ToolCallAuthorized(event) => Some(event.authorization.decision),
            AuditEvent::SpawnEvaluated(event) => Some(event.decision),
            AuditEvent::SubagentStopped(event) => Some(event.decision),
            AuditEvent::HookToolEvaluated(event) => Some(event.decision),
            AuditEvent::ConfigChangeBlocked(event) => Some(event.decision),
            AuditEvent::SessionStopped(event) => Some(event.decision),
            AuditEvent::SessionEnded(event) => Some(event.decision),
            AuditEvent::OperatorNote(_)
            | AuditEvent::SessionStarted(_)
            | AuditEvent::ResultValidated(_)
            | AuditEvent::ContextSealed(_)
            | AuditEvent::ApprovalGranted(_)
            | AuditEvent::ApprovalRevoked(_)
            | AuditEvent::SubagentStarted(_)
            | AuditEvent::GuardrailViolation(_)
            | AuditEvent::FanOutPlanned(_)
            | AuditEvent::ChunkFinished(_)
            | AuditEvent::FanOutMerged(_)
            | AuditEvent::SessionQuarantined(_)
            | AuditEvent::SessionReleased(_)
            | AuditEvent::HookInputRefused(_) => None,
        }
    }

    fn from_current(event_type: &str, payload: Payload<'_>) -> Result<AuditEvent, DecodeError> {
        let invalid = |e: serde_json::Error| DecodeError::InvalidPayload {
            event_type: event_type.to_owned(),
            why: e.to_string(),
        };
        let event = match event_type {
            "operator_note" => AuditEvent::OperatorNote(payload.read().map_err(invalid)?),
            "delegation_evaluated" => AuditEvent::DelegationEvaluated(payload.read().map_err(invalid)?),
            "lineage_checked" => AuditEvent::LineageChecked(payload.read().map_err(invalid)?),
            "tool_call_authorized" => AuditEvent::ToolCallAuthorized(payload.read().map_err(invalid)?),
            "result_validated" => AuditEvent::ResultValidated(payload.read().map_err(invalid)?),
            "guardrail_violation" => AuditEvent::GuardrailViolation(payload.read().map_err(invalid)?),
            "fan_out_planned" => AuditEvent::FanOutPlanned(payload.read().map_err(invalid)?),
            "chunk_finished" => AuditEvent::ChunkFinished(payload.read().map_err(invalid)?),
            "fan_out_merged" => AuditEvent::FanOutMerged(payload.read().map_err(invalid)?),
            "context_sealed" => AuditEvent::ContextSealed(payload.read().map_err(invalid)?),
            "approval_granted" => AuditEvent::ApprovalGranted(payload.read().map_err(invalid)?),
            "approval_revoked" => AuditEvent::ApprovalRevoked(payload.read().map_err(invalid)?),
            "subagent_spawn_evaluated" => AuditEvent::SpawnEvaluated(payload.read().map_err(invalid)?),
            "subagent_started" => AuditEvent::SubagentStarted(payload.read().map_err(invalid)?),
            "subagent_stopped" => AuditEvent::SubagentStopped(payload.read().map_err(invalid)?),
            "hook_tool_evaluated" => AuditEvent::HookToolEvaluated(payload.read().map_err(invalid)?),
            "session_quarantined" => AuditEvent::SessionQuarantined(payload.read().map_err(invalid)?),
            "session_released" => AuditEvent::SessionReleased(payload.read().map_err(invalid)?),
            "hook_input_refused" => AuditEvent::HookInputRefused(payload.read().map_err(invalid)?),
            "config_change_blocked" => AuditEvent::ConfigChangeBlocked(payload.read().map_err(invalid)?),
            "session_started" => AuditEvent::SessionStarted(payload.read().map_err(invalid)?),
            "session_stopped" => AuditEvent::SessionStopped(payload.read().map_err(invalid)?),
            "session_ended" => AuditEvent::SessionEnded(payload.read().map_err(invalid)?),
            other => return Err(DecodeError::UnknownType { event_type: other.to_owned() }),
        };
        Ok(event)
    }

    fn current_version(event_type: &str) -> Option<u32> {
        match event_type {
            "lineage_checked" => Some(2),
            "operator_note"
            | "delegation_evaluated"
            | "tool_call_authorized"
            | "result_validated"
            | "guardrail_violation"
            | "fan_out_planned"
            | "chunk_finished"
            | "fan_out_merged"
            | "context_sealed"
            | "approval_granted"
            | "approval_revoked"
            | "subagent_spawn_evaluated"
            | "subagent_started"
            | "subagent_stopped"
            | "hook_tool_evaluated"
            | "session_quarantined"
            | "session_released"
            | "hook_input_refused"
            | "config_change_blocked"
            | "session_started"
            | "session_stopped"
            | "session_ended" => Some(1),
            _ => None,
        }
    }
}

/// Every `event_type` this reader knows, for filters that must refuse a misspelt one.
pub const EVENT_TYPES: &[&str] = &[
    "operator_note",
    "delegation_evaluated",
    "lineage_checked",
    "tool_call_authorized",
    "result_validated",
    "guardrail_violation",
    "fan_out_planned",
    "chunk_finished",
    "fan_out_merged",
    "context_sealed",
    "approval_granted",
    "approval_revoked",
    "subagent_spawn_evaluated",
    "subagent_started",
    "subagent_stopped",
    "hook_tool_evaluated",
    "session_quarantined",
    "session_released",
    "hook_input_refused",
    "config_change_blocked",
];

/// A payload at today's version: the stored text (read directly, the fast path of a replay), or
/// the JSON value an upcast produced.
enum Payload<'a> {
    Stored(&'a str),
    Upcast(serde_json::Value),
}

impl Payload<'_> {
    fn read<T: serde::de::DeserializeOwned>(self) -> Result<T, serde_json::Error> {
        match self {
            Payload::Stored(text) => serde_json::from_str(text),
            Payload::Upcast(value) => serde_json::from_value(value),
        }
    }
}

/// One step of schema evolution: turns version `from_version` of `event_type` into version
/// `from_version + 1`.
#[derive(Debug, Clone, Copy)]
pub struct Upcast {
    /// The event type the step applies to.
    pub event_type: &'static str,
    /// The version it reads.
    pub from_version: u32,
    /// The conversion; an error says what in the old payload could not be carried over.
    pub step: fn(serde_json::Value) -> Result<serde_json::Value, UpcastError>,
}

/// Why an old payload cannot be carried over to the next version, by cause. More causes
/// may come with later upcasts.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UpcastError {
    /// The payload is not a JSON object.
    #[error("a `{event_type}` payload must be an object")]
    NotAnObject {
        /// The event type.
        event_type: &'static str,
    },
    /// The payload lacks a field its version has.
    #[error("version {version} must have `{field}`")]
    Missing {
        /// The version read.
        version: u32,
        /// The field.
        field: &'static str,
    },
    /// The payload has a field its version does not have.
    #[error("version {version} has no `{field}`")]
    Unexpected {
        /// The version read.
        version: u32,
        /// The field.
        field: &'static str,
    },
}

/// The upcasting steps of the current schema, applied in order by [`decode`].
pub const UPCASTS: &[Upcast] =
    &[Upcast { event_type: "lineage_checked", from_version: 1, step: lineage_checked_v1_to_v2 }];

/// `lineage_checked` 1 → 2: `length` is renamed `lineage_length`. A version-1 payload without
/// `length`, or with `lineage_length` already, is not a version-1 payload: refused.
fn lineage_checked_v1_to_v2(mut payload: serde_json::Value) -> Result<serde_json::Value, UpcastError> {
    let object = payload.as_object_mut().ok_or(UpcastError::NotAnObject { event_type: "lineage_checked" })?;
    if object.contains_key("lineage_length") {
        return Err(UpcastError::Unexpected { version: 1, field: "lineage_length" });
    }
    let length = object.remove("length").ok_or(UpcastError::Missing { version: 1, field: "length" })?;
    object.insert("lineage_length".into(), length);
    Ok(payload)
}

/// An event that cannot be read as today's type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// No variant of [`AuditEvent`] has this type.
    #[error("unknown event type `{event_type}`")]
    UnknownType {
        /// The type seen.
        event_type: String,
    },
    /// Written by a newer Agent Warden than this one.
    #[error("`{event_type}` version {version} is newer than this reader's version {current}")]
    FromTheFuture {
        /// The type.
        event_type: String,
        /// The version seen.
        version: u32,
        /// The newest this reader knows.
        current: u32,
    },
    /// An old version with no step to today's.
    #[error("no upcast for `{event_type}` version {version}")]
    NoUpcast {
        /// The type.
        event_type: String,
        /// The version with no step.
        version: u32,
    },
    /// The payload does not have the shape of its version.
    #[error("invalid `{event_type}` payload: {why}")]
    InvalidPayload {
        /// The type.
        event_type: String,
        /// What was wrong.
        why: String,
    },
}

/// Reads an envelope's payload as today's event type, upcasting old versions with [`UPCASTS`].
pub fn decode(envelope: &Envelope) -> Result<AuditEvent, DecodeError> {
    decode_with(UPCASTS, envelope)
}

/// [`decode`] of a borrowed envelope (the replay's path: no copy of the payload).
pub fn decode_ref(envelope: &EnvelopeRef<'_>) -> Result<AuditEvent, DecodeError> {
    decode_payload(UPCASTS, envelope.event_type(), envelope.event_version, envelope.payload())
}

/// [`decode`] with an explicit list of upcasting steps.
pub fn decode_with(upcasts: &[Upcast], envelope: &Envelope) -> Result<AuditEvent, DecodeError> {
    decode_payload(upcasts, &envelope.event_type, envelope.event_version, envelope.payload.get())
}

fn decode_payload(
    upcasts: &[Upcast],
    event_type: &str,
    version: u32,
    payload: &str,
) -> Result<AuditEvent, DecodeError> {
    let current = AuditEvent::current_version(event_type)
        .ok_or_else(|| DecodeError::UnknownType { event_type: event_type.to_owned() })?;
    let invalid = |why: String| DecodeError::InvalidPayload { event_type: event_type.to_owned(), why };
    let mut version = version;
    if version > current {
        return Err(DecodeError::FromTheFuture { event_type: event_type.to_owned(), version, current });
    }
    if version == current {
        return AuditEvent::from_current(event_type, Payload::Stored(payload));
    }
    let mut payload: serde_json::Value = serde_json::from_str(payload).map_err(|e| invalid(e.to_string()))?;
    while version < current {
        let step = upcasts
            .iter()
            .find(|u| u.event_type == event_type && u.from_version == version)
            .ok_or_else(|| DecodeError::NoUpcast { event_type: event_type.to_owned(), version })?;
        payload = (step.step)(payload).map_err(|e| invalid(e.to_string()))?;
        version += 1;
    }
    AuditEvent::from_current(event_type, Payload::Upcast(payload))
}
