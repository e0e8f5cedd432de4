//! The violation record, in the spec's format (spec 004), and its audit payload.

use serde::{Deserialize, Serialize};

use super::manifest::TreeDiff;

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
}

/// The violation type for a protected path: its last component, non-alphanumerics as `_`, then
/// `_direct_edit` (`okrs/` → `okrs_direct_edit`, `docs/policy` → `policy_direct_edit`).
pub fn violation_type(protected: &str) -> String {
    let last = protected.trim_end_matches('/').rsplit('/').next().unwrap_or(protected);
    let name: String =
        last.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' }).collect();
    format!("{}_direct_edit", if name.is_empty() { "protected" } else { &name })
}

#[cfg(test)]
mod tests {
    use super::*;

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
            },
        };
        let json = serde_json::to_value(&v).unwrap();
        assert_eq!(json["violation_type"], "okrs_direct_edit");
        for key in ["message", "changed_files", "reverted", "revert_error", "item_id", "run_id"] {
            assert!(json["details"].get(key).is_some(), "{key}");
        }
    }
}
