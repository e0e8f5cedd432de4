//! The catalogue of Agent Warden's events and the folds over it: every event the kernel writes
//! ([`AuditEvent`], each capability's event at its current version), how an old version is read
//! as today's type ([`UPCASTS`], [`decode`]), one record explained in words ([`explain()`]), and
//! the projections that fold the log into investigation views ([`projections`]).
//!
//! It stands above the capabilities and above [`crate::audit`]: it names each capability's
//! events, and the capabilities record with the chain's primitives without knowing the
//! catalogue, so that no two modules of the domain depend on each other. A fold a
//! capability keeps over the log (the sessions' records, the recorded approvals) reads its own
//! events through a view the catalogue gives it ([`crate::sessions::SessionsEvent`],
//! [`crate::governance::ApprovalsEvent`]).

mod catalogue;
pub mod explain;
pub mod projections;
mod views;

pub use catalogue::{
    AuditEvent, DecodeError, EVENT_TYPES, FanOutMerged, FanOutPlanned, OperatorNote, PlanSummary,
    ResultValidated, UPCASTS, Upcast, UpcastError, decode, decode_ref, decode_with,
};
pub use explain::{Explanation, explain};
pub use projections::{Projection, Recorded};

/// The lineage's events, where the lineage records them; gathered here with the others.
pub use crate::lineage::{LineageChecked, ToolCallAuthorized};
