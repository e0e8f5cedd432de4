//! The thin client of the resident service: which server a command asks, and `warden status`.
//! `warden hook --server` is `warden-hook`'s client (`agentwarden-hook-client`); the decision
//! commands ask through [`super::decide`].
//!
//! V-67: which server. `--server PATH` on the command line, and nothing else
//! ([`super::trust`]). With it, `warden hook` never decides by itself and never opens the store:
//! it sends the event to the server and prints its answer.
//!
//! V-12: with `--server-uid` set, the client reads an answer only from a server running as that
//! user (the connection's peer, `SO_PEERCRED`); any other is `server_unavailable`. In the
//! isolated deployment it keeps a process of the agent's user from answering in the server's
//! place, should the socket's path ever be one it can bind.
//!
//! V-6: never unguarded. A server that is configured but cannot be reached, closes the
//! connection, does not answer within the hook's deadline, or answers anything but a hook
//! answer of this protocol makes the hook exit 2 with the reason (`server_unavailable`,
//! `server_answer_invalid`). X-40: a hook answer is exactly the rendering of one of the four
//! the hook gives — exit 0 with nothing, exit 0 with a deny's or a block's line as Warden
//! writes it, exit 2 with a reason — read back into the typed `HookAnswer`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::trust::Server;
use super::{EXIT_NO, EXIT_OK, Failure};

/// A decision command's wait for the server the global `--server` names (V-13, V-67).
#[derive(Debug, Clone, clap::Args)]
pub(super) struct ServerArgs {
    /// How long to wait for the server's answer; past it the command fails as on an unusable
    /// store (V-14).
    #[arg(long, default_value_t = 10_000, value_name = "MS")]
    pub(super) server_timeout_ms: u64,
}

/// `warden status`.
#[derive(Debug, clap::Args)]
pub(super) struct StatusArgs {
    /// The configuration, held to --server (default: `agentwarden.toml` in the working
    /// directory, if present): one naming another server's user refuses (V-67).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// How long to wait for the answer.
    #[arg(long, default_value_t = 5_000, value_name = "MS")]
    timeout_ms: u64,
    /// One JSON object.
    #[arg(long)]
    json: bool,
}

impl StatusArgs {
    /// `--config`.
    pub(super) fn config(&self) -> Option<&Path> {
        self.config.as_deref()
    }
}

/// `warden status`: exit 0 when the server answers, 1 when it does not. The server is the
/// command line's `--server` (V-67).
pub(super) fn status(args: StatusArgs, server: Option<&Server>, out: &mut dyn Write) -> Result<u8, Failure> {
    let Server { socket, uid } =
        server.cloned().ok_or_else(|| Failure::usage("no server: give --server PATH (V-67)"))?;
    let status = agentwarden_protocol::status(&socket, uid, Duration::from_millis(args.timeout_ms))
        .map_err(|e| Failure::client(EXIT_NO, e))?;
    agentwarden_report::text::status::status(&socket, status, args.json, out)?;
    Ok(EXIT_OK)
}
