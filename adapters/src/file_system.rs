//! The local file system.

use std::path::{Path, PathBuf};

use agentwarden_domain::governance::FileRead;
use agentwarden_domain::guardrails::{ContentSnapshot, TreeManifest};
use agentwarden_ports::{FileSystem, FilesError};
use async_trait::async_trait;

use crate::untrusted::{self, UntrustedError};

/// Reads regular files from the local disk by descriptor (U-1 … U-3): under the workspace
/// root every component is opened without following a link, a file that is not regular (a
/// FIFO, a socket, a device, a directory, a link) is refused naming what it is, and reads are
/// bounded. Writes are atomic and cannot be redirected (U-4).
#[derive(Debug, Clone, Default)]
pub struct LocalFileSystem {
    root: Option<PathBuf>,
}

impl LocalFileSystem {
    /// Paths under `root` (the workspace root the human named) are walked from it by
    /// descriptor; other paths from their own directory.
    pub fn beneath(root: impl Into<PathBuf>) -> Self {
        LocalFileSystem { root: Some(root.into()) }
    }
}

fn read_blocking(root: Option<&Path>, path: &Path, max_bytes: u64) -> (FileRead, Option<u32>) {
    match untrusted::read_bytes_mode(root, path, max_bytes) {
        Ok((bytes, mode)) => match String::from_utf8(bytes) {
            Ok(text) => (FileRead::Text(text), Some(mode)),
            Err(_) => (FileRead::Unreadable("is not valid UTF-8".into()), None),
        },
        Err(UntrustedError::Missing { .. }) => (FileRead::Missing, None),
        Err(e) => (FileRead::Unreadable(e.reason()), None),
    }
}

#[async_trait]
impl FileSystem for LocalFileSystem {
    async fn read_text(&self, path: &Path, max_bytes: u64) -> FileRead {
        // Small files; a blocking read here costs less than a hop to the blocking pool.
        read_blocking(self.root.as_deref(), path, max_bytes).0
    }

    async fn read_text_mode(&self, path: &Path, max_bytes: u64) -> (FileRead, Option<u32>) {
        read_blocking(self.root.as_deref(), path, max_bytes)
    }

    async fn write_atomic(&self, path: &Path, bytes: &[u8]) -> Result<(), FilesError> {
        untrusted::write_atomic(self.root.as_deref(), path, bytes, 0o644)
            .map_err(|e| FilesError::Write(e.to_string()))
    }

    async fn snapshot(&self, root: &Path, protected: &[String]) -> Result<TreeManifest, FilesError> {
        let (root, protected) = (root.to_owned(), protected.to_vec());
        match tokio::task::spawn_blocking(move || crate::snapshot::snapshot(&root, &protected)).await {
            Ok(done) => done.map_err(FilesError::Tree),
            Err(e) => Err(FilesError::Task { what: "snapshot", reason: e.to_string() }),
        }
    }

    async fn capture(&self, root: &Path, protected: &[String]) -> Result<ContentSnapshot, FilesError> {
        let (root, protected) = (root.to_owned(), protected.to_vec());
        match tokio::task::spawn_blocking(move || crate::snapshot::capture(&root, &protected)).await {
            Ok(done) => done.map_err(FilesError::Tree),
            Err(e) => Err(FilesError::Task { what: "snapshot", reason: e.to_string() }),
        }
    }

    async fn restore(&self, root: &Path, snapshot: &ContentSnapshot) -> Result<(), FilesError> {
        let (root, snapshot) = (root.to_owned(), snapshot.clone());
        match tokio::task::spawn_blocking(move || crate::restore::restore(&root, &snapshot)).await {
            Ok(done) => done.map_err(FilesError::Tree),
            Err(e) => Err(FilesError::Task { what: "restore", reason: e.to_string() }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_text_and_refuses_links_dirs_large_and_binary_files() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.md");
        std::fs::write(&file, "hello").unwrap();
        assert_eq!(read_blocking(None, &file, 100).0, FileRead::Text("hello".into()));
        assert_eq!(read_blocking(None, &dir.path().join("none.md"), 100).0, FileRead::Missing);
        assert!(matches!(read_blocking(None, &file, 3).0, FileRead::Unreadable(_)));
        assert!(matches!(read_blocking(None, dir.path(), 100).0, FileRead::Unreadable(_)));
        let link = dir.path().join("link.md");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert!(
            matches!(read_blocking(None, &link, 100).0, FileRead::Unreadable(why) if why.contains("symbolic link"))
        );
        let binary = dir.path().join("b.md");
        std::fs::write(&binary, [0xff, 0xfe]).unwrap();
        assert!(
            matches!(read_blocking(None, &binary, 100).0, FileRead::Unreadable(why) if why.contains("UTF-8"))
        );
    }
}
