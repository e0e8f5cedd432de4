//! Issue 48: the generated differential. Rules and calls are drawn from grammars
//! (`agentwarden_tests::differential`), played in batches through the pinned client and through
//! Warden's matcher; Warden never allows what the client rejects (T-15, T-28). `cargo xtask ci`
//! runs a bounded batch with fixed seeds; `cargo xtask differential --cases N [--seed S]`
//! runs as many as asked through the same test, by these variables:
//! `AGENTWARDEN_DIFFERENTIAL_CASES` (calls; default 120), `AGENTWARDEN_DIFFERENTIAL_SEED`
//! (default 48), `AGENTWARDEN_DIFFERENTIAL_CLASSES` (`all`, or names separated by `,`; default
//! every class not pending, T-29). Every line printed names the seed, batch and call that
//! draw its case again. The fixed rows (`differential::fixed`) of the classes run are played too.

use agentwarden_tests::differential::fixed::fixed_batches;
use agentwarden_tests::differential::generate::batch;
use agentwarden_tests::differential::run::run_batches;
use agentwarden_tests::differential::{Verdict, classes};

use super::*;

/// Calls per batch (one client run each).
const CALLS_PER_BATCH: usize = 10;

fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// Issue 48: over generated rules and calls, Warden never allows a call the pinned client
/// rejects; the counts by class and verdict are printed, undecided calls among them.
#[test]
#[ignore = "real Claude Code: run by `cargo xtask claude-code` and `cargo xtask differential`"]
fn warden_never_allows_what_the_client_rejects_on_generated_cases() {
    let cases: usize =
        var("AGENTWARDEN_DIFFERENTIAL_CASES").map_or(120, |v| v.parse().expect("a number of cases"));
    let seed: u64 = var("AGENTWARDEN_DIFFERENTIAL_SEED").map_or(48, |v| v.parse().expect("a seed"));
    let classes =
        classes(var("AGENTWARDEN_DIFFERENTIAL_CLASSES").as_deref()).unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<&str> = classes.iter().map(|c| c.name()).collect();
    println!("differential: {cases} cases, seed {seed}, classes {}", names.join(","));
    let batches: Vec<_> = (0..cases.div_ceil(CALLS_PER_BATCH) as u64)
        .map(|i| {
            let left = cases - (i as usize * CALLS_PER_BATCH);
            batch(seed, i, left.min(CALLS_PER_BATCH), &classes)
        })
        .chain(fixed_batches(&classes))
        .collect();
    let report = run_batches(&tools(), &batches);
    println!("\n{}", report.tally.table());
    for trouble in &report.troubles {
        println!("trouble: {trouble}");
    }
    let wrong = report.more_permissive();
    for case in &wrong {
        println!("MORE PERMISSIVE: {}", case.line());
    }
    let fixed: usize = batches.iter().filter(|b| b.seed == 0).map(|b| b.calls.len()).sum();
    assert_eq!(report.cases.len(), cases + fixed, "every case was played");
    assert!(
        wrong.is_empty(),
        "{} more-permissive cases (seed {seed}): draw one again with `cargo xtask differential --seed {seed} --cases N`",
        report.tally.total(Verdict::MorePermissive)
    );
    assert!(report.troubles.is_empty(), "client runs went wrong: {:?}", report.troubles);
}
