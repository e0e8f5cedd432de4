//! The guardrails' snapshots, as a guarded run and a guard check name them: a tree's
//! [`TreeManifest`] and the files' content ([`ContentSnapshot`]), compared after the run.

pub use agentwarden_domain::guardrails::{ContentSnapshot, TreeManifest};
