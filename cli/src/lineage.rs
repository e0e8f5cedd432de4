//! `warden lineage check` and `warden authorize`: exit 0 allow, 1 deny, 2 usage.

use std::io::Write;
use std::path::PathBuf;

use clap::Subcommand;

use super::{Failure, decision_exit};
use agentwarden::{AuthorizationOutcome, LineageOutcome};

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
    json: bool,
    #[command(flatten)]
    pub(super) server: super::client::ServerArgs,
}

fn json(value: &impl serde::Serialize) -> Result<String, Failure> {
    serde_json::to_string(value).map_err(|e| Failure::no(format!("deny: {e}")))
}

/// Prints a lineage check's outcome and returns its exit code.
pub(super) fn render_check(
    command: &LineageCommand,
    outcome: LineageOutcome,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    let LineageCommand::Check { json: as_json, .. } = command;
    if *as_json {
        writeln!(out, "{}", json(&outcome)?)?;
    } else {
        agentwarden_report::text::lineage::check(&outcome, out)?;
    }
    Ok(decision_exit(outcome.decision))
}

/// Prints a tool call's authorization and returns its exit code.
pub(super) fn render_authorize(
    args: &AuthorizeArgs,
    outcome: AuthorizationOutcome,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    let decision = outcome.authorization.decision;
    if args.json {
        writeln!(out, "{}", json(&outcome)?)?;
    } else {
        agentwarden_report::text::lineage::authorize(&outcome, out)?;
    }
    Ok(decision_exit(decision))
}
