//! Questions about a path of the local file system that are answered without opening it: does
//! an entry exist under this name, what is its canonical form, remove it. The application asks
//! them through here, so that every access of the local file system is in this crate (issue 22:
//! no `std::fs` in the application). Content is read and written by descriptor in
//! [`crate::untrusted`]; what is answered here is only ever a name, which the caller treats as
//! such (an entry that exists may be of any kind and change the next instant).

use std::io;
use std::path::{Path, PathBuf};

/// Whether an entry of any kind is at `path`, not following a final symbolic link (`lstat`):
/// `Ok(false)` only when there is none; any other failure is an error for the caller to fail
/// closed on.
pub fn entry_exists(path: &Path) -> io::Result<bool> {
    match std::fs::symlink_metadata(path) {
        Ok(_) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

/// Removes the entry at `path` (not a directory): `Ok(false)` when there was none.
pub fn remove_entry(path: &Path) -> io::Result<bool> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

/// Removes the entry at `path` whatever it is, a directory with everything in it, never
/// following a symbolic link: `Ok(false)` when there was none.
pub fn remove_tree(path: &Path) -> io::Result<bool> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
        Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(path).map(|()| true),
        Ok(_) => remove_entry(path),
    }
}

/// Removes the directory at `path` if it is empty: `Ok(false)` when it is not, or is not there.
pub fn remove_empty_dir(path: &Path) -> io::Result<bool> {
    match std::fs::remove_dir(path) {
        Ok(()) => Ok(true),
        Err(e) if matches!(e.kind(), io::ErrorKind::NotFound | io::ErrorKind::DirectoryNotEmpty) => Ok(false),
        Err(e) => Err(e),
    }
}

/// `path` absolute, with every symbolic link resolved (`realpath`); an error when any part of
/// it does not exist.
pub fn canonical(path: &Path) -> io::Result<PathBuf> {
    std::fs::canonicalize(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_of_any_kind_exists_a_missing_one_does_not_and_a_dangling_link_does() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        assert!(!entry_exists(&file).unwrap());
        std::fs::write(&file, "x").unwrap();
        assert!(entry_exists(&file).unwrap());
        let link = dir.path().join("l");
        std::os::unix::fs::symlink(dir.path().join("nowhere"), &link).unwrap();
        assert!(entry_exists(&link).unwrap(), "a dangling link is an entry: it is not followed");
        assert!(remove_entry(&link).unwrap());
        assert!(!remove_entry(&link).unwrap());
        assert_eq!(canonical(dir.path()).unwrap(), dir.path().canonicalize().unwrap());
    }

    #[test]
    fn a_name_that_cannot_be_looked_up_is_an_error_not_an_absence() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, "x").unwrap();
        // A file used as a directory: ENOTDIR, which is not "no such entry".
        assert!(entry_exists(&file.join("below")).is_err());
    }
}
