//! What `warden init copilot` writes into Copilot CLI's hooks and `warden doctor --harness
//! copilot` reads back: the installed line and its time budget ([`line`](mod@line)), the hook
//! file Warden writes and the hooks and settings Copilot reads back ([`hooks`]), the canary
//! doctor sends ([`canary`]), and (feature `doctor`) `install`, `warden init copilot`'s
//! options and what it writes and says (N-14, N-19), `managed`, the form an administrator installs for every user (H-75), and `installed`, Warden's hooks as Copilot CLI would run them, read
//! back and checked for `warden doctor` (N-13). Plain data and functions that open no file but
//! `installed`'s: the command line reads, writes and prints.

pub mod canary;
pub mod hooks;
#[cfg(feature = "doctor")]
pub mod install;
#[cfg(feature = "doctor")]
pub mod installed;
#[cfg(feature = "doctor")]
pub mod integration;
pub mod line;
#[cfg(feature = "doctor")]
pub mod managed;
