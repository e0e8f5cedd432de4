//! Snapshots of protected paths: walk without following links, hash on every core.

use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Component, Path, PathBuf};

use agentwarden_domain::audit::Hash;
use agentwarden_domain::guardrails::{Entry, EntryKind, TreeManifest};

/// A protected path must be relative, without `..`, `.` or empty components.
fn check_protected(protected: &str) -> Result<PathBuf, String> {
    let path = Path::new(protected.trim_end_matches('/'));
    let plain = !protected.is_empty() && path.components().all(|c| matches!(c, Component::Normal(_)));
    if plain {
        Ok(path.to_owned())
    } else {
        Err(format!("protected path `{protected}` must be relative and plain"))
    }
}

fn relative(root: &Path, path: &Path) -> Result<String, String> {
    let rel =
        path.strip_prefix(root).map_err(|_| format!("`{}` is outside the workspace", path.display()))?;
    rel.to_str().map(str::to_owned).ok_or_else(|| format!("`{}` is not a UTF-8 path", rel.display()))
}

fn hash_file(path: &Path) -> Result<Hash, String> {
    let mut file = std::fs::File::open(path).map_err(|e| format!("`{}`: {e}", path.display()))?;
    let mut hasher = blake3::Hasher::new();
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let n = file.read(&mut buffer).map_err(|e| format!("`{}`: {e}", path.display()))?;
        if n == 0 {
            return Ok(Hash::from_bytes(*hasher.finalize().as_bytes()));
        }
        hasher.update(buffer.get(..n).unwrap_or_default());
    }
}

/// Walks `root/protected…` and returns the manifest.
pub(crate) fn snapshot(root: &Path, protected: &[String]) -> Result<TreeManifest, String> {
    let mut entries = std::collections::BTreeMap::new();
    let mut files: Vec<(String, PathBuf, u32)> = Vec::new();
    for p in protected {
        let rel = check_protected(p)?;
        // No ancestor of a protected path may be a link: that would lead the walk elsewhere.
        let mut at = root.to_owned();
        let components: Vec<_> = rel.components().collect();
        for (i, component) in components.iter().enumerate() {
            at.push(component);
            let last = i + 1 == components.len();
            match std::fs::symlink_metadata(&at) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => break,
                Err(e) => return Err(format!("`{}`: {e}", at.display())),
                Ok(meta) if meta.file_type().is_symlink() && !last => {
                    return Err(format!(
                        "protected path `{p}` passes through the symbolic link `{}`",
                        at.display()
                    ));
                }
                Ok(_) => {}
            }
        }
        let start = root.join(&rel);
        let mut stack = vec![start];
        while let Some(path) = stack.pop() {
            let meta = match std::fs::symlink_metadata(&path) {
                Ok(meta) => meta,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(format!("`{}`: {e}", path.display())),
            };
            let name = relative(root, &path)?;
            let mode = meta.permissions().mode() & 0o7777;
            let kind = meta.file_type();
            if kind.is_symlink() {
                let target = std::fs::read_link(&path).map_err(|e| format!("`{}`: {e}", path.display()))?;
                let digest = Hash::link(&Hash::GENESIS, target.as_os_str().as_bytes());
                entries.insert(name, Entry { kind: EntryKind::Symlink, mode, digest: Some(digest) });
            } else if kind.is_dir() {
                entries.insert(name, Entry { kind: EntryKind::Dir, mode, digest: None });
                for child in std::fs::read_dir(&path).map_err(|e| format!("`{}`: {e}", path.display()))? {
                    stack.push(child.map_err(|e| format!("`{}`: {e}", path.display()))?.path());
                }
            } else if kind.is_file() {
                files.push((name, path, mode));
            } else {
                return Err(format!("`{}` is neither a file, a directory nor a link", path.display()));
            }
        }
    }
    // Hash the files on every core, in contiguous shares.
    let workers = std::thread::available_parallelism().map_or(1, usize::from).min(files.len().max(1));
    let share = files.len().div_ceil(workers).max(1);
    let hashed: Vec<Result<Vec<(String, Entry)>, String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = files
            .chunks(share)
            .map(|chunk| {
                scope.spawn(move || {
                    chunk
                        .iter()
                        .map(|(name, path, mode)| {
                            let digest = hash_file(path)?;
                            Ok((
                                name.clone(),
                                Entry { kind: EntryKind::File, mode: *mode, digest: Some(digest) },
                            ))
                        })
                        .collect::<Result<Vec<_>, String>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err("a hashing thread panicked".into())))
            .collect()
    });
    for part in hashed {
        entries.extend(part?);
    }
    Ok(TreeManifest { protected: protected.to_vec(), entries })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_files_links_dirs_and_modes_without_following_links() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("okrs/sub")).unwrap();
        std::fs::write(root.join("okrs/a.md"), "a").unwrap();
        std::fs::write(root.join("okrs/sub/b.md"), "b").unwrap();
        std::fs::write(root.join("outside.md"), "secret").unwrap();
        std::os::unix::fs::symlink(root.join("outside.md"), root.join("okrs/link")).unwrap();
        let m = snapshot(root, &["okrs".into()]).unwrap();
        let keys: Vec<&str> = m.entries.keys().map(String::as_str).collect();
        assert_eq!(keys, ["okrs", "okrs/a.md", "okrs/link", "okrs/sub", "okrs/sub/b.md"]);
        assert_eq!(m.entries["okrs/link"].kind, EntryKind::Symlink);
        assert_ne!(
            m.entries["okrs/link"].digest,
            Some(Hash::link(&Hash::GENESIS, b"secret")),
            "the link's target path is hashed, never its target's content"
        );
        std::fs::set_permissions(root.join("okrs/a.md"), std::fs::Permissions::from_mode(0o755)).unwrap();
        let after = snapshot(root, &["okrs".into()]).unwrap();
        assert_eq!(agentwarden_domain::guardrails::diff(&m, &after).modified, ["okrs/a.md"]);
    }

    #[test]
    fn refuses_paths_that_leave_the_workspace_or_pass_through_links() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for bad in ["../x", "/etc", "", "a/../b", "./okrs"] {
            assert!(snapshot(root, &[bad.to_owned()]).is_err(), "{bad}");
        }
        let elsewhere = tempfile::tempdir().unwrap();
        std::fs::create_dir(elsewhere.path().join("policy")).unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), root.join("docs")).unwrap();
        assert!(snapshot(root, &["docs/policy".into()]).unwrap_err().contains("symbolic link"));
        assert!(snapshot(root, &["missing".into()]).unwrap().entries.is_empty());
    }
}
