//! Chunk results (§5.3, F-7), the merger (§4.2, F-8), and error truncation (F-9).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Error text is cut to this many characters wherever it enters a report or an event (F-9).
pub const MAX_ERROR_CHARS: usize = 500;

/// `text` cut to 500 characters, on a character boundary (F-9).
pub fn truncate(text: &str) -> String {
    match text.char_indices().nth(MAX_ERROR_CHARS) {
        Some((at, _)) => text.get(..at).unwrap_or(text).to_owned(),
        None => text.to_owned(),
    }
}

/// How a chunk ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChunkStatus {
    /// It says it completed.
    Completed,
    /// It failed, or said something other than `completed`.
    Failed,
    /// It ran past its timeout and was killed.
    TimedOut,
    /// Its result was missing or not a result.
    Invalid,
}

/// Test counts.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestResults {
    /// Passed.
    pub passed: u64,
    /// Failed.
    pub failed: u64,
    /// Skipped.
    pub skipped: u64,
    /// The failures' names, each truncated.
    pub failures: Vec<String>,
}

/// Coverage counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Coverage {
    /// Covered units.
    pub covered: u64,
    /// All units.
    pub total: u64,
}

/// One chunk's validated result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChunkOutcome {
    /// The chunk's index as the orchestrator assigned it (never the chunk's own claim).
    pub chunk_index: usize,
    /// How it ended.
    pub status: ChunkStatus,
    /// Its duration, or -1 when unknown.
    pub elapsed_ms: i64,
    /// Its test counts, when it reported them.
    pub test_results: Option<TestResults>,
    /// Its coverage, when it reported it.
    pub coverage: Option<Coverage>,
    /// Its error, truncated.
    pub error: Option<String>,
    /// What validation changed.
    pub warnings: Vec<String>,
}

impl ChunkOutcome {
    /// A chunk that produced no result at all (timed out, or not a result).
    pub fn without_result(chunk_index: usize, status: ChunkStatus, error: &str) -> ChunkOutcome {
        ChunkOutcome {
            chunk_index,
            status,
            elapsed_ms: -1,
            test_results: None,
            coverage: None,
            error: Some(truncate(error)),
            warnings: Vec::new(),
        }
    }
}

fn count(value: Option<&Value>) -> Option<u64> {
    value.and_then(Value::as_u64)
}

/// Validates a chunk's result JSON (§5.3, F-7). `None` is a missing result: invalid.
pub fn validate_chunk_result(expected_index: usize, result: Option<&Value>) -> ChunkOutcome {
    let Some(Value::Object(fields)) = result else {
        return ChunkOutcome::without_result(
            expected_index,
            ChunkStatus::Invalid,
            "the chunk returned no result object",
        );
    };
    let mut warnings = Vec::new();
    if fields.get("chunk_index").and_then(Value::as_u64) != Some(expected_index as u64) {
        warnings.push(format!(
            "chunk_index {} does not match {expected_index}: using {expected_index}",
            fields.get("chunk_index").unwrap_or(&Value::Null)
        ));
    }
    let status = match fields.get("status").and_then(Value::as_str) {
        Some("completed") => ChunkStatus::Completed,
        Some("failed") => ChunkStatus::Failed,
        other => {
            warnings.push(format!("status {other:?} is not completed or failed: treated as failed"));
            ChunkStatus::Failed
        }
    };
    let elapsed_ms = match fields.get("elapsed_ms").and_then(Value::as_i64) {
        Some(ms) if ms >= 0 => ms,
        _ => {
            warnings.push("elapsed_ms is not a number: -1 (unknown)".to_owned());
            -1
        }
    };
    let test_results = match fields.get("test_results") {
        Some(Value::Object(t)) => {
            match (count(t.get("passed")), count(t.get("failed")), count(t.get("skipped"))) {
                (Some(passed), Some(failed), Some(skipped)) => Some(TestResults {
                    passed,
                    failed,
                    skipped,
                    failures: t
                        .get("failures")
                        .and_then(Value::as_array)
                        .map(|f| f.iter().filter_map(Value::as_str).map(truncate).collect())
                        .unwrap_or_default(),
                }),
                _ => {
                    warnings.push("test_results lacks non-negative integer counts: ignored".to_owned());
                    None
                }
            }
        }
        _ => None,
    };
    if test_results.is_none() && status == ChunkStatus::Completed {
        warnings.push("completed without test_results: degraded".to_owned());
    }
    let coverage = match fields.get("coverage") {
        Some(Value::Object(c)) => match (count(c.get("covered")), count(c.get("total"))) {
            (Some(covered), Some(total)) if covered <= total => Some(Coverage { covered, total }),
            _ => {
                warnings.push("coverage is not {covered <= total}: ignored".to_owned());
                None
            }
        },
        _ => None,
    };
    let error = fields.get("error").and_then(Value::as_str).map(truncate);
    ChunkOutcome { chunk_index: expected_index, status, elapsed_ms, test_results, coverage, error, warnings }
}

/// The merged outcome (F-8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MergeStatus {
    /// Every chunk completed with results.
    Completed,
    /// At least one completed with results, and some did not.
    Degraded,
    /// None completed with results.
    Failed,
}

/// A chunk that did not complete with results.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChunkFailure {
    /// Which chunk.
    pub chunk_index: usize,
    /// How it ended.
    pub status: ChunkStatus,
    /// Why, truncated.
    pub error: String,
}

/// The fan-in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Merged {
    /// Completed, degraded or failed.
    pub status: MergeStatus,
    /// Summed over the chunks that completed with results.
    pub test_results: TestResults,
    /// Summed over the completed chunks that report it; `None` when none does (F-20).
    pub coverage: Option<Coverage>,
    /// True when a completed chunk lacks coverage: the sum leaves it out (F-20).
    pub coverage_partial: bool,
    /// Every chunk that did not complete with results.
    pub failures: Vec<ChunkFailure>,
}

/// What the chunks merged so far add up to; every sum is checked (F-20).
#[derive(Default)]
struct Sums {
    tests: TestResults,
    coverage: Option<Coverage>,
}

impl Sums {
    /// Adds one chunk's `tests` and `coverage`; false, with nothing added, when a count would
    /// overflow.
    fn add(&mut self, tests: &TestResults, coverage: Option<Coverage>) -> bool {
        let checked = || {
            let coverage = match (self.coverage, coverage) {
                (Some(sum), Some(c)) => Some(Coverage {
                    covered: sum.covered.checked_add(c.covered)?,
                    total: sum.total.checked_add(c.total)?,
                }),
                (sum, c) => sum.or(c),
            };
            let passed = self.tests.passed.checked_add(tests.passed)?;
            let failed = self.tests.failed.checked_add(tests.failed)?;
            let skipped = self.tests.skipped.checked_add(tests.skipped)?;
            Some((passed, failed, skipped, coverage))
        };
        let Some((passed, failed, skipped, coverage)) = checked() else {
            return false;
        };
        self.tests.passed = passed;
        self.tests.failed = failed;
        self.tests.skipped = skipped;
        self.tests.failures.extend(tests.failures.iter().cloned());
        self.coverage = coverage;
        true
    }
}

/// Merges chunk outcomes (F-8). Coverage is summed over the completed chunks that report it and
/// is partial when a completed chunk does not: §4.2 excludes that chunk from the sum, it does not
/// drop the sum. No chunk reporting coverage gives none rather than a 0 of 0 that would read as a
/// measurement. A chunk whose counts would overflow the sums is a result the merger cannot use:
/// it is listed as `invalid` and nothing of it is added (F-20).
pub fn merge(outcomes: &[ChunkOutcome]) -> Merged {
    let mut sums = Sums::default();
    let mut partial = false;
    let mut failures = Vec::new();
    let mut completed = 0usize;
    for o in outcomes {
        let failure = |status, error: String| ChunkFailure { chunk_index: o.chunk_index, status, error };
        match (o.status, &o.test_results) {
            (ChunkStatus::Completed, Some(t)) => {
                if sums.add(t, o.coverage) {
                    completed += 1;
                    partial |= o.coverage.is_none();
                } else {
                    failures.push(failure(
                        ChunkStatus::Invalid,
                        "its counts overflow the merged sums: not merged".to_owned(),
                    ));
                }
            }
            (status, _) => failures.push(failure(
                if status == ChunkStatus::Completed { ChunkStatus::Invalid } else { status },
                o.error.clone().unwrap_or_else(|| "no results".to_owned()),
            )),
        }
    }
    let status = match (completed, failures.is_empty()) {
        (0, _) => MergeStatus::Failed,
        (_, true) => MergeStatus::Completed,
        (_, false) => MergeStatus::Degraded,
    };
    Merged { status, test_results: sums.tests, coverage: sums.coverage, coverage_partial: partial, failures }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ok(index: usize, passed: u64, coverage: Option<(u64, u64)>) -> Value {
        let mut v = json!({"chunk_index": index, "status": "completed", "elapsed_ms": 10,
            "test_results": {"passed": passed, "failed": 0, "skipped": 1}});
        if let Some((covered, total)) = coverage {
            v["coverage"] = json!({"covered": covered, "total": total});
        }
        v
    }

    #[test]
    fn bad_times_and_coverage_are_dropped_and_skips_add_up() {
        let negative =
            validate_chunk_result(0, Some(&json!({"chunk_index": 0, "status": "failed", "elapsed_ms": -5})));
        assert_eq!(negative.elapsed_ms, -1, "a negative time is unknown, not kept");
        assert_eq!(ChunkOutcome::without_result(2, ChunkStatus::TimedOut, "late").elapsed_ms, -1);
        let mut over = ok(0, 1, Some((5, 3)));
        let outcome = validate_chunk_result(0, Some(&over));
        assert_eq!(outcome.coverage, None, "covered > total is ignored");
        assert!(outcome.warnings.iter().any(|w| w.contains("coverage")), "{:?}", outcome.warnings);
        over["coverage"] = json!({"covered": 3, "total": 3});
        assert_eq!(validate_chunk_result(0, Some(&over)).coverage, Some(Coverage { covered: 3, total: 3 }));
        let outcomes: Vec<ChunkOutcome> = (0..3)
            .map(|i| {
                let mut result = ok(i, 2, None);
                result["test_results"]["failed"] = json!(i);
                validate_chunk_result(i, Some(&result))
            })
            .collect();
        let merged = merge(&outcomes);
        let t = &merged.test_results;
        assert_eq!((t.passed, t.failed, t.skipped), (6, 3, 3));
    }

    #[test]
    fn the_5_3_table() {
        assert_eq!(validate_chunk_result(0, None).status, ChunkStatus::Invalid);
        assert_eq!(validate_chunk_result(0, Some(&json!("x"))).status, ChunkStatus::Invalid);
        let wrong_index = validate_chunk_result(3, Some(&ok(7, 1, None)));
        assert_eq!(wrong_index.chunk_index, 3);
        assert_eq!(wrong_index.warnings.len(), 1);
        let odd_status =
            validate_chunk_result(0, Some(&json!({"chunk_index": 0, "status": "done", "elapsed_ms": 1})));
        assert_eq!(odd_status.status, ChunkStatus::Failed);
        let no_results = validate_chunk_result(
            0,
            Some(&json!({"chunk_index": 0, "status": "completed", "elapsed_ms": 1})),
        );
        assert!(no_results.warnings.iter().any(|w| w.contains("degraded")));
        let no_elapsed =
            validate_chunk_result(0, Some(&json!({"chunk_index": 0, "status": "failed", "elapsed_ms": "1"})));
        assert_eq!(no_elapsed.elapsed_ms, -1);
    }

    #[test]
    fn f8_completed_degraded_failed_and_partial_coverage() {
        let all = [ok(0, 2, Some((5, 10))), ok(1, 3, Some((1, 10)))];
        let outcomes: Vec<_> =
            all.iter().enumerate().map(|(i, v)| validate_chunk_result(i, Some(v))).collect();
        let m = merge(&outcomes);
        assert_eq!(m.status, MergeStatus::Completed);
        assert_eq!((m.test_results.passed, m.test_results.skipped), (5, 2));
        assert_eq!(m.coverage, Some(Coverage { covered: 6, total: 20 }));

        let mut degraded = outcomes.clone();
        degraded.push(ChunkOutcome::without_result(2, ChunkStatus::TimedOut, "killed after 100 ms"));
        degraded.push(validate_chunk_result(
            3,
            Some(&json!({"chunk_index": 3, "status": "completed", "elapsed_ms": 1})),
        ));
        let m = merge(&degraded);
        assert_eq!(m.status, MergeStatus::Degraded);
        let statuses: Vec<_> = m.failures.iter().map(|f| (f.chunk_index, f.status)).collect();
        assert_eq!(statuses, [(2, ChunkStatus::TimedOut), (3, ChunkStatus::Invalid)]);

        let failed = [ChunkOutcome::without_result(0, ChunkStatus::Invalid, "garbage")];
        assert_eq!(merge(&failed).status, MergeStatus::Failed);

        let partial = [
            validate_chunk_result(0, Some(&ok(0, 1, Some((1, 2))))),
            validate_chunk_result(1, Some(&ok(1, 1, None))),
        ];
        let m = merge(&partial);
        assert!(m.coverage_partial);
        assert_eq!(
            m.coverage,
            Some(Coverage { covered: 1, total: 2 }),
            "the chunk without coverage is left out"
        );
    }

    #[test]
    fn f20_a_chunk_without_coverage_is_left_out_of_the_sum_not_the_sum_dropped() {
        // (the chunks' coverage, the merged coverage, partial, why)
        type Row = (&'static [Option<(u64, u64)>], Option<(u64, u64)>, bool, &'static str);
        let table: [Row; 6] = [
            (&[Some((5, 10)), Some((1, 10)), None], Some((6, 20)), true, "the issue's three chunks (§4.2)"),
            (&[None, Some((5, 10)), None], Some((5, 10)), true, "one chunk reporting is still a sum"),
            (&[Some((5, 10)), Some((1, 10))], Some((6, 20)), false, "every chunk reports: not partial"),
            (&[None, None], None, true, "no chunk reports: no coverage, not a 0 of 0"),
            (&[Some((0, 0))], Some((0, 0)), false, "a reported 0 of 0 is a measurement"),
            (&[], None, false, "no chunk at all: nothing to be partial about"),
        ];
        for (chunks, coverage, partial, why) in table {
            let outcomes: Vec<_> = chunks
                .iter()
                .enumerate()
                .map(|(i, c)| validate_chunk_result(i, Some(&ok(i, 1, *c))))
                .collect();
            let m = merge(&outcomes);
            assert_eq!(m.coverage, coverage.map(|(covered, total)| Coverage { covered, total }), "{why}");
            assert_eq!(m.coverage_partial, partial, "{why}");
        }
    }

    #[test]
    fn f20_malformed_coverage_counts_as_missing_and_failed_chunks_do_not_count() {
        for bad in [
            json!({"covered": 5, "total": 3}),
            json!({"covered": -1, "total": 3}),
            json!({"covered": 1.5, "total": 3}),
            json!({"covered": "1", "total": 3}),
            json!([1, 3]),
        ] {
            let mut result = ok(1, 1, None);
            result["coverage"] = bad.clone();
            let outcomes = [
                validate_chunk_result(0, Some(&ok(0, 1, Some((2, 4))))),
                validate_chunk_result(1, Some(&result)),
            ];
            let m = merge(&outcomes);
            assert_eq!(m.status, MergeStatus::Completed, "{bad}: the chunk's tests still count");
            assert_eq!(
                (m.coverage, m.coverage_partial),
                (Some(Coverage { covered: 2, total: 4 }), true),
                "{bad}"
            );
        }
        let mut failed = ok(1, 1, Some((9, 9)));
        failed["status"] = json!("failed");
        let m = merge(&[
            validate_chunk_result(0, Some(&ok(0, 1, Some((1, 2))))),
            validate_chunk_result(1, Some(&failed)),
        ]);
        assert_eq!((m.coverage, m.coverage_partial), (Some(Coverage { covered: 1, total: 2 }), false));
    }

    #[test]
    fn f20_a_chunk_whose_counts_overflow_the_sums_is_invalid_and_nothing_of_it_is_added() {
        let max = u64::MAX;
        let first = validate_chunk_result(0, Some(&ok(0, 1, Some((max - 1, max)))));
        let coverage_over = validate_chunk_result(1, Some(&ok(1, 1, Some((1, 1)))));
        let tests_over = validate_chunk_result(2, Some(&ok(2, max, Some((0, 0)))));
        let last = validate_chunk_result(3, Some(&ok(3, 2, None)));
        let m = merge(&[first, coverage_over, tests_over, last]);
        assert_eq!(m.status, MergeStatus::Degraded);
        let failed: Vec<_> = m.failures.iter().map(|f| (f.chunk_index, f.status)).collect();
        assert_eq!(failed, [(1, ChunkStatus::Invalid), (2, ChunkStatus::Invalid)]);
        assert!(m.failures.iter().all(|f| f.error.contains("overflow")), "{:?}", m.failures);
        assert_eq!((m.test_results.passed, m.test_results.skipped), (3, 2), "chunks 0 and 3 only");
        assert_eq!((m.coverage, m.coverage_partial), (Some(Coverage { covered: max - 1, total: max }), true));
    }

    fn outcome_strategy() -> impl proptest::strategy::Strategy<Value = ChunkOutcome> {
        use proptest::prelude::*;
        let status = prop_oneof![
            Just(ChunkStatus::Completed),
            Just(ChunkStatus::Failed),
            Just(ChunkStatus::TimedOut),
            Just(ChunkStatus::Invalid)
        ];
        let tests = proptest::option::weighted(
            0.9,
            (0..1000u64).prop_map(|passed| TestResults { passed, ..TestResults::default() }),
        );
        let coverage = proptest::option::of(
            (0..u64::from(u32::MAX), 0..u64::from(u32::MAX))
                .prop_map(|(a, b)| Coverage { covered: a.min(b), total: a.max(b) }),
        );
        (status, tests, coverage).prop_map(|(status, test_results, coverage)| ChunkOutcome {
            chunk_index: 0,
            status,
            elapsed_ms: 1,
            test_results,
            coverage,
            error: None,
            warnings: Vec::new(),
        })
    }

    proptest::proptest! {
        /// The merged coverage is the sum over the completed chunks that report one (none when
        /// none does), and partial exactly when a completed chunk reports none (F-20).
        #[test]
        fn f20_coverage_is_the_sum_over_the_reporting_chunks(outcomes in proptest::collection::vec(outcome_strategy(), 0..12)) {
            let merged = merge(&outcomes);
            let completed: Vec<_> = outcomes.iter().filter(|o| o.status == ChunkStatus::Completed && o.test_results.is_some()).collect();
            let reported: Vec<Coverage> = completed.iter().filter_map(|o| o.coverage).collect();
            let sum = (!reported.is_empty()).then(|| Coverage {
                covered: reported.iter().map(|c| c.covered).sum(),
                total: reported.iter().map(|c| c.total).sum(),
            });
            proptest::prop_assert_eq!(merged.coverage, sum);
            proptest::prop_assert_eq!(merged.coverage_partial, completed.iter().any(|o| o.coverage.is_none()));
        }
    }

    #[test]
    fn f9_truncation_is_on_a_character_boundary() {
        assert_eq!(truncate(&"é".repeat(600)).chars().count(), 500);
        assert_eq!(truncate("short"), "short");
        let long = ChunkOutcome::without_result(0, ChunkStatus::Failed, &"x".repeat(10_000));
        assert_eq!(long.error.map(|e| e.len()), Some(500));
    }
}
