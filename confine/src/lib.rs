//! `warden-confine` (issue 50): the launcher a confined shell call runs under. Warden's hook
//! allows a shell call of an agent held to a manifest as `warden-confine CONFINEMENT COMMAND`,
//! and the launcher holds the command's whole process tree to the confinement the manifest
//! grants (the domain's `confine` policy computes it): writes only beneath the write grants,
//! the protected paths read-only holes in them, reads where the read grants say, no network
//! without a grant, no new privileges; then it becomes `/bin/sh -c COMMAND`. What the kernel
//! enforces, no child, background process or new session can lift (E-7). Where the kernel
//! cannot confine, the call is refused, unless the mode says to run it unconfined and say so
//! (E-9). `docs/confinement.md` says what is enforced by which mechanism and what is not.
//!
//! Synchronous and small like `warden-hook`: the Landlock crate and rustix, nothing else.

mod filter;
mod launch;
mod namespace;
mod open;
pub mod policy;
mod rules;

pub use launch::{ConfineError, REFUSED, SHELL, confine, main_with};
