//! The main session's stop, decided (H-46): given what the guard found against the snapshot of
//! the protected paths taken when the session started (H-45), the `session_stopped` event,
//! whether the session is to be quarantined, and the answer.
//!
//! A harness asks at the end of every turn of the main session, and a stop it is told to block
//! makes it go on with the reason as the next prompt, without limit. So a stop that found a
//! failure blocks once, telling the agent what was put back, and a repeated stop
//! (`stop_hook_active`) is let through with the same check made and recorded: blocking it
//! again would only keep the agent working. What could not be made safe — a revert that failed,
//! or no snapshot to check against (a session Warden did not see start, or whose snapshot could
//! not be taken) — quarantines the session, whatever `stop_hook_active` says.
//!
//! The session's start and end are decided here too. No event of the session can be told from
//! one the agent forged, so none replaces or removes the session's first snapshot, its reference
//! (H-52, H-53): a later start is checked against it as a stop is, and an end checks and keeps it.

use super::answer::HookAnswer;
use super::events::{HookFailure, SessionEnded, SessionStarted, SessionStopped};
use super::stop::{GuardFound, guard_found};
use crate::fact::FactError;
use crate::guardrails::Violation;
use crate::verdict::{Code, Decision};

/// What the main session's stop is decided with, found by the application beforehand.
#[derive(Debug)]
pub struct SessionStopFacts {
    /// The harness says the session already went on once after a block.
    pub stop_hook_active: bool,
    /// The guard's check of the protected paths against the session's snapshot: the violation
    /// found (reverted or not), none, or why there was no snapshot to check against.
    pub guard: Result<Option<Violation>, FactError>,
}

/// The main session's stop decided.
#[derive(Debug)]
pub struct SessionStopDecision {
    /// `session_stopped`.
    pub event: SessionStopped,
    /// Why the session is to be quarantined, if it is.
    pub cause: Option<HookFailure>,
}

/// The stop's decision: an allow when the guard found nothing to put back; else a deny with its
/// reason, and a quarantine when the paths could not be checked or put back.
pub fn evaluate_session_stop(facts: SessionStopFacts) -> SessionStopDecision {
    let SessionStopFacts { stop_hook_active, guard } = facts;
    let GuardFound { failure, changed_files, reverted } = guard_found(guard);
    let cause = quarantine_for(failure.as_ref(), reverted, &changed_files);
    let failures: Vec<HookFailure> = failure.into_iter().collect();
    let decision = if failures.is_empty() { Decision::Allow } else { Decision::Deny };
    let event = SessionStopped { decision, failures, changed_files, reverted, stop_hook_active };
    SessionStopDecision { event, cause }
}

/// What a session's start found (H-45, H-52).
#[derive(Debug)]
#[expect(
    clippy::large_enum_variant,
    reason = "built once per start and moved once into its decision, as `SessionStopFacts` holds the same guard"
)]
pub enum SessionStartFacts {
    /// No snapshot was kept for the session: this is its first start, and a snapshot was taken
    /// (`true`) or could not be (`false`).
    First {
        /// Whether the snapshot was taken and kept.
        snapshot: bool,
    },
    /// A snapshot is kept from the session's first start: the guard's check of the protected
    /// paths against it — the violation found (reverted or not), none, or why it could not be
    /// checked against (it does not decode, it cannot be read).
    Kept {
        /// The guard's check against the kept snapshot.
        guard: Result<Option<Violation>, FactError>,
    },
}

/// The session's start decided (H-45, H-52).
#[derive(Debug)]
pub struct SessionStartDecision {
    /// `session_started`.
    pub event: SessionStarted,
    /// Why the session is to be quarantined, if it is.
    pub cause: Option<HookFailure>,
}

/// The start's decision. A first start records the snapshot taken, and quarantines when none
/// could be (H-45). A later start of the same session — resumed, compacted, or forged by the
/// agent: they cannot be told apart — replaces nothing: the protected paths are compared with the
/// kept snapshot and put back as at a stop, and what cannot be made safe (the kept snapshot
/// cannot be checked against, a revert failed) quarantines (H-52).
pub fn evaluate_session_start(facts: SessionStartFacts) -> SessionStartDecision {
    match facts {
        SessionStartFacts::First { snapshot } => {
            let cause = (!snapshot).then(|| {
                HookFailure::new(
                    "guardrails",
                    Code::SnapshotMissing,
                    "the session's protected paths could not be snapshotted when it started, so its \
                     stop cannot be checked",
                )
            });
            let event = SessionStarted {
                snapshot,
                kept: false,
                failures: Vec::new(),
                changed_files: Vec::new(),
                reverted: false,
            };
            SessionStartDecision { event, cause }
        }
        SessionStartFacts::Kept { guard } => {
            let checked = guard.is_ok();
            let GuardFound { failure, changed_files, reverted } = guard_found(guard);
            let cause = quarantine_for(failure.as_ref(), reverted, &changed_files);
            let failures: Vec<HookFailure> = failure.into_iter().collect();
            let event = SessionStarted { snapshot: checked, kept: true, failures, changed_files, reverted };
            SessionStartDecision { event, cause }
        }
    }
}

impl SessionStartDecision {
    /// The answer once the event was appended (`recorded`: `Ok`) or not (`Err`, why). A start
    /// is never held: a first start proceeds (one without a snapshot is quarantined, and every
    /// call of the session is denied from then on, H-45); a later start that found nothing
    /// proceeds, and one that put something back or quarantined is a failure whose reason says
    /// which, as at the end (H-52, H-48).
    pub fn answer(&self, recorded: Result<(), FactError>) -> HookAnswer {
        match recorded {
            Ok(()) if !self.event.kept || self.event.failures.is_empty() => HookAnswer::Proceed,
            recorded => told(&self.event.failures, self.cause.as_ref(), recorded),
        }
    }
}

/// A failure that tells the human every reason, and the quarantine when there is one: the
/// answer of an event the harness does not hold on (a start, an end).
fn told(
    failures: &[HookFailure],
    cause: Option<&HookFailure>,
    recorded: Result<(), FactError>,
) -> HookAnswer {
    // The failure's code is its first reason's.
    let (code, mut reasons): (Code, Vec<String>) = match recorded {
        Err(e) => {
            let unrecorded = HookFailure::unrecorded(&e);
            (unrecorded.code.clone(), vec![unrecorded.describe()])
        }
        Ok(()) => (
            failures.first().map_or(Code::InternalError, |first| first.code.clone()),
            failures.iter().map(HookFailure::describe).collect(),
        ),
    };
    if let Some(cause) = cause {
        reasons.push(format!(
            "the session is quarantined ({}: {}): a human checks the workspace and runs `warden release`",
            cause.code, cause.reason
        ));
    }
    HookAnswer::failed(code, reasons.join("\n"))
}

/// The session's end decided (H-48).
#[derive(Debug)]
pub struct SessionEndDecision {
    /// `session_ended`.
    pub event: SessionEnded,
    /// Why the session is to be quarantined, if it is.
    pub cause: Option<HookFailure>,
}

/// The end's decision, as the stop's (H-46) with nothing to block: an allow when the guard found
/// nothing to put back; else a deny with its reason, and a quarantine when the paths could not
/// be checked or put back. `reason` is the harness's own word for why the session ended.
pub fn evaluate_session_end(
    guard: Result<Option<Violation>, FactError>,
    reason: Option<String>,
) -> SessionEndDecision {
    let GuardFound { failure, changed_files, reverted } = guard_found(guard);
    let cause = quarantine_for(failure.as_ref(), reverted, &changed_files);
    let failures: Vec<HookFailure> = failure.into_iter().collect();
    let decision = if failures.is_empty() { Decision::Allow } else { Decision::Deny };
    let event = SessionEnded { decision, failures, changed_files, reverted, reason };
    SessionEndDecision { event, cause }
}

impl SessionEndDecision {
    /// The answer once the event was appended (`recorded`: `Ok`) or not (`Err`, why). An end
    /// cannot be blocked (the harness ends the session whatever it is told), so a clean end
    /// proceeds and any other is a failure whose reason tells the human what was put back or
    /// why the session is quarantined (H-48).
    pub fn answer(&self, recorded: Result<(), FactError>) -> HookAnswer {
        match recorded {
            Ok(()) if self.event.decision == Decision::Allow => HookAnswer::Proceed,
            recorded => told(&self.event.failures, self.cause.as_ref(), recorded),
        }
    }
}

/// Why a check of the session's paths quarantines it: no snapshot to check against, or a change
/// that could not be put back (H-46, H-48).
fn quarantine_for(
    failure: Option<&HookFailure>,
    reverted: bool,
    changed_files: &[String],
) -> Option<HookFailure> {
    match failure {
        Some(f) if f.code == Code::SnapshotMissing => Some(HookFailure::new(
            "guardrails",
            Code::SnapshotMissing,
            format!(
                "the session's protected paths were not snapshotted when it started ({}), so its \
                 stop cannot be checked; start a new session with Warden's hooks installed",
                f.reason
            ),
        )),
        Some(_) if !reverted => Some(HookFailure::new(
            "guardrails",
            Code::RevertFailed,
            format!("protected paths were changed and could not be reverted: {}", changed_files.join(", ")),
        )),
        _ => None,
    }
}

impl SessionStopDecision {
    /// The answer once the event was appended (`recorded`: `Ok`) or not (`Err`, why). A stop
    /// with nothing to put back proceeds; any other blocks with every reason (and the
    /// quarantine, when there is one), unless the harness already went on once after a block
    /// (`stop_hook_active`): then it proceeds, the check made and the session quarantined where
    /// it had to be.
    pub fn answer(&self, recorded: Result<(), FactError>) -> HookAnswer {
        let mut reasons: Vec<String> = match recorded {
            Err(e) => vec![HookFailure::unrecorded(&e).describe()],
            Ok(()) if self.event.decision == Decision::Allow => return HookAnswer::Proceed,
            Ok(()) => self.event.failures.iter().map(HookFailure::describe).collect(),
        };
        if self.event.stop_hook_active {
            return HookAnswer::Proceed;
        }
        if let Some(cause) = &self.cause {
            reasons.push(format!(
                "the session is quarantined ({}: {}): nothing more runs in it until a human checks \
                 the workspace and runs `warden release`",
                cause.code, cause.reason
            ));
        }
        HookAnswer::block(reasons.join("\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guardrails::{TreeDiff, ViolationDetails};

    fn violation(reverted: bool) -> Violation {
        Violation {
            violation_type: "okrs_direct_edit".into(),
            details: ViolationDetails {
                message: "m".into(),
                changed_files: vec!["okrs/a.md".into()],
                diff: TreeDiff { modified: vec!["okrs/a.md".into()], ..TreeDiff::default() },
                reverted,
                revert_error: if reverted { String::new() } else { "busy".into() },
                item_id: "main".into(),
                run_id: "s".into(),
                changed_before_start: Vec::new(),
            },
        }
    }

    /// The guard's finding and `stop_hook_active` against the decision, the quarantine and
    /// the answer (H-46).
    #[test]
    fn the_sessions_stop_blocks_once_and_quarantines_what_it_cannot_make_safe() {
        /// The guard, `stop_hook_active`, the decision, the quarantine's code, the answer, why.
        type Row = (
            Result<Option<Violation>, FactError>,
            bool,
            Decision,
            Option<&'static str>,
            &'static str,
            &'static str,
        );
        let rows: [Row; 8] = [
            (Ok(None), false, Decision::Allow, None, "proceed", "nothing changed"),
            (Ok(None), true, Decision::Allow, None, "proceed", "nothing changed, repeated"),
            (Ok(Some(violation(true))), false, Decision::Deny, None, "block", "put back: told once"),
            (Ok(Some(violation(true))), true, Decision::Deny, None, "proceed", "put back again: let go"),
            (
                Ok(Some(violation(false))),
                false,
                Decision::Deny,
                Some("revert_failed"),
                "block",
                "not put back",
            ),
            (
                Ok(Some(violation(false))),
                true,
                Decision::Deny,
                Some("revert_failed"),
                "proceed",
                "not put back, repeated",
            ),
            (Err("none".into()), false, Decision::Deny, Some("snapshot_missing"), "block", "no snapshot"),
            (
                Err("none".into()),
                true,
                Decision::Deny,
                Some("snapshot_missing"),
                "proceed",
                "no snapshot, repeated",
            ),
        ];
        for (guard, active, decision, quarantine, shape, why) in rows {
            let decided = evaluate_session_stop(SessionStopFacts { stop_hook_active: active, guard });
            assert_eq!(decided.event.decision, decision, "{why}");
            assert_eq!(decided.event.stop_hook_active, active, "{why}");
            assert_eq!(decided.cause.as_ref().map(|c| c.code.as_str()), quarantine, "{why}");
            let seen = match decided.answer(Ok(())) {
                HookAnswer::Proceed => "proceed",
                HookAnswer::Block { .. } => "block",
                HookAnswer::Rewrite { .. } | HookAnswer::Deny { .. } | HookAnswer::Failed { .. } => "other",
            };
            assert_eq!(seen, shape, "{why}");
            let unrecorded = decided.answer(Err("gone".into()));
            match active {
                true => assert_eq!(unrecorded, HookAnswer::Proceed, "{why}: unrecorded, repeated"),
                false => assert!(
                    matches!(&unrecorded, HookAnswer::Block { reason } if reason.as_str().contains("audit_unavailable")),
                    "{why}: unrecorded: {unrecorded:?}"
                ),
            }
        }
    }

    #[test]
    fn a_block_names_what_was_put_back_and_the_quarantine() {
        let put_back = evaluate_session_stop(SessionStopFacts {
            stop_hook_active: false,
            guard: Ok(Some(violation(true))),
        });
        assert_eq!(put_back.event.changed_files, ["okrs/a.md"]);
        assert!(put_back.event.reverted);
        let HookAnswer::Block { reason } = put_back.answer(Ok(())) else { panic!("a block") };
        assert_eq!(
            reason.as_str(),
            "Agent Warden denied this at guardrails (protected_path_changed): protected paths were changed \
             and have been reverted: okrs/a.md"
        );
        let missing =
            evaluate_session_stop(SessionStopFacts { stop_hook_active: false, guard: Err("gone".into()) });
        let HookAnswer::Block { reason } = missing.answer(Ok(())) else { panic!("a block") };
        assert!(reason.as_str().contains("snapshot_missing"), "{reason}");
        assert!(reason.as_str().contains("the session is quarantined"), "{reason}");
    }

    /// The guard's finding at the session's end against the decision, the quarantine and the
    /// answer (never a block: an end cannot be) (H-48).
    #[test]
    fn the_sessions_end_never_blocks_and_quarantines_what_it_cannot_make_safe() {
        /// The guard, the decision, the quarantine's code, the answer, why.
        type Row = (
            Result<Option<Violation>, FactError>,
            Decision,
            Option<&'static str>,
            &'static str,
            &'static str,
        );
        let rows: [Row; 4] = [
            (Ok(None), Decision::Allow, None, "proceed", "nothing changed"),
            (Ok(Some(violation(true))), Decision::Deny, None, "failed", "put back: as the snapshot holds"),
            (Ok(Some(violation(false))), Decision::Deny, Some("revert_failed"), "failed", "not put back"),
            (Err("none".into()), Decision::Deny, Some("snapshot_missing"), "failed", "no snapshot"),
        ];
        for (guard, decision, quarantine, shape, why) in rows {
            let decided = evaluate_session_end(guard, Some("other".into()));
            assert_eq!(decided.event.decision, decision, "{why}");
            assert_eq!(decided.event.reason.as_deref(), Some("other"), "{why}");
            assert_eq!(decided.cause.as_ref().map(|c| c.code.as_str()), quarantine, "{why}");
            let seen = match decided.answer(Ok(())) {
                HookAnswer::Proceed => "proceed",
                HookAnswer::Failed { .. } => "failed",
                HookAnswer::Rewrite { .. } | HookAnswer::Block { .. } | HookAnswer::Deny { .. } => "other",
            };
            assert_eq!(seen, shape, "{why}");
            let unrecorded = decided.answer(Err("gone".into()));
            assert!(
                matches!(unrecorded.failure(), Some(text) if text.contains("audit_unavailable")),
                "{why}: unrecorded: {unrecorded:?}"
            );
        }
    }

    /// A first start against a later one, and what the later one's check found, against the
    /// recorded start, the quarantine and the answer (never a block: a start is not held)
    /// (H-45, H-52).
    #[test]
    fn a_later_start_is_checked_against_the_kept_snapshot_and_a_first_one_is_not() {
        /// The facts, kept, snapshot, changed, reverted, the quarantine's code, the answer, why.
        type Row = (
            SessionStartFacts,
            bool,
            bool,
            &'static [&'static str],
            bool,
            Option<&'static str>,
            &'static str,
            &'static str,
        );
        let rows: [Row; 6] = [
            (SessionStartFacts::First { snapshot: true }, false, true, &[], false, None, "proceed", "first"),
            (
                SessionStartFacts::First { snapshot: false },
                false,
                false,
                &[],
                false,
                Some("snapshot_missing"),
                "proceed",
                "first, no snapshot: quarantined, not held",
            ),
            (
                SessionStartFacts::Kept { guard: Ok(None) },
                true,
                true,
                &[],
                false,
                None,
                "proceed",
                "later, clean",
            ),
            (
                SessionStartFacts::Kept { guard: Ok(Some(violation(true))) },
                true,
                true,
                &["okrs/a.md"],
                true,
                None,
                "failed",
                "later, a change put back: told",
            ),
            (
                SessionStartFacts::Kept { guard: Ok(Some(violation(false))) },
                true,
                true,
                &["okrs/a.md"],
                false,
                Some("revert_failed"),
                "failed",
                "later, a change not put back",
            ),
            (
                SessionStartFacts::Kept { guard: Err("does not decode".into()) },
                true,
                false,
                &[],
                false,
                Some("snapshot_missing"),
                "failed",
                "later, the kept snapshot unusable: never replaced, quarantined",
            ),
        ];
        for (facts, kept, snapshot, changed, reverted, quarantine, shape, why) in rows {
            let decided = evaluate_session_start(facts);
            assert_eq!(decided.event.kept, kept, "{why}");
            assert_eq!(decided.event.snapshot, snapshot, "{why}");
            assert_eq!(decided.event.changed_files, changed, "{why}");
            assert_eq!(decided.event.reverted, reverted, "{why}");
            assert_eq!(decided.cause.as_ref().map(|c| c.code.as_str()), quarantine, "{why}");
            let seen = match decided.answer(Ok(())) {
                HookAnswer::Proceed => "proceed",
                HookAnswer::Failed { .. } => "failed",
                HookAnswer::Rewrite { .. } | HookAnswer::Block { .. } | HookAnswer::Deny { .. } => "other",
            };
            assert_eq!(seen, shape, "{why}");
            let unrecorded = decided.answer(Err("gone".into()));
            assert!(
                matches!(unrecorded.failure(), Some(text) if text.contains("audit_unavailable")),
                "{why}: unrecorded: {unrecorded:?}"
            );
        }
    }
}
