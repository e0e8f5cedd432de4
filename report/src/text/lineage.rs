//! What `warden lineage check` and `warden authorize` print for a human: the decision first
//! (`ALLOW`, or `DENY` with the code and the failing pair or layer), then, for a tool call,
//! every layer's verdict, and where the answer was recorded. `--json` prints the facade's
//! outcomes instead.

use std::io::{Result, Write};

use agentwarden::verdict::Decision;
use agentwarden::{AuthorizationOutcome, LineageOutcome};

/// A lineage check's outcome in text.
pub fn check(outcome: &LineageOutcome, out: &mut dyn Write) -> Result<()> {
    let verdict = &outcome.result.verdict;
    match (outcome.decision, verdict.code()) {
        (Decision::Allow, _) => writeln!(out, "ALLOW  lineage: {}", verdict.reason())?,
        (Decision::Deny, code) => {
            writeln!(out, "DENY  lineage ({}): {}", code.map_or("?", |c| c.as_str()), verdict.reason())?;
            if let Some(pair) = &outcome.result.pair {
                writeln!(out, "  failing pair: positions {} -> {}", pair.parent, pair.child)?;
            }
        }
    }
    if let Some(head) = &outcome.audit {
        writeln!(out, "  audit: seq {} hash {}", head.seq, head.hash)?;
    }
    Ok(())
}

/// A tool call's authorization in text: the first failing layer or that all passed, then each
/// layer's verdict.
pub fn authorize(outcome: &AuthorizationOutcome, out: &mut dyn Write) -> Result<()> {
    match &outcome.authorization.first_failure {
        Some(f) => writeln!(out, "DENY  layer {} {:?} ({}): {}", f.layer, f.name, f.code, f.reason)?,
        None => writeln!(out, "ALLOW  all {} layers passed", outcome.authorization.layers.len())?,
    }
    for layer in &outcome.authorization.layers {
        let verdict = if layer.verdict.passed() { "pass" } else { "FAIL" };
        writeln!(out, "  {} {:?}: {verdict}: {}", layer.layer, layer.name, layer.verdict.reason())?;
    }
    if let Some(head) = &outcome.audit {
        writeln!(out, "  audit: seq {} hash {}", head.seq, head.hash)?;
    }
    Ok(())
}
