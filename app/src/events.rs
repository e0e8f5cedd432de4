//! The events the audit log records, as a caller reads them (issue 49, item 5; A-48): one
//! [`AuditEvent`] per record at today's version ([`decode`] from an envelope, [`decode_ref`]
//! from a borrowed one, [`EVENT_TYPES`] the names it knows, [`DecodeError`] when it knows none),
//! the note an operator records ([`OperatorNote`], what [`crate::Warden::record`] takes), what a
//! record means in words ([`explain`] into an [`Explanation`]), and the investigations' folds
//! ([`projections`]), each replayed by [`crate::Warden::replay`].

/// What a record means in words: the function, not the domain's module of the same name (a
/// `use` of `events::explain` would re-export both).
pub use agentwarden_domain::events::explain::explain;
pub use agentwarden_domain::events::{
    AuditEvent, DecodeError, EVENT_TYPES, Explanation, OperatorNote, PlanSummary, Projection, Recorded,
    decode, decode_ref,
};

pub mod projections {
    //! The investigations as pure folds over the log (`warden audit replay`): each
    //! [`Projection`] with the state it folds into, by the names [`NAMES`] lists.

    pub use agentwarden_domain::events::projections::{
        Approvals, ApprovalsState, Decisions, DecisionsState, Denials, DenialsState, FanOutRuns, FanOutState,
        NAMES, Projection, Recorded, Shadow, ShadowState, SpawnTree, SpawnTreeState, SpawnTrees,
        SpawnedAgent, Timeline, TimelineEntry, Violations, ViolationsState, snake_name,
    };
}
