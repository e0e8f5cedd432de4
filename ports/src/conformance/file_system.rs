//! The `FileSystem` contract suite, on real directories it makes: only a regular UTF-8 file
//! within the bound is text (a link, a directory, a FIFO, a file too large or not UTF-8 is
//! unreadable, never followed, never waited on); writes are atomic and leave no temporary file;
//! a snapshot covers the protected paths only and records a link as a link; a content capture
//! is restored exactly, or the adapter refuses both.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use agentwarden_domain::governance::FileRead;
use agentwarden_domain::guardrails::{EntryKind, diff};

use crate::FileSystem;

/// A fresh directory, canonical (so that roots compare as given).
fn fresh() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    (dir, root)
}

/// Runs every check, each on an adapter `make` builds for a fresh root directory.
pub async fn run_all<F, M>(mut make: M)
where
    F: FileSystem,
    M: FnMut(&Path) -> F,
{
    let (_dir, root) = fresh();
    reads_only_regular_utf8_files_within_the_bound(&make(&root), &root).await;
    let (_dir, root) = fresh();
    writes_are_atomic_and_create_their_directory(&make(&root), &root).await;
    let (_dir, root) = fresh();
    snapshots_cover_the_protected_paths_and_never_follow_a_link(&make(&root), &root).await;
    let (_dir, root) = fresh();
    captures_are_restored_exactly_or_refused(&make(&root), &root).await;
}

/// What `read_text` makes of each kind of entry under `root`.
pub async fn reads_only_regular_utf8_files_within_the_bound<F: FileSystem + ?Sized>(files: &F, root: &Path) {
    std::fs::write(root.join("a.txt"), "hello").unwrap();
    std::fs::set_permissions(root.join("a.txt"), std::fs::Permissions::from_mode(0o640)).unwrap();
    std::fs::write(root.join("latin1.txt"), [0xe9u8, 0x74, 0xe9]).unwrap();
    std::fs::create_dir(root.join("dir")).unwrap();
    std::os::unix::fs::symlink(root.join("a.txt"), root.join("link.txt")).unwrap();
    let fifo = root.join("fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success());
    assert_eq!(files.read_text(&root.join("a.txt"), 1024).await, FileRead::Text("hello".into()));
    match files.read_text_mode(&root.join("a.txt"), 1024).await {
        (FileRead::Text(text), mode) => {
            assert_eq!(text, "hello");
            assert!(mode.is_none_or(|m| m & 0o7777 == 0o640), "the mode read is the file's: {mode:?}");
        }
        other => panic!("a.txt: {other:?}"),
    }
    assert_eq!(files.read_text(&root.join("missing.txt"), 1024).await, FileRead::Missing);
    let unreadable = [
        (root.join("a.txt"), 3, "larger than the bound"),
        (root.join("latin1.txt"), 1024, "not UTF-8"),
        (root.join("dir"), 1024, "a directory"),
        (root.join("link.txt"), 1024, "a symbolic link (never followed)"),
    ];
    for (path, bound, what) in unreadable {
        let read = files.read_text(&path, bound).await;
        assert!(matches!(read, FileRead::Unreadable(_)), "{what}: {read:?}");
    }
    if made {
        // A FIFO nobody writes to: an adapter that opens it for reading waits forever.
        let read = tokio::time::timeout(Duration::from_secs(5), files.read_text(&fifo, 1024)).await;
        let read = read.unwrap_or_else(|_| panic!("a FIFO is waited on: a read must not block"));
        assert!(matches!(read, FileRead::Unreadable(_)), "a FIFO: {read:?}");
    }
}

/// `write_atomic` creates the directory, replaces the file whole, and leaves nothing else.
pub async fn writes_are_atomic_and_create_their_directory<F: FileSystem + ?Sized>(files: &F, root: &Path) {
    let path = root.join("out/merged/result.json");
    files.write_atomic(&path, b"{\"first\":true}").await.unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"{\"first\":true}");
    files.write_atomic(&path, b"{}").await.unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"{}", "replaced whole");
    let names: Vec<_> =
        std::fs::read_dir(path.parent().unwrap()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, ["result.json"], "no temporary file is left behind");
}

/// A snapshot holds every entry under the protected paths and nothing else; a missing
/// protected path adds nothing; a link is an entry of kind link, its target never read; a
/// change under a protected path is in the diff, one outside is not.
pub async fn snapshots_cover_the_protected_paths_and_never_follow_a_link<F: FileSystem + ?Sized>(
    files: &F,
    root: &Path,
) {
    std::fs::create_dir_all(root.join("okrs/q4")).unwrap();
    std::fs::write(root.join("okrs/a.md"), "a").unwrap();
    std::fs::write(root.join("okrs/q4/b.md"), "b").unwrap();
    std::fs::write(root.join("notes.md"), "outside").unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::create_dir(outside.path().join("secret")).unwrap();
    std::fs::write(outside.path().join("secret/key"), "k").unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret"), root.join("okrs/escape")).unwrap();
    let protected = ["okrs".to_owned(), "missing".to_owned()];
    let before = files.snapshot(root, &protected).await.unwrap();
    let paths: Vec<&str> = before.entries.keys().map(String::as_str).collect();
    assert!(paths.contains(&"okrs/a.md") && paths.contains(&"okrs/q4/b.md"), "{paths:?}");
    assert!(!paths.iter().any(|p| p.starts_with("notes") || p.starts_with("missing")), "{paths:?}");
    assert!(!paths.iter().any(|p| p.contains("key")), "a link's target is never walked: {paths:?}");
    assert_eq!(before.entries["okrs/escape"].kind, EntryKind::Symlink);
    std::fs::write(root.join("notes.md"), "changed outside").unwrap();
    assert!(diff(&before, &files.snapshot(root, &protected).await.unwrap()).is_empty());
    std::fs::write(root.join("okrs/q4/b.md"), "changed").unwrap();
    let changed = diff(&before, &files.snapshot(root, &protected).await.unwrap());
    assert_eq!(changed.modified, ["okrs/q4/b.md"]);
}

/// `capture` then `restore` puts back every protected entry (content and mode) and removes
/// what was added; an adapter that keeps no content refuses both.
pub async fn captures_are_restored_exactly_or_refused<F: FileSystem + ?Sized>(files: &F, root: &Path) {
    std::fs::create_dir_all(root.join("okrs")).unwrap();
    std::fs::write(root.join("okrs/a.md"), "a").unwrap();
    std::fs::write(root.join("okrs/b.md"), "b").unwrap();
    let protected = ["okrs".to_owned()];
    let before = files.snapshot(root, &protected).await.unwrap();
    let Ok(content) = files.capture(root, &protected).await else {
        let refused = files.restore(root, &agentwarden_domain::guardrails::ContentSnapshot::default()).await;
        assert!(refused.is_err(), "an adapter that captures nothing restores nothing");
        return;
    };
    std::fs::write(root.join("okrs/a.md"), "changed").unwrap();
    std::fs::set_permissions(root.join("okrs/a.md"), std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::remove_file(root.join("okrs/b.md")).unwrap();
    std::fs::write(root.join("okrs/new.md"), "new").unwrap();
    files.restore(root, &content).await.unwrap();
    let after = files.snapshot(root, &protected).await.unwrap();
    assert!(diff(&before, &after).is_empty(), "{:?}", diff(&before, &after));
}
