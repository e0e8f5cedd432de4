//! Putting protected paths back from a content snapshot (U-14), by descriptor.
//!
//! Every directory is opened `O_NOFOLLOW` relative to its parent's descriptor; files are
//! written by the atomic writer (a random `O_EXCL` temporary name, `renameat` over whatever the
//! agent left there, which replaces a link rather than writing through it); links are created
//! with `symlinkat` under a temporary name and renamed into place; whatever the snapshot does
//! not hold (an added file, a FIFO, a socket, a name that is not UTF-8) is removed. No git is
//! needed, and a commit inside the agent changes nothing. A FIFO, socket or device the
//! snapshot itself holds cannot be put back and is named (U-10: they never belong there).

use std::ffi::{OsStr, OsString};
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::Path;

use agentwarden_domain::guardrails::{ContentSnapshot, EntryKind, file_digest, unescape_name};
use rustix::fs::{AtFlags, FileType, Mode, OFlags};

use crate::snapshot::check_protected;
use crate::untrusted;

const DOT: OFlags = OFlags::RDONLY.union(OFlags::DIRECTORY).union(OFlags::CLOEXEC);

/// The bytes of each component of a manifest key (U-11).
pub(crate) fn key_names(key: &str) -> Option<Vec<OsString>> {
    key.split('/').map(|part| unescape_name(part).map(OsString::from_vec)).collect()
}

/// How deep a restore or removal descends (U-14): deeper is an error, not a stack overflow.
const MAX_DEPTH: usize = 256;

/// Removes `name` from `dir`, a directory with everything in it, never following a link.
pub(crate) fn remove_tree(dir: BorrowedFd<'_>, name: &OsStr, key: &str, errors: &mut Vec<String>) {
    remove_tree_at(dir, name, key, errors, 0);
}

fn remove_tree_at(dir: BorrowedFd<'_>, name: &OsStr, key: &str, errors: &mut Vec<String>, depth: usize) {
    if depth > MAX_DEPTH {
        errors.push(format!("cannot remove `{key}`: more than {MAX_DEPTH} directories deep"));
        return;
    }
    match untrusted::kind_at(dir, name) {
        None => {}
        Some(FileType::Directory) => {
            match untrusted::open_dir_at(dir, name, Path::new(key)) {
                Ok(fd) => match untrusted::entries(fd.as_fd(), Path::new(key)) {
                    Ok(children) => {
                        for (child, _) in children {
                            let child_key = format!(
                                "{key}/{}",
                                agentwarden_domain::guardrails::escape_name(child.as_bytes())
                            );
                            remove_tree_at(fd.as_fd(), &child, &child_key, errors, depth + 1);
                        }
                    }
                    Err(e) => errors.push(format!("cannot list `{key}`: {}", e.reason())),
                },
                Err(e) => errors.push(format!("cannot open `{key}`: {}", e.reason())),
            }
            if let Err(e) = rustix::fs::unlinkat(dir, name, AtFlags::REMOVEDIR) {
                errors.push(format!("cannot remove `{key}`: {e}"));
            }
        }
        Some(_) => {
            if let Err(e) = rustix::fs::unlinkat(dir, name, AtFlags::empty()) {
                errors.push(format!("cannot remove `{key}`: {e}"));
            }
        }
    }
}

/// Removes the entry `key` names under `root` (its directories walked without following a
/// link); a missing one is no error.
pub(crate) fn remove_path(root: &Path, key: &str, errors: &mut Vec<String>) {
    let Some(mut names) = key_names(key) else {
        errors.push(format!("cannot remove `{key}`: not a manifest key"));
        return;
    };
    let Some(leaf) = names.pop() else { return };
    let parent = untrusted::open_anchor(root)
        .and_then(|fd| untrusted::walk_dirs(fd, &names, Path::new(key), Path::new(""), false));
    match parent {
        Ok(dir) => remove_tree(dir.as_fd(), &leaf, key, errors),
        Err(untrusted::UntrustedError::Missing { .. }) => {}
        Err(e) => errors.push(format!("cannot remove `{key}`: {}", e.reason())),
    }
}

/// Makes the directory `key` names under `root` and its parents, by descriptor.
pub(crate) fn make_dirs(root: &Path, key: &str) -> Result<(), String> {
    let names = key_names(key).ok_or_else(|| format!("`{key}` is not a manifest key"))?;
    let root_fd = untrusted::open_anchor(root).map_err(|e| e.to_string())?;
    untrusted::walk_dirs(root_fd, &names, Path::new(key), Path::new(""), true)
        .map(drop)
        .map_err(|e| e.reason())
}

/// Sets the permission bits of the entry `key` names under `root`, on a descriptor opened
/// without following a link (a link's own bits are not set).
pub(crate) fn set_mode(root: &Path, key: &str, mode: u32) -> Result<(), String> {
    let mut names = key_names(key).ok_or_else(|| format!("`{key}` is not a manifest key"))?;
    let leaf = names.pop().ok_or_else(|| format!("`{key}` is empty"))?;
    let root_fd = untrusted::open_anchor(root).map_err(|e| e.to_string())?;
    let dir = untrusted::walk_dirs(root_fd, &names, Path::new(key), Path::new(""), false)
        .map_err(|e| e.reason())?;
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY;
    let fd = rustix::fs::openat(&dir, leaf.as_os_str(), flags, Mode::empty()).map_err(|e| e.to_string())?;
    rustix::fs::fchmod(&fd, Mode::from_raw_mode(mode & 0o7777)).map_err(|e| e.to_string())
}

fn same_file(dir: BorrowedFd<'_>, name: &OsStr, key: &str, bytes: &[u8], mode: u32) -> bool {
    let Ok((file, size, have_mode)) = untrusted::open_file_at(dir, name, Path::new(key)) else {
        return false;
    };
    if have_mode != mode || size != bytes.len() as u64 {
        return false;
    }
    untrusted::read_bounded(file, size, size, Path::new(key))
        .is_ok_and(|have| file_digest(&have) == file_digest(bytes))
}

fn restore_entry(
    dir: BorrowedFd<'_>,
    name: &OsStr,
    key: &str,
    snapshot: &ContentSnapshot,
    errors: &mut Vec<String>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        errors.push(format!("cannot restore `{key}`: more than {MAX_DEPTH} directories deep"));
        return;
    }
    let have = untrusted::kind_at(dir, name);
    let Some(want) = snapshot.manifest.entries.get(key) else {
        remove_tree(dir, name, key, errors);
        return;
    };
    let shown = Path::new(key);
    match want.kind {
        EntryKind::Dir => {
            if have.is_some_and(|k| k != FileType::Directory) {
                remove_tree(dir, name, key, errors);
            }
            if have != Some(FileType::Directory)
                && let Err(e) = rustix::fs::mkdirat(dir, name, Mode::from_raw_mode(0o700))
            {
                errors.push(format!("cannot recreate `{key}`: {e}"));
                return;
            }
            let fd = match untrusted::open_dir_at(dir, name, shown) {
                Ok(fd) => fd,
                Err(e) => {
                    errors.push(format!("cannot open `{key}`: {}", e.reason()));
                    return;
                }
            };
            if let Err(e) = rustix::fs::fchmod(&fd, Mode::from_raw_mode(want.mode)) {
                errors.push(format!("cannot set the mode of `{key}`: {e}"));
            }
            match untrusted::entries(fd.as_fd(), shown) {
                Ok(children) => {
                    for (child, _) in children {
                        let child_key = format!(
                            "{key}/{}",
                            agentwarden_domain::guardrails::escape_name(child.as_bytes())
                        );
                        if !snapshot.manifest.entries.contains_key(&child_key) {
                            remove_tree(fd.as_fd(), &child, &child_key, errors);
                        }
                    }
                }
                Err(e) => errors.push(format!("cannot list `{key}`: {}", e.reason())),
            }
            let prefix = format!("{key}/");
            let wanted: Vec<&String> = snapshot
                .manifest
                .entries
                .range(prefix.clone()..)
                .take_while(|(k, _)| k.starts_with(&prefix))
                .map(|(k, _)| k)
                .filter(|k| !k.get(prefix.len()..).unwrap_or_default().contains('/'))
                .collect();
            for child_key in wanted {
                let leaf = child_key.get(prefix.len()..).unwrap_or_default();
                match unescape_name(leaf) {
                    Some(bytes) => restore_entry(
                        fd.as_fd(),
                        OsStr::from_bytes(&bytes),
                        child_key,
                        snapshot,
                        errors,
                        depth + 1,
                    ),
                    None => errors.push(format!("cannot restore `{child_key}`: not a manifest key")),
                }
            }
        }
        EntryKind::File => {
            let Some(bytes) = snapshot.contents.get(key) else {
                errors.push(format!("cannot restore `{key}`: the snapshot holds no content for it"));
                return;
            };
            if have == Some(FileType::RegularFile) && same_file(dir, name, key, bytes, want.mode) {
                return;
            }
            if have == Some(FileType::Directory) {
                remove_tree(dir, name, key, errors);
            }
            if let Err(e) = untrusted::write_at(dir, name, bytes, want.mode, shown) {
                errors.push(format!("cannot restore `{key}`: {}", e.reason()));
            }
        }
        EntryKind::Symlink => {
            let Some(target) = snapshot.contents.get(key) else {
                errors.push(format!("cannot restore `{key}`: the snapshot holds no target for it"));
                return;
            };
            if have == Some(FileType::Symlink)
                && rustix::fs::readlinkat(dir, name, Vec::new())
                    .is_ok_and(|t| t.as_bytes() == target.as_slice())
            {
                return;
            }
            if have == Some(FileType::Directory) {
                remove_tree(dir, name, key, errors);
            }
            let temp = untrusted::temp_name(name);
            let made = rustix::fs::symlinkat(OsStr::from_bytes(target), dir, temp.as_os_str())
                .and_then(|()| rustix::fs::renameat(dir, temp.as_os_str(), dir, name));
            if let Err(e) = made {
                let _ = rustix::fs::unlinkat(dir, temp.as_os_str(), AtFlags::empty());
                errors.push(format!("cannot restore the link `{key}`: {e}"));
            }
        }
        odd => errors.push(format!("`{key}` was {} at the start: it cannot be put back", odd.describe())),
    }
}

/// Puts `snapshot` back under `root` (U-14); `Err` lists every entry that could not be.
pub(crate) fn restore(root: &Path, snapshot: &ContentSnapshot) -> Result<(), String> {
    snapshot.verify().map_err(|e| e.to_string())?;
    let root_fd = untrusted::open_anchor(root).map_err(|e| e.to_string())?;
    let mut errors = Vec::new();
    for p in &snapshot.manifest.protected {
        let rel = check_protected(p)?;
        let mut names: Vec<OsString> = rel.components().map(|c| c.as_os_str().to_os_string()).collect();
        let Some(leaf) = names.pop() else { continue };
        let Some(key) = rel.to_str() else { continue };
        let wanted = snapshot.manifest.entries.contains_key(key);
        let dup = rustix::fs::openat(&root_fd, ".", DOT, Mode::empty()).map_err(|e| e.to_string())?;
        // The directories on the way are not protected: made when missing, never followed.
        match untrusted::walk_dirs(dup, &names, &rel, Path::new(""), wanted) {
            Ok(parent) => restore_entry(parent.as_fd(), &leaf, key, snapshot, &mut errors, 0),
            Err(untrusted::UntrustedError::Missing { .. }) if !wanted => {}
            Err(e) => errors.push(format!("cannot reach `{p}`: {}", e.reason())),
        }
    }
    if errors.is_empty() { Ok(()) } else { Err(errors.join("; ")) }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn puts_back_content_kinds_and_modes_and_removes_what_was_added() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("okrs/sub")).unwrap();
        std::fs::write(root.join("okrs/a.md"), "a").unwrap();
        std::fs::write(root.join("okrs/sub/b.sh"), "b").unwrap();
        std::fs::set_permissions(root.join("okrs/sub/b.sh"), std::fs::Permissions::from_mode(0o750)).unwrap();
        std::os::unix::fs::symlink("a.md", root.join("okrs/l")).unwrap();
        let protected = vec!["okrs".to_owned()];
        let before = crate::snapshot::capture(root, &protected).unwrap();
        // The agent: edits, chmods, swaps a file for a link to outside, adds a FIFO, a socket,
        // a non-UTF-8 name and a directory, deletes a file.
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("victim"), "keep").unwrap();
        std::fs::write(root.join("okrs/a.md"), "A").unwrap();
        std::fs::set_permissions(root.join("okrs/sub/b.sh"), std::fs::Permissions::from_mode(0o777)).unwrap();
        std::fs::remove_file(root.join("okrs/l")).unwrap();
        std::fs::create_dir(root.join("okrs/l")).unwrap();
        std::fs::remove_file(root.join("okrs/sub/b.sh")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("victim"), root.join("okrs/sub/b.sh")).unwrap();
        let fd = untrusted::open_anchor(&root.join("okrs")).unwrap();
        rustix::fs::mknodat(&fd, "pipe", FileType::Fifo, Mode::from_raw_mode(0o644), 0).unwrap();
        let _socket = std::os::unix::net::UnixListener::bind(root.join("okrs/sock")).unwrap();
        std::fs::write(root.join(OsStr::from_bytes(b"okrs/bad\xff")), "x").unwrap();
        std::fs::create_dir_all(root.join("okrs/new/deep")).unwrap();
        let changed = crate::snapshot::snapshot(root, &protected).unwrap();
        let d = agentwarden_domain::guardrails::diff(&before.manifest, &changed);
        assert_eq!(d.added, ["okrs/bad\\xff", "okrs/new", "okrs/new/deep", "okrs/pipe", "okrs/sock"]);
        assert_eq!(
            d.odd,
            [
                "okrs/bad\\xff (a regular file whose name is not UTF-8)",
                "okrs/pipe (a FIFO)",
                "okrs/sock (a socket)"
            ]
        );
        restore(root, &before).unwrap();
        let after = crate::snapshot::capture(root, &protected).unwrap();
        assert_eq!(after, before, "content, kinds and modes are back, the additions gone");
        assert_eq!(std::fs::read_to_string(outside.path().join("victim")).unwrap(), "keep");
    }

    #[test]
    fn a_tree_too_deep_to_remove_is_an_error_never_a_stack_overflow() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join("okrs")).unwrap();
        let before = crate::snapshot::capture(root, &["okrs".to_owned()]).unwrap();
        let mut deep = root.join("okrs");
        for _ in 0..(MAX_DEPTH + 10) {
            deep.push("d");
        }
        std::fs::create_dir_all(&deep).unwrap();
        let e = restore(root, &before).unwrap_err();
        assert!(e.contains("directories deep"), "{e}");
    }

    #[test]
    fn a_protected_path_that_did_not_exist_is_removed_and_links_on_the_way_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let before = crate::snapshot::capture(root, &["okrs".to_owned()]).unwrap();
        std::fs::create_dir(root.join("okrs")).unwrap();
        std::fs::write(root.join("okrs/x"), "x").unwrap();
        restore(root, &before).unwrap();
        assert!(!root.join("okrs").exists());
        // A parent of a protected path swapped for a link: refused, nothing written through it.
        std::fs::create_dir_all(root.join("docs/policy")).unwrap();
        std::fs::write(root.join("docs/policy/p.md"), "p").unwrap();
        let protected = vec!["docs/policy".to_owned()];
        let before = crate::snapshot::capture(root, &protected).unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::create_dir(outside.path().join("policy")).unwrap();
        std::fs::rename(root.join("docs"), root.join("docs.old")).unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("docs")).unwrap();
        assert!(restore(root, &before).unwrap_err().contains("symbolic link"));
        assert_eq!(std::fs::read_dir(outside.path().join("policy")).unwrap().count(), 0);
    }
}
