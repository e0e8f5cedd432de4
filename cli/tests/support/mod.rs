//! What the CLI tests of the Claude Code hook share: the example project, copied and committed.

use std::path::Path;
use std::process::Command;

/// The bundled Claude Code example.
pub(crate) const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/claude-code");

/// Copies the directory `from` to `to`, recursively.
pub(crate) fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Runs git in `root` with a fixed identity; panics if it fails.
pub(crate) fn git(root: &Path, args: &[&str]) {
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// The bundled example copied to `root`, in a fresh git repository with everything committed
/// (the reverts restore what git `HEAD` holds).
pub(crate) fn committed_example(root: &Path) {
    copy_dir(Path::new(EXAMPLE), root);
    git(root, &["init", "-q"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "base"]);
}
