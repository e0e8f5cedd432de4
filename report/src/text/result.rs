//! What `warden result validate` prints for a human: `VALID` or `INVALID` with the file, then
//! each problem at its JSON pointer. `--json` prints the facade's outcome instead.

use std::io::{Result, Write};
use std::path::Path;

use agentwarden::ResultOutcome;

/// A `result.json`'s verdict in text.
pub fn validation(file: &Path, outcome: &ResultOutcome, out: &mut dyn Write) -> Result<()> {
    let verdict = if outcome.validation.valid { "VALID" } else { "INVALID" };
    writeln!(out, "{verdict}  {}", file.display())?;
    for p in &outcome.validation.problems {
        let at = if p.pointer.is_empty() { "(document)" } else { p.pointer.as_str() };
        writeln!(out, "  {at} ({}): {}", p.code, p.message)?;
    }
    Ok(())
}
