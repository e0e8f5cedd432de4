//! `warden result validate FILE`: exit 0 valid, 1 invalid (or unreadable), 2 usage.

use std::path::PathBuf;

use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub(super) enum ResultCommand {
    /// Check a result.json against the strict schema and record the verdict.
    Validate {
        /// The result.json.
        file: PathBuf,
        /// The plan item it belongs to.
        #[arg(long)]
        item: Option<String>,
        /// The run it belongs to.
        #[arg(long)]
        run: Option<String>,
        /// Print the verdict as one JSON object.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        server: super::client::ServerArgs,
    },
}
