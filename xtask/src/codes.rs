//! `cargo xtask codes`: writes `docs/codes.md` from the reason codes' table
//! (`domain/src/code/table.rs`). The rendering is the domain's; this runs the test that checks
//! the file, asking it to write the file instead (xtask stays free of dependencies).

use std::process::Command;

/// The variable that makes `app/tests/codes.rs` write `docs/codes.md` instead of checking it.
const WRITE: &str = "AGENTWARDEN_WRITE_CODES";

pub(crate) fn run() -> Result<(), String> {
    println!("==> docs/codes.md from the Code enum");
    let status = Command::new(crate::cargo())
        .current_dir(crate::root())
        .env(WRITE, "1")
        .args([
            "test",
            "-p",
            "agentwarden",
            "--test",
            "codes",
            "--",
            "docs_codes_md_is_rendered_from_the_code_enum",
        ])
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if status.success() { Ok(()) } else { Err(format!("writing docs/codes.md failed ({status})")) }
}
