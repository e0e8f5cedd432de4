//! `warden gate`: may this persona inject these subagents? Exit 0 allow, 1 deny, 2 usage.

use std::io::Write;
use std::path::PathBuf;

use agentwarden_domain::governance::{Decision, GateReport};

use super::{Failure, decision_exit, open_for_decision};
use crate::{Config, GateOutcome, Warden, WardenError};

#[derive(Debug, clap::Args)]
pub(super) struct GateArgs {
    /// The request: `{"persona", "subagents"?, "opts": {"subagentGovernance": {…}}, "session"?, "turn"?}`.
    #[arg(long, value_name = "FILE")]
    pub(super) request: PathBuf,
    /// The configuration (default: `agentwarden.toml` in the working directory, if present).
    #[arg(long, value_name = "FILE")]
    pub(super) config: Option<PathBuf>,
    /// Print the report as one JSON object.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    pub(super) server: super::served::ServerArgs,
}

pub(super) async fn run(
    args: GateArgs,
    open: impl FnOnce(Config) -> Result<Warden, WardenError>,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    let warden = open_for_decision(args.config.as_deref(), open)?;
    let outcome = warden.evaluate_delegation_file(&args.request).await;
    if args.json {
        let text = serde_json::to_string(&outcome.output()).map_err(|e| Failure::no(format!("deny: {e}")))?;
        writeln!(out, "{text}")?;
    } else {
        write_summary(&outcome, out)?;
    }
    Ok(decision_exit(outcome.report.decision))
}

fn write_summary(outcome: &GateOutcome, out: &mut dyn Write) -> std::io::Result<()> {
    let GateReport { decision, delegated, persona, first_failure, failures, candidates, warnings, .. } =
        &outcome.report;
    let persona = persona.as_deref().unwrap_or("?");
    match decision {
        Decision::Allow => {
            let approval = outcome.report.approval_ref.as_deref().unwrap_or("?");
            let by = outcome.report.approved_by.as_deref().map(|b| format!(" by {b}")).unwrap_or_default();
            writeln!(out, "ALLOW  {persona} -> {}  (approval {approval}{by})", delegated.join(", "))?;
        }
        Decision::Deny => match first_failure {
            Some(f) => writeln!(out, "DENY  {persona}: {} ({}): {}", f.gate.as_str(), f.code, f.reason)?,
            None => writeln!(out, "DENY  {persona}")?,
        },
    }
    for failure in failures.iter().skip(1) {
        writeln!(out, "  also failed: {} ({}): {}", failure.gate.as_str(), failure.code, failure.reason)?;
    }
    for c in candidates {
        let verdict = if c.delegated {
            "delegated".to_owned()
        } else {
            format!("not delegated ({})", c.code.as_deref().unwrap_or("?"))
        };
        writeln!(out, "  candidate {}: {verdict}: {}", c.name, c.reason)?;
        for w in &c.warnings {
            writeln!(out, "    warning: {w}")?;
        }
    }
    for w in warnings {
        writeln!(out, "  warning: {w}")?;
    }
    match outcome.audit {
        Some(head) => writeln!(out, "  audit: seq {} hash {}", head.seq, head.hash),
        None => writeln!(out, "  audit: not recorded"),
    }
}
