//! `warden gate`: may this persona inject these subagents? Exit 0 allow, 1 deny, 2 usage.

use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub(super) struct GateArgs {
    /// The request: `{"persona", "subagents"?, "opts": {"subagentGovernance": {…}}, "session"?, "turn"?}`.
    #[arg(long, value_name = "FILE")]
    pub(super) request: PathBuf,
    /// The configuration (default: the project's `agentwarden.toml`, from here upward).
    #[arg(long, value_name = "FILE")]
    pub(super) config: Option<PathBuf>,
    /// Print the report as one JSON object.
    #[arg(long)]
    pub(super) json: bool,
    #[command(flatten)]
    pub(super) server: super::client::ServerArgs,
}
