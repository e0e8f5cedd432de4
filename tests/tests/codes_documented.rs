//! every code the gate can emit is listed in `docs/codes.md`. The codes are found in the
//! sources (`fail("…"`, `invalid("…"`, `Cow::Borrowed("…")`), so a new code cannot slip through.

use std::path::Path;

fn codes_in(source: &str) -> Vec<String> {
    let mut codes = Vec::new();
    for marker in [
        "fail(",
        "Borrowed(",
        "audit_failed(",
        "invalid(",
        "code: Some(",
        "problem(pointer,",
        "problem(at,",
        "problem(\"\",",
    ] {
        for (at, _) in source.match_indices(marker) {
            let Some(rest) = source[at + marker.len()..].trim_start().strip_prefix('"') else { continue };
            if let Some(end) = rest.find('"') {
                let code = &rest[..end];
                if !code.is_empty()
                    && code.bytes().all(|b| b.is_ascii_lowercase() || b == b'_' || b.is_ascii_digit())
                {
                    codes.push(code.to_owned());
                }
            }
        }
    }
    codes
}

#[test]
fn every_gate_code_is_documented() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let doc = std::fs::read_to_string(root.join("docs/codes.md")).unwrap();
    let mut checked = std::collections::BTreeSet::new();
    for dir in ["domain/src/governance", "domain/src/lineage", "domain/src/guardrails", "app/src"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "rs") {
                let source = std::fs::read_to_string(&path).unwrap();
                for code in codes_in(&source) {
                    assert!(
                        doc.contains(&format!("`{code}`")),
                        "`{code}` ({}) is not in docs/codes.md",
                        path.display()
                    );
                    checked.insert(code);
                }
            }
        }
    }
    assert!(checked.len() > 30, "only {} codes found: the scan is broken", checked.len());
}

#[test]
fn every_result_code_is_documented() {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/codes.md")).unwrap();
    for code in agentwarden_domain::guardrails::RESULT_CODES.iter().chain(&["result_unreadable"]) {
        assert!(doc.contains(&format!("`{code}`")), "`{code}` is not in docs/codes.md");
    }
}
