//! Files the application reads: instruction files, requests, configuration.

use std::path::Path;

use agentwarden_domain::governance::FileRead;
use agentwarden_domain::guardrails::{ContentSnapshot, TreeManifest};
use async_trait::async_trait;

/// Why the file system could not snapshot, keep, put back or write what it was asked, by
/// cause. Every one is a failure the caller fails closed on: no snapshot, no revert, no write.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FilesError {
    /// This file system does not do it (a test's, a bench's).
    #[error("this file system {0}")]
    Unsupported(&'static str),
    /// The protected tree could not be walked, kept or put back; the adapter's words name the
    /// path and what was found there.
    #[error("{0}")]
    Tree(String),
    /// A file could not be written; the adapter's words name the path.
    #[error("{0}")]
    Write(String),
    /// The task that did the blocking work failed (it panicked or was cancelled).
    #[error("the {what} task failed: {reason}")]
    Task {
        /// `snapshot` or `restore`.
        what: &'static str,
        /// Why.
        reason: String,
    },
}

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
    async fn capture(&self, root: &Path, protected: &[String]) -> Result<ContentSnapshot, FilesError> {
        let _ = (root, protected);
        Err(FilesError::Unsupported("keeps no content snapshots"))
    }

    /// Puts every protected entry of `snapshot` back under `root` exactly (content, kind,
    /// permission bits) and removes every entry it does not hold, without following a link
    /// (U-14). `Err` names what could not be put back; callers verify with a new snapshot.
    async fn restore(&self, root: &Path, snapshot: &ContentSnapshot) -> Result<(), FilesError> {
        let _ = (root, snapshot);
        Err(FilesError::Unsupported("cannot restore content snapshots"))
    }

    /// A manifest of every entry under each of the `protected` paths (relative to `root`), never
    /// following a symbolic link and never reading outside `root`. A protected path that
    /// does not exist contributes nothing. An error says why the tree could not be read; the
    /// caller must treat it as a violation, not as "no change".
    async fn snapshot(&self, root: &Path, protected: &[String]) -> Result<TreeManifest, FilesError>;

    /// Writes `bytes` to `path` atomically: a temporary file in the same directory, synced, then
    /// renamed over `path`. Creates the directory if needed.
    async fn write_atomic(&self, path: &Path, bytes: &[u8]) -> Result<(), FilesError>;
}
