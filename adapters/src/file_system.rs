//! The local file system.

use std::io::Read;
use std::path::Path;

use agentwarden_domain::governance::FileRead;
use agentwarden_domain::guardrails::TreeManifest;
use agentwarden_ports::FileSystem;
use async_trait::async_trait;

/// Reads regular files from the local disk. Symbolic links are refused rather than followed,
/// so a link planted in a configured directory cannot make Warden read outside it.
#[derive(Debug, Clone, Copy, Default)]
pub struct LocalFileSystem;

fn read_blocking(path: &Path, max_bytes: u64) -> FileRead {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return FileRead::Missing,
        Err(e) => return FileRead::Unreadable(e.to_string()),
    };
    if meta.file_type().is_symlink() {
        return FileRead::Unreadable("is a symbolic link (not followed)".into());
    }
    if !meta.is_file() {
        return FileRead::Unreadable("is not a regular file".into());
    }
    if meta.len() > max_bytes {
        return FileRead::Unreadable(format!("is {} bytes, more than the {max_bytes} allowed", meta.len()));
    }
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) => return FileRead::Unreadable(e.to_string()),
    };
    // The file may grow between the check and the read: read one byte past the limit to know.
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    if let Err(e) = file.take(max_bytes.saturating_add(1)).read_to_end(&mut bytes) {
        return FileRead::Unreadable(e.to_string());
    }
    if bytes.len() as u64 > max_bytes {
        return FileRead::Unreadable(format!("is more than the {max_bytes} bytes allowed"));
    }
    match String::from_utf8(bytes) {
        Ok(text) => FileRead::Text(text),
        Err(_) => FileRead::Unreadable("is not valid UTF-8".into()),
    }
}

fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), String> {
    use std::io::Write;
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| format!("`{}`: {e}", dir.display()))?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let temp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let written = std::fs::File::create(&temp)
        .and_then(|mut file| file.write_all(bytes).and_then(|()| file.sync_all()))
        .and_then(|()| std::fs::rename(&temp, path));
    written.map_err(|e| {
        let _ = std::fs::remove_file(&temp);
        format!("`{}`: {e}", path.display())
    })
}

#[async_trait]
impl FileSystem for LocalFileSystem {
    async fn read_text(&self, path: &Path, max_bytes: u64) -> FileRead {
        // Small files; a blocking read here costs less than a hop to the blocking pool.
        read_blocking(path, max_bytes)
    }

    async fn write_atomic(&self, path: &Path, bytes: &[u8]) -> Result<(), String> {
        write_atomic(path, bytes)
    }

    async fn snapshot(&self, root: &Path, protected: &[String]) -> Result<TreeManifest, String> {
        let (root, protected) = (root.to_owned(), protected.to_vec());
        tokio::task::spawn_blocking(move || crate::snapshot::snapshot(&root, &protected))
            .await
            .unwrap_or_else(|e| Err(format!("the snapshot task failed: {e}")))
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
        assert_eq!(read_blocking(&file, 100), FileRead::Text("hello".into()));
        assert_eq!(read_blocking(&dir.path().join("none.md"), 100), FileRead::Missing);
        assert!(matches!(read_blocking(&file, 3), FileRead::Unreadable(_)));
        assert!(matches!(read_blocking(dir.path(), 100), FileRead::Unreadable(_)));
        let link = dir.path().join("link.md");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert!(
            matches!(read_blocking(&link, 100), FileRead::Unreadable(why) if why.contains("symbolic link"))
        );
        let binary = dir.path().join("b.md");
        std::fs::write(&binary, [0xff, 0xfe]).unwrap();
        assert!(matches!(read_blocking(&binary, 100), FileRead::Unreadable(why) if why.contains("UTF-8")));
    }
}
