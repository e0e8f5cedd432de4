//! `warden audit …`: read, filter, verify, checkpoint, export, investigate and annotate the
//! audit log. Every command streams the log a page at a time.

pub(super) mod copy;
mod investigate;
pub(super) mod report;
pub(super) mod served;
mod tlog;

use std::io::Write;
use std::path::PathBuf;

use clap::{Subcommand, ValueEnum};
use serde_json::json;

use super::{EXIT_OK, Failure};
use agentwarden::audit::{Actor, BreakKind, ChainBreak, Correlation, CorrelationId};
use agentwarden::events::OperatorNote;
use agentwarden::tlog::CheckpointFile;
use agentwarden::{Verification, Warden, WardenError, store::StoreError};
use agentwarden_report::rows::{ListError, pretty, to_json};

#[derive(Debug, Subcommand)]
pub(super) enum AuditCommand {
    /// List events: a table, or one JSON object per line with --json. Filters combine (AND).
    Log {
        /// One JSON object per line.
        #[arg(long)]
        json: bool,
        /// First sequence number to show.
        #[arg(long, default_value_t = 1, value_name = "SEQ")]
        from: u64,
        /// At most this many (matching) events.
        #[arg(long, value_name = "N")]
        limit: Option<u64>,
        /// Only events of this type (`delegation_evaluated`, `lineage_checked`, …).
        #[arg(long = "type", value_name = "TYPE")]
        event_type: Option<String>,
        /// Only decisions that were `allow` or `deny`.
        #[arg(long, value_name = "allow|deny")]
        decision: Option<String>,
        /// Only events of this session.
        #[arg(long, value_name = "ID")]
        session: Option<String>,
        /// Only events of this run.
        #[arg(long, value_name = "ID")]
        run: Option<String>,
        /// Only gate evaluations under this approval reference.
        #[arg(long, value_name = "REF")]
        approval_ref: Option<String>,
        /// Only events recorded at or after: RFC 3339, or a duration ago (`30m`, `2h`, `7d`).
        #[arg(long, value_name = "WHEN")]
        since: Option<String>,
        /// Only events recorded at or before: RFC 3339, or a duration ago.
        #[arg(long, value_name = "WHEN")]
        until: Option<String>,
    },
    /// Explain one event in plain words, after verifying the chain up to it.
    Explain {
        /// Its sequence number.
        seq: u64,
        /// One line of JSON.
        #[arg(long)]
        json: bool,
    },
    /// Rebuild a projection from the verified log and print it.
    Replay {
        /// approvals, denials, spawn-tree, fan-out, violations or decisions.
        #[arg(long, value_name = "NAME")]
        projection: String,
        /// One line of JSON.
        #[arg(long)]
        json: bool,
    },
    /// What happened in one session, in order.
    Timeline {
        /// The session id.
        #[arg(long, value_name = "ID")]
        session: String,
        /// One JSON object per line.
        #[arg(long)]
        json: bool,
    },
    /// Show one event in full.
    Show {
        /// Its sequence number.
        seq: u64,
        /// One line of JSON instead of pretty-printed JSON.
        #[arg(long)]
        json: bool,
    },
    /// Check the hash chain (and a checkpoint): exit 0 if intact, 1 with the first broken seq.
    Verify {
        /// A checkpoint from `warden audit checkpoint`: the log must extend it (a truncated,
        /// rewritten or older log does not).
        #[arg(long, value_name = "FILE")]
        checkpoint: Option<PathBuf>,
        /// The log's public key (`NAME+ID+KEY`, from `audit keygen`): a signed checkpoint is
        /// checked against it.
        #[arg(long, value_name = "KEY")]
        verifier: Option<String>,
        /// A witness's public key (`NAME+ID+KEY`, from `warden witness keygen`), once per witness:
        /// the signed checkpoint must carry cosignatures by --quorum of them, beside the sealed
        /// configuration's `[audit] witnesses`, which always hold.
        #[arg(long = "witness", value_name = "VKEY", requires = "checkpoint")]
        witnesses: Vec<String>,
        /// How many distinct --witness keys must have cosigned [default: all of them].
        #[arg(long, value_name = "K", requires = "witnesses")]
        quorum: Option<usize>,
        /// Print the verdict as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print the log's head as a signed checkpoint (C2SP signed note: origin, size, Merkle
    /// root), to keep outside the log.
    Checkpoint {
        /// The log's signing key [default: $XDG_CONFIG_HOME/agentwarden/log.key].
        #[arg(long, value_name = "FILE")]
        key: Option<PathBuf>,
        /// One JSON object: origin, size, root, seq, head_hash and the note.
        #[arg(long)]
        json: bool,
        /// Print the note the running server signed last with its own key (`[server] log_key`),
        /// instead of signing here.
        #[arg(long, conflicts_with_all = ["key", "json"])]
        server_note: bool,
    },
    /// Make the log's signing key (never over a file that exists) and print its public key.
    Keygen {
        /// The log's name, the checkpoints' origin (e.g. `example.com/warden/audit`).
        #[arg(long, value_name = "NAME")]
        origin: String,
        /// Where to write it [default: $XDG_CONFIG_HOME/agentwarden/log.key].
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Print the inclusion proof of one event in a signed checkpoint's tree.
    Prove {
        /// The event's sequence number.
        seq: u64,
        /// The signed checkpoint to prove it against: the store must extend it.
        #[arg(long, value_name = "FILE")]
        checkpoint: PathBuf,
        /// The log's public key: check the checkpoint's signature too.
        #[arg(long, value_name = "KEY")]
        verifier: Option<String>,
        /// One JSON object: origin, size, root, seq and the proof's text.
        #[arg(long)]
        json: bool,
    },
    /// Check an event's inclusion proof against a signed checkpoint, with no store.
    VerifyProof {
        /// The proof from `warden audit prove`.
        #[arg(long, value_name = "FILE")]
        proof: PathBuf,
        /// The signed checkpoint it was made for.
        #[arg(long, value_name = "FILE")]
        checkpoint: PathBuf,
        /// The log's public key (`NAME+ID+KEY`).
        #[arg(long, value_name = "KEY")]
        verifier: String,
        /// Print the verdict as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print a witness's `add-checkpoint` request: the consistency proof from the witness's
    /// last size to a signed checkpoint, then the checkpoint.
    WitnessRequest {
        /// The size of the last checkpoint the witness cosigned (0: none).
        #[arg(long, value_name = "N")]
        old: u64,
        /// The signed checkpoint to submit.
        #[arg(long, value_name = "FILE")]
        checkpoint: PathBuf,
        /// The log's public key: check the checkpoint's signature too.
        #[arg(long, value_name = "KEY")]
        verifier: Option<String>,
    },
    /// Write the whole log for other tools.
    Export {
        /// The output format.
        #[arg(long, value_enum)]
        format: ExportFormat,
    },
    /// Count events by type and by decision.
    Stats {
        /// Print the counts as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Copy the log to another store (a directory or a postgres:// URL), verifying the chain;
    /// the destination must be empty or a prefix of the source (then the rest is copied).
    Copy {
        /// The store to read.
        #[arg(long, value_name = "DIR|URL")]
        from: String,
        /// The store to write.
        #[arg(long, value_name = "DIR|URL")]
        to: String,
        /// Events per append.
        #[arg(long, default_value_t = 1000, value_name = "N")]
        batch: usize,
    },
    /// Write one self-contained HTML page (no network, opens from disk) for a session or a time
    /// window: the chain's verification, the spawn tree, the decisions, the approvals and seals,
    /// the protected-path violations.
    Report(report::ReportArgs),
    /// Append an operator's note to the log.
    Note {
        /// The note.
        message: String,
        /// Who writes it.
        #[arg(long, default_value = "cli")]
        actor: String,
        /// A session id to file it under.
        #[arg(long)]
        session: Option<String>,
    },
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub(super) enum ExportFormat {
    /// One JSON envelope per line.
    Jsonl,
}

impl AuditCommand {
    /// True for the commands that append to the log.
    pub(super) fn writes(&self) -> bool {
        matches!(self, AuditCommand::Note { .. } | AuditCommand::Copy { .. })
    }

    /// True for the commands a running server answers (V-65): read from the kept tree, never a
    /// walk of the log, never a write.
    pub(super) fn served(&self) -> bool {
        matches!(
            self,
            AuditCommand::Checkpoint { .. }
                | AuditCommand::Prove { .. }
                | AuditCommand::WitnessRequest { .. }
        )
    }
}

/// Runs `command` on the store `open` opens; `checkpoint`, `prove` and `witness-request` ask
/// `served` instead when a server is configured (V-65).
pub(super) async fn run(
    command: AuditCommand,
    served: Option<&served::Served>,
    open: impl FnOnce(Option<agentwarden::Config>) -> Result<Warden, WardenError>,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    match command {
        AuditCommand::Copy { .. } => Err(Failure::usage("`audit copy` opens its own stores")),
        AuditCommand::Keygen { origin, out: path } => tlog::keygen(&origin, path, out),
        AuditCommand::Checkpoint { server_note: true, .. } => tlog::server_note(served, out),
        AuditCommand::Checkpoint { key, json, .. } => tlog::checkpoint(key, json, served, open, out).await,
        AuditCommand::Prove { seq, checkpoint, verifier, json } => {
            tlog::prove(seq, &checkpoint, verifier.as_deref(), json, served, open, out).await
        }
        AuditCommand::VerifyProof { proof, checkpoint, verifier, json } => {
            tlog::verify_proof(&proof, &checkpoint, &verifier, json, out)
        }
        AuditCommand::WitnessRequest { old, checkpoint, verifier } => {
            tlog::witness_request(old, &checkpoint, verifier.as_deref(), served, open, out).await
        }
        AuditCommand::Verify { checkpoint, verifier, witnesses, quorum, json } => {
            let file = checkpoint.map(|path| CheckpointFile::read(&path)).transpose()?;
            if !witnesses.is_empty() || file.is_some() {
                // The configuration's witness policy is read, and its quorum checked, before the
                // store is opened; the flags' quorum is a check of its own beside it (A-41, A-38,
                //
                let config = agentwarden::Config::load(None).map_err(Failure::usage)?;
                let policy = agentwarden::tlog::configured_policy(&config, file.as_ref())?;
                if !witnesses.is_empty() {
                    agentwarden::tlog::witnessed(file.as_ref(), &witnesses, quorum)?;
                }
                if let Some(CheckpointFile::Signed { note, chain }) = file {
                    let held = tlog::Held { config, has_policy: policy.is_some() };
                    return tlog::verify_signed(&note, chain, verifier.as_deref(), json, held, open, out)
                        .await;
                }
            }
            let checkpoint = match file {
                Some(CheckpointFile::Chain(checkpoint)) => Some(checkpoint),
                _ => None,
            };
            let verification = match opened(open(None))? {
                Ok(warden) => warden.verify(checkpoint).await?,
                Err(broken) => broken,
            };
            print_verification(&verification, json, out)
        }
        AuditCommand::Note { message, actor, session } => {
            let message = message.trim_end().to_owned();
            if message.trim().is_empty() {
                return Err(Failure::usage(
                    "the note is empty: give its text, as in `warden audit note \"maintenance begins\"`",
                ));
            }
            let actor = Actor::new(actor).map_err(Failure::usage)?;
            let session = session.map(CorrelationId::new).transpose().map_err(Failure::usage)?;
            let warden = open(None)?.with_actor(actor);
            let appended = warden
                .record(Correlation { session, ..Correlation::default() }, &OperatorNote { message })
                .await?;
            writeln!(out, "{}", json!({"seq": appended.head.seq, "hash": appended.head.hash}))?;
            Ok(EXIT_OK)
        }
        AuditCommand::Log {
            json,
            from,
            limit,
            event_type,
            decision,
            session,
            run,
            approval_ref,
            since,
            until,
        } => {
            let args = agentwarden_report::filter::FilterArgs {
                event_type,
                decision,
                session,
                run,
                approval_ref,
                since,
                until,
            };
            let mut filter = agentwarden_report::filter::Filter::parse(args).map_err(Failure::usage)?;
            // Every filter is checked before the store is opened, an empty window
            // included; the command line's Warden keeps the system clock, so its now is this one.
            filter
                .resolve(agentwarden::wiring::Clock::now(&agentwarden::wiring::SystemClock))
                .map_err(Failure::usage)?;
            let warden = open(None)?;
            if !json {
                agentwarden_report::rows::write_header(out)?;
            }
            let total = warden.head().await?.seq;
            let mut progress = agentwarden_report::progress::Progress::new("log", total);
            let mut on_page = |seq| progress.update(seq);
            let listed =
                agentwarden_report::rows::list(&warden, (from, limit), &filter, json, &mut on_page, out);
            listed.await.map_err(listed_failure)?;
            Ok(EXIT_OK)
        }
        AuditCommand::Report(_) => Err(Failure::usage("`audit report` opens its own store")),
        AuditCommand::Explain { seq, json } => investigate::run_explain(&open(None)?, seq, json, out).await,
        AuditCommand::Replay { projection, json } => {
            if !agentwarden::events::projections::NAMES.contains(&projection.as_str()) {
                return investigate::run_replay_name_error(&projection);
            }
            investigate::run_replay(&open(None)?, &projection, json, out).await
        }
        AuditCommand::Timeline { session, json } => {
            if session.trim().is_empty() {
                return Err(Failure::usage(
                    "--session is empty: give a session's id, as the SESSION column of `warden audit log` shows it",
                ));
            }
            investigate::run_timeline(&open(None)?, session, json, out).await
        }
        AuditCommand::Show { seq, json } => {
            let warden = open(None)?;
            let Some(envelope) = warden.event(seq).await? else {
                let head = warden.head().await?.seq;
                return Err(Failure::no(format!(
                    "there is no event {seq} (the log ends at seq {head}; `warden audit log` lists its events)"
                )));
            };
            let text = if json {
                to_json(&envelope).map_err(Failure::no)?
            } else {
                pretty(&envelope).map_err(Failure::no)?
            };
            writeln!(out, "{text}")?;
            Ok(EXIT_OK)
        }
        AuditCommand::Export { format: ExportFormat::Jsonl } => {
            agentwarden_report::rows::export(&open(None)?, out).await.map_err(listed_failure)?;
            Ok(EXIT_OK)
        }
        AuditCommand::Stats { json } => {
            let stats = open(None)?.stats().await?;
            if json {
                writeln!(out, "{}", serde_json::to_string(&stats).map_err(Failure::no)?)?;
            } else {
                agentwarden_report::rows::write_stats(&stats, out)?;
            }
            Ok(EXIT_OK)
        }
    }
}

/// A listing's failure as the command line fails.
fn listed_failure(error: ListError) -> Failure {
    match error {
        ListError::Unreadable(reason) => Failure::no(reason),
        ListError::Warden(e) => e.into(),
        ListError::Io(e) => e.into(),
    }
}

/// The store opened, or, when its head does not verify and it refuses to open, that verdict.
fn opened(warden: Result<Warden, WardenError>) -> Result<Result<Warden, Verification>, Failure> {
    match warden {
        Ok(warden) => Ok(Ok(warden)),
        Err(WardenError::Store(StoreError::Corrupt { seq, why })) => {
            Ok(Err(Verification::Broken(ChainBreak { seq, why: BreakKind::Unreadable { why } })))
        }
        Err(e) => Err(e.into()),
    }
}

/// Prints the chain's verdict; a break is the command's failure (exit 1).
pub(super) fn print_verification(
    verification: &Verification,
    json: bool,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    agentwarden_report::text::tlog::verification(verification, json, out)?;
    match verification {
        Verification::Intact { .. } => Ok(EXIT_OK),
        Verification::Broken(broken) => Err(Failure::no(broken.to_string())),
    }
}
