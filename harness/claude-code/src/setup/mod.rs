//! What `warden init claude-code` writes into Claude Code's settings and `warden doctor` reads
//! back (issue 35): plain data and functions, no file opened but by `installed`. The command line
//! reads and writes the files (by descriptor, U-1) and prints; this module knows where they are, their shape,
//! the hook entries and the line to install, its time budget, and what the guard must protect.
//!
//! - [`line`](mod@line) — the installed command line, built to fail closed (H-6, H-9, H-10),
//!   and read back.
//! - [`settings`] — the settings files: where Claude Code reads them, Warden's entries merged in
//!   and read back (H-11, H-13, H-14, H-18, H-43), the permission deny rules (K-12, K-13), the
//!   files the guard protects of Claude Code's (H-19).
//! - [`canary`] — `warden doctor`'s canary in Claude Code's words: the spawn it sends and how
//!   the answer reads (H-15).
//! - `install` (feature `doctor`) — `warden init claude-code`'s options (N-19) and what it
//!   writes and says, the settings read through the command line's reader (H-11, H-13, K-13,
//!   N-17).
//! - `installed` (feature `doctor`) — Warden's hooks as Claude Code would run them, read back
//!   from the managed, project and user settings and checked for `warden doctor` (H-14, N-13).
//! - `integration` (feature `doctor`) — Claude Code as `warden doctor`'s one path for every
//!   harness asks of it (N-15).

pub mod canary;
#[cfg(feature = "doctor")]
pub mod install;
#[cfg(feature = "doctor")]
pub mod installed;
#[cfg(feature = "doctor")]
pub mod integration;
pub mod line;
pub mod settings;
