//! Agent Warden: the fail-closed governance kernel for AI-agent harnesses.
//!
//! A harness asks Agent Warden before it does something risky and gets a decision that is
//! recorded, before it is returned, in a tamper-evident audit log. This crate is the
//! application ring: the [`Warden`] facade a library consumer touches and its use cases. The
//! `warden` binary, a thin clap layer over the same use cases, is the crate `agentwarden-cli`.
//!
//! ```no_run
//! # async fn demo() -> Result<(), agentwarden::WardenError> {
//! use agentwarden::Warden;
//! use agentwarden::audit::Correlation;
//! use agentwarden::events::OperatorNote;
//!
//! // The embedded default: a sled store under `.agentwarden/audit`.
//! let warden = Warden::builder().build()?;
//! let note = OperatorNote { message: "maintenance begins".into() };
//! let appended = warden.record(Correlation::default(), &note).await?;
//! assert!(warden.verify(None).await?.is_intact());
//! # let _ = appended; Ok(()) }
//! ```
//!
//! Architecture invariant: use cases read through ports, ask the domain, append the decision's
//! event, and only then return. Nothing outside this crate wires adapters together.

mod audit_log;
pub mod config;
pub mod copy;
mod durable;
pub mod fanout;
mod files;
mod gate;
mod guard;
pub mod harness;
mod hook;
pub mod human;
mod lineage;
pub mod manifests;
mod records;
mod replay;
pub mod signing;
pub mod store;
#[cfg(test)]
mod testing;
pub mod tlog;
mod warden;

pub use agentwarden_adapters::{
    Archiving, Durability, FixedClock, FixedEnvironment, GitRestorer, LocalFileSystem, MemoryEventStore,
    ProcessAgentRunner, ProcessChunkRunner, ProcessEnvironment, SledConfig, SledEventStore, SteppingClock,
    SystemClock, UnavailableEventStore,
};
#[cfg(feature = "postgres")]
pub use agentwarden_adapters::{PgConfig, PostgresEventStore};
pub use agentwarden_domain::{
    audit, code, events, fanout as fanout_rules, governance, guardrails, lineage as lineage_rules, sessions,
    verdict,
};
pub use agentwarden_ports::{
    AgentRunner, Appended, ChunkRunner, Clock, Environment, EventStore, Expected, FileSystem, FilesError,
    MergedStore, ProjectionStore, Restorer, SnapshotStore, StateStore, StoreError,
};
pub use audit_log::{Pages, Stats, Verification};
pub use config::{
    Config, ConfigCache, ConfigError, ConfineConfig, GuardrailsConfig, HarnessConfig, HarnessSettings,
    LineageConfig, SubagentConfig, ToolRules,
};
pub use durable::{Answered, Deferring, NotCovered, Synced, Undurable};
pub use files::MAX_INPUT_BYTES;
pub use gate::{AuditRef, DelegationGrant, GateOutcome, GateOutput};
pub use guard::{GuardOutcome, GuardRunError, GuardTarget, GuardedRun, MAX_SNAPSHOT_BYTES, ResultOutcome};
pub use hook::{
    ConfineReport, HARNESS_HELD_NAMES, HookAnswer, HookStorage, Marker, SessionIndex, StorageError,
    StoreDecides, answer_hook, confine_report, with_fix,
};
pub use lineage::{AuthorizationOutcome, LineageOutcome};
pub use records::RECORDS_PROJECTION;
pub use store::StoreLocation;
pub use warden::{DEFAULT_STORE, Warden, WardenBuilder, WardenError};

/// The README's code, compiled as a doc test so that the quick start cannot rot.
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

/// The investigations guide's code, compiled as a doc test so that it cannot rot either.
#[doc = include_str!("../../docs/investigations.md")]
#[cfg(doctest)]
pub struct InvestigationsDoctests;
