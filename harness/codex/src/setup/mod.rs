//! What `warden init codex` writes into Codex's configuration and `warden doctor --harness codex`
//! reads back (issue 36): plain data and functions, no file opened but by `installed`. The command line reads and
//! writes the files (by descriptor, U-1) and prints; this module knows where they are, their
//! shape, the hooks and the line to install, its time budget, the project's trust, and what the
//! guard must protect (C-8, C-10).
//!
//! - [`line`](mod@line) — the installed command line, built to fail closed as Claude Code's is
//!   (H-9, H-10, C-1), with Codex's timeout, and read back.
//! - [`config`] — Codex's configuration files: Warden's hooks merged in and read back, the
//!   managed requirements' `allow_managed_hooks_only`, the project trusted in Codex's home, the
//!   files the guard protects of Codex's.
//! - [`canary`] — `warden doctor`'s canary in Codex's words: the spawn it sends and how the
//!   answer reads (C-11).
//! - [`places`] — every place Codex reads hooks from, as one list, and the hooks there that can
//!   rewrite a tool's input (C-18).
//! - [`rules`] — Codex's exec-policy folders, the rules files Warden cannot honour behind the
//!   launcher, and the sandbox beside which it cannot run (C-21, C-22).
//! - `install` (feature `doctor`) — `warden init codex`'s options (N-19) and what it writes and
//!   says, Codex's files read through the command line's reader (C-8, N-14).
//! - `installed` (feature `doctor`) — Warden's hooks as Codex would run them, read back from the
//!   managed requirements and the project's configuration, its trust and its confinement checked
//!   for `warden doctor` (C-10, N-13).
//! - `integration` (feature `doctor`) — Codex as `warden doctor`'s one path for every harness
//!   asks of it (N-15).

pub mod canary;
pub mod config;
#[cfg(feature = "doctor")]
pub mod install;
#[cfg(feature = "doctor")]
pub mod installed;
#[cfg(feature = "doctor")]
pub mod integration;
pub mod line;
pub mod places;
pub mod rules;
