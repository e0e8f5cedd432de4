//! The session report of `warden audit report`: one self-contained HTML page for a session or a
//! time window, read from the verified log through the app's public walk
//! (`Warden::walk_verified`), the domain's projections and explanations, and the records
//! (`Warden::records_from_log`). The command line parses the window, opens the store and writes
//! the page; this crate gathers the facts ([`build`]), renders them ([`Report::render`]) and
//! says what they call for ([`Report::verdict`]).
//!
//! The log as a human reads it on the command line lives here too (N-16): the filters of `warden
//! audit log` and `audit report` ([`filter`], reasons a usage error gives), one event as JSON or
//! a row of the table ([`rows`]), the investigations as text ([`text`]), durations
//! ([`duration_ms`]) and the progress of a long walk on stderr ([`progress`]). So does what the
//! kernel answers the other commands, as text or the JSON objects the command line builds
//! ([`text`]'s modules: the gate, lineage, guard, result, fan-out, checkpoints and proofs, the
//! server's status). The command line parses its arguments, opens the store, asks, and prints
//! with these.
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

mod duration;
pub mod filter;
mod model;
mod page;
pub mod progress;
pub mod rows;
pub mod text;

use agentwarden::audit::{Checkpoint, Envelope, Hash, Timestamp};
use agentwarden::events::decode_ref;
use agentwarden::store::StoreError;
use serde_json::value::RawValue;

use agentwarden::{Verification, Warden, WardenError};
pub use duration::duration_ms;
pub use model::Report;
use model::{
    ApprovalRow, Broken, CheckpointVerdict, Collector, Records, SealRow, SignatureRow, Window, clip,
};
pub use page::RenderError;

/// What a report covers: a session, a time window or both, and a checkpoint to check the log
/// against.
#[derive(Debug, Default)]
pub struct Request {
    /// Only this session's events.
    pub session: Option<String>,
    /// Only events recorded at or after.
    pub since: Option<Timestamp>,
    /// Only events recorded at or before.
    pub until: Option<Timestamp>,
    /// A checkpoint the log must extend, shown at the top.
    pub checkpoint: Option<Checkpoint>,
}

/// What a report's findings call for.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Everything in the window verified and decoded.
    Whole,
    /// No event falls in the window; the page says so.
    Empty,
    /// The page is written but is not the whole story, for this reason: a broken chain,
    /// an undecodable event or a log that does not extend the checkpoint.
    Incomplete(String),
}

impl Report {
    /// The page: one HTML file with its style, script and data inline; `Err` says why it could
    /// not be made.
    pub fn render(&self) -> Result<String, RenderError> {
        page::render(self)
    }

    /// What the report's findings call for.
    #[must_use]
    pub fn verdict(&self) -> Verdict {
        if let Some(broken) = &self.chain.broken {
            return Verdict::Incomplete(format!(
                "the audit chain is broken at seq {}: {}; the report shows only what verified before it (A-27)",
                broken.seq, broken.why
            ));
        }
        if self.undecodable > 0 {
            return Verdict::Incomplete(format!(
                "{} event(s) of the window could not be decoded by this reader; the report marks them (A-28)",
                self.undecodable
            ));
        }
        if self.chain.checkpoint.as_ref().is_some_and(|c| !c.ok) {
            return Verdict::Incomplete(
                "the log does not extend the checkpoint; the report says so at the top".to_owned(),
            );
        }
        if self.rows.is_empty() {
            return Verdict::Empty;
        }
        Verdict::Whole
    }
}

/// The report of `request` from the store `opened`, as of `now`; `progress` hears each seq
/// walked. A store that refused to open because its head does not verify is a report that says
/// so; any other failure to open or read is `Err`.
pub async fn build(
    opened: Result<Warden, WardenError>,
    request: Request,
    now: Timestamp,
    progress: &mut dyn FnMut(u64),
) -> Result<Report, WardenError> {
    let mut report = Report {
        generated_at: now.to_string(),
        window: Window {
            session: request.session.clone(),
            since: request.since.map(|t| t.to_string()),
            until: request.until.map(|t| t.to_string()),
        },
        ..Report::default()
    };
    match opened {
        Ok(warden) => collect(&warden, request, &mut report, now, progress).await?,
        Err(WardenError::Store(StoreError::Corrupt { seq, why })) => {
            report.chain.broken = Some(Broken { seq, why: clip(&why) });
        }
        Err(e) => return Err(e),
    }
    Ok(report)
}

async fn collect(
    warden: &Warden,
    request: Request,
    report: &mut Report,
    now: Timestamp,
    progress: &mut dyn FnMut(u64),
) -> Result<(), WardenError> {
    let Request { session, since, until, checkpoint } = request;
    let mut collector = Collector::default();
    let mut prev = Hash::GENESIS;
    let mut last = 0;
    let walked = warden
        .walk_verified(None, progress, |envelope| {
            let before = std::mem::replace(&mut prev, envelope.hash);
            last = envelope.seq;
            let in_window = session.as_deref().is_none_or(|s| envelope.session() == Some(s))
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
        Err(other) => return Err(other),
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
async fn records(warden: &Warden, collector: &Collector, now: Timestamp) -> Records {
    let state = match warden.records_from_log().await {
        Ok(state) => state,
        Err(e) => return Records { unavailable: Some(clip(&e.to_string())), ..Records::default() },
    };
    let checked = warden.configuration().allowed_signers.is_some();
    let signature = |signature: Option<&agentwarden::governance::RecordSignature>,
                     refused: Option<&agentwarden::governance::SignatureRefusal>| {
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
                state: agentwarden::events::projections::snake_name(&a.state(now)),
                personas: a.scope.personas.iter().map(|p| clip(p)).collect(),
                subagents: a.scope.subagents.iter().map(|s| clip(s)).collect(),
                signature: signature(a.signature.as_ref(), a.refused.as_ref()),
                used_by: collector.approval_uses.get(&a.approval_ref).cloned().unwrap_or_default(),
            })
            .collect(),
    }
}
