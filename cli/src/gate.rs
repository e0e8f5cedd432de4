//! `warden gate`: may this persona inject these subagents? Exit 0 allow, 1 deny, 2 usage.

use std::io::Write;
use std::path::PathBuf;

use agentwarden::audit::Head;
use agentwarden::governance::GateReport;

use super::{Failure, decision_exit};
use agentwarden::{AuditRef, Config, GateOutput};

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

/// Prints the gate's outcome (text, or `--json`'s object) and returns its exit code.
pub(super) fn render(
    args: &GateArgs,
    report: &GateReport,
    evaluation_us: u64,
    audit: Option<Head>,
    config: Option<&Config>,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    if args.json {
        let audit = audit.map(|h| AuditRef { seq: h.seq, hash: h.hash.to_string() });
        let output = GateOutput { report, evaluation_us, audit };
        let text = serde_json::to_string(&output).map_err(|e| Failure::no(format!("deny: {e}")))?;
        writeln!(out, "{text}")?;
    } else {
        agentwarden_report::text::gate::summary(report, audit, config.map(|c| &c.subagents), out)?;
    }
    Ok(decision_exit(report.decision))
}
