//! What a harness integration implements (issue 35): its hook event decoded into the kernel's
//! question, and the kernel's answer rendered in its protocol (its failure form included): the
//! domain's [`Harness`] and [`Rendered`], shared with the thin hook client. The kernel
//! decides in between ([`crate::answer_hook`]); an integration knows its wire format and nothing
//! of the store, a decision or a rule.
//!
//! With the feature `conformance`, `harness::conformance` holds the harness conformance suite: the same
//! situations driven through each integration's wire format, as the ports' suites run on every
//! adapter. A new harness is done when it passes.

#[cfg(feature = "conformance")]
pub mod conformance;

pub use agentwarden_domain::sessions::{Harness, HarnessProfile, Rendered};
