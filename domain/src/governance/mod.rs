//! The subagent gate (spec 000, rulings G-1 … G-10): may persona P inject subagents S?
//!
//! The application reads the kill-switch variable, the request, the persona's instruction file
//! and each candidate's instruction file, and hands them over raw; this module parses them
//! strictly ([`read_persona`], [`read_agent`], [`Request::from_json`]) and [`evaluate`]s every gate
//! in the fixed order of G-1: environment, persona allowlist, metadata presence,
//! `contextSealed`, `pipelineRunApproved`, `approvalRef`; then each candidate (declared by the
//! persona, registered, `AGENT_TYPE: 2`; `AGENT_CLASS` other than `TASK` is a warning). Every
//! gate is evaluated and every failure reported, the first one named.
//!
//! A denial is not an error (G-9): the report says why and the delegated set is empty. What an
//! allow delegates is a [`Delegation`], which only [`evaluate`] builds; the permission to inject
//! is not in this crate at all: only `agentwarden::Warden` hands one out, once the decision is
//! recorded.

mod agent;
mod events;
pub mod frontmatter;
mod gate;
mod inputs;
mod metadata;
mod names;
mod persona;
mod recorded;
mod report;
mod request;
mod scope;
mod signed;

pub use agent::{AgentReading, read_agent};
pub use events::{ApprovalGranted, ApprovalRevoked, ContextSealed};
pub use gate::{Delegation, Evaluation, GateInputs, candidate_names, candidates_to_read, evaluate};
pub use inputs::{EnvValue, FileRead, FileReadError};
pub use metadata::{KNOWN_FIELDS, MAX_APPROVAL_REF, Metadata, check_approval_ref};
pub(crate) use names::show;
pub use names::{InvalidName, MAX_NAME_LEN, Name};
pub use persona::{Persona, PersonaReading, read_persona};
pub use recorded::{
    ApprovalRecord, ApprovalState, Approvals, ApprovalsEvent, ReadDigests, Recorded, RecordedSummary,
    SealRecord, SealedText, SignersPin, seal_changes,
};
pub use report::{CandidateResult, Code, Decision, Failure, Gate, GateReport, GateResult, Stage, Verdict};
pub use request::{REQUEST_FIELDS, Request};
pub use scope::Scope;
pub use signed::{
    RecordSignature, SIGNATURE_NAMESPACE, SignatureCode, SignatureRefusal, SignedContent, signed_bytes,
};

#[cfg(test)]
mod tests;

#[cfg(test)]
mod recorded_tests;
