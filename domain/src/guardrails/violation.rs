//! The violation record, in the spec's format (spec 004), and its audit payload.

use serde::{Deserialize, Serialize};

use super::manifest::TreeDiff;
use crate::fact::FactError;

/// `violation.json`: `{"violation_type", "details": {…}}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Violation {
    /// `<protected path>_direct_edit`, e.g. `okrs_direct_edit`.
    pub violation_type: String,
    /// What happened.
    pub details: ViolationDetails,
}

/// The details of a violation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ViolationDetails {
    /// In words.
    pub message: String,
    /// The exact list of changed paths, sorted.
    pub changed_files: Vec<String>,
    /// Added, removed and modified paths.
    pub diff: TreeDiff,
    /// Whether every change was reverted.
    pub reverted: bool,
    /// What could not be reverted (empty when `reverted`).
    pub revert_error: String,
    /// The plan item.
    pub item_id: String,
    /// The run.
    pub run_id: String,
    /// The changed paths the agent did not change: they already differed from the session's
    /// snapshot when it started (changed by someone else before it) and are put back to the
    /// session's start all the same (H-47). Empty when the stop holds the agent to its own
    /// snapshot; absent from records written before it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changed_before_start: Vec<String>,
}

/// Whether `path` (relative, `/`-separated) is `dir` or lies under it, by whole path
/// components: `okrs-notes/a.md` is not under `okrs` (X-43).
fn within(path: &str, dir: &str) -> bool {
    let dir = dir.trim_end_matches('/');
    path.strip_prefix(dir).is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// The violation type for a protected path: its last component, non-alphanumerics as `_`, then
/// `_direct_edit` (`okrs/` → `okrs_direct_edit`, `docs/policy` → `policy_direct_edit`).
pub fn violation_type(protected: &str) -> String {
    let last = protected.trim_end_matches('/').rsplit('/').next().unwrap_or(protected);
    let name: String =
        last.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' }).collect();
    format!("{}_direct_edit", if name.is_empty() { "protected" } else { &name })
}

/// What became of the revert after a change (R-3, U-14).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RevertAttempt {
    /// The protected tree could not be read after the agent, so nothing was put back.
    Unreadable(String),
    /// No revert was asked for.
    NotRequested,
    /// A revert was made: what the restore answered, and the paths still changed after it (a
    /// tree that could not be read then is named as such among them).
    Made {
        /// The restore's answer.
        restored: Result<(), FactError>,
        /// What a new snapshot still finds changed.
        remaining: Vec<String>,
    },
}

impl RevertAttempt {
    /// Whether every change was put back, and if not why (`revert_error`): a revert counts only
    /// when the restore succeeded and a new snapshot finds nothing changed.
    pub fn outcome(self) -> (bool, String) {
        match self {
            RevertAttempt::Unreadable(why) => (false, format!("the protected tree could not be read: {why}")),
            RevertAttempt::NotRequested => (false, "revert not requested".to_owned()),
            RevertAttempt::Made { restored: Err(e), .. } => (false, e.to_string()),
            RevertAttempt::Made { restored: Ok(()), remaining } if remaining.is_empty() => {
                (true, String::new())
            }
            RevertAttempt::Made { restored: Ok(()), remaining } => {
                (false, format!("still changed after the revert: {}", remaining.join(", ")))
            }
        }
    }
}

impl Violation {
    /// The record of a check that found `changes` under `protected` (spec 004): its type
    /// named after the protected path the first changed file lies in (else the first
    /// protected path), its message naming the protected paths and every odd entry (U-10),
    /// and what the revert did.
    pub fn new(
        protected: &[String],
        changes: TreeDiff,
        revert: RevertAttempt,
        item_id: &str,
        run_id: &str,
    ) -> Violation {
        let (reverted, revert_error) = revert.outcome();
        let changed_files = changes.changed_paths();
        let violation_type = changed_files
            .first()
            .and_then(|path| protected.iter().find(|p| within(path, p)))
            .or(protected.first())
            .map_or_else(|| "protected".to_owned(), |p| violation_type(p));
        let message = if changes.odd.is_empty() {
            format!("Agent directly modified protected paths ({}), which is prohibited", protected.join(", "))
        } else {
            format!(
                "Agent directly modified protected paths ({}), which is prohibited; entries that do not belong there: {}",
                protected.join(", "),
                changes.odd.join(", ")
            )
        };
        Violation {
            violation_type,
            details: ViolationDetails {
                message,
                changed_files,
                diff: changes,
                reverted,
                revert_error,
                item_id: item_id.to_owned(),
                run_id: run_id.to_owned(),
                changed_before_start: Vec::new(),
            },
        }
    }

    /// The violation of a stop held to the session's snapshot, told apart (H-47): of its
    /// changed paths, those not in `changed_by_agent` (what differs from the agent's own start)
    /// were changed before the agent started, by someone else, and are named as such.
    pub fn attributed(mut self, changed_by_agent: &[String]) -> Violation {
        let before: Vec<String> =
            self.details.changed_files.iter().filter(|p| !changed_by_agent.contains(p)).cloned().collect();
        if !before.is_empty() {
            self.details.message.push_str(&format!(
                "; changed before the agent started, not by it, and put back to the session's start: {}",
                before.join(", ")
            ));
        }
        self.details.changed_before_start = before;
        self
    }
}

/// A guarded run's item fails when its agent did not exit 0 (or could not start, or was
/// ended by a signal), when the guard found a change, or when its result is invalid (X-24).
pub fn item_failed(
    command: &Result<Option<i32>, FactError>,
    guard_clean: bool,
    result_valid: Option<bool>,
) -> bool {
    !matches!(command, Ok(Some(0))) || !guard_clean || result_valid == Some(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_revert_counts_only_when_restored_and_nothing_remains() {
        let made = |restored: Result<(), FactError>, remaining: &[&str]| RevertAttempt::Made {
            restored,
            remaining: remaining.iter().map(|s| (*s).to_owned()).collect(),
        };
        let rows: [(RevertAttempt, bool, &str, &str); 5] = [
            (made(Ok(()), &[]), true, "", "restored, nothing left"),
            (made(Ok(()), &["okrs/a"]), false, "still changed after the revert: okrs/a", "something left"),
            (made(Err("git failed".into()), &[]), false, "git failed", "the restore failed"),
            (RevertAttempt::NotRequested, false, "revert not requested", "not asked"),
            (
                RevertAttempt::Unreadable("EACCES".into()),
                false,
                "the protected tree could not be read: EACCES",
                "unreadable",
            ),
        ];
        for (attempt, reverted, error, why) in rows {
            assert_eq!(attempt.outcome(), (reverted, error.to_owned()), "{why}");
        }
    }

    #[test]
    fn a_violation_is_typed_by_the_protected_path_its_first_change_is_in() {
        let protected = ["docs/policy/".to_owned(), "okrs".to_owned()];
        let changes = |paths: &[&str], odd: &[&str]| TreeDiff {
            added: paths.iter().map(|s| (*s).to_owned()).collect(),
            odd: odd.iter().map(|s| (*s).to_owned()).collect(),
            ..TreeDiff::default()
        };
        let v =
            Violation::new(&protected, changes(&["okrs/a.md"], &[]), RevertAttempt::NotRequested, "i", "r");
        assert_eq!(v.violation_type, "okrs_direct_edit");
        assert_eq!(
            v.details.message,
            "Agent directly modified protected paths (docs/policy/, okrs), which is prohibited"
        );
        assert_eq!((v.details.item_id.as_str(), v.details.run_id.as_str()), ("i", "r"));
        assert!(!v.details.reverted);
        let odd = Violation::new(
            &protected,
            changes(&[], &["okrs/p (FIFO)"]),
            RevertAttempt::NotRequested,
            "i",
            "r",
        );
        assert_eq!(odd.violation_type, "policy_direct_edit", "no changed file: the first protected path");
        assert!(odd.details.message.ends_with("entries that do not belong there: okrs/p (FIFO)"));
        let none = Violation::new(&[], changes(&["x"], &[]), RevertAttempt::NotRequested, "i", "r");
        assert_eq!(none.violation_type, "protected");
        // A name that only begins like a protected path is not in it (X-43).
        let siblings = ["okrs".to_owned(), "okrs-notes".to_owned()];
        let sibling = Violation::new(
            &siblings,
            changes(&["okrs-notes/a.md"], &[]),
            RevertAttempt::NotRequested,
            "i",
            "r",
        );
        assert_eq!(sibling.violation_type, "okrs_notes_direct_edit");
        let own = Violation::new(&siblings, changes(&["okrs"], &[]), RevertAttempt::NotRequested, "i", "r");
        assert_eq!(own.violation_type, "okrs_direct_edit", "the protected path itself");
    }

    #[test]
    fn an_item_fails_on_a_bad_exit_a_change_or_an_invalid_result() {
        /// The agent's exit, the guard clean, the result valid, the item failed, why.
        type Row = (Result<Option<i32>, FactError>, bool, Option<bool>, bool, &'static str);
        let rows: [Row; 7] = [
            (Ok(Some(0)), true, None, false, "clean exit, nothing changed, no result asked"),
            (Ok(Some(0)), true, Some(true), false, "a valid result"),
            (Ok(Some(0)), true, Some(false), true, "an invalid result"),
            (Ok(Some(0)), false, None, true, "a protected path changed"),
            (Ok(Some(1)), true, None, true, "exit 1"),
            (Ok(None), true, None, true, "ended by a signal"),
            (Err("cannot start".into()), true, None, true, "not started"),
        ];
        for (command, clean, valid, failed, why) in rows {
            assert_eq!(item_failed(&command, clean, valid), failed, "{why}");
        }
    }

    #[test]
    fn violation_types_follow_the_spec_pattern() {
        assert_eq!(violation_type("okrs"), "okrs_direct_edit");
        assert_eq!(violation_type("okrs/"), "okrs_direct_edit");
        assert_eq!(violation_type("docs/Policy-Files"), "policy_files_direct_edit");
    }

    #[test]
    fn the_record_has_the_spec_shape() {
        let v = Violation {
            violation_type: "okrs_direct_edit".into(),
            details: ViolationDetails {
                message: "m".into(),
                changed_files: vec!["okrs/a.md".into()],
                diff: TreeDiff {
                    added: vec![],
                    removed: vec![],
                    modified: vec!["okrs/a.md".into()],
                    odd: vec![],
                },
                reverted: true,
                revert_error: String::new(),
                item_id: "ITEM-1".into(),
                run_id: "20260117T223000Z".into(),
                changed_before_start: Vec::new(),
            },
        };
        let json = serde_json::to_value(&v).unwrap();
        assert_eq!(json["violation_type"], "okrs_direct_edit");
        for key in ["message", "changed_files", "reverted", "revert_error", "item_id", "run_id"] {
            assert!(json["details"].get(key).is_some(), "{key}");
        }
    }

    /// Of a stop's changed paths, those the agent did not change are named apart, and the
    /// message says so; a stop whose agent changed them all names none (H-47).
    #[test]
    fn an_attributed_violation_names_what_the_agent_did_not_change() {
        let changes =
            TreeDiff { modified: vec!["okrs/a.md".into(), "okrs/b.md".into()], ..TreeDiff::default() };
        let made = RevertAttempt::Made { restored: Ok(()), remaining: Vec::new() };
        let found = Violation::new(&["okrs".into()], changes, made, "bg", "s");
        let both = found.clone().attributed(&["okrs/a.md".into(), "okrs/b.md".into()]);
        assert!(both.details.changed_before_start.is_empty());
        assert_eq!(both.details.message, found.details.message);
        let apart = found.attributed(&["okrs/b.md".into()]);
        assert_eq!(apart.details.changed_before_start, ["okrs/a.md"]);
        assert!(
            apart.details.message.ends_with("put back to the session's start: okrs/a.md"),
            "{}",
            apart.details.message
        );
    }
}
