//! `warden guard snapshot` and `warden guard check`: protected-path integrity (spec 004).
//! `check` exits 0 when nothing protected changed, 1 on a violation (reverted or not), 2 usage.

use std::io::Write;
use std::path::PathBuf;

use agentwarden_domain::guardrails::TreeManifest;
use clap::Subcommand;

use super::{EXIT_NO, EXIT_OK, Failure};
use crate::{Config, GuardTarget, Warden, WardenError};

#[derive(Debug, Subcommand)]
pub(super) enum GuardCommand {
    /// Record a manifest of the protected paths (path, kind, mode, BLAKE3) to a file.
    Snapshot {
        /// Where to write the manifest.
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
        /// The workspace root.
        #[arg(long, default_value = ".", value_name = "DIR")]
        root: PathBuf,
        /// The configuration (its `[guardrails] protected` list; default `okrs`).
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
    },
    /// Compare the protected paths with a snapshot; on a change, write violation.json, record a
    /// guardrail_violation event, and (with --revert) put them back.
    Check {
        /// The manifest from `warden guard snapshot`.
        #[arg(long, value_name = "FILE")]
        snapshot: PathBuf,
        /// Revert the changes with git.
        #[arg(long)]
        revert: bool,
        /// The plan item.
        #[arg(long)]
        item: String,
        /// The run.
        #[arg(long)]
        run: String,
        /// The item's artifacts directory (violation.json goes there).
        #[arg(long, value_name = "DIR")]
        artifacts: PathBuf,
        /// The workspace root.
        #[arg(long, default_value = ".", value_name = "DIR")]
        root: PathBuf,
        /// The configuration.
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
        /// Print the outcome as one JSON object.
        #[arg(long)]
        json: bool,
    },
}

pub(super) async fn run(
    command: GuardCommand,
    open: impl FnOnce(Config) -> Result<Warden, WardenError>,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    match command {
        GuardCommand::Snapshot { out: file, root, config } => {
            let config = Config::load(config.as_deref()).map_err(|e| Failure::usage(e.to_string()))?;
            let warden = open(config)?;
            let manifest =
                warden.guard_snapshot(&root).await.map_err(|e| Failure::no(format!("snapshot: {e}")))?;
            let bytes = serde_json::to_vec(&manifest).map_err(|e| Failure::no(e.to_string()))?;
            warden.write_file(&file, &bytes).await.map_err(|e| Failure::no(format!("snapshot: {e}")))?;
            writeln!(out, "{} entries under {}", manifest.entries.len(), manifest.protected.join(", "))?;
            Ok(EXIT_OK)
        }
        GuardCommand::Check { snapshot, revert, item, run, artifacts, root, config, json } => {
            let config = Config::load(config.as_deref()).map_err(|e| Failure::usage(e.to_string()))?;
            let text = std::fs::read_to_string(&snapshot)
                .map_err(|e| Failure::usage(format!("cannot read snapshot `{}`: {e}", snapshot.display())))?;
            let before: TreeManifest = serde_json::from_str(&text)
                .map_err(|e| Failure::usage(format!("`{}` is not a snapshot: {e}", snapshot.display())))?;
            let warden = open(config)?;
            let target = GuardTarget { root: &root, item: &item, run: &run, artifacts: &artifacts };
            let outcome = warden.check_guardrails(&target, &before, revert).await;
            if json {
                writeln!(
                    out,
                    "{}",
                    serde_json::to_string(&outcome).map_err(|e| Failure::no(e.to_string()))?
                )?;
            } else if let Some(v) = &outcome.violation {
                writeln!(out, "VIOLATION  {}: {}", v.violation_type, v.details.changed_files.join(", "))?;
                let d = &v.details;
                writeln!(
                    out,
                    "  reverted: {}{}",
                    d.reverted,
                    if d.revert_error.is_empty() { String::new() } else { format!(" ({})", d.revert_error) }
                )?;
            } else {
                writeln!(out, "CLEAN  no protected path changed")?;
            }
            Ok(if outcome.clean { EXIT_OK } else { EXIT_NO })
        }
    }
}
