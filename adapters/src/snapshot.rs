//! Snapshots of protected paths, walked by descriptor (U-10): every directory is opened
//! `O_NOFOLLOW` relative to its parent's descriptor, every file `O_NOFOLLOW | O_NONBLOCK` and
//! `fstat`ed before it is read. A FIFO, a socket, a device, or an entry that cannot be read is
//! recorded as an odd entry with its kind — never an error that would hide the other changes.
//! Names that are not UTF-8 are keyed escaped (U-11).

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use agentwarden_domain::audit::Hash;
use agentwarden_domain::guardrails::{
    ContentSnapshot, Entry, EntryKind, TreeManifest, escape_name, link_digest,
};
use rustix::fs::{AtFlags, FileType, Mode, OFlags};

use crate::untrusted::{self, UntrustedError};

/// A protected path must be relative, without `..`, `.` or empty components.
pub(crate) fn check_protected(protected: &str) -> Result<PathBuf, String> {
    let path = Path::new(protected.trim_end_matches('/'));
    let plain = !protected.is_empty() && path.components().all(|c| matches!(c, Component::Normal(_)));
    if plain {
        Ok(path.to_owned())
    } else {
        Err(format!("protected path `{protected}` must be relative and plain"))
    }
}

/// A walk's output: the manifest's entries, and the content when it is kept.
struct Walk {
    entries: BTreeMap<String, Entry>,
    contents: Option<(BTreeMap<String, Vec<u8>>, u64)>,
    bound: u64,
}

fn odd(kind: FileType) -> EntryKind {
    match kind {
        FileType::Fifo => EntryKind::Fifo,
        FileType::Socket => EntryKind::Socket,
        FileType::CharacterDevice => EntryKind::CharDevice,
        FileType::BlockDevice => EntryKind::BlockDevice,
        _ => EntryKind::Unreadable,
    }
}

const UNREADABLE: Entry = Entry { kind: EntryKind::Unreadable, mode: 0, digest: None };

impl Walk {
    /// Keeps `bytes` for `key` within the budget; over it is an error (U-12).
    fn keep(&mut self, key: &str, bytes: Vec<u8>) -> Result<(), String> {
        if let Some((contents, left)) = &mut self.contents {
            let size = bytes.len() as u64;
            if size > *left {
                return Err(format!(
                    "the protected paths hold more than the {} bytes a content snapshot may keep",
                    self.bound
                ));
            }
            *left -= size;
            contents.insert(key.to_owned(), bytes);
        }
        Ok(())
    }

    /// Records the entry `name` of `dir` under `key`; `true` for a directory, which the walk
    /// opens with [`Walk::open_dir`] when its turn comes. Anything that cannot be read becomes an odd entry
    /// (U-10); only a budget overrun is an error.
    fn visit(
        &mut self,
        dir: BorrowedFd<'_>,
        name: &OsStr,
        key: &str,
        kind: FileType,
    ) -> Result<bool, String> {
        let shown = Path::new(key);
        match kind {
            // Opened when its turn comes, so that only one descriptor per level is open.
            FileType::Directory => Ok(true),
            FileType::Symlink => {
                let entry = match rustix::fs::readlinkat(dir, name, Vec::new()) {
                    Ok(target) => {
                        let target = target.into_bytes();
                        let digest = link_digest(&target);
                        self.keep(key, target)?;
                        Entry { kind: EntryKind::Symlink, mode: 0o777, digest: Some(digest) }
                    }
                    Err(_) => UNREADABLE,
                };
                self.entries.insert(key.to_owned(), entry);
                Ok(false)
            }
            FileType::RegularFile => {
                let entry = match untrusted::open_file_at(dir, name, shown) {
                    Ok((file, _, mode)) => match self.read_file(file, key) {
                        Ok(digest) => Entry { kind: EntryKind::File, mode, digest: Some(digest) },
                        Err(Some(over)) => return Err(over),
                        Err(None) => Entry { kind: EntryKind::Unreadable, mode, digest: None },
                    },
                    Err(_) => untrusted::kind_at(dir, name)
                        .filter(|k| *k != FileType::RegularFile)
                        .map_or(UNREADABLE, |k| Entry { kind: odd(k), mode: 0, digest: None }),
                };
                self.entries.insert(key.to_owned(), entry);
                Ok(false)
            }
            other => {
                let mode = rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)
                    .map(|s| s.st_mode & 0o7777)
                    .unwrap_or(0);
                self.entries.insert(key.to_owned(), Entry { kind: odd(other), mode, digest: None });
                Ok(false)
            }
        }
    }

    /// Opens the directory `name` of `dir` and records it; one that cannot be opened (swapped,
    /// unreadable) is an odd entry.
    fn open_dir(&mut self, dir: BorrowedFd<'_>, name: &OsStr, key: &str) -> Option<OwnedFd> {
        match untrusted::open_dir_at(dir, name, Path::new(key)) {
            Ok(fd) => {
                let mode = rustix::fs::fstat(&fd).map(|s| s.st_mode & 0o7777).unwrap_or(0);
                self.entries.insert(key.to_owned(), Entry { kind: EntryKind::Dir, mode, digest: None });
                Some(fd)
            }
            Err(_) => {
                let entry = untrusted::kind_at(dir, name)
                    .filter(|k| *k != FileType::Directory)
                    .map_or(UNREADABLE, |k| Entry { kind: odd(k), mode: 0, digest: None });
                self.entries.insert(key.to_owned(), entry);
                None
            }
        }
    }

    /// Hashes (and keeps, within the budget) an open file; `Err(None)`: unreadable.
    fn read_file(&mut self, mut file: std::fs::File, key: &str) -> Result<Hash, Option<String>> {
        let mut hasher = blake3::Hasher::new();
        let mut kept = self.contents.as_ref().map(|_| Vec::new());
        let mut buffer = vec![0u8; 64 * 1024];
        loop {
            let n = file.read(&mut buffer).map_err(|_| None)?;
            if n == 0 {
                break;
            }
            let chunk = buffer.get(..n).unwrap_or_default();
            hasher.update(chunk);
            if let (Some(kept), Some((_, left))) = (&mut kept, &self.contents) {
                if (kept.len() + n) as u64 > *left {
                    return Err(Some(format!(
                        "the protected paths hold more than the {} bytes a content snapshot may keep",
                        self.bound
                    )));
                }
                kept.extend_from_slice(chunk);
            }
        }
        if let Some(kept) = kept {
            self.keep(key, kept).map_err(Some)?;
        }
        Ok(Hash::from_bytes(*hasher.finalize().as_bytes()))
    }
}

/// The entry of one regular file of `dir`, hashed by descriptor.
fn hash_one(dir: BorrowedFd<'_>, name: &OsStr, key: &str) -> Entry {
    let mut walk = Walk { entries: BTreeMap::new(), contents: None, bound: 0 };
    match walk.visit(dir, name, key, FileType::RegularFile) {
        Ok(_) => walk.entries.remove(key).unwrap_or(UNREADABLE),
        Err(_) => UNREADABLE,
    }
}

/// Hashes the regular files of one directory, on every core when there are many.
fn hash_files(dir: BorrowedFd<'_>, prefix: &str, files: &[(OsString, FileType)]) -> Vec<(String, Entry)> {
    let keyed = |(name, _): &(OsString, FileType)| {
        let key = format!("{prefix}/{}", escape_name(name.as_bytes()));
        let entry = hash_one(dir, name, &key);
        (key, entry)
    };
    let workers = std::thread::available_parallelism().map_or(1, usize::from);
    if files.len() < 16 || workers < 2 {
        return files.iter().map(keyed).collect();
    }
    let share = files.len().div_ceil(workers).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = files
            .chunks(share)
            .map(|chunk| scope.spawn(move || chunk.iter().map(keyed).collect::<Vec<_>>()))
            .collect();
        handles
            .into_iter()
            .zip(files.chunks(share))
            .flat_map(|(handle, chunk)| {
                // A thread that panicked: its files are unreadable, never "unchanged".
                handle.join().unwrap_or_else(|_| {
                    chunk
                        .iter()
                        .map(|(name, _)| (format!("{prefix}/{}", escape_name(name.as_bytes())), UNREADABLE))
                        .collect()
                })
            })
            .collect()
    })
}

const DOT: OFlags = OFlags::RDONLY.union(OFlags::DIRECTORY).union(OFlags::CLOEXEC);

fn walk(root: &Path, protected: &[String], bound: Option<u64>) -> Result<Walk, String> {
    let mut walk = Walk {
        entries: BTreeMap::new(),
        contents: bound.map(|b| (BTreeMap::new(), b)),
        bound: bound.unwrap_or(0),
    };
    let root_fd = untrusted::open_anchor(root).map_err(|e| e.to_string())?;
    for p in protected {
        let rel = check_protected(p)?;
        let mut names: Vec<OsString> = rel.components().map(|c| c.as_os_str().to_os_string()).collect();
        let Some(leaf) = names.pop() else { continue };
        let dup = rustix::fs::openat(&root_fd, ".", DOT, Mode::empty()).map_err(|e| e.to_string())?;
        // No directory on the way to a protected path may be a link.
        let parent = match untrusted::walk_dirs(dup, &names, &rel, Path::new(""), false) {
            Ok(fd) => fd,
            Err(UntrustedError::Missing { .. }) => continue,
            Err(UntrustedError::Link { at, .. }) => {
                return Err(format!("protected path `{p}` passes through the symbolic link `{at}`"));
            }
            Err(e) => return Err(format!("protected path `{p}`: {e}")),
        };
        let Some(kind) = untrusted::kind_at(parent.as_fd(), &leaf) else { continue };
        let key = rel.to_str().map(str::to_owned).ok_or_else(|| format!("`{p}` is not UTF-8"))?;
        // Depth first; a pending directory holds its parent's descriptor, so at most one
        // descriptor per level is open however wide the tree.
        let parent = Arc::new(parent);
        let mut stack: Vec<(Arc<OwnedFd>, OsString, String)> = Vec::new();
        if walk.visit(parent.as_fd(), &leaf, &key, kind)? {
            stack.push((parent, leaf, key));
        }
        while let Some((parent, name, prefix)) = stack.pop() {
            let Some(dir) = walk.open_dir(parent.as_fd(), &name, &prefix) else { continue };
            drop(parent);
            let dir = Arc::new(dir);
            let children = match untrusted::entries(dir.as_fd(), Path::new(&prefix)) {
                Ok(children) => children,
                Err(_) => {
                    walk.entries.insert(prefix.clone(), UNREADABLE);
                    continue;
                }
            };
            let (files, others): (Vec<_>, Vec<_>) = children
                .into_iter()
                .partition(|(_, kind)| *kind == FileType::RegularFile && walk.contents.is_none());
            walk.entries.extend(hash_files(dir.as_fd(), &prefix, &files));
            for (name, kind) in others {
                let child = format!("{prefix}/{}", escape_name(name.as_bytes()));
                if walk.visit(dir.as_fd(), &name, &child, kind)? {
                    stack.push((dir.clone(), name, child));
                }
            }
        }
    }
    Ok(walk)
}

/// The most a content snapshot keeps (U-12): 64 MiB of file bytes and link targets.
pub(crate) const MAX_CONTENT_BYTES: u64 = 64 * 1024 * 1024;

/// Walks `root/protected…` by descriptor and returns the manifest (R-2, U-10).
pub(crate) fn snapshot(root: &Path, protected: &[String]) -> Result<TreeManifest, String> {
    let walk = walk(root, protected, None)?;
    Ok(TreeManifest { protected: protected.to_vec(), entries: walk.entries })
}

/// Walks `root/protected…` by descriptor and keeps the content too (U-12): more than
/// [`MAX_CONTENT_BYTES`] is an error, which callers treat as "no snapshot" (fail closed).
pub(crate) fn capture(root: &Path, protected: &[String]) -> Result<ContentSnapshot, String> {
    capture_within(root, protected, MAX_CONTENT_BYTES)
}

/// [`capture`] with the bound given.
pub(crate) fn capture_within(
    root: &Path,
    protected: &[String],
    bound: u64,
) -> Result<ContentSnapshot, String> {
    let walk = walk(root, protected, Some(bound))?;
    let contents = walk.contents.map(|(c, _)| c).unwrap_or_default();
    Ok(ContentSnapshot {
        manifest: TreeManifest { protected: protected.to_vec(), entries: walk.entries },
        contents,
    })
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

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
    fn a_content_snapshot_over_its_bound_is_an_error_not_a_partial_snapshot() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join("okrs")).unwrap();
        std::fs::write(root.join("okrs/a.md"), "12345").unwrap();
        std::fs::write(root.join("okrs/b.md"), "67890").unwrap();
        let protected = ["okrs".to_owned()];
        assert_eq!(capture_within(root, &protected, 10).unwrap().contents.len(), 2);
        let e = capture_within(root, &protected, 9).unwrap_err();
        assert!(e.contains("more than the 9 bytes"), "{e}");
        std::os::unix::fs::symlink("0123456789", root.join("okrs/l")).unwrap();
        assert!(capture_within(root, &protected, 19).is_err(), "link targets count too");
        assert!(capture_within(root, &protected, 20).is_ok());
    }

    #[test]
    fn a_wide_tree_is_walked_with_one_descriptor_per_level_and_hashed_on_every_core() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        // More directories side by side than a process may hold open at once by default.
        for i in 0..1100 {
            std::fs::create_dir_all(root.join(format!("okrs/d{i}"))).unwrap();
        }
        for i in 0..64 {
            std::fs::write(root.join(format!("okrs/f{i}")), format!("file {i}")).unwrap();
        }
        let m = snapshot(root, &["okrs".into()]).unwrap();
        assert_eq!(m.entries.len(), 1 + 1100 + 64);
        assert!(m.entries.values().all(|e| !e.kind.is_odd()), "nothing unreadable");
        assert_eq!(
            m.entries["okrs/f7"].digest,
            Some(agentwarden_domain::guardrails::file_digest(b"file 7")),
            "the parallel hash is the content's"
        );
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
