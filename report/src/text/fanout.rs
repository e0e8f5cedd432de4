//! What `warden fanout plan | run | merge` print (spec 002): the plan (its chunks, or the
//! single-agent reason) with its warnings, and the merged result, in text or as the JSON
//! objects the command line prints with `--json`.

use std::io::{Result, Write};

use agentwarden::fanout_rules::{ChunkOutcome, Merged, Plan};

/// `fanout plan --json`: the phase, the warnings and the plan.
pub fn plan_json(phase: &str, planned: &Plan, warnings: &[String]) -> serde_json::Value {
    serde_json::json!({"phase": phase, "warnings": warnings, "plan": planned})
}

/// `fanout merge --json`: each chunk's outcome and their merge.
pub fn merge_json(outcomes: &[ChunkOutcome], merged: &Merged) -> serde_json::Value {
    serde_json::json!({"chunks": outcomes, "merged": merged})
}

/// The plan in text: the chunks and their sizes, or why a single agent, then the warnings.
pub fn plan(planned: &Plan, warnings: &[String], out: &mut dyn Write) -> Result<()> {
    match planned {
        Plan::SingleAgent { reason } => writeln!(out, "single agent: {reason}")?,
        Plan::FanOut { strategy, chunks } => {
            writeln!(out, "fan-out ({strategy:?}): {} chunk(s)", chunks.len())?;
            for (i, chunk) in chunks.iter().enumerate() {
                writeln!(out, "  chunk {i}: {} item(s)", chunk.len())?;
            }
        }
    }
    for w in warnings {
        writeln!(out, "  warning: {w}")?;
    }
    Ok(())
}

/// The merged result in text: the counts, then each failed test and each failed chunk by name,
/// so "1 failed" is never said without saying which.
pub fn merged(merged: &Merged, out: &mut dyn Write) -> Result<()> {
    let t = &merged.test_results;
    writeln!(out, "{:?}: {} passed, {} failed, {} skipped", merged.status, t.passed, t.failed, t.skipped)?;
    for test in &t.failures {
        writeln!(out, "  failed: {test}")?;
    }
    let unnamed = usize::try_from(t.failed).unwrap_or(usize::MAX).saturating_sub(t.failures.len());
    if unnamed > 0 {
        writeln!(out, "  ({unnamed} failed test(s) not named by their chunk's result)")?;
    }
    for f in &merged.failures {
        writeln!(out, "  chunk {} {:?}: {}", f.chunk_index, f.status, f.error)?;
    }
    Ok(())
}
