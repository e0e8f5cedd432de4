//! What the launcher confines, opened by descriptor (E-29): each grant opened from the root
//! with no symbolic link followed on the way nor at its end, each directory beneath it opened
//! one name at a time beneath its opened parent, the same way; then checked on the descriptor
//! and used through it. The agent, the launcher's parent, may swap any name it can write for a
//! link at any moment: a path checked and then used by name again could be another file by the
//! time it is used; a descriptor cannot.

use std::ffi::OsStr;
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};

use rustix::fs::{CWD, FileType, Mode, OFlags, ResolveFlags, fstat, openat2};
use rustix::io::Errno;

use crate::policy::Policy;

/// No link of either kind is followed, anywhere on the way.
const NO_LINKS: ResolveFlags = ResolveFlags::NO_SYMLINKS.union(ResolveFlags::NO_MAGICLINKS);

/// A descriptor that names a place and opens nothing: a link at the end is the link itself.
const PLACE: OFlags = OFlags::PATH.union(OFlags::NOFOLLOW).union(OFlags::CLOEXEC);

/// How often a lookup the kernel says raced a rename or a mount is tried again before the
/// launcher gives up and refuses.
const TRIES: usize = 8;

/// A grant as the launcher holds it: the path it was given, and the descriptor opened there.
#[derive(Debug)]
pub(crate) struct Opened {
    pub(crate) path: PathBuf,
    pub(crate) fd: OwnedFd,
}

/// The grants, opened.
#[derive(Debug)]
pub(crate) struct Grants {
    /// The write grants that exist.
    pub(crate) write: Vec<Opened>,
    /// The read grants that exist with no link on the way (`/` for reads everywhere).
    pub(crate) read: Vec<Opened>,
    /// Directories in the write grants that refuse the creation of entries: on the way to a
    /// missing protected path (E-34).
    pub(crate) narrowed: Vec<Opened>,
    /// The directories directly beneath the narrowed ones that are not narrowed: each takes
    /// the write grant's rights by its own rule (E-34).
    pub(crate) beside: Vec<Opened>,
}

/// Opens the policy's grants (E-29). A grant that does not exist grants nothing (Landlock grants
/// beneath what it can open). A write grant with a symbolic link on the way, or that is one,
/// refuses: an earlier call may have planted it, to be granted wherever it points (E-10). A
/// read grant with one grants nothing (E-30). Any other failure refuses.
pub(crate) fn grants(policy: &Policy) -> Result<Grants, String> {
    let mut write = Vec::new();
    for path in &policy.write {
        match absolute(path) {
            Ok(Some(opened)) if kind(&opened.fd)? != FileType::Symlink => write.push(opened),
            Ok(None) => {}
            Ok(Some(_)) | Err(Errno::LOOP) => {
                return Err(format!("the write grant {} has a symbolic link on the way", path.display()));
            }
            Err(e) => return Err(format!("cannot open the write grant {}: {e}", path.display())),
        }
    }
    let everywhere = [PathBuf::from("/")];
    let reads = policy.read.as_deref().unwrap_or(&everywhere);
    let mut read = Vec::new();
    for path in reads {
        match absolute(path) {
            Ok(Some(opened)) if kind(&opened.fd)? != FileType::Symlink => read.push(opened),
            Ok(Some(_) | None) | Err(Errno::LOOP) => {}
            Err(e) => return Err(format!("cannot open the read grant {}: {e}", path.display())),
        }
    }
    Ok(Grants { write, read, narrowed: Vec::new(), beside: Vec::new() })
}

/// Opens the absolute, normal `path` from the root, following no link: `None` when it does not
/// exist (or a name on the way is not a directory).
fn absolute(path: &Path) -> Result<Option<Opened>, Errno> {
    match retried(|| openat2(CWD, path, PLACE, Mode::empty(), NO_LINKS)) {
        Ok(fd) => Ok(Some(Opened { path: path.to_path_buf(), fd })),
        Err(Errno::NOENT | Errno::NOTDIR) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Opens the one name `name` beneath the directory `dir`, following no link, never leaving
/// `dir`: a link at the end is opened as the link.
pub(crate) fn beneath(dir: impl AsFd, name: &OsStr) -> Result<OwnedFd, Errno> {
    let dir = dir.as_fd();
    retried(|| openat2(dir, name, PLACE, Mode::empty(), NO_LINKS | ResolveFlags::BENEATH))
}

/// Opens the relative `path` beneath the directory `dir`, following no link, never leaving
/// `dir`: a link at the end is opened as the link.
pub(crate) fn beneath_path(dir: impl AsFd, path: &Path) -> Result<OwnedFd, Errno> {
    let dir = dir.as_fd();
    retried(|| openat2(dir, path, PLACE, Mode::empty(), NO_LINKS | ResolveFlags::BENEATH))
}

/// Opens the directory at the relative `path` beneath `dir` for reading its names, following
/// no link, never leaving `dir`.
pub(crate) fn directory_beneath(dir: impl AsFd, path: &Path) -> Result<OwnedFd, Errno> {
    let dir = dir.as_fd();
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    retried(|| openat2(dir, path, flags, Mode::empty(), NO_LINKS | ResolveFlags::BENEATH))
}

/// What the descriptor names: a directory, a file, a link…
pub(crate) fn kind(fd: impl AsFd) -> Result<FileType, String> {
    fstat(fd)
        .map(|stat| FileType::from_raw_mode(stat.st_mode))
        .map_err(|e| format!("cannot read a descriptor: {e}"))
}

/// `open`, tried again while the kernel says the lookup raced a rename or a mount.
fn retried(mut open: impl FnMut() -> Result<OwnedFd, Errno>) -> Result<OwnedFd, Errno> {
    let mut result = open();
    for _ in 1..TRIES {
        if !matches!(result, Err(Errno::AGAIN)) {
            break;
        }
        result = open();
    }
    result
}
