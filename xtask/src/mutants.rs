//! `cargo xtask mutants [app] [ARGS…]`: mutation testing with cargo-mutants (installed when
//! missing) of the `domain` crate, or with `app` of the application's decision paths (the gate,
//! lineage, guardrail, hook, recorded-approval and fan-out use cases, against the app's unit
//! and CLI tests); then the score:
//! caught ÷ (caught + missed + timed out), which must be at least 90 %. Unviable mutants (ones
//! that do not build) do not count either way.
//!
//! ARGS go to cargo-mutants as they are: `--shard 0/4`, `-j 2`, `--file domain/src/json.rs`,
//! `--iterate`. Settings shared with a plain `cargo mutants` are in `.cargo/mutants.toml`.
//! Property tests run 64 cases instead of 256 here (`PROPTEST_CASES`): a mutant needs one
//! failing case, and a thousand runs of the suite must fit in an hour on two cores. Not part
//! of `ci`: a full run takes about that hour.

use std::process::Command;

/// The least acceptable share of viable mutants caught.
const MIN_SCORE: f64 = 0.90;

/// The app's decision paths. The CLI tests they need read git state, so the copy keeps `.git`.
const APP: &[&str] = &[
    "-p",
    "agentwarden",
    // The CLI tests that exercise these paths live in `agentwarden-cli`.
    "--test-workspace=true",
    "--file",
    "app/src/gate.rs",
    "--file",
    "app/src/lineage.rs",
    "--file",
    "app/src/guard.rs",
    "--file",
    "app/src/hook.rs",
    "--file",
    "app/src/records.rs",
    "--file",
    "app/src/fanout.rs",
    "--copy-vcs",
    "true",
];

/// The number after the last `"key":` in `json` (the totals follow the per-mutant list in
/// cargo-mutants' `outcomes.json`).
fn total(json: &str, key: &str) -> Option<u64> {
    let needle = format!("\"{key}\":");
    let at = json.rfind(&needle)? + needle.len();
    let digits: String = json.get(at..)?.trim_start().chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// caught ÷ (caught + missed + timeout), with the counts, from `outcomes.json`.
fn score(json: &str) -> Result<(f64, [u64; 4]), String> {
    let get = |key| total(json, key).ok_or_else(|| format!("outcomes.json has no `{key}` total"));
    let counts = [get("caught")?, get("missed")?, get("timeout")?, get("unviable")?];
    let [caught, missed, timeout, _] = counts;
    let viable = caught + missed + timeout;
    if viable == 0 {
        return Err("no viable mutant was tested".into());
    }
    Ok((caught as f64 / viable as f64, counts))
}

pub(crate) fn run(args: &[String]) -> Result<(), String> {
    crate::ensure_cargo_tool("mutants", "cargo-mutants")?;
    let root = crate::root();
    let (scope, args): (&[&str], &[String]) = match args.split_first() {
        Some((first, rest)) if first == "app" => (APP, rest),
        _ => (&["-p", "agentwarden-domain"], args),
    };
    println!("==> cargo mutants {} {}", scope.join(" "), args.join(" "));
    // cargo-mutants exits non-zero whenever a mutant is missed; the score decides here.
    Command::new(crate::cargo())
        .current_dir(&root)
        .arg("mutants")
        .args(scope)
        .args(args)
        .env("PROPTEST_CASES", "64")
        .status()
        .map_err(|e| format!("cannot run cargo mutants: {e}"))?;
    let outcomes = root.join("mutants.out").join("outcomes.json");
    let json = std::fs::read_to_string(&outcomes).map_err(|e| format!("{}: {e}", outcomes.display()))?;
    let (score, [caught, missed, timeout, unviable]) = score(&json)?;
    println!(
        "mutants: {caught} caught, {missed} missed, {timeout} timed out, {unviable} unviable: score {:.1} %",
        score * 100.0
    );
    if score < MIN_SCORE {
        return Err(format!(
            "mutation score {:.1} % is below {:.0} %: see mutants.out/missed.txt",
            score * 100.0,
            MIN_SCORE * 100.0
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_score_counts_timeouts_as_survivors_and_ignores_unviable_mutants() {
        let json = r#"{"outcomes":[{"summary":"CaughtMutant"}],"total_mutants":20,"missed":1,"caught":16,"timeout":1,"unviable":2}"#;
        let (share, counts) = score(json).unwrap();
        assert_eq!(counts, [16, 1, 1, 2]);
        assert!((share - 16.0 / 18.0).abs() < 1e-9);
        assert!(score(r#"{"caught":0,"missed":0,"timeout":0,"unviable":3}"#).is_err());
        assert!(score(r#"{"caught":1}"#).is_err());
    }
}
