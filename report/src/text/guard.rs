//! What `warden guard snapshot | run | check` print for a human: the manifest's size, the
//! guarded run's verdict (the command's exit, the guard's, the result's and its problems), and a
//! check's `VIOLATION` (what changed, whether it was reverted) or `CLEAN`. `--json` prints the
//! facade's outcomes, and the snapshot's [`snapshot_json`] summary.

use std::io::{Result, Write};
use std::path::Path;

use agentwarden::guardrails::TreeManifest;
use agentwarden::{GuardOutcome, GuardedRun};

/// `guard snapshot --json`: where the manifest went, what it protects and how many entries.
pub fn snapshot_json(file: &Path, manifest: &TreeManifest) -> serde_json::Value {
    serde_json::json!({
        "out": file.display().to_string(),
        "protected": manifest.protected,
        "entries": manifest.entries.len(),
    })
}

/// `guard snapshot` in text: the entries and the protected paths.
pub fn snapshot(manifest: &TreeManifest, out: &mut dyn Write) -> Result<()> {
    writeln!(out, "{} entries under {}", manifest.entries.len(), manifest.protected.join(", "))
}

/// `guard run` in text: `OK` or `FAILED` with the command's end, the guard's verdict, and the
/// result's with each problem.
pub fn run(guarded: &GuardedRun, out: &mut dyn Write) -> Result<()> {
    let (failed, exit, guard, validation) =
        (guarded.item_failed, &guarded.command, &guarded.guard, &guarded.result);
    let command_text = match exit {
        Ok(Some(code)) => format!("exit {code}"),
        Ok(None) => "killed by a signal".to_owned(),
        Err(e) => e.to_string(),
    };
    writeln!(out, "{}  command: {command_text}", if failed { "FAILED" } else { "OK" })?;
    match &guard.violation {
        Some(v) => writeln!(
            out,
            "  guard: {} {} (reverted: {})",
            v.violation_type,
            v.details.changed_files.join(", "),
            v.details.reverted
        )?,
        None => writeln!(out, "  guard: clean")?,
    }
    if let Some(v) = &validation {
        writeln!(out, "  result: {}", if v.validation.valid { "valid" } else { "invalid" })?;
        for p in &v.validation.problems {
            writeln!(out, "    {} ({}): {}", p.pointer, p.code, p.message)?;
        }
    }
    Ok(())
}

/// `guard check` in text: the violation and whether it was reverted, or that nothing changed.
pub fn check(outcome: &GuardOutcome, out: &mut dyn Write) -> Result<()> {
    if let Some(v) = &outcome.violation {
        writeln!(out, "VIOLATION  {}: {}", v.violation_type, v.details.changed_files.join(", "))?;
        let d = &v.details;
        writeln!(
            out,
            "  reverted: {}{}",
            d.reverted,
            if d.revert_error.is_empty() { String::new() } else { format!(" ({})", d.revert_error) }
        )
    } else {
        writeln!(out, "CLEAN  no protected path changed")
    }
}
