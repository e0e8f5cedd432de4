//! Files the application reads: instruction files, requests, configuration.

use std::path::Path;

use agentwarden_domain::governance::FileRead;
use async_trait::async_trait;

/// Reads files.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait FileSystem: Send + Sync {
    /// The text of the regular file at `path`, at most `max_bytes` long. A missing file is
    /// [`FileRead::Missing`]; a symbolic link, a directory, a file that is too large or not
    /// UTF-8, or any I/O error is [`FileRead::Unreadable`] with the reason.
    async fn read_text(&self, path: &Path, max_bytes: u64) -> FileRead;
}
