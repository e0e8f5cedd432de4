//! The gate's report: a stable JSON contract (documented in the README).

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

pub use crate::verdict::{Code, Decision, Verdict};

/// The six global gates, in the fixed evaluation order of G-1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Gate {
    /// The kill-switch variable is exactly `true` (G-2).
    Environment,
    /// The persona exists and declares subagents.
    PersonaAllowlist,
    /// `opts.subagentGovernance` is present and an object.
    MetadataPresence,
    /// `contextSealed` is JSON `true`.
    ContextSealed,
    /// `pipelineRunApproved` is JSON `true`.
    PipelineRunApproved,
    /// `approvalRef` is a usable reference.
    ApprovalRef,
}

impl Gate {
    /// All gates, in evaluation order.
    pub const ORDER: [Gate; 6] = [
        Gate::Environment,
        Gate::PersonaAllowlist,
        Gate::MetadataPresence,
        Gate::ContextSealed,
        Gate::PipelineRunApproved,
        Gate::ApprovalRef,
    ];

    /// The snake_case name used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Gate::Environment => "environment",
            Gate::PersonaAllowlist => "persona_allowlist",
            Gate::MetadataPresence => "metadata_presence",
            Gate::ContextSealed => "context_sealed",
            Gate::PipelineRunApproved => "pipeline_run_approved",
            Gate::ApprovalRef => "approval_ref",
        }
    }
}

/// What a failure is attributed to: one of the gates, the candidate stage (no subagent could be
/// delegated), or the audit log (an allow that could not be recorded, G-10).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// A global gate.
    Gate(Gate),
    /// Every gate passed, but no candidate subagent may be delegated.
    Candidates,
    /// The decision's event could not be appended.
    Audit,
}

impl Stage {
    /// The snake_case name used in reports: a gate's name, `candidates` or `audit`.
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Gate(gate) => gate.as_str(),
            Stage::Candidates => "candidates",
            Stage::Audit => "audit",
        }
    }
}

impl Serialize for Stage {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Stage {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = <Cow<'de, str>>::deserialize(deserializer)?;
        match name.as_ref() {
            "candidates" => Ok(Stage::Candidates),
            "audit" => Ok(Stage::Audit),
            other => Gate::ORDER
                .into_iter()
                .find(|g| g.as_str() == other)
                .map(Stage::Gate)
                .ok_or_else(|| serde::de::Error::custom(format!("unknown gate `{other}`"))),
        }
    }
}

/// One gate's outcome in the report.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(try_from = "GateResultFields")]
pub struct GateResult {
    /// Which gate.
    pub gate: Gate,
    /// Its verdict.
    pub verdict: Verdict,
}

/// The gate, then the verdict's fields, as one object: the bytes `#[serde(flatten)]` wrote,
/// without its buffering map (a third of the facade's encoding of a report).
impl Serialize for GateResult {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut fields = serializer.serialize_struct("GateResult", 4)?;
        fields.serialize_field("gate", &self.gate)?;
        fields.serialize_field("passed", &self.verdict.passed())?;
        fields.serialize_field("code", &self.verdict.code())?;
        fields.serialize_field("reason", self.verdict.reason())?;
        fields.end()
    }
}

/// [`GateResult`] as stored, read field by field (without `flatten`'s buffering).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GateResultFields {
    gate: Gate,
    passed: bool,
    code: Option<Code>,
    reason: Cow<'static, str>,
}

impl TryFrom<GateResultFields> for GateResult {
    type Error = crate::verdict::VerdictShapeError;

    fn try_from(f: GateResultFields) -> Result<Self, Self::Error> {
        Ok(GateResult { gate: f.gate, verdict: Verdict::from_parts(f.passed, f.code, f.reason)? })
    }
}

/// A failure: where, which code, why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Failure {
    /// Where it happened.
    pub gate: Stage,
    /// Stable code.
    pub code: Code,
    /// Why.
    pub reason: Cow<'static, str>,
}

/// One candidate subagent's outcome.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CandidateResult {
    /// The name as requested or declared (shown raw, even when it is not a valid name).
    pub name: String,
    /// Was it delegated?
    pub delegated: bool,
    /// Why not, as a stable code; `None` when delegated.
    pub code: Option<Code>,
    /// Why, in words.
    pub reason: Cow<'static, str>,
    /// Non-blocking findings (`AGENT_CLASS` missing or not `TASK`).
    pub warnings: Vec<String>,
}

/// Everything the gate found, in a stable shape. It is also the payload of the
/// `delegation_evaluated` audit event (version 1): a change of shape needs a new event version
/// and an upcast.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GateReport {
    /// Allow or deny.
    pub decision: Decision,
    /// The subagents that may be injected (empty on deny).
    pub delegated: Vec<String>,
    /// The persona as requested.
    pub persona: Option<String>,
    /// The subagents the request named (`None`: all the persona declares).
    pub requested: Option<Vec<String>>,
    /// The kill-switch variable's name.
    pub env_var: String,
    /// Every gate, in order.
    pub gates: Vec<GateResult>,
    /// The first failure, if any.
    pub first_failure: Option<Failure>,
    /// Every failure, in order.
    pub failures: Vec<Failure>,
    /// Every candidate subagent.
    pub candidates: Vec<CandidateResult>,
    /// Non-blocking findings about the request and its metadata.
    pub warnings: Vec<String>,
    /// The approval reference, when it passed its gate.
    pub approval_ref: Option<String>,
    /// Who approved, when given as a string (G-6).
    pub approved_by: Option<String>,
    /// Fields of `subagentGovernance` the gate does not know (G-7).
    pub unknown_fields: Vec<String>,
    /// BLAKE3 of the governance metadata as seen (its compact JSON), or `None` if absent.
    pub metadata_digest: Option<String>,
    /// The seal and approval records the decision was checked against (issue 11); absent when
    /// the gate ran on the metadata alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recorded: Option<super::RecordedSummary>,
}

/// A deny that found nothing — no gate ran, nothing is delegated. It is what a report
/// leaves behind when it is moved out of its place (the facade moves the gate's report into the
/// recorded event and back instead of copying it), and no reader can take it for an allow.
impl Default for GateReport {
    fn default() -> Self {
        GateReport {
            decision: Decision::Deny,
            delegated: Vec::new(),
            persona: None,
            requested: None,
            env_var: String::new(),
            gates: Vec::new(),
            first_failure: None,
            failures: Vec::new(),
            candidates: Vec::new(),
            warnings: Vec::new(),
            approval_ref: None,
            approved_by: None,
            unknown_fields: Vec::new(),
            metadata_digest: None,
            recorded: None,
        }
    }
}
