//! Files the application reads: instruction files, requests, configuration.

use std::path::Path;

use agentwarden_domain::governance::FileRead;
use agentwarden_domain::guardrails::{ContentSnapshot, TreeManifest};
use async_trait::async_trait;

/// Reads files.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait FileSystem: Send + Sync {
    /// The text of the regular file at `path`, at most `max_bytes` long. A missing file is
    /// [`FileRead::Missing`]; a symbolic link, a directory, a file that is too large or not
    /// UTF-8, or any I/O error is [`FileRead::Unreadable`] with the reason.
    async fn read_text(&self, path: &Path, max_bytes: u64) -> FileRead;

    /// [`FileSystem::read_text`] with the file's permission bits, read from the same
    /// descriptor, when the text could be read (a seal covers them, U-15).
    async fn read_text_mode(&self, path: &Path, max_bytes: u64) -> (FileRead, Option<u32>) {
        (self.read_text(path, max_bytes).await, None)
    }

    /// The manifest and the content of the `protected` paths under `root`, walked as
    /// [`FileSystem::snapshot`] walks them, within a size bound (U-12). An error (the bound
    /// passed, no such support) means there is no snapshot: callers fail closed.
    async fn capture(&self, root: &Path, protected: &[String]) -> Result<ContentSnapshot, String> {
        let _ = (root, protected);
        Err("this file system keeps no content snapshots".into())
    }

    /// Puts every protected entry of `snapshot` back under `root` exactly (content, kind,
    /// permission bits) and removes every entry it does not hold, without following a link
    /// (U-14). `Err` names what could not be put back; callers verify with a new snapshot.
    async fn restore(&self, root: &Path, snapshot: &ContentSnapshot) -> Result<(), String> {
        let _ = (root, snapshot);
        Err("this file system cannot restore content snapshots".into())
    }

    /// A manifest of every entry under each of the `protected` paths (relative to `root`), never
    /// following a symbolic link and never reading outside `root`. A protected path that
    /// does not exist contributes nothing. An error says why the tree could not be read; the
    /// caller must treat it as a violation, not as "no change".
    async fn snapshot(&self, root: &Path, protected: &[String]) -> Result<TreeManifest, String>;

    /// Writes `bytes` to `path` atomically: a temporary file in the same directory, synced, then
    /// renamed over `path`. Creates the directory if needed.
    async fn write_atomic(&self, path: &Path, bytes: &[u8]) -> Result<(), String>;
}
