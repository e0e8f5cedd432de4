//! What `warden init gemini` writes into Gemini CLI's settings and `warden doctor --harness
//! gemini` reads back: the installed line and its time budget ([`line`](mod@line)), the hooks merged into
//! a settings file and read back ([`settings`]), the canary doctor sends ([`canary`]), the policy
//! rules Warden cannot honour behind its launcher ([`policy`], M-30), and (feature `doctor`)
//! `install`, `warden init gemini`'s options and what it writes and says (N-14, N-19), and `installed`, Warden's hooks as Gemini CLI would run them, read back and checked for `warden
//! doctor` (N-13), and `integration`, Gemini CLI as `warden doctor`'s one path for every harness
//! asks of it (N-15). Plain data and functions that open no file but `installed`'s: the command line
//! reads, writes and prints.

pub mod canary;
#[cfg(feature = "doctor")]
pub mod install;
#[cfg(feature = "doctor")]
pub mod installed;
#[cfg(feature = "doctor")]
pub mod integration;
pub mod line;
pub mod policy;
pub mod settings;
