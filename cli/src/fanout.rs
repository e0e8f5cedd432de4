//! `warden fanout plan | run | merge` (spec 002). `--json` everywhere. Exit codes: `plan` 0;
//! `run` and `merge` 0 completed, 1 degraded or failed; 2 usage.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use agentwarden::audit::CorrelationId;
use agentwarden::fanout::parse_strict;
use agentwarden::fanout_rules::MergeStatus;
use agentwarden_report::text::fanout as render;
use clap::Subcommand;

use super::{EXIT_NO, EXIT_OK, Failure};
use agentwarden::fanout::{FanOutRequest, FanOutStopped};
use agentwarden::{Config, Warden, WardenError, wiring::ProcessChunkRunner};

#[derive(Debug, Subcommand)]
pub(super) enum FanoutCommand {
    /// Validate the work items and print the plan (chunks, or the single-agent reason).
    Plan {
        /// A JSON array of work items.
        #[arg(long, value_name = "FILE")]
        items: PathBuf,
        /// The phase (`tests`: round-robin, 250 per agent; anything else: files).
        #[arg(long, default_value = "tests")]
        phase: String,
        /// The configuration (its `[fan_out]` section).
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
        /// Force the single-agent path.
        #[arg(long)]
        no_fan_out: bool,
        /// Print the plan as one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Plan, run CMD once per chunk (its chunk as JSON on stdin, its result JSON on stdout), and
    /// print the merged report.
    Run {
        /// A JSON array of work items.
        #[arg(long, value_name = "FILE")]
        items: PathBuf,
        /// The phase.
        #[arg(long)]
        phase: String,
        /// The run id the events are filed under.
        #[arg(long)]
        run: Option<String>,
        /// The configuration (its `[fan_out]` section).
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
        /// Print the report as one JSON object.
        #[arg(long)]
        json: bool,
        /// The chunk agent and its arguments, after `--`.
        #[arg(last = true, required = true, value_name = "CMD")]
        command: Vec<String>,
    },
    /// Merge chunk result files (each a chunk's result JSON, in chunk order).
    Merge {
        /// The result files.
        #[arg(required = true)]
        results: Vec<PathBuf>,
        /// Print the merge as one JSON object.
        #[arg(long)]
        json: bool,
    },
}

fn read_items(path: &std::path::Path) -> Result<serde_json::Value, Failure> {
    let text = agentwarden::files::read_text(None, path, agentwarden::MAX_INPUT_BYTES)
        .map_err(|e| Failure::usage(format!("cannot read items: {e}")))?;
    parse_strict(&text).map_err(|e| Failure::usage(format!("`{}`: {e}", path.display())))
}

fn merge_exit(status: MergeStatus) -> u8 {
    match status {
        MergeStatus::Completed => EXIT_OK,
        MergeStatus::Degraded | MergeStatus::Failed => EXIT_NO,
    }
}

pub(super) async fn run(
    command: FanoutCommand,
    open: impl FnOnce(Config) -> Result<Warden, WardenError>,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    let json_line = |value: &serde_json::Value, out: &mut dyn Write| -> Result<(), Failure> {
        writeln!(out, "{value}")?;
        Ok(())
    };
    match command {
        FanoutCommand::Plan { items, phase, config, no_fan_out, json } => {
            let config = Config::load(config.as_deref()).map_err(Failure::usage)?;
            let (planned, warnings) =
                agentwarden::fanout::plan_items(&config, &read_items(&items)?, &phase, no_fan_out);
            if json {
                json_line(&render::plan_json(&phase, &planned, &warnings), out)?;
            } else {
                render::plan(&planned, &warnings, out)?;
            }
            Ok(EXIT_OK)
        }
        FanoutCommand::Run { items, phase, run, config, json, command } => {
            let config = Config::load(config.as_deref()).map_err(Failure::usage)?;
            let run = run.map(CorrelationId::new).transpose().map_err(Failure::usage)?;
            let items = read_items(&items)?;
            let (program, args) =
                command.split_first().ok_or_else(|| Failure::usage("no command after `--`"))?;
            let runner = Arc::new(agentwarden::fanout::chunk_runner(&config, program, args));
            let warden = open(config)?;
            let request = FanOutRequest { phase, items, run };
            let report = match warden.run_fan_out(request, runner, interrupted()).await {
                Ok(report) => report,
                Err(FanOutStopped::Cancelled(signal)) => {
                    // The dropped run killed every chunk's process group (F-15); what they
                    // left is swept (F-18); the interruption is on the record (F-16).
                    let _ = ProcessChunkRunner::kill_leftovers().await;
                    return Err(Failure::no(format!(
                        "interrupted by {signal}: the chunk agents were killed and no merged result was written"
                    )));
                }
                Err(FanOutStopped::Warden(e)) => return Err(e.into()),
            };
            if json {
                json_line(&serde_json::to_value(&report).map_err(Failure::no)?, out)?;
            } else {
                render::merged(&report.merged, out)?;
            }
            Ok(merge_exit(report.merged.status))
        }
        FanoutCommand::Merge { results, json } => {
            let (outcomes, merged) = agentwarden::fanout::merge_results(&results);
            if json {
                json_line(&render::merge_json(&outcomes, &merged), out)?;
            } else {
                render::merged(&merged, out)?;
            }
            Ok(merge_exit(merged.status))
        }
    }
}

/// Resolves with the signal's name when the run is asked to stop (SIGTERM, SIGINT, SIGHUP). The
/// chunk agents run in process groups of their own, so a terminal's signals no longer reach
/// them directly: the orchestrator passes them on by killing the groups. If the handlers cannot
/// be installed, this never resolves and the default actions stay.
async fn interrupted() -> String {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut term), Ok(mut int), Ok(mut hup)) =
        (signal(SignalKind::terminate()), signal(SignalKind::interrupt()), signal(SignalKind::hangup()))
    else {
        return std::future::pending().await;
    };
    let signal = tokio::select! {
        _ = term.recv() => "SIGTERM",
        _ = int.recv() => "SIGINT",
        _ = hup.recv() => "SIGHUP",
    };
    signal.to_owned()
}
