//! `warden result validate FILE`: exit 0 valid, 1 invalid (or unreadable), 2 usage.

use std::io::Write;
use std::path::PathBuf;

use clap::Subcommand;

use super::{EXIT_NO, EXIT_OK, Failure};
use agentwarden::ResultOutcome;

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

/// Prints a `result.json`'s verdict and returns its exit code.
pub(super) fn render(
    command: &ResultCommand,
    outcome: ResultOutcome,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    let ResultCommand::Validate { file, json, .. } = command;
    if *json {
        writeln!(out, "{}", serde_json::to_string(&outcome).map_err(|e| Failure::no(e.to_string()))?)?;
    } else {
        agentwarden_report::text::result::validation(file, &outcome, out)?;
    }
    Ok(if outcome.validation.valid { EXIT_OK } else { EXIT_NO })
}
