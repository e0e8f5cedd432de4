//! `warden doctor --json`'s report read back, for the tests of doctor: the checks that failed,
//! and one check by name.

#![allow(clippy::expect_used, clippy::panic, reason = "test code: a report that is not one is a failed test")]

use serde_json::Value;

/// The names of the checks that failed, in order.
pub(crate) fn failed(report: &Value) -> Vec<String> {
    let checks = report["checks"].as_array().expect("a report lists its checks");
    checks
        .iter()
        .filter(|c| c["ok"] == false)
        .map(|c| c["check"].as_str().expect("a check is named").to_owned())
        .collect()
}

/// The check `name`; panics, with the report, when there is none.
pub(crate) fn check<'a>(report: &'a Value, name: &str) -> &'a Value {
    let checks = report["checks"].as_array().expect("a report lists its checks");
    checks.iter().find(|c| c["check"] == name).unwrap_or_else(|| panic!("{name}: {report}"))
}
