//! every code Warden emits is a `Code` variant, so it is in `docs/codes.md` (rendered from
//! the variants). What could slip past that is a code built from a string in the sources: a
//! `Code::Other(…)`, or a string literal parsed into a `Code`. The sources are scanned for both
//! (outside tests), so a new code cannot bypass the table.

use std::path::Path;

use agentwarden_tests::sources::{outside_tests, rust_files};

#[test]
fn no_code_is_built_from_a_string_outside_the_table() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for dir in ["domain/src", "ports/src", "adapters/src", "app/src"] {
        files.extend(rust_files(&root.join(dir)));
    }
    let mut scanned = 0;
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy();
        if name.contains("tests") || path.ends_with("code/mod.rs") {
            continue;
        }
        let source = std::fs::read_to_string(&path).unwrap();
        for marker in ["Code::Other(", "Code::parse(\"", "Code::from(\"", "Code::known(\""] {
            assert!(
                !outside_tests(&source).contains(marker),
                "{} builds a code from a string (`{marker}`): add a variant to domain/src/code/table.rs",
                path.display()
            );
        }
        scanned += 1;
    }
    assert!(scanned > 100, "only {scanned} files scanned: the scan is broken");
}

#[test]
fn every_result_code_is_documented() {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/codes.md")).unwrap();
    for code in agentwarden_domain::guardrails::RESULT_CODES
        .iter()
        .chain(&[agentwarden_domain::code::Code::ResultUnreadable])
    {
        assert!(doc.contains(&format!("| `{code}` |")), "`{code}` is not in docs/codes.md");
    }
}
