//! Questions about a path of the local file system that are answered without opening it: does
//! an entry exist under this name, what is its canonical form, where does a path land (T-17),
//! remove it. The application asks
//! them through here, so that every access of the local file system is in this crate (issue 22:
//! no `std::fs` in the application). Content is read and written by descriptor in
//! [`crate::untrusted`]; what is answered here is only ever a name, which the caller treats as
//! such (an entry that exists may be of any kind and change the next instant).

use std::ffi::OsString;
use std::io;
use std::path::{Component, Path, PathBuf};

use agentwarden_domain::lineage::PlaceError;

/// The most symbolic links one path may go through, as Linux's `MAXSYMLINKS`: more is a loop.
pub const MAX_LINKS: usize = 40;

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

/// Whether `path`, links followed, is a regular file someone may execute (H-63): the
/// launcher the human installed. `Err` when it cannot be looked up.
pub fn executable_file(path: &Path) -> io::Result<bool> {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::metadata(path)?;
    Ok(meta.is_file() && meta.permissions().mode() & 0o111 != 0)
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

/// Where `path` (absolute, as written) lands, resolved as the kernel resolves it (T-17): component
/// by component from `/`, each symbolic link read (`lstat`, `readlink`) and followed before the
/// components after it, a `..` applied to what was reached so far. From the first component that
/// does not exist, the rest are names a writer would create (a `..` among them undoes one). The
/// result is absolute, with no `.`, `..` or symbolic link in it.
///
/// `Err` says why it cannot be placed: not absolute, a NUL, more than [`MAX_LINKS`] links (a
/// loop), a component that cannot be looked up or a link that cannot be read (its reason kept),
/// a final component that is a link to nothing (a writer would create its target, or refuse),
/// a result that is not UTF-8. What is read may change the next instant: the caller judges a
/// moment, not the write (the race in `docs/threat-model.md`).
pub fn place(path: &str) -> Result<String, PlaceError> {
    if !path.starts_with('/') || path.contains('\0') {
        return Err(PlaceError::NotAbsolute { path: path.to_owned() });
    }
    let mut pending: Vec<OsString> = components(Path::new(path));
    let mut real = PathBuf::from("/");
    let mut links = 0_usize;
    let mut missing = false;
    let mut final_link = false;
    while let Some(part) = pending.pop() {
        if part == ".." {
            real.pop();
            continue;
        }
        let next = real.join(&part);
        if missing {
            real = next;
            continue;
        }
        match std::fs::symlink_metadata(&next) {
            Ok(meta) if meta.file_type().is_symlink() => {
                // `/proc/self/cwd`, `/dev/fd/N`: what such a link names depends on who reads
                // it, and Warden is not the writer.
                if names_by_reader(&real) {
                    return Err(PlaceError::ReaderDependent { link: next.display().to_string() });
                }
                links += 1;
                if links > MAX_LINKS {
                    return Err(PlaceError::TooManyLinks { at: next.display().to_string(), max: MAX_LINKS });
                }
                let target = std::fs::read_link(&next).map_err(|e| PlaceError::LinkUnreadable {
                    link: next.display().to_string(),
                    reason: e.to_string(),
                })?;
                final_link = pending.is_empty();
                if target.is_absolute() {
                    real = PathBuf::from("/");
                }
                pending.extend(components(&target));
            }
            Ok(_) => real = next,
            // The rest is made by the writer, or its write fails (a file used as a directory).
            Err(e) if matches!(e.kind(), io::ErrorKind::NotFound | io::ErrorKind::NotADirectory) => {
                missing = true;
                real = next;
            }
            Err(e) => {
                return Err(PlaceError::LookupFailed {
                    at: next.display().to_string(),
                    reason: e.to_string(),
                });
            }
        }
    }
    if final_link && missing {
        return Err(PlaceError::LinkToNothing { path: path.to_owned() });
    }
    real.into_os_string().into_string().map_err(|_| PlaceError::NotUtf8 { path: path.to_owned() })
}

/// Whether the links in `dir` are the process file system's (`/proc`, wherever it is mounted),
/// whose targets depend on the process that reads them; a directory that cannot be asked is
/// taken to be one.
fn names_by_reader(dir: &Path) -> bool {
    rustix::fs::statfs(dir).map_or(true, |fs| fs.f_type == rustix::fs::PROC_SUPER_MAGIC)
}

/// Paths placed where they land on the local file system ([`place`]): the domain's question
/// (T-17) answered.
#[derive(Clone, Copy, Debug, Default)]
pub struct LocalPaths;

impl agentwarden_domain::lineage::ResolvePath for LocalPaths {
    fn place(&self, path: &str) -> Result<String, PlaceError> {
        place(path)
    }

    fn leaf_is_link(&self, path: &str) -> Result<bool, PlaceError> {
        leaf_is_link(path)
    }
}

/// Whether `path` (absolute, as written) ends in a symbolic link (T-18): its parent placed by
/// [`place`], its last name there looked up without following it (`lstat`). A last name that is
/// `.`, `..`, or not there is not a link; a lookup that fails otherwise is an error.
pub fn leaf_is_link(path: &str) -> Result<bool, PlaceError> {
    let Some((parent, leaf)) = agentwarden_domain::lineage::parent_and_leaf(path) else { return Ok(false) };
    let parent = place(parent)?;
    let here = Path::new(&parent).join(leaf);
    match std::fs::symlink_metadata(&here) {
        Ok(meta) => Ok(meta.file_type().is_symlink()),
        Err(e) if matches!(e.kind(), io::ErrorKind::NotFound | io::ErrorKind::NotADirectory) => Ok(false),
        Err(e) => Err(PlaceError::LookupFailed { at: here.display().to_string(), reason: e.to_string() }),
    }
}

/// `path`'s names and `..`s, last first (a stack), `.` and the root left out.
fn components(path: &Path) -> Vec<OsString> {
    let mut parts: Vec<OsString> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(name) => Some(name.to_os_string()),
            Component::ParentDir => Some(OsString::from("..")),
            Component::RootDir | Component::CurDir | Component::Prefix(_) => None,
        })
        .collect();
    parts.reverse();
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kernel's reading of each link layout (T-17), against a real directory tree.
    #[test]
    fn a_path_is_placed_where_the_kernel_lands() {
        let dir = tempfile::tempdir().unwrap();
        let p = std::fs::canonicalize(dir.path()).unwrap();
        let outside = tempfile::tempdir().unwrap();
        let out = std::fs::canonicalize(outside.path()).unwrap();
        for d in ["src/sub", "agents", "okrs"] {
            std::fs::create_dir_all(p.join(d)).unwrap();
        }
        std::fs::write(p.join("okrs/q4.md"), "q4").unwrap();
        std::fs::write(p.join("src/file"), "f").unwrap();
        let links: [(&str, &Path); 10] = [
            ("src/l", Path::new("../agents")),
            ("src/up", Path::new("..")),
            ("src/out", &out),
            ("src/dangling", Path::new("nowhere")),
            ("src/c1", Path::new("c2")),
            ("src/c2", Path::new("../okrs")),
            ("src/loop1", Path::new("loop2")),
            ("src/loop2", Path::new("loop1")),
            ("src/final", Path::new("../okrs/q4.md")),
            ("src/self", Path::new("self")),
        ];
        for (link, target) in links {
            std::os::unix::fs::symlink(target, p.join(link)).unwrap();
        }
        let r = p.display().to_string();
        let o = out.display().to_string();
        // Path under the root, where it lands, or `None`: it cannot be placed; why.
        let rows: [(&str, Option<String>, &str); 15] = [
            ("src/sub/a", Some(format!("{r}/src/sub/a")), "plain"),
            (
                "src/l/../agentwarden.toml",
                Some(format!("{r}/agentwarden.toml")),
                "a link to a sibling, then `..`",
            ),
            ("src/up/escape5.txt", Some(format!("{r}/escape5.txt")), "a link to `..`"),
            ("src/out/x", Some(format!("{o}/x")), "a link outside the project"),
            ("src/c1/q4.md", Some(format!("{r}/okrs/q4.md")), "a chain"),
            ("src/final", Some(format!("{r}/okrs/q4.md")), "a final link to a file"),
            ("src/new/dir/../b", Some(format!("{r}/src/new/b")), "`..` among names still to be made"),
            ("src/file/x", Some(format!("{r}/src/file/x")), "a file used as a directory: the write fails"),
            ("src/../../../../../..", Some("/".to_owned()), "`..` above `/`"),
            ("src/./sub//a", Some(format!("{r}/src/sub/a")), "`.` and repeated separators"),
            ("src/dangling", None, "a final link to nothing"),
            ("src/loop1/x", None, "a loop"),
            ("src/self", None, "a link to itself"),
            (
                "src/dangling/x",
                Some(format!("{r}/src/nowhere/x")),
                "a link to nothing, not final: a name to make",
            ),
            ("src/c1/../src/l/..", Some(r.clone()), "links and `..` in turn"),
        ];
        for (path, expected, why) in rows {
            let seen = place(&format!("{r}/{path}"));
            match expected {
                Some(want) => assert_eq!(seen, Ok(want), "{why}: {path}"),
                None => assert!(seen.is_err(), "{why}: {path}: {seen:?}"),
            }
        }
        for magic in ["/proc/self/cwd/okrs/q4.md", "/dev/fd/0", "/proc/thread-self/root/etc"] {
            assert!(place(magic).is_err(), "{magic}: a link that names what its reader sees");
        }
        assert!(place("relative/x").is_err(), "not absolute");
        assert!(place("/a\0b").is_err(), "a NUL");
    }

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
