//! What `warden init gemini` writes into Gemini CLI's settings and `warden doctor --harness
//! gemini` reads back: the installed line and its time budget ([`line`](mod@line)), the hooks merged into
//! a settings file and read back ([`settings`]), the canary doctor sends ([`canary`]), the policy
//! rules Warden cannot honour behind its launcher ([`policy`], M-30). Plain data and functions that open no file: the
//! command line reads, writes and prints.

pub mod canary;
pub mod line;
pub mod policy;
pub mod settings;
