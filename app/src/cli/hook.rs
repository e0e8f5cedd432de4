//! `warden hook` (the Claude Code hook) and the human approval commands `warden seal`,
//! `warden approve`, `warden revoke`.
//!
//! H-5: the approval commands refuse to run inside a Claude Code session (`CLAUDECODE` set in
//! their environment, as Claude Code sets it for the commands its agents run): an agent must
//! not be able to approve its own delegations by running `warden approve` through a shell tool.

use std::io::{Read, Write};
use std::path::PathBuf;

use agentwarden_domain::audit::{Actor, AuditEvent, Correlation};
use agentwarden_domain::claude_code::{ApprovalGranted, ApprovalRevoked, ContextSealed, MAX_HOOK_INPUT};
use agentwarden_domain::governance::check_approval_ref;

use super::{EXIT_OK, Failure};
use crate::hook::HOOK_FAILED;
use crate::{Config, Warden, WardenError};

/// The variable Claude Code sets in the environment of the commands it runs.
pub(crate) const CLAUDE_CODE_ENV: &str = "CLAUDECODE";

#[derive(Debug, clap::Args)]
pub(super) struct HookArgs {
    /// The configuration (default: `agentwarden.toml` in the working directory, if present).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
}

/// Who performs a human approval command.
#[derive(Debug, clap::Args)]
pub(super) struct ByArgs {
    /// Who does it (recorded in the event).
    #[arg(long, value_name = "NAME")]
    by: Option<String>,
}

/// `warden approve`.
#[derive(Debug, clap::Args)]
pub(super) struct ApproveArgs {
    /// The approval's reference, as the gate's `approvalRef` (e.g. `GATE-2026-02-21-001`).
    #[arg(long = "ref", value_name = "REF")]
    reference: String,
    #[command(flatten)]
    by: ByArgs,
}

/// `warden revoke`.
#[derive(Debug, clap::Args)]
pub(super) struct RevokeArgs {
    /// Revoke only if this is the approval in force (a usage error otherwise).
    #[arg(long = "ref", value_name = "REF")]
    reference: Option<String>,
    #[command(flatten)]
    by: ByArgs,
}

/// Runs `warden hook`: every failure, whatever its cause, is exit 2 with one line on stderr.
pub(super) async fn hook(
    args: HookArgs,
    open: impl FnOnce(Config) -> Result<Warden, WardenError>,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    let failed = |reason: String| Failure { code: HOOK_FAILED, reason };
    let mut input = String::new();
    let limit = u64::try_from(MAX_HOOK_INPUT).unwrap_or(u64::MAX).saturating_add(1);
    std::io::stdin()
        .take(limit)
        .read_to_string(&mut input)
        .map_err(|e| failed(format!("hook_input_invalid: cannot read stdin: {e}")))?;
    let config = Config::load(args.config.as_deref()).map_err(|e| failed(format!("config_invalid: {e}")))?;
    let warden =
        open(config).map_err(|e| failed(format!("store_unavailable: the audit log is unavailable: {e}")))?;
    let answer = warden.hook(&input).await;
    if let Some(stdout) = &answer.stdout {
        writeln!(out, "{stdout}").map_err(|e| failed(format!("cannot write the answer: {e}")))?;
    }
    match answer.stderr {
        Some(reason) if answer.exit_code != EXIT_OK => Err(failed(reason)),
        _ => Ok(answer.exit_code),
    }
}

fn refuse_inside_an_agent_session() -> Result<(), Failure> {
    match std::env::var_os(CLAUDE_CODE_ENV) {
        Some(_) => Err(Failure::usage(format!(
            "refused: `{CLAUDE_CODE_ENV}` is set, so this runs inside a Claude Code session; \
             a human approves from their own terminal"
        ))),
        None => Ok(()),
    }
}

fn name(by: ByArgs) -> Result<Option<String>, Failure> {
    match by.by {
        Some(by) => {
            Actor::new(by.clone()).map_err(|e| Failure::usage(format!("--by: {e}")))?;
            Ok(Some(by))
        }
        None => Ok(None),
    }
}

async fn record(warden: &Warden, event: &AuditEvent, out: &mut dyn Write) -> Result<u8, Failure> {
    let appended = warden.record(Correlation::default(), event).await?;
    writeln!(
        out,
        "{}",
        serde_json::json!({"seq": appended.head.seq, "hash": appended.head.hash.to_string()})
    )?;
    Ok(EXIT_OK)
}

/// `warden seal`: the context is sealed.
pub(super) async fn seal(
    by: ByArgs,
    open: impl FnOnce() -> Result<Warden, WardenError>,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    refuse_inside_an_agent_session()?;
    let event = AuditEvent::ContextSealed(ContextSealed { by: name(by)? });
    record(&open()?, &event, out).await
}

/// `warden approve --ref REF`: the pipeline run is approved under `REF`.
pub(super) async fn approve(
    args: ApproveArgs,
    open: impl FnOnce() -> Result<Warden, WardenError>,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    refuse_inside_an_agent_session()?;
    let verdict = check_approval_ref(&args.reference);
    if !verdict.passed {
        return Err(Failure::usage(format!("--ref: {}", verdict.reason)));
    }
    let event = AuditEvent::ApprovalGranted(ApprovalGranted {
        approval_ref: args.reference,
        approved_by: name(args.by)?,
    });
    record(&open()?, &event, out).await
}

/// `warden revoke [--ref REF]`: the approval and the seal are withdrawn.
pub(super) async fn revoke(
    args: RevokeArgs,
    open: impl FnOnce() -> Result<Warden, WardenError>,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    refuse_inside_an_agent_session()?;
    let by = name(args.by)?;
    let warden = open()?;
    let state = warden.hook_state().await?;
    let in_force = state.governance.approval.map(|a| a.approval_ref);
    if let Some(wanted) = args.reference.as_ref().filter(|wanted| in_force.as_ref() != Some(*wanted)) {
        let current = in_force.as_deref().map_or_else(|| "none".to_owned(), |r| format!("`{r}`"));
        return Err(Failure::usage(format!("approval `{wanted}` is not in force (in force: {current})")));
    }
    let event = AuditEvent::ApprovalRevoked(ApprovalRevoked { approval_ref: in_force, by });
    record(&warden, &event, out).await
}
