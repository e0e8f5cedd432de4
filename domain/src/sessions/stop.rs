//! A subagent's stop, decided (H-28, H-29): given what the guard found against the snapshot
//! taken at the start and the verdict on the `result.json` the spawn asked for, the
//! `subagent_stopped` event, whether the session is to be quarantined, and the answer.

use super::answer::HookAnswer;
use super::events::{HookFailure, SubagentStopped};
use super::request::CallingAgent;
use super::terms::HarnessTerms;
use crate::fact::FactError;
use crate::guardrails::{ResultValidation, Violation};
use crate::verdict::{Code, Decision};

/// What a stop is decided with, found by the application beforehand.
#[derive(Debug)]
pub struct StopFacts<'a> {
    /// The subagent.
    pub agent: CallingAgent,
    /// The harness says the subagent already went on once after a block.
    pub stop_hook_active: bool,
    /// The stop is the subagent's end: its harness cannot make it go on after a block, so the
    /// stop is judged as a repeated one and ends the agent whatever the decision (M-6).
    pub ended: bool,
    /// The guard's check of the protected paths against the content kept at the start: the
    /// violation found (reverted or not), none, or why there was no snapshot to check against.
    pub guard: Result<Option<Violation>, FactError>,
    /// The `result.json` the spawn asked for, if it did.
    pub result_path: Option<String>,
    /// Its verdict, when one was asked for.
    pub result: Option<ResultValidation>,
    /// The harness's words in the reasons.
    pub terms: HarnessTerms<'a>,
}

/// What the guard's check at a stop found, as a failure (if any) and the files it names.
pub(super) struct GuardFound {
    /// `snapshot_missing` or `protected_path_changed`, with its reason; `None`: nothing changed.
    pub(super) failure: Option<HookFailure>,
    /// The protected paths changed.
    pub(super) changed_files: Vec<String>,
    /// Whether they were reverted.
    pub(super) reverted: bool,
}

/// The guard's check as a failure: no snapshot to check against, or protected paths changed
/// (reverted or not, with what is odd among them and why a revert failed).
pub(super) fn guard_found(guard: Result<Option<Violation>, FactError>) -> GuardFound {
    match guard {
        Err(why) => GuardFound {
            failure: Some(HookFailure::new("guardrails", Code::SnapshotMissing, why.to_string())),
            changed_files: Vec::new(),
            reverted: false,
        },
        Ok(None) => GuardFound { failure: None, changed_files: Vec::new(), reverted: false },
        Ok(Some(violation)) => {
            let details = violation.details;
            let reverted = details.reverted;
            let what = if reverted { "and have been reverted" } else { "and could NOT be reverted" };
            let mut reason =
                format!("protected paths were changed {what}: {}", details.changed_files.join(", "));
            if !details.diff.odd.is_empty() {
                // What each odd entry is (U-10, U-11).
                reason
                    .push_str(&format!("; not files, links or directories: {}", details.diff.odd.join(", ")));
            }
            if !details.revert_error.is_empty() {
                reason.push_str(&format!(" ({})", details.revert_error));
            }
            if !details.changed_before_start.is_empty() {
                // Put back all the same: the agent is held to the session's start (H-47).
                reason.push_str(&format!(
                    "; of those, changed before this agent started, not by it: {}",
                    details.changed_before_start.join(", ")
                ));
            }
            GuardFound {
                failure: Some(HookFailure::new("guardrails", Code::ProtectedPathChanged, reason)),
                changed_files: details.changed_files,
                reverted,
            }
        }
    }
}

/// A stop decided.
#[derive(Debug)]
pub struct StopDecision {
    /// `subagent_stopped`.
    pub event: SubagentStopped,
    /// Why the session is to be quarantined, if it is ([`quarantine_cause`]).
    pub cause: Option<HookFailure>,
}

/// The stop's decision: an allow when the guard found nothing and the result (if asked for)
/// is valid; else a deny with every reason, in that order.
pub fn evaluate_stop(facts: StopFacts<'_>) -> StopDecision {
    let StopFacts { agent, stop_hook_active, ended, guard, result_path, result, terms } = facts;
    let GuardFound { failure, changed_files, reverted } = guard_found(guard);
    let mut failures: Vec<HookFailure> = failure.into_iter().collect();
    if let (Some(path), Some(validation)) = (&result_path, &result)
        && !validation.valid
    {
        let problems: Vec<String> = validation
            .problems
            .iter()
            .map(|p| format!("{} {}", if p.pointer.is_empty() { "/" } else { &p.pointer }, p.message))
            .collect();
        let reason = format!("`{path}` is not a valid result: {}", problems.join("; "));
        failures.push(HookFailure::new("result", Code::ResultInvalid, reason));
    }
    let decision = if failures.is_empty() { Decision::Allow } else { Decision::Deny };
    // A stop that ends the agent is its last: judged as a repeated one (M-6).
    let cause = quarantine_cause(&failures, &changed_files, reverted, stop_hook_active || ended, terms);
    let event = SubagentStopped {
        agent_id: agent.agent_id,
        agent_type: agent.agent_type,
        decision,
        failures,
        changed_files,
        reverted,
        result_path,
        result,
        stop_hook_active,
        ended,
    };
    StopDecision { event, cause }
}

impl StopDecision {
    /// The answer once the event was appended (`recorded`: `Ok`) or not (`Err`, why), the
    /// session quarantined before this stop or not (`in_quarantine`). Not recorded: a block at
    /// `audit` (and the application quarantines the session by its marker, H-28). An allow
    /// proceeds. A deny that quarantines the session, or comes in one already quarantined,
    /// proceeds too (H-29: blocking again would only loop until the harness's cap lets the
    /// stop through; the quarantine is what holds the session now). Any other deny blocks,
    /// with every reason, one a line.
    pub fn answer(&self, recorded: Result<(), FactError>, in_quarantine: bool) -> HookAnswer {
        if let Err(e) = recorded {
            return HookAnswer::block(HookFailure::unrecorded(&e).describe());
        }
        if self.event.decision == Decision::Allow || self.cause.is_some() || in_quarantine {
            return HookAnswer::Proceed;
        }
        let reasons: Vec<String> = self.event.failures.iter().map(HookFailure::describe).collect();
        HookAnswer::block(reasons.join("\n"))
    }
}

/// What quarantines a session at a blocked stop. A revert that failed (the protected
/// tree is still changed, or could not be read), whatever `stop_hook_active` says; and on a
/// repeated stop (`stop_hook_active: true`, the harness already continued the subagent once
/// after a block) any reason that remains other than a change that was reverted — a
/// `result.json` still missing or invalid, a snapshot missing. A first block after a
/// successful revert is not a quarantine: the next stop passes if nothing changed again (H-28).
pub fn quarantine_cause(
    failures: &[HookFailure],
    changed_files: &[String],
    reverted: bool,
    stop_hook_active: bool,
    terms: HarnessTerms<'_>,
) -> Option<HookFailure> {
    if !changed_files.is_empty() && !reverted {
        let reason =
            format!("protected paths were changed and could not be reverted: {}", changed_files.join(", "));
        return Some(HookFailure::new("guardrails", Code::RevertFailed, reason));
    }
    let unresolved: Vec<&HookFailure> =
        failures.iter().filter(|f| f.code != Code::ProtectedPathChanged).collect();
    if let (true, Some(first)) = (stop_hook_active, unresolved.first()) {
        let reasons: Vec<String> = unresolved.iter().map(|f| format!("{}: {}", f.code, f.reason)).collect();
        let reason = format!(
            "still failing after {} continued the subagent once: {}",
            terms.harness,
            reasons.join("; ")
        );
        return Some(HookFailure::new(first.stage.clone(), Code::StopUnresolved, reason));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guardrails::{Problem, TreeDiff, ViolationDetails};

    #[test]
    fn a_stop_quarantines_on_a_failed_revert_or_what_a_repeated_stop_did_not_fix() {
        let changed = HookFailure::new("guardrails", Code::ProtectedPathChanged, "r");
        let missing = HookFailure::new("result", Code::ResultInvalid, "no file");
        let no_snapshot = HookFailure::new("guardrails", Code::SnapshotMissing, "none");
        let files = vec!["okrs/a.md".to_owned()];
        /// Failures, changed files, reverted, `stop_hook_active`, the quarantine's code, why.
        type Row<'a> = (Vec<HookFailure>, &'a [String], bool, bool, Option<&'a str>, &'a str);
        let rows: [Row<'_>; 8] = [
            (vec![changed.clone()], &files, true, false, None, "reverted, first stop: a block"),
            (vec![changed.clone()], &files, true, true, None, "reverted again on a repeated stop: a block"),
            (vec![changed.clone()], &files, false, false, Some("revert_failed"), "not reverted"),
            (vec![changed.clone(), missing.clone()], &files, false, true, Some("revert_failed"), "both"),
            (vec![missing.clone()], &[], false, false, None, "result missing, first stop: a block"),
            (vec![missing.clone()], &[], false, true, Some("stop_unresolved"), "result still missing"),
            (vec![changed, missing], &files, true, true, Some("stop_unresolved"), "reverted but no result"),
            (vec![no_snapshot], &[], false, true, Some("stop_unresolved"), "no snapshot, repeated"),
        ];
        for (failures, changed, reverted, active, expected, why) in rows {
            let cause = quarantine_cause(&failures, changed, reverted, active, HarnessTerms::NEUTRAL);
            assert_eq!(cause.as_ref().map(|c| c.code.as_str()), expected, "{why}");
        }
    }

    fn violation(reverted: bool, odd: &[&str], revert_error: &str) -> Violation {
        let diff = TreeDiff {
            modified: vec!["okrs/a.md".into()],
            odd: odd.iter().map(|s| (*s).to_owned()).collect(),
            ..TreeDiff::default()
        };
        Violation {
            violation_type: "okrs_direct_edit".into(),
            details: ViolationDetails {
                message: "m".into(),
                changed_files: vec!["okrs/a.md".into()],
                diff,
                reverted,
                revert_error: revert_error.into(),
                item_id: "a1".into(),
                run_id: "s".into(),
                changed_before_start: Vec::new(),
            },
        }
    }

    fn facts(
        guard: Result<Option<Violation>, FactError>,
        result: Option<bool>,
        active: bool,
    ) -> StopFacts<'static> {
        let validation = |valid: bool| ResultValidation {
            valid,
            problems: if valid {
                Vec::new()
            } else {
                vec![Problem {
                    pointer: String::new(),
                    code: Code::ResultUnreadable,
                    message: "absent".into(),
                }]
            },
        };
        StopFacts {
            agent: CallingAgent { agent_id: "a1".into(), agent_type: "planner".into() },
            stop_hook_active: active,
            ended: false,
            guard,
            result_path: result.map(|_| "out/result.json".to_owned()),
            result: result.map(validation),
            terms: HarnessTerms::NEUTRAL,
        }
    }

    #[test]
    fn a_stop_is_allowed_only_when_nothing_changed_and_the_result_is_valid() {
        /// Facts, the decision, the failures' codes, the answer's shape, why.
        type Row = (StopFacts<'static>, Decision, Vec<Code>, &'static str, &'static str);
        let rows: [Row; 7] = [
            (
                facts(Ok(None), None, false),
                Decision::Allow,
                vec![],
                "proceed",
                "nothing asked, nothing changed",
            ),
            (facts(Ok(None), Some(true), false), Decision::Allow, vec![], "proceed", "a valid result"),
            (
                facts(Ok(None), Some(false), false),
                Decision::Deny,
                vec![Code::ResultInvalid],
                "block",
                "an invalid result, first stop",
            ),
            (
                facts(Ok(None), Some(false), true),
                Decision::Deny,
                vec![Code::ResultInvalid],
                "proceed",
                "still invalid on a repeated stop: quarantined, not blocked again",
            ),
            (
                facts(Ok(Some(violation(true, &[], ""))), None, false),
                Decision::Deny,
                vec![Code::ProtectedPathChanged],
                "block",
                "a change reverted",
            ),
            (
                facts(Ok(Some(violation(false, &[], "e"))), Some(false), false),
                Decision::Deny,
                vec![Code::ProtectedPathChanged, Code::ResultInvalid],
                "proceed",
                "a revert that failed quarantines",
            ),
            (
                facts(Err("no snapshot".into()), None, false),
                Decision::Deny,
                vec![Code::SnapshotMissing],
                "block",
                "no snapshot",
            ),
        ];
        for (facts, decision, codes, shape, why) in rows {
            let decided = evaluate_stop(facts);
            assert_eq!(decided.event.decision, decision, "{why}");
            let seen: Vec<Code> = decided.event.failures.iter().map(|f| f.code.clone()).collect();
            assert_eq!(seen, codes, "{why}");
            let answer = decided.answer(Ok(()), false);
            let seen = match answer {
                HookAnswer::Proceed => "proceed",
                HookAnswer::Block { .. } => "block",
                HookAnswer::Rewrite { .. } | HookAnswer::Deny { .. } | HookAnswer::Failed { .. } => "other",
            };
            assert_eq!(seen, shape, "{why}: {answer:?}");
            assert!(
                matches!(decided.answer(Err("x".into()), false), HookAnswer::Block { .. }),
                "unrecorded: a block"
            );
            if decision == Decision::Deny {
                assert_eq!(decided.answer(Ok(()), true), HookAnswer::Proceed, "{why}: already quarantined");
            }
        }
    }

    #[test]
    fn a_violations_reason_says_what_was_reverted_and_what_is_odd() {
        let decided =
            evaluate_stop(facts(Ok(Some(violation(false, &["okrs/p (FIFO)"], "busy"))), None, false));
        let reason = &decided.event.failures.first().map(|f| f.reason.clone()).unwrap_or_default();
        assert_eq!(
            reason,
            "protected paths were changed and could NOT be reverted: okrs/a.md; not files, links or \
             directories: okrs/p (FIFO) (busy)"
        );
        assert_eq!(decided.event.changed_files, ["okrs/a.md"]);
        assert!(!decided.event.reverted);
        let HookAnswer::Block { reason } =
            evaluate_stop(facts(Ok(None), Some(false), false)).answer(Ok(()), false)
        else {
            panic!("an invalid result blocks");
        };
        assert_eq!(
            reason.as_str(),
            "Agent Warden denied this at result (result_invalid): `out/result.json` is not a valid result: / absent"
        );
    }
}
