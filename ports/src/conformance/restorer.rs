//! The `Restorer` contract suite: on a git working tree it makes (the reference
//! restorer puts files back from `HEAD`; one that does not need git ignores the repository),
//! a diff of the protected paths is reverted exactly — modified and removed entries back as
//! they were, added ones gone — and nothing outside them is touched. Needs `git` on the `PATH`.

use std::path::Path;
use std::process::Command;

use agentwarden_domain::guardrails::diff;

use crate::{FileSystem, Restorer};

fn git(root: &Path, args: &[&str]) {
    let status = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["-c", "user.name=conformance", "-c", "user.email=conformance@example.com"])
        .args(args)
        .status()
        .expect("the Restorer suite needs git");
    assert!(status.success(), "git {args:?}");
}

/// Runs the check with `restorer`, snapshotting with the file system `make` builds for the
/// tree's root.
pub async fn run_all<R, F, M>(restorer: &R, mut make: M)
where
    R: Restorer + ?Sized,
    F: FileSystem,
    M: FnMut(&Path) -> F,
{
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    reverts_exactly_the_diff(restorer, &make(&root), &root).await;
}

/// Modified, removed and added entries under the protected path are put back as before; a
/// change outside it stays.
pub async fn reverts_exactly_the_diff<R, F>(restorer: &R, files: &F, root: &Path)
where
    R: Restorer + ?Sized,
    F: FileSystem + ?Sized,
{
    std::fs::create_dir_all(root.join("okrs/q4")).unwrap();
    std::fs::write(root.join("okrs/a.md"), "a").unwrap();
    std::fs::write(root.join("okrs/q4/b.md"), "b").unwrap();
    std::fs::write(root.join("notes.md"), "notes").unwrap();
    git(root, &["init", "-q"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "before"]);
    let protected = ["okrs".to_owned()];
    let before = files.snapshot(root, &protected).await.unwrap();
    std::fs::write(root.join("okrs/a.md"), "changed").unwrap();
    std::fs::remove_file(root.join("okrs/q4/b.md")).unwrap();
    std::fs::write(root.join("okrs/added.md"), "added").unwrap();
    std::fs::write(root.join("notes.md"), "the agent's own work").unwrap();
    let changed = diff(&before, &files.snapshot(root, &protected).await.unwrap());
    assert_eq!(changed.changed_paths().len(), 3, "{changed:?}");
    restorer.restore(root, &before, &changed).await.unwrap();
    let after = files.snapshot(root, &protected).await.unwrap();
    assert!(diff(&before, &after).is_empty(), "not reverted: {:?}", diff(&before, &after));
    assert_eq!(std::fs::read_to_string(root.join("notes.md")).unwrap(), "the agent's own work");
}
