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

pub mod audit;
mod audit_log;
pub mod code;
pub mod config;
pub mod copy;
mod durable;
pub mod events;
pub mod fact;
pub mod fanout;
pub mod fanout_rules;
pub mod files;
mod gate;
pub mod governance;
mod guard;
pub mod guardrails;
pub mod harness;
mod hook;
pub mod human;
mod lineage;
pub mod lineage_rules;
pub mod manifests;
pub mod observe;
pub mod questions;
mod records;
mod replay;
pub mod requests;
pub mod sessions;
pub mod signing;
pub mod store;
pub mod stores;
#[cfg(test)]
mod testing;
pub mod tlog;
pub mod trust;
pub mod verdict;
mod warden;
pub mod wiring;

/// The code every answer and every refusal carries (X-1), named by the crates above the facade
/// without reaching the domain (A-48).
pub use agentwarden_domain::code::Code;
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
pub use records::{RECORDS_PROJECTION, SealError};
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
