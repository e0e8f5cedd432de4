//! Every code Warden emits is a `Code` variant, so it is in `docs/codes.md` (rendered from
//! the variants). What could slip past that is a code built from a string in the sources: a
//! `Code::Other(…)`, or a string literal parsed into a `Code`. The sources are scanned for both
//! (outside tests), so a new code cannot bypass the table. X-73: nor may the command line or the
//! hook client (nor what moved out of the command line: the report, the witness, the doctor's
//! findings, each harness's setup) splice a code into a reason's text; X-75: every code the
//! protocol and the server name is one of the protocol's codes, each a row of the server's table
//!

use std::path::Path;

use agentwarden_tests::sources::{outside_tests, rust_files};

/// The edge's sources: the command line and the hook client, and what moved out of the command
/// line (issue 49): its report, its witness, what its doctor reports in, each harness's setup.
const EDGE: [&str; 8] = [
    "cli/src",
    "hook-client/src",
    "report/src",
    "witness/src",
    "doctor/src",
    "harness/claude-code/src/setup",
    "harness/codex/src/setup",
    "harness/gemini/src/setup",
];

#[test]
fn no_code_is_built_from_a_string_outside_the_table() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for dir in ["domain/src", "ports/src", "adapters/src", "app/src", "protocol/src", "server/src"]
        .iter()
        .chain(&EDGE)
    {
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

/// The sources of `dirs` (under the workspace's root), outside their tests, by path.
fn sources(dirs: &[&str]) -> Vec<(std::path::PathBuf, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut found = Vec::new();
    for dir in dirs {
        for path in rust_files(&root.join(dir)) {
            let name = path.file_name().unwrap().to_string_lossy();
            if name.contains("tests") {
                continue;
            }
            let source = std::fs::read_to_string(&path).unwrap();
            found.push((path, outside_tests(&source).to_owned()));
        }
    }
    assert!(found.len() > 5, "only {} files under {dirs:?}: the scan is broken", found.len());
    found
}

/// No failure of the command line or of the hook client carries its code as text spliced
/// into its reason (`"config_invalid: …"`): the code is a typed `Code` beside the reason
/// (`Failure`, `ClientError`), rendered `CODE: reason` in one place.
#[test]
fn no_code_is_spliced_into_a_reason() {
    use agentwarden_domain::code::Code;
    let mut spliced = Vec::new();
    for (path, source) in sources(&EDGE) {
        for code in Code::ALL {
            if source.contains(&format!("\"{code}: ")) {
                spliced.push(format!("{}: `{code}`", path.display()));
            }
        }
    }
    assert!(spliced.is_empty(), "a code spliced into a reason's text (use the typed code): {spliced:#?}");
}

/// Every code the protocol's crate and the server name is one of the protocol's codes
/// (`agentwarden_protocol::CODES`), which its own test holds to the server's table of
/// `docs/codes.md`: a code the server starts to answer with cannot miss the table.
#[test]
fn every_code_the_protocol_and_the_server_name_is_a_protocol_code() {
    let known: Vec<String> = agentwarden_protocol::CODES.iter().map(|code| format!("{code:?}")).collect();
    let mut named = 0;
    for (path, source) in sources(&["protocol/src", "server/src"]) {
        for (at, _) in source.match_indices("Code::") {
            let rest = source.get(at + "Code::".len()..).unwrap_or_default();
            let variant: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
            // A variant is CamelCase; `Code::ALL`, `Code::known` and the like are not codes.
            let is_variant = variant.starts_with(|c: char| c.is_ascii_uppercase())
                && variant.chars().any(|c| c.is_ascii_lowercase());
            if !is_variant {
                continue;
            }
            named += 1;
            assert!(
                known.contains(&variant),
                "{} names `Code::{variant}`, which is not in `agentwarden_protocol::CODES`: add it there and \
                 give it a row in the server table (domain/src/code/table.rs)",
                path.display()
            );
        }
    }
    assert!(named > 10, "only {named} codes named: the scan is broken");
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
