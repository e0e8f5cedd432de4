//! Issue 22: the application reads the file system only through the adapters it wires — no
//! `std::fs`, no `File`, no `Path::exists` and its kin in `app/src` outside test modules. A
//! test module is what follows a `#[cfg(test)]` line (the convention: tests last in the file).

use std::path::Path;

use agentwarden_tests::sources::{outside_tests, rust_files};

/// Test support compiled only with a feature, skipped by the scan: the harness conformance suite
/// (feature `conformance`, issue 35) writes the small project it runs its situations in, as a
/// test would; the forged-lifecycle tests (`hook/forged.rs`, declared `#[cfg(test)]` in
/// `hook.rs`) and the session-rules tests (`hook/session_rules/tests.rs`) build their projects
/// the same way. The application's own use cases never reach them.
const TEST_SUPPORT: [&str; 3] = ["harness/conformance.rs", "hook/forged.rs", "hook/session_rules/tests.rs"];

/// What reaches the file system behind the adapters' back.
const FORBIDDEN: [&str; 8] = [
    "std::fs",
    "fs::File",
    "File::open",
    "OpenOptions",
    ".exists()",
    ".is_dir()",
    ".is_file()",
    ".metadata()",
];

/// The lines of `text` that are not in a test module and not comments, with their numbers.
fn code_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    outside_tests(text)
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim_start().starts_with("//"))
        .map(|(n, line)| (n + 1, line))
}

fn offences(text: &str) -> Vec<String> {
    code_lines(text)
        .filter_map(|(n, line)| {
            FORBIDDEN.iter().find(|f| line.contains(*f)).map(|f| format!("line {n}: `{f}`"))
        })
        .collect()
}

#[test]
fn the_application_touches_the_file_system_only_through_its_adapters() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../app/src");
    let files = rust_files(&root);
    assert!(files.len() > 10, "app/src holds {} files: the scan read nothing", files.len());
    let found: Vec<String> = files
        .iter()
        .filter(|file| !TEST_SUPPORT.iter().any(|support| file.ends_with(support)))
        .flat_map(|file| {
            let text = std::fs::read_to_string(file).unwrap();
            offences(&text).into_iter().map(move |o| format!("{}: {o}", file.display()))
        })
        .collect();
    assert!(found.is_empty(), "file-system access outside the adapters:\n{}", found.join("\n"));
}

#[test]
fn the_scan_finds_what_it_forbids_and_skips_comments_and_tests() {
    let text = "fn a() { let _ = std::fs::read(\"x\"); }\n// std::fs in prose\n#[cfg(test)]\nmod tests { fn b() { std::fs::write(\"y\", \"\"); } }\n";
    assert_eq!(offences(text), vec!["line 1: `std::fs`".to_owned()]);
    assert_eq!(offences("if p.join(\".git\").exists() {}"), vec!["line 1: `.exists()`".to_owned()]);
}
