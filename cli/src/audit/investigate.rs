//! `warden audit explain | replay | timeline`: answers rebuilt from the verified log.
//!
//! Each streams the log from seq 1, verifying the chain as it goes: `explain SEQ`
//! verifies up to SEQ before it says a word about the event, so a forged event is reported as
//! the break it is, never explained.

use std::io::Write;

use serde::Serialize;

use agentwarden::events::projections::{
    Approvals, Decisions, Denials, FanOutRuns, NAMES, Projection, Shadow, SpawnTrees, Timeline, Violations,
};
use agentwarden::events::{decode, explain};

use super::super::{EXIT_OK, Failure};
use agentwarden::{Warden, WardenError};
use agentwarden_report::progress::Progress;
use agentwarden_report::text as render;

/// An investigation's failure, worded for the command line.
fn refused(error: WardenError, what: &str) -> Failure {
    match error {
        WardenError::Broken(broken) => Failure::no(format!(
            "the audit chain is broken at seq {}: {}; refusing to {what} (run `warden audit verify`)",
            broken.seq, broken.why
        )),
        other => other.into(),
    }
}

async fn replay<P: Projection>(
    warden: &Warden,
    projection: &P,
    what: &'static str,
) -> Result<P::State, Failure> {
    let head = warden.head().await?;
    let mut progress = Progress::new(what, head.seq);
    warden
        .replay_with_progress(projection, &mut |seq| progress.update(seq))
        .await
        .map_err(|e| refused(e, what))
}

fn line<T: Serialize>(value: &T) -> Result<String, Failure> {
    serde_json::to_string(value).map_err(|e| Failure::no(format!("cannot print the answer: {e}")))
}

/// `warden audit replay --projection NAME`.
pub(super) async fn run_replay(
    warden: &Warden,
    name: &str,
    json: bool,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    macro_rules! show {
        ($projection:expr, $render:path) => {{
            let state = replay(warden, &$projection, "replay").await?;
            if json { writeln!(out, "{}", line(&state)?)? } else { $render(&state, out)? }
        }};
    }
    match name {
        "approvals" => show!(Approvals, render::approvals),
        "denials" => show!(Denials, render::denials),
        "spawn-tree" => show!(SpawnTrees, render::spawn_trees),
        "fan-out" => show!(FanOutRuns, render::fan_out),
        "violations" => show!(Violations, render::violations),
        "decisions" => show!(Decisions, render::decisions),
        "shadow" => show!(Shadow, render::shadow),
        other => return run_replay_name_error(other),
    }
    Ok(EXIT_OK)
}

/// The usage error of an unknown `--projection` (checked before the store is opened).
pub(super) fn run_replay_name_error(name: &str) -> Result<u8, Failure> {
    Err(Failure::usage(format!(
        "--projection `{name}` is not a projection; expected one of {}",
        NAMES.join(", ")
    )))
}

/// `warden audit timeline --session ID`.
pub(super) async fn run_timeline(
    warden: &Warden,
    session: String,
    json: bool,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    let entries = replay(warden, &Timeline { session: session.clone() }, "timeline").await?;
    if entries.is_empty() {
        return Err(Failure::no(format!(
            "no event is filed under session `{session}`; the SESSION column of `warden audit log` shows the \
             sessions that have events"
        )));
    }
    for entry in &entries {
        if json {
            writeln!(out, "{}", line(entry)?)?;
        } else {
            render::timeline_row(entry, out)?;
        }
    }
    Ok(EXIT_OK)
}

/// `warden audit explain SEQ`.
pub(super) async fn run_explain(
    warden: &Warden,
    seq: u64,
    json: bool,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    let head = warden.head().await?;
    if seq == 0 || seq > head.seq {
        return Err(Failure::no(format!("there is no event {seq} (the log ends at seq {})", head.seq)));
    }
    let what = "explain";
    let mut progress = Progress::new(what, seq);
    let verified = warden
        .walk_verified(Some(seq), &mut |s| progress.update(s), |_| Ok(()))
        .await
        .map_err(|e| refused(e, &format!("explain event {seq}")))?;
    drop(progress);
    // The event verified as part of the chain; read it again, whole, to explain it, and check
    // it is still the one that verified.
    let envelope = match warden.event(seq).await? {
        Some(envelope) if verified.seq == seq && envelope.hash == verified.hash => envelope,
        Some(_) => return Err(Failure::no(format!("event {seq} changed while it was being explained"))),
        None => return Err(Failure::no(format!("there is no event {seq}"))),
    };
    let event = decode(&envelope).map_err(|error| refused(WardenError::Undecodable { seq, error }, what))?;
    let explanation = explain(&envelope, &event);
    let explained = render::Explained::new(&envelope, &explanation, head.seq);
    if json {
        writeln!(out, "{}", line(&explained)?)?;
    } else {
        explained.text(&envelope, out)?;
    }
    Ok(EXIT_OK)
}
