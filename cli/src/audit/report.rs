//! `warden audit report`: the window parsed and every argument read before the store is opened
//! the report built and rendered by `agentwarden-report`, the page written, and the
//! exit code its findings call for (A-27 … A-29).

use std::io::Write;
use std::path::PathBuf;

use agentwarden::{Warden, WardenError};
use agentwarden_report::{Request, Verdict};

use super::super::{EXIT_OK, Failure};
use agentwarden_report::filter::{Filter, FilterArgs};
use agentwarden_report::progress::Progress;

/// The flags of `warden audit report`.
#[derive(Debug, clap::Args)]
pub(crate) struct ReportArgs {
    /// The session to report.
    #[arg(long, value_name = "ID")]
    session: Option<String>,
    /// Only events recorded at or after: RFC 3339, or a duration ago (`30m`, `2h`, `7d`).
    #[arg(long, value_name = "WHEN")]
    since: Option<String>,
    /// Only events recorded at or before: RFC 3339, or a duration ago.
    #[arg(long, value_name = "WHEN")]
    until: Option<String>,
    /// Write the page here instead of to stdout.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// A checkpoint from `warden audit checkpoint`, checked too and shown at the top.
    #[arg(long, value_name = "FILE")]
    checkpoint: Option<PathBuf>,
    /// The configuration whose `[approvals] allowed_signers` the signatures are checked
    /// against (found as every command finds it when not given).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
}

impl ReportArgs {
    /// `--config`.
    pub(crate) fn config(&self) -> Option<&std::path::Path> {
        self.config.as_deref()
    }
}

/// `warden audit report`: every argument, the configuration among them, is read before the
/// store is opened; the store is never created.
pub(crate) async fn run(
    args: ReportArgs,
    open: impl FnOnce(agentwarden::Config) -> Result<Warden, WardenError>,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    if args.session.is_none() && args.since.is_none() && args.until.is_none() {
        return Err(Failure::usage("a report needs --session ID, or --since/--until (A-29)"));
    }
    let filter_args = FilterArgs {
        session: args.session.clone(),
        since: args.since.clone(),
        until: args.until.clone(),
        ..FilterArgs::default()
    };
    let mut filter = Filter::parse(filter_args).map_err(Failure::usage)?;
    let now = agentwarden::wiring::Clock::now(&agentwarden::wiring::SystemClock);
    filter.resolve(now).map_err(Failure::usage)?;
    let checkpoint =
        args.checkpoint.as_deref().map(agentwarden::tlog::CheckpointFile::read_chain).transpose()?;
    let config = agentwarden::Config::load(args.config.as_deref()).map_err(Failure::usage)?;
    let (since, until) = filter.window();
    let opened = open(config);
    let total = match &opened {
        Ok(warden) => warden.head().await?.seq,
        Err(_) => 0,
    };
    let mut progress = Progress::new("report", total);
    let request = Request { session: args.session, since, until, checkpoint };
    let report = agentwarden_report::build(opened, request, now, &mut |seq| progress.update(seq)).await?;
    drop(progress);
    let html = report.render().map_err(|e| Failure::no(format!("cannot write the report: {e}")))?;
    match &args.out {
        Some(path) => agentwarden::files::write_atomic(None, path, html.as_bytes(), 0o644)
            .map_err(|e| Failure::no(format!("cannot write the report: {e}")))?,
        None => out.write_all(html.as_bytes())?,
    }
    match report.verdict() {
        Verdict::Whole => Ok(EXIT_OK),
        Verdict::Empty => {
            eprintln!("no event of the log falls in the window; the report says so (A-29)");
            Ok(EXIT_OK)
        }
        Verdict::Incomplete(why) => Err(Failure::no(why)),
    }
}
