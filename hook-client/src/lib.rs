//! `warden-hook`: the resident service's hook client, a crate of its own (V-34).
//!
//! `warden hook` through a server spends most of its time becoming a process; the client needs
//! none of what the `warden` binary holds. This crate reads the same command line as `warden …
//! hook` (so `warden init claude-code --server` installs it by swapping the binary and `warden
//! doctor` reads the line back unchanged), parsed by hand ([`mod@line`]), and asks the server:
//! the same configuration, the same `[server] uid` check ([`config`]), the same frames
//! (`agentwarden-protocol`), the same checks of the answer ([`answer`]), the same deadline
//! watchdog ([`run`]). `warden hook --server` runs exactly this client too.
//!
//! V-29: it is synchronous: no runtime. Its dependency tree holds no store (sled,
//! tokio-postgres), no runtime (tokio), no command-line parser (clap) and not the application
//! (`tests/dependencies.rs` checks it).
//!
//! V-34: it only asks a server. With no `--server` on its command line (the only thing that
//! names the hook's server, V-49), it exits 2 and says to use `warden hook`: it never decides by
//! itself and never opens a store. `--store` and `--fsync` name a store it will not open: refused
//! (exit 2); `--lock-timeout-ms` is accepted and ignored, as `warden hook` ignores it with a
//! server. Any other argument is refused (exit 2). A panic is exit 2 (Claude Code lets any
//! other code run the call).

pub mod answer;
pub mod config;
pub mod harness;
pub mod line;
pub mod run;

pub use harness::HookHarness;
pub use line::HookLine;
pub use run::{answer_through_server, main};

/// `warden hook`'s deadline when no `--deadline-ms` is given: what `warden init claude-code`
/// installs with its default timeout of 30 s, less its start and answer margins (H-10).
pub const DEFAULT_DEADLINE_MS: u64 = 28_000;
