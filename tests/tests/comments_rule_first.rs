//! A comment states its rule first, in words, and cites the ruling after (issue 38, item 5):
//! `// Only a path rule covers a family (T-3).`, never `// T-3: only a path rule covers a
//! family.` Every Rust file of the workspace is read; a comment block (consecutive lines of one
//! kind, `//`, `///` or `//!`, at one indentation) must not open with a ruling id.

use std::path::{Path, PathBuf};

/// The workspace's directories of Rust sources (the fuzz targets included).
const DIRS: [&str; 18] = [
    "domain",
    "ports",
    "adapters",
    "app",
    "doctor",
    "harness",
    "protocol",
    "server",
    "hook-client",
    "confine",
    "report",
    "witness",
    "cli",
    "xtask",
    "tests",
    "fuzz",
    "conformance",
    "examples",
];

fn rust_files(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if path.is_dir() && !name.to_string_lossy().starts_with("target") {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

/// The comment marker and indentation of `line`, when it is a comment line.
fn comment_kind(line: &str) -> Option<(usize, &str)> {
    let indent = line.len() - line.trim_start().len();
    let rest = line.trim_start();
    ["//!", "///", "//"].into_iter().find(|mark| rest.starts_with(mark)).map(|mark| (indent, mark))
}

/// Whether `text` opens with a ruling id: one or two capitals, `-`, digits, then not a letter.
fn opens_with_id(text: &str) -> bool {
    let bytes = text.as_bytes();
    let capitals = bytes.iter().take_while(|b| b.is_ascii_uppercase()).count();
    if !(1..=2).contains(&capitals) || bytes.get(capitals) != Some(&b'-') {
        return false;
    }
    let digits = bytes.iter().skip(capitals + 1).take_while(|b| b.is_ascii_digit()).count();
    digits > 0 && !bytes.get(capitals + 1 + digits).is_some_and(|b| b.is_ascii_alphanumeric())
}

/// The first lines of comment blocks in `text` that open with a ruling id, numbered from 1.
fn opening_with_an_id(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut previous = None;
    for (number, line) in text.lines().enumerate() {
        let kind = comment_kind(line);
        if let Some((indent, mark)) = kind
            && previous != kind
        {
            let body = line.get(indent + mark.len()..).unwrap_or_default();
            if body.starts_with(' ') && opens_with_id(body.trim_start()) {
                found.push((number + 1, line.trim().to_owned()));
            }
        }
        previous = kind;
    }
    found
}

#[test]
fn no_comment_opens_with_a_ruling_id() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for dir in DIRS {
        rust_files(&root.join(dir), &mut files);
    }
    assert!(files.len() > 200, "the workspace's files were read: {}", files.len());
    let mut offending = Vec::new();
    for path in &files {
        let Ok(text) = std::fs::read_to_string(path) else { continue };
        for (line, comment) in opening_with_an_id(&text) {
            offending
                .push(format!("{}:{line}: {comment}", path.strip_prefix(&root).unwrap_or(path).display()));
        }
    }
    assert!(
        offending.is_empty(),
        "state the rule first, then cite the id (`// The rule, in words (X-1).`):\n{}",
        offending.join("\n")
    );
}

/// The check itself: a block opening with an id is found, in each kind of comment; a block that
/// cites one after its rule, a continuation line and prose that starts with capitals are not.
#[test]
fn a_block_opening_with_an_id_is_found() {
    let lines = [
        "// T-3: a family.",
        "    /// H-20 (default): a type.",
        "//! X-1, X-2: both.",
        "// Only a path rule (T-3).",
        "// T-4 on a continuation line.",
        "/// UTF-8 text.",
        "",
        "/// AB-12: two capitals.",
        "",
        "/// ABC-1: three capitals are no id.",
        "",
        "/// T-3a: nor is this.",
    ];
    let found: Vec<usize> = opening_with_an_id(&lines.join("\n")).into_iter().map(|(line, _)| line).collect();
    assert_eq!(found, [1, 2, 3, 8]);
}
