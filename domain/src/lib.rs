//! Agent Warden's pure rules.
//!
//! Architecture invariant: this crate performs no I/O. It reads no file, no environment
//! variable and no clock, and it knows nothing of tokio, sled or any adapter. The application
//! reads the world through ports and hands this crate plain data; every decision here is a
//! function of its arguments, so the same input always gives the same answer.

pub mod audit;
pub mod code;
pub mod confine;
pub mod events;
pub mod fact;
pub mod fanout;
pub mod governance;
pub mod guardrails;
pub mod json;
pub mod lineage;
pub mod redact;
pub mod sessions;
pub mod unicode;
pub mod verdict;
