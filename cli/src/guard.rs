//! `warden guard snapshot` and `warden guard check`: protected-path integrity (spec 004).
//! `check` exits 0 when nothing protected changed, 1 on a violation (reverted or not), 2 usage.

use std::io::Write;
use std::path::PathBuf;

use clap::Subcommand;

use super::{EXIT_NO, EXIT_OK, EXIT_USAGE, Failure};
use agentwarden::code::Code;
use agentwarden::{Config, GuardTarget, Warden, WardenError, wiring::ProcessAgentRunner};
use agentwarden_report::text::guard as render;

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
        /// Print a summary as one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Snapshot (with content), run the agent command, check and revert from that content (no
    /// git needed), validate result.json if given, and
    /// fail the item (exit 1) if the command failed, anything protected was touched, or the
    /// result is invalid.
    Run {
        /// The plan item.
        #[arg(long)]
        item: String,
        /// The run.
        #[arg(long)]
        run: String,
        /// The item's artifacts directory (violation.json goes there).
        #[arg(long, value_name = "DIR")]
        artifacts: PathBuf,
        /// A result.json the command must leave valid.
        #[arg(long, value_name = "FILE")]
        result: Option<PathBuf>,
        /// The workspace root (also the command's working directory).
        #[arg(long, default_value = ".", value_name = "DIR")]
        root: PathBuf,
        /// The configuration.
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
        /// Print the outcome as one JSON object (the command's stdout goes to stderr).
        #[arg(long)]
        json: bool,
        /// The agent command and its arguments, after `--`.
        #[arg(last = true, required = true, value_name = "CMD")]
        command: Vec<String>,
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
        #[command(flatten)]
        server: super::client::ServerArgs,
    },
}

pub(super) async fn run(
    command: GuardCommand,
    open: impl FnOnce(Config) -> Result<Warden, WardenError>,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    match command {
        GuardCommand::Snapshot { out: file, root, config, json } => {
            let config = Config::load(config.as_deref()).map_err(Failure::usage)?;
            let warden = open(config)?;
            let manifest =
                warden.guard_snapshot(&root).await.map_err(|e| Failure::no(format!("snapshot: {e}")))?;
            let bytes = serde_json::to_vec(&manifest).map_err(Failure::no)?;
            warden.write_file(&file, &bytes).await.map_err(|e| Failure::no(format!("snapshot: {e}")))?;
            if json {
                writeln!(out, "{}", render::snapshot_json(&file, &manifest))?;
            } else {
                render::snapshot(&manifest, out)?;
            }
            Ok(EXIT_OK)
        }
        GuardCommand::Run { item, run, artifacts, result, root, config, json, command } => {
            let config = Config::load(config.as_deref()).map_err(Failure::usage)?;
            // Every argument is checked before the store is opened.
            let (program, args) =
                command.split_first().ok_or_else(|| Failure::usage("no command after `--`"))?;
            let warden = open(config)?;
            let agent = ProcessAgentRunner::new(program.clone(), args.to_vec()).stdout_to_stderr(json);
            let target =
                GuardTarget { root: &root, item: &item, run: &run, session: None, artifacts: &artifacts };
            let guarded =
                warden.guarded_run(&target, &agent, result.as_deref()).await.map_err(Failure::no)?;
            if json {
                writeln!(out, "{}", serde_json::to_value(&guarded).map_err(Failure::no)?)?;
            } else {
                render::run(&guarded, out)?;
            }
            Ok(if guarded.item_failed { EXIT_NO } else { EXIT_OK })
        }
        // A decision command: asked through `super::decide`.
        GuardCommand::Check { .. } => {
            Err(Failure::new(EXIT_USAGE, Code::InternalError, "`guard check` is a question"))
        }
    }
}
