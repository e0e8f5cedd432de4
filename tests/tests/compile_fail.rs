//! Each snippet in `tests/compile-fail/`
//! is a way a consumer might try to obtain a `DelegationGrant` or forge a decision's event, and
//! must fail to compile with the error code its first line names, and say what it names after a
//! `|` (`//! expect: E0451 | are private`); the
//! control (`//! expect: ok`) must compile, so a failure is the rule and not a broken harness (X-20, proven
//! by the compiler at the library boundary).
//!
//! Each is compiled by `rustc` against the `agentwarden` and `agentwarden-domain` libraries
//! this test was built with (the newest of each in the test binary's `deps` directory), so no
//! second build of the workspace is needed. (rustdoc checks `compile_fail` error codes only on
//! nightly; this checks them on the toolchain the project builds with.)

#![expect(clippy::unwrap_used, clippy::expect_used, reason = "test code: a failed unwrap is a failed test")]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The newest `lib{name}-*.rlib` in `deps`.
fn rlib(deps: &Path, name: &str) -> PathBuf {
    let prefix = format!("lib{name}-");
    std::fs::read_dir(deps)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let file = p.file_name().unwrap().to_string_lossy();
            file.starts_with(&prefix) && file.ends_with(".rlib")
        })
        .max_by_key(|p| p.metadata().unwrap().modified().unwrap())
        .unwrap_or_else(|| panic!("no {prefix}*.rlib in {}", deps.display()))
}

/// Compiles `snippet` as a library; `Ok(())` or `Err(stderr)`.
fn compile(deps: &Path, out: &Path, snippet: &Path) -> Result<(), String> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let output = Command::new(rustc)
        .args(["--edition", "2024", "--crate-type", "lib", "--emit", "metadata", "--error-format", "short"])
        .arg("--crate-name")
        .arg(snippet.file_stem().unwrap().to_string_lossy().replace('-', "_"))
        .arg("--out-dir")
        .arg(out)
        .arg("-L")
        .arg(format!("dependency={}", deps.display()))
        .arg("--extern")
        .arg(format!("agentwarden={}", rlib(deps, "agentwarden").display()))
        .arg("--extern")
        .arg(format!("agentwarden_domain={}", rlib(deps, "agentwarden_domain").display()))
        .arg(snippet)
        .output()
        .expect("rustc runs");
    if output.status.success() { Ok(()) } else { Err(String::from_utf8_lossy(&output.stderr).into_owned()) }
}

#[test]
fn every_way_around_the_gate_fails_to_compile_with_its_error_code() {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    let out = tempfile::tempdir().unwrap();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("compile-fail");
    let mut snippets: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    snippets.sort();
    assert!(snippets.len() >= 7, "the snippets are there: {snippets:?}");
    let mut controls = 0;
    for snippet in &snippets {
        let text = std::fs::read_to_string(snippet).unwrap();
        let expect = text
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("//! expect: "))
            .unwrap_or_else(|| panic!("{}: the first line says what to expect", snippet.display()));
        match (expect, compile(deps, out.path(), snippet)) {
            ("ok", Ok(())) => controls += 1,
            ("ok", Err(stderr)) => panic!("{}: the control must compile:\n{stderr}", snippet.display()),
            (code, Ok(())) => panic!("{}: compiled, but must fail with {code}", snippet.display()),
            (expected, Err(stderr)) => {
                let (code, saying) = expected.split_once(" | ").unwrap_or((expected, ""));
                let error = stderr.lines().find(|l| l.contains(&format!("error[{code}]")));
                assert!(
                    error.is_some_and(|l| l.contains(saying)),
                    "{}: must fail with {code} saying {saying:?}, failed with:\n{stderr}",
                    snippet.display()
                );
            }
        }
    }
    assert_eq!(controls, 1, "one control");
}
