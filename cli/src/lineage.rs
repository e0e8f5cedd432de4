//! `warden lineage check` and `warden authorize`: exit 0 allow, 1 deny, 2 usage.

use std::path::PathBuf;

use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub(super) enum LineageCommand {
    /// May this chain of agents exist? The file holds a JSON array of `{id, type, spawn_depth}`
    /// from the root to the newest child, or `{"lineage": [...], "session"?}`.
    Check {
        /// The lineage file.
        #[arg(long, value_name = "FILE")]
        lineage: PathBuf,
        /// The configuration (default: the project's `agentwarden.toml`, from here upward).
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
        /// Print the answer as one JSON object.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        server: super::client::ServerArgs,
    },
}

#[derive(Debug, clap::Args)]
pub(super) struct AuthorizeArgs {
    /// The request: `{"agent": {id, type, spawn_depth}, "lineage": [...], "tool", "session"?}`.
    #[arg(long, value_name = "FILE")]
    pub(super) request: PathBuf,
    /// The configuration (default: the project's `agentwarden.toml`, from here upward).
    #[arg(long, value_name = "FILE")]
    pub(super) config: Option<PathBuf>,
    /// Print the answer as one JSON object.
    #[arg(long)]
    pub(super) json: bool,
    #[command(flatten)]
    pub(super) server: super::client::ServerArgs,
}
