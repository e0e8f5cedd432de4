//! The workspace's Rust sources, for the tests that scan them (X-1: no code built from a
//! string; issue 22: no file-system access in the application outside its adapters).

use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, recursively. Panics (failing the test) when `dir` cannot be
/// read: a scan that read nothing must not pass.
pub fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    collect(dir, &mut found);
    found
}

/// Every file under `dir`, recursively, whatever its kind (the neutrality tests read manifests
/// and docs too). Panics like [`rust_files`].
pub fn all_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    collect_where(dir, &|_| true, &mut found);
    found
}

fn collect(dir: &Path, found: &mut Vec<PathBuf>) {
    collect_where(dir, &|path| path.extension().is_some_and(|e| e == "rs"), found);
}

fn collect_where(dir: &Path, keep: &dyn Fn(&Path) -> bool, found: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.unwrap_or_else(|e| panic!("{}: {e}", dir.display())).path();
        if path.is_dir() {
            collect_where(&path, keep, found);
        } else if keep(&path) {
            found.push(path);
        }
    }
}

/// The text of `source` before its `#[cfg(test)]` module, if any (the convention: tests last).
pub fn outside_tests(source: &str) -> &str {
    source.split("#[cfg(test)]").next().unwrap_or(source)
}
