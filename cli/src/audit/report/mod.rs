//! `warden audit report`: one self-contained HTML page for a session or a time window, read from
//! the verified log through the app's public walk (`Warden::walk_verified`), the domain's
//! projections and explanations, and the records (`Warden::records`).
//!
//! Rulings (the fail-closed questions of a report):
//! - a chain that does not verify is still reported — the page says so first, in red,
//!   and holds only the events before the break's page (all verified); nothing at or after the
//!   break is shown. The page is written and the command exits 1, as `audit verify` does. An
//!   investigation's answer stays whole-or-nothing; a report is the evidence an
//!   investigator needs most exactly then, and it cannot be mistaken for a whole one.
//! - an event of the window this reader cannot decode (an unknown type, a version from
//!   the future, a payload of the wrong shape) is a row of its own, marked, with its raw payload
//!   as text; the page says at the top how many there are and that the tree, the approvals and
//!   the violations may miss what they held. Exit 1, the page written.
//! - a report needs a window (`--session`, `--since`, `--until`; checked before the store
//!   is opened, A-24); a window no event falls in is a page that says so at the top, exit 0.

mod model;
mod page;

use std::io::Write;
use std::path::PathBuf;

use agentwarden_domain::audit::{Envelope, Hash};
use agentwarden_domain::events::decode_ref;
use agentwarden_ports::StoreError;
use serde_json::value::RawValue;

use super::super::{EXIT_OK, Failure};
use super::filter::{Filter, FilterArgs};
use super::progress::Progress;
use agentwarden::{Verification, Warden, WardenError};
use model::{
    ApprovalRow, Broken, CheckpointVerdict, Collector, Records, Report, SealRow, SignatureRow, Window, clip,
};

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
    let mut filter = Filter::parse(filter_args)?;
    let now = agentwarden_ports::Clock::now(&agentwarden::SystemClock);
    filter.resolve(now)?;
    let checkpoint = args.checkpoint.as_deref().map(super::read_checkpoint).transpose()?;
    let config =
        agentwarden::Config::load(args.config.as_deref()).map_err(|e| Failure::usage(e.to_string()))?;
    let (since, until) = filter.window();
    let mut report = Report {
        generated_at: now.to_string(),
        window: Window {
            session: args.session.clone(),
            since: since.map(|t| t.to_string()),
            until: until.map(|t| t.to_string()),
        },
        ..Report::default()
    };
    let warden = match open(config) {
        Ok(warden) => Some(warden),
        // A store whose head does not verify refuses to open: the page says that much.
        Err(WardenError::Store(StoreError::Corrupt { seq, why })) => {
            report.chain.broken = Some(Broken { seq, why: clip(&why) });
            None
        }
        Err(e) => return Err(e.into()),
    };
    if let Some(warden) = &warden {
        collect(warden, &args, (since, until), checkpoint, &mut report, now).await?;
    }
    let html = page::render(&report).map_err(|e| Failure::no(format!("cannot write the report: {e}")))?;
    match &args.out {
        Some(path) => agentwarden_adapters::untrusted::write_atomic(None, path, html.as_bytes(), 0o644)
            .map_err(|e| Failure::no(format!("cannot write the report: {e}")))?,
        None => out.write_all(html.as_bytes())?,
    }
    verdict(&report)
}

/// The exit code the report's findings call for.
fn verdict(report: &Report) -> Result<u8, Failure> {
    if let Some(broken) = &report.chain.broken {
        return Err(Failure::no(format!(
            "the audit chain is broken at seq {}: {}; the report shows only what verified before it (A-27)",
            broken.seq, broken.why
        )));
    }
    if report.undecodable > 0 {
        return Err(Failure::no(format!(
            "{} event(s) of the window could not be decoded by this reader; the report marks them (A-28)",
            report.undecodable
        )));
    }
    if report.chain.checkpoint.as_ref().is_some_and(|c| !c.ok) {
        return Err(Failure::no("the log does not extend the checkpoint; the report says so at the top"));
    }
    if report.rows.is_empty() {
        eprintln!("no event of the log falls in the window; the report says so (A-29)");
    }
    Ok(EXIT_OK)
}

type Bounds = (Option<agentwarden_domain::audit::Timestamp>, Option<agentwarden_domain::audit::Timestamp>);

async fn collect(
    warden: &Warden,
    args: &ReportArgs,
    (since, until): Bounds,
    checkpoint: Option<agentwarden_domain::audit::Checkpoint>,
    report: &mut Report,
    now: agentwarden_domain::audit::Timestamp,
) -> Result<(), Failure> {
    let head = warden.head().await?;
    let mut progress = Progress::new("report", head.seq);
    let mut collector = Collector::default();
    let mut prev = Hash::GENESIS;
    let mut last = 0;
    let walked = warden
        .walk_verified(None, &mut |seq| progress.update(seq), |envelope| {
            let before = std::mem::replace(&mut prev, envelope.hash);
            last = envelope.seq;
            let in_window = args.session.as_deref().is_none_or(|s| envelope.session() == Some(s))
                && since.is_none_or(|s| envelope.recorded_at >= s)
                && until.is_none_or(|u| envelope.recorded_at <= u);
            if !in_window {
                return Ok(());
            }
            let payload = RawValue::from_string(envelope.payload().to_owned())
                .map_err(|e| WardenError::Event(e.to_string()))?;
            let owned = Envelope {
                seq: envelope.seq,
                recorded_at: envelope.recorded_at,
                actor: envelope.actor().to_owned(),
                session: envelope.session().map(str::to_owned),
                turn: envelope.turn().map(str::to_owned),
                run: envelope.run().map(str::to_owned),
                item: envelope.item().map(str::to_owned),
                event_type: envelope.event_type().to_owned(),
                event_version: envelope.event_version,
                payload,
                prev_hash: before,
                hash: envelope.hash,
            };
            collector.push(envelope, &owned, decode_ref(envelope).map_err(|e| e.to_string()));
            Ok(())
        })
        .await;
    report.chain.verified_through = last;
    report.chain.head_hash = prev.to_string();
    match walked {
        Ok(_) => report.chain.intact = true,
        Err(WardenError::Broken(broken)) => {
            report.chain.broken = Some(Broken { seq: broken.seq, why: clip(&broken.why.to_string()) });
        }
        Err(other) => return Err(other.into()),
    }
    if report.chain.intact {
        if let Some(checkpoint) = checkpoint {
            report.chain.checkpoint = Some(match warden.verify(Some(checkpoint)).await? {
                Verification::Intact { head } => CheckpointVerdict {
                    ok: true,
                    text: format!("the log extends the checkpoint (head seq {})", head.seq),
                },
                Verification::Broken(broken) => {
                    CheckpointVerdict { ok: false, text: clip(&broken.to_string()) }
                }
            });
        }
        report.records = records(warden, &collector, now).await;
    } else {
        report.records.unavailable = Some("the chain does not verify: no record is read from it".to_owned());
    }
    report.trees = collector.trees();
    report.undecodable = collector.undecodable;
    report.violations = std::mem::take(&mut collector.violations);
    report.rows = std::mem::take(&mut collector.rows);
    Ok(())
}

/// The seal and approvals at the head, each signature checked as every decision checks it (K-3),
/// folded from the log's first event: a projection saved in the state store is not taken as a
/// start (K-15), so a report never shows records written outside the log.
async fn records(
    warden: &Warden,
    collector: &Collector,
    now: agentwarden_domain::audit::Timestamp,
) -> Records {
    let state = match warden.records_from_log().await {
        Ok(state) => state,
        Err(e) => return Records { unavailable: Some(clip(&e.to_string())), ..Records::default() },
    };
    let checked = warden.configuration().allowed_signers.is_some();
    let signature = |signature: Option<&agentwarden_domain::governance::RecordSignature>,
                     refused: Option<&agentwarden_domain::governance::SignatureRefusal>| {
        let principal = signature.map(|s| clip(&s.principal));
        match (signature, refused) {
            (_, Some(refused)) => {
                SignatureRow { principal, status: "refused", why: Some(clip(&refused.to_string())) }
            }
            (None, None) => SignatureRow { principal, status: "unsigned", why: None },
            (Some(_), None) if checked => SignatureRow { principal, status: "verified", why: None },
            (Some(_), None) => SignatureRow {
                principal,
                status: "not_checked",
                why: Some("no `[approvals] allowed_signers` is configured".to_owned()),
            },
        }
    };
    let governance = &state.governance;
    Records {
        as_of: state.head.seq,
        unavailable: None,
        seal: governance.seal.as_ref().map(|seal| SealRow {
            seq: seal.seq,
            by: seal.by.as_deref().map(clip),
            files: seal.files.keys().map(|f| clip(f)).collect(),
            signature: signature(seal.signature.as_ref(), seal.refused.as_ref()),
        }),
        approvals: governance
            .approvals
            .values()
            .map(|a| ApprovalRow {
                approval_ref: clip(&a.approval_ref),
                seq: a.seq,
                approved_by: a.approved_by.as_deref().map(clip),
                expires_at: a.expires_at.map(|t| t.to_string()),
                state: agentwarden_domain::events::projections::snake_name(&a.state(now)),
                personas: a.scope.personas.iter().map(|p| clip(p)).collect(),
                subagents: a.scope.subagents.iter().map(|s| clip(s)).collect(),
                signature: signature(a.signature.as_ref(), a.refused.as_ref()),
                used_by: collector.approval_uses.get(&a.approval_ref).cloned().unwrap_or_default(),
            })
            .collect(),
    }
}
