//! Files an agent can touch, read and written by descriptor (issue 19, rulings U-1 … U-5; the
//! hook reads its event from stdin and its `result.json` through here, U-9).
//!
//! The agent under guard runs as the user: it can replace any file Warden reads or writes with
//! a symbolic link, a FIFO, a socket or a directory, at any instant. So nothing here checks a
//! path and then opens it. A path is split into a trusted *anchor* (a directory the human
//! named: the workspace root, the working directory, a file's own directory) and an untrusted
//! *tail*, and every component of the tail is opened with `openat` relative to the descriptor
//! of the one before, with `O_NOFOLLOW`: a symbolic link anywhere in the tail is refused, the
//! same way for every kind of file (U-1, U-2). A file is opened `O_NOFOLLOW | O_NONBLOCK |
//! O_CLOEXEC`, `fstat`ed on the descriptor, refused unless it is a regular file (naming what
//! it is), and read with a size bound (U-3): a FIFO never blocks the reader.
//!
//! Writes go to a temporary file created `O_EXCL | O_NOFOLLOW` under a random name in the
//! directory opened by descriptor, are synced, renamed over the target with `renameat` and the
//! directory is synced (U-4): a link planted under any name cannot redirect them.

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Component, Path, PathBuf};

pub use rustix::fs::FileType;
use rustix::fs::{AtFlags, Mode, OFlags};
use rustix::io::Errno;

/// Why an untrusted file could not be read or written. The messages name the path and what
/// was found there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UntrustedError {
    /// Nothing is there (or a directory on the way is missing).
    Missing {
        /// The path as given.
        path: String,
    },
    /// The path, or a directory on the way to it, is a symbolic link: never followed (U-1).
    Link {
        /// The path as given.
        path: String,
        /// The component that is a link.
        at: String,
    },
    /// Something other than what was asked for is there: a FIFO, a socket, a device, a
    /// directory where a file was expected, a file where a directory was expected.
    WrongKind {
        /// The path as given.
        path: String,
        /// What is there, e.g. `a FIFO`.
        kind: &'static str,
        /// What was expected, e.g. `a regular file`.
        expected: &'static str,
    },
    /// Larger than the bound.
    TooLarge {
        /// The path as given.
        path: String,
        /// The bound in bytes.
        limit: u64,
        /// Its size, when known before the read.
        size: Option<u64>,
    },
    /// Not UTF-8 where text was asked for.
    NotUtf8 {
        /// The path as given.
        path: String,
    },
    /// The path leaves its anchor (`..`) or names no file.
    NotPlain {
        /// The path as given.
        path: String,
    },
    /// Any other I/O error.
    Io {
        /// The path as given.
        path: String,
        /// The operating system's reason.
        why: String,
    },
}

impl fmt::Display for UntrustedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UntrustedError::Missing { path } => write!(f, "`{path}` does not exist"),
            UntrustedError::Link { path, at } if path == at => {
                write!(f, "`{path}` is a symbolic link (not followed)")
            }
            UntrustedError::Link { path, at } => {
                write!(f, "`{path}` passes through the symbolic link `{at}` (not followed)")
            }
            UntrustedError::WrongKind { path, kind, expected } => {
                write!(f, "`{path}` is {kind}, not {expected}")
            }
            UntrustedError::TooLarge { path, .. } => write!(f, "`{path}` {}", self.reason()),
            UntrustedError::NotUtf8 { path } => write!(f, "`{path}` is not valid UTF-8"),
            UntrustedError::NotPlain { path } => {
                write!(f, "`{path}` is not a plain path (no `..`, a file name at the end)")
            }
            UntrustedError::Io { path, why } => write!(f, "`{path}`: {why}"),
        }
    }
}

impl std::error::Error for UntrustedError {}

impl UntrustedError {
    /// The reason without the path (for callers that name the file themselves).
    pub fn reason(&self) -> String {
        match self {
            UntrustedError::Missing { .. } => "does not exist".into(),
            UntrustedError::Link { path, at } if path == at => "is a symbolic link (not followed)".into(),
            UntrustedError::Link { at, .. } => {
                format!("passes through the symbolic link `{at}` (not followed)")
            }
            UntrustedError::WrongKind { kind, expected, .. } => format!("is {kind}, not {expected}"),
            UntrustedError::TooLarge { limit, size: Some(size), .. } => {
                format!("is {size} bytes, more than the {limit} allowed")
            }
            UntrustedError::TooLarge { limit, size: None, .. } => {
                format!("grew past the bound while read: more than the {limit} allowed")
            }
            UntrustedError::NotUtf8 { .. } => "is not valid UTF-8".into(),
            UntrustedError::NotPlain { .. } => "is not a plain path".into(),
            UntrustedError::Io { why, .. } => why.clone(),
        }
    }
}

/// What a file type is, in words (`a FIFO`, `a socket`, …).
pub fn kind_name(kind: FileType) -> &'static str {
    match kind {
        FileType::RegularFile => "a regular file",
        FileType::Directory => "a directory",
        FileType::Symlink => "a symbolic link",
        FileType::Fifo => "a FIFO",
        FileType::Socket => "a socket",
        FileType::CharacterDevice => "a character device",
        FileType::BlockDevice => "a block device",
        FileType::Unknown => "an unknown kind of file",
    }
}

const DIR_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC)
    .union(OFlags::NONBLOCK);
const FILE_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::NOFOLLOW)
    .union(OFlags::NONBLOCK)
    .union(OFlags::CLOEXEC)
    .union(OFlags::NOCTTY);

fn shown(path: &Path) -> String {
    path.display().to_string()
}

fn io(path: &Path, e: impl fmt::Display) -> UntrustedError {
    UntrustedError::Io { path: shown(path), why: e.to_string() }
}

/// The kind of `name` in `dir`, without following it.
pub(crate) fn kind_at(dir: BorrowedFd<'_>, name: &OsStr) -> Option<FileType> {
    rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW).ok().map(|s| FileType::from_raw_mode(s.st_mode))
}

/// The error for an `openat` of `name` in `dir` that failed with `errno`.
fn open_error(
    dir: BorrowedFd<'_>,
    name: &OsStr,
    errno: Errno,
    path: &Path,
    at: &Path,
    expected: &'static str,
) -> UntrustedError {
    match errno {
        Errno::NOENT => UntrustedError::Missing { path: shown(path) },
        Errno::LOOP | Errno::NOTDIR | Errno::NXIO | Errno::OPNOTSUPP => match kind_at(dir, name) {
            Some(FileType::Symlink) => UntrustedError::Link { path: shown(path), at: shown(at) },
            Some(kind) => UntrustedError::WrongKind { path: shown(path), kind: kind_name(kind), expected },
            None => io(path, errno),
        },
        other => io(path, other),
    }
}

/// Opens the directory `anchor` names (links followed: the human named it).
pub fn open_anchor(anchor: &Path) -> Result<OwnedFd, UntrustedError> {
    let anchor = if anchor.as_os_str().is_empty() { Path::new(".") } else { anchor };
    rustix::fs::open(anchor, OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty()).map_err(
        |e| if e == Errno::NOENT { UntrustedError::Missing { path: shown(anchor) } } else { io(anchor, e) },
    )
}

fn strip(p: &Path) -> Vec<Component<'_>> {
    p.components().filter(|c| !matches!(c, Component::CurDir)).collect()
}

/// Splits `path` into an anchor and plain components (U-2): under `root` (lexically, `.`
/// components ignored) the anchor is `root` and every component after it is untrusted;
/// elsewhere the anchor is the file's own directory and only the file name is.
pub fn split(root: Option<&Path>, path: &Path) -> Result<(PathBuf, Vec<OsString>), UntrustedError> {
    let not_plain = || UntrustedError::NotPlain { path: shown(path) };
    if let Some(root) = root {
        let (root_parts, parts) = (strip(root), strip(path));
        let same_base = root.is_absolute() == path.is_absolute();
        let tail = parts.get(root_parts.len()..).unwrap_or_default();
        // A path that leaves the root at once (`../x`) is not under it: anchored at its own
        // directory below. One that goes down and then up (`a/../../x`) is refused.
        let leaves = matches!(tail.first(), Some(Component::ParentDir));
        if same_base && !leaves && !tail.is_empty() && parts.starts_with(&root_parts) {
            let mut names = Vec::with_capacity(tail.len());
            for c in tail {
                match c {
                    Component::Normal(name) => names.push(name.to_os_string()),
                    _ => return Err(not_plain()),
                }
            }
            return Ok((root.to_path_buf(), names));
        }
    }
    let name = match path.components().next_back() {
        Some(Component::Normal(name)) => name.to_os_string(),
        _ => return Err(not_plain()),
    };
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    Ok((parent.to_path_buf(), vec![name]))
}

/// Walks `names` as directories from `dir`, never following a link. With `create`, missing
/// directories are made (mode 0o755 before the umask).
pub fn walk_dirs(
    dir: OwnedFd,
    names: &[OsString],
    path: &Path,
    anchor: &Path,
    create: bool,
) -> Result<OwnedFd, UntrustedError> {
    let mut fd = dir;
    let mut at = anchor.to_path_buf();
    for name in names {
        at.push(name);
        if name.as_bytes() == b".." || name.as_bytes() == b"." || name.is_empty() {
            return Err(UntrustedError::NotPlain { path: shown(path) });
        }
        let opened = match rustix::fs::openat(&fd, name.as_os_str(), DIR_FLAGS, Mode::empty()) {
            Err(Errno::NOENT) if create => {
                match rustix::fs::mkdirat(&fd, name.as_os_str(), Mode::from_raw_mode(0o755)) {
                    Ok(()) | Err(Errno::EXIST) => {}
                    Err(e) => return Err(io(&at, e)),
                }
                rustix::fs::openat(&fd, name.as_os_str(), DIR_FLAGS, Mode::empty())
            }
            other => other,
        };
        fd = opened.map_err(|e| open_error(fd.as_fd(), name, e, path, &at, "a directory"))?;
    }
    Ok(fd)
}

/// Opens the directory `name` in `dir` without following a link.
pub fn open_dir_at(dir: BorrowedFd<'_>, name: &OsStr, path: &Path) -> Result<OwnedFd, UntrustedError> {
    rustix::fs::openat(dir, name, DIR_FLAGS, Mode::empty())
        .map_err(|e| open_error(dir, name, e, path, path, "a directory"))
}

/// Opens the directory that holds the file `path` names (anchored as [`split`] says) and
/// returns it with the file's name.
fn open_parent(
    root: Option<&Path>,
    path: &Path,
    create: bool,
) -> Result<(OwnedFd, OsString), UntrustedError> {
    let (anchor, mut names) = split(root, path)?;
    let name = names.pop().ok_or_else(|| UntrustedError::NotPlain { path: shown(path) })?;
    let anchor_fd = match open_anchor(&anchor) {
        Err(UntrustedError::Missing { .. }) if create => {
            std::fs::create_dir_all(&anchor).map_err(|e| io(&anchor, e))?;
            open_anchor(&anchor)?
        }
        other => other?,
    };
    let dir = walk_dirs(anchor_fd, &names, path, &anchor, create)?;
    Ok((dir, name))
}

/// Opens the regular file `name` in `dir` for reading (U-3); anything else is refused.
pub fn open_file_at(
    dir: BorrowedFd<'_>,
    name: &OsStr,
    path: &Path,
) -> Result<(File, u64, u32), UntrustedError> {
    let fd = rustix::fs::openat(dir, name, FILE_FLAGS, Mode::empty())
        .map_err(|e| open_error(dir, name, e, path, path, "a regular file"))?;
    let stat = rustix::fs::fstat(&fd).map_err(|e| io(path, e))?;
    let kind = FileType::from_raw_mode(stat.st_mode);
    if kind != FileType::RegularFile {
        return Err(UntrustedError::WrongKind {
            path: shown(path),
            kind: kind_name(kind),
            expected: "a regular file",
        });
    }
    let size = u64::try_from(stat.st_size).unwrap_or(0);
    Ok((File::from(fd), size, stat.st_mode & 0o7777))
}

/// Makes the directory `path` and its missing parents with `mode`, as `mkdir -p -m MODE` does
/// (the directories of a new secret key are made 0700, A-30).
pub fn create_dirs(path: &Path, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new().recursive(true).mode(mode).create(path)
}

/// Opens the regular file `path` for writing by descriptor (U-1, U-3): its directory opened as
/// the human named it, then the name opened in it without following a link and without waiting
/// on a FIFO (`O_NOFOLLOW | O_NONBLOCK`), created with `mode` when missing — with `create_new`,
/// only created (`O_EXCL`: a name that exists, a planted link included, is `AlreadyExists`) —
/// and refused unless what was opened is a regular file. The file is not truncated.
pub fn open_for_write(path: &Path, mode: u32, create_new: bool) -> std::io::Result<File> {
    let name = path.file_name().ok_or_else(|| std::io::Error::other("names no file"))?;
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let dir = open_anchor(parent).map_err(|e| std::io::Error::other(e.to_string()))?;
    let mut flags = OFlags::WRONLY | OFlags::CREATE | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    if create_new {
        flags |= OFlags::EXCL;
    }
    let fd =
        rustix::fs::openat(&dir, name, flags, Mode::from_raw_mode(mode)).map_err(std::io::Error::from)?;
    let kind = FileType::from_raw_mode(rustix::fs::fstat(&fd).map_err(std::io::Error::from)?.st_mode);
    if kind != FileType::RegularFile {
        return Err(std::io::Error::other(format!("is {}, not a regular file", kind_name(kind))));
    }
    Ok(File::from(fd))
}

/// Reads at most `max` bytes of an open file; more is [`UntrustedError::TooLarge`].
pub fn read_bounded(file: File, size: u64, max: u64, path: &Path) -> Result<Vec<u8>, UntrustedError> {
    if size > max {
        return Err(UntrustedError::TooLarge { path: shown(path), limit: max, size: Some(size) });
    }
    // The file may grow after the fstat: read one byte past the bound to know.
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    file.take(max.saturating_add(1)).read_to_end(&mut bytes).map_err(|e| io(path, e))?;
    if bytes.len() as u64 > max {
        return Err(UntrustedError::TooLarge { path: shown(path), limit: max, size: None });
    }
    Ok(bytes)
}

/// The bytes and permission bits of the regular file `path` (at most `max` bytes), anchored
/// at `root` when the path is under it (U-2).
pub fn read_bytes_mode(root: Option<&Path>, path: &Path, max: u64) -> Result<(Vec<u8>, u32), UntrustedError> {
    let (dir, name) = open_parent(root, path, false)?;
    let (file, size, mode) = open_file_at(dir.as_fd(), &name, path)?;
    Ok((read_bounded(file, size, max, path)?, mode))
}

/// The bytes of the regular file `path`, at most `max` (see [`read_bytes_mode`]).
pub fn read_bytes(root: Option<&Path>, path: &Path, max: u64) -> Result<Vec<u8>, UntrustedError> {
    read_bytes_mode(root, path, max).map(|(bytes, _)| bytes)
}

/// The UTF-8 text of the regular file `path`, at most `max` bytes (see [`read_bytes_mode`]).
pub fn read_text(root: Option<&Path>, path: &Path, max: u64) -> Result<String, UntrustedError> {
    String::from_utf8(read_bytes(root, path, max)?).map_err(|_| UntrustedError::NotUtf8 { path: shown(path) })
}

/// The entries of the directory `path` (opened by descriptor, never through a link), with
/// their kinds, sorted by name.
pub fn list_dir(root: Option<&Path>, path: &Path) -> Result<Vec<(OsString, FileType)>, UntrustedError> {
    // Anchored like a file: the last component (and under `root`, every one) is not followed.
    let (anchor, names) = split(root, path).unwrap_or_else(|_| (path.to_path_buf(), Vec::new()));
    let dir = walk_dirs(open_anchor(&anchor)?, &names, path, &anchor, false)?;
    entries(dir.as_fd(), path)
}

/// The bytes of the regular file `path` as the program that reads it sees it, at most `max`
/// one open, links followed (a harness follows them to its own rule files), without
/// waiting on a FIFO; refused unless what was opened is a regular file; read through that same
/// descriptor with the bound enforced on the read itself ([`read_bounded`]). Nothing is looked up
/// by path before the open, so nothing can be swapped between a check and the read.
pub fn read_followed(path: &Path, max: u64) -> Result<Vec<u8>, UntrustedError> {
    let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
    let fd = rustix::fs::open(path, flags, Mode::empty()).map_err(|e| {
        if e == Errno::NOENT { UntrustedError::Missing { path: shown(path) } } else { io(path, e) }
    })?;
    let stat = rustix::fs::fstat(&fd).map_err(|e| io(path, e))?;
    let kind = FileType::from_raw_mode(stat.st_mode);
    if kind != FileType::RegularFile {
        return Err(UntrustedError::WrongKind {
            path: shown(path),
            kind: kind_name(kind),
            expected: "a regular file",
        });
    }
    read_bounded(File::from(fd), u64::try_from(stat.st_size).unwrap_or(0), max, path)
}

/// The entries of the directory `path` as the program that lists it sees it: opened once,
/// links followed, listed through that descriptor ([`entries`]).
pub fn list_dir_followed(path: &Path) -> Result<Vec<(OsString, FileType)>, UntrustedError> {
    let dir = open_anchor(path)?;
    entries(dir.as_fd(), path)
}

/// The directory `names` beneath `root`, private to this process's user: `root` opened as
/// the human named it, then each name opened beneath the one before without following a link
/// (`O_NOFOLLOW | O_DIRECTORY`), made with mode 0700 when missing; the last one, as opened, must
/// belong to this process's effective user and be writable by no one else (`fstat` on its
/// descriptor). Returns the path, `root` joined with `names`.
pub fn private_dir(root: &Path, names: &[OsString]) -> Result<PathBuf, UntrustedError> {
    let path: PathBuf = names.iter().fold(root.to_path_buf(), |at, name| at.join(name));
    let mut fd = open_anchor(root)?;
    let mut at = root.to_path_buf();
    for name in names {
        at.push(name);
        if name.as_bytes() == b".."
            || name.as_bytes() == b"."
            || name.is_empty()
            || name.as_bytes().contains(&b'/')
        {
            return Err(UntrustedError::NotPlain { path: shown(&path) });
        }
        let opened = match rustix::fs::openat(&fd, name.as_os_str(), DIR_FLAGS, Mode::empty()) {
            Err(Errno::NOENT) => {
                match rustix::fs::mkdirat(&fd, name.as_os_str(), Mode::from_raw_mode(0o700)) {
                    Ok(()) | Err(Errno::EXIST) => {}
                    Err(e) => return Err(io(&at, e)),
                }
                rustix::fs::openat(&fd, name.as_os_str(), DIR_FLAGS, Mode::empty())
            }
            other => other,
        };
        fd = opened.map_err(|e| open_error(fd.as_fd(), name, e, &path, &at, "a directory"))?;
    }
    let stat = rustix::fs::fstat(&fd).map_err(|e| io(&path, e))?;
    let kind = FileType::from_raw_mode(stat.st_mode);
    if kind != FileType::Directory {
        return Err(UntrustedError::WrongKind {
            path: shown(&path),
            kind: kind_name(kind),
            expected: "a directory",
        });
    }
    if stat.st_uid != rustix::process::geteuid().as_raw() {
        return Err(UntrustedError::WrongKind {
            path: shown(&path),
            kind: "a directory of another user",
            expected: "a private directory of this user",
        });
    }
    if stat.st_mode & 0o022 != 0 {
        return Err(UntrustedError::WrongKind {
            path: shown(&path),
            kind: "a directory others may write",
            expected: "a private directory of this user",
        });
    }
    Ok(path)
}

/// The entries of an open directory, `.` and `..` left out, sorted by name; an entry whose
/// type the directory does not say is `stat`ed without following it.
pub fn entries(dir: BorrowedFd<'_>, path: &Path) -> Result<Vec<(OsString, FileType)>, UntrustedError> {
    let mut out = Vec::new();
    let reader = rustix::fs::Dir::read_from(dir).map_err(|e| io(path, e))?;
    for entry in reader {
        let entry = entry.map_err(|e| io(path, e))?;
        let name = OsStr::from_bytes(entry.file_name().to_bytes());
        if name.as_bytes() == b"." || name.as_bytes() == b".." {
            continue;
        }
        let kind = match entry.file_type() {
            FileType::Unknown => kind_at(dir, name).unwrap_or(FileType::Unknown),
            kind => kind,
        };
        out.push((name.to_os_string(), kind));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// A random temporary name for `name` (U-4, U-5): 128 bits from the kernel's generator.
pub(crate) fn temp_name(name: &OsStr) -> OsString {
    let mut random = [0u8; 16];
    // Without randomness the name is still created O_EXCL: a clash fails, it never redirects.
    let _ = rustix::rand::getrandom(&mut random, rustix::rand::GetRandomFlags::empty());
    let hex: String = random.iter().map(|b| format!("{b:02x}")).collect();
    let mut temp = OsString::from(".");
    temp.push(name);
    temp.push(format!(".{hex}.tmp"));
    OsString::from_vec(temp.into_vec())
}

/// Writes `bytes` as `name` in `dir` atomically with permission bits `mode` (U-4): a temporary
/// file created `O_EXCL | O_NOFOLLOW` under a random name, written, `fchmod`ed, synced,
/// renamed over `name` with `renameat`, then the directory synced.
pub fn write_at(
    dir: BorrowedFd<'_>,
    name: &OsStr,
    bytes: &[u8],
    mode: u32,
    path: &Path,
) -> Result<(), UntrustedError> {
    write_with(dir, name, mode, path, true, |file| file.write_all(bytes))
}

/// [`write_at`], with the content written by `fill` into the temporary file (which it may
/// wrap in a buffer of its own): for content too large to hold in memory at once.
pub(crate) fn write_at_with(
    dir: BorrowedFd<'_>,
    name: &OsStr,
    mode: u32,
    path: &Path,
    fill: impl FnOnce(&mut File) -> std::io::Result<()>,
) -> Result<(), UntrustedError> {
    write_with(dir, name, mode, path, true, fill)
}

/// [`write_at`], synced (file and directory) when `durable`.
fn write_with(
    dir: BorrowedFd<'_>,
    name: &OsStr,
    mode: u32,
    path: &Path,
    durable: bool,
    fill: impl FnOnce(&mut File) -> std::io::Result<()>,
) -> Result<(), UntrustedError> {
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let mut attempt = 0;
    let (temp, fd) = loop {
        let temp = temp_name(name);
        match rustix::fs::openat(dir, temp.as_os_str(), flags, Mode::from_raw_mode(0o600)) {
            Ok(fd) => break (temp, fd),
            Err(Errno::EXIST) if attempt < 8 => attempt += 1,
            Err(e) => return Err(io(path, format!("cannot create a temporary file: {e}"))),
        }
    };
    let mut file = File::from(fd);
    let written = fill(&mut file)
        .map_err(|e| e.to_string())
        .and_then(|()| {
            rustix::fs::fchmod(&file, Mode::from_raw_mode(mode & 0o7777)).map_err(|e| e.to_string())
        })
        .and_then(|()| if durable { file.sync_all().map_err(|e| e.to_string()) } else { Ok(()) })
        .and_then(|()| rustix::fs::renameat(dir, temp.as_os_str(), dir, name).map_err(|e| e.to_string()))
        .and_then(|()| if durable { rustix::fs::fsync(dir).map_err(|e| e.to_string()) } else { Ok(()) });
    if let Err(why) = written {
        let _ = rustix::fs::unlinkat(dir, temp.as_os_str(), AtFlags::empty());
        return Err(io(path, why));
    }
    Ok(())
}

/// Writes `bytes` to `path` atomically (U-4), anchored at `root` when the path is under it;
/// missing directories on the way are created, by descriptor.
pub fn write_atomic(root: Option<&Path>, path: &Path, bytes: &[u8], mode: u32) -> Result<(), UntrustedError> {
    let (dir, name) = open_parent(root, path, true)?;
    write_at(dir.as_fd(), &name, bytes, mode, path)
}

/// [`write_atomic`] without the syncs, for a cache whose loss only costs time (a crash may
/// leave the old content or none, never a torn or redirected file).
pub fn write_cache(root: Option<&Path>, path: &Path, bytes: &[u8], mode: u32) -> Result<(), UntrustedError> {
    let (dir, name) = open_parent(root, path, true)?;
    write_with(dir.as_fd(), &name, mode, path, false, |file| file.write_all(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_regular_files_only_and_names_what_else_is_there() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join("a")).unwrap();
        std::fs::write(root.join("a/x.md"), "hello").unwrap();
        assert_eq!(read_text(Some(root), &root.join("a/x.md"), 100).unwrap(), "hello");
        assert_eq!(read_text(None, &root.join("a/x.md"), 100).unwrap(), "hello");
        // An absolute path is never "under" a relative root (`.`): it is anchored at its directory.
        assert_eq!(read_text(Some(Path::new(".")), &root.join("a/x.md"), 100).unwrap(), "hello");
        assert!(matches!(
            read_text(Some(root), &root.join("a/none"), 100),
            Err(UntrustedError::Missing { .. })
        ));
        assert!(matches!(
            read_text(Some(root), &root.join("a/x.md"), 3),
            Err(UntrustedError::TooLarge { .. })
        ));
        std::os::unix::fs::symlink(root.join("a/x.md"), root.join("a/link.md")).unwrap();
        let e = read_text(Some(root), &root.join("a/link.md"), 100).unwrap_err();
        assert!(matches!(e, UntrustedError::Link { .. }), "{e}");
        // A directory on the way that is a link is refused too (U-1).
        std::os::unix::fs::symlink(root.join("a"), root.join("b")).unwrap();
        let e = read_text(Some(root), &root.join("b/x.md"), 100).unwrap_err();
        assert!(e.to_string().contains("passes through the symbolic link"), "{e}");
        let e = read_text(Some(root), &root.join("a"), 100).unwrap_err();
        assert!(e.to_string().contains("is a directory"), "{e}");
        let e = read_text(Some(root), &root.join("a/../a/x.md"), 100).unwrap_err();
        assert!(matches!(e, UntrustedError::NotPlain { .. }), "{e}");
        // A path that leaves the root at once is the human's: anchored at its own directory.
        std::fs::create_dir(root.join("sub")).unwrap();
        assert_eq!(read_text(Some(&root.join("sub")), &root.join("sub/../a/x.md"), 100).unwrap(), "hello");
        let _socket = std::os::unix::net::UnixListener::bind(root.join("a/sock")).unwrap();
        let e = read_text(Some(root), &root.join("a/sock"), 100).unwrap_err();
        assert!(e.to_string().contains("a socket"), "{e}");
        std::fs::write(root.join("a/bin"), [0xff, 0xfe]).unwrap();
        assert!(matches!(read_text(None, &root.join("a/bin"), 100), Err(UntrustedError::NotUtf8 { .. })));
    }

    /// A link or FIFO planted at a name opened for writing is refused, never followed
    /// or waited on; a regular file opens, and `create_new` never opens one that exists (U-1, U-3).
    #[test]
    fn a_file_opened_for_writing_is_never_a_planted_link_or_fifo() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        let cwd = rustix::fs::open(p, OFlags::RDONLY | OFlags::DIRECTORY, Mode::empty()).unwrap();
        rustix::fs::mknodat(&cwd, "fifo", FileType::Fifo, Mode::from_raw_mode(0o644), 0).unwrap();
        std::os::unix::fs::symlink(p.join("target"), p.join("link")).unwrap();
        std::fs::write(p.join("plain"), "kept").unwrap();
        let started = std::time::Instant::now();
        for create_new in [false, true] {
            assert!(open_for_write(&p.join("fifo"), 0o600, create_new).is_err(), "a FIFO, {create_new}");
            assert!(open_for_write(&p.join("link"), 0o600, create_new).is_err(), "a link, {create_new}");
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(2), "nothing waited on the FIFO");
        assert!(!p.join("target").exists(), "the link was not followed");
        assert!(open_for_write(&p.join("plain"), 0o600, false).is_ok());
        assert_eq!(std::fs::read_to_string(p.join("plain")).unwrap(), "kept", "not truncated");
        let exists = open_for_write(&p.join("plain"), 0o600, true).unwrap_err();
        assert_eq!(exists.kind(), std::io::ErrorKind::AlreadyExists);
        assert!(open_for_write(&p.join("new"), 0o600, true).is_ok());
    }

    #[test]
    fn a_fifo_is_refused_at_once_never_waited_on() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("f.md");
        let cwd = rustix::fs::open(dir.path(), OFlags::RDONLY | OFlags::DIRECTORY, Mode::empty()).unwrap();
        rustix::fs::mknodat(&cwd, "f.md", FileType::Fifo, Mode::from_raw_mode(0o644), 0).unwrap();
        let started = std::time::Instant::now();
        let e = read_text(Some(dir.path()), &fifo, 100).unwrap_err();
        assert!(e.to_string().contains("a FIFO"), "{e}");
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
    }

    #[test]
    fn writes_replace_planted_links_and_never_follow_them() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let outside = tempfile::tempdir().unwrap();
        let victim = outside.path().join("victim");
        std::fs::write(&victim, "keep").unwrap();
        std::fs::create_dir(root.join("art")).unwrap();
        std::os::unix::fs::symlink(&victim, root.join("art/violation.json")).unwrap();
        write_atomic(Some(root), &root.join("art/violation.json"), b"{}", 0o644).unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
        let meta = std::fs::symlink_metadata(root.join("art/violation.json")).unwrap();
        assert!(meta.is_file(), "the link itself was replaced");
        // A directory on the way that is a link is refused, not written through.
        std::os::unix::fs::symlink(outside.path(), root.join("out")).unwrap();
        assert!(write_atomic(Some(root), &root.join("out/victim"), b"x", 0o644).is_err());
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
        // Missing directories are created; no temporary file is left.
        write_atomic(Some(root), &root.join("new/deep/f"), b"x", 0o640).unwrap();
        assert_eq!(std::fs::read_dir(root.join("new/deep")).unwrap().count(), 1);
        assert_eq!(std::fs::metadata(root.join("new/deep/f")).unwrap().permissions().mode() & 0o777, 0o640);
    }

    /// A file is read as the program that reads it sees it — a link followed — through the one
    /// descriptor it was opened with: a FIFO is refused at once, a directory or a device is not a
    /// regular file, and the bound holds on the read (a file of `/proc` says size 0).
    #[test]
    fn a_followed_read_opens_once_and_reads_regular_files_only_within_the_bound() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        std::fs::write(p.join("rules.json"), "{}").unwrap();
        std::os::unix::fs::symlink(p.join("rules.json"), p.join("link.json")).unwrap();
        assert_eq!(read_followed(&p.join("rules.json"), 2).unwrap(), b"{}");
        assert_eq!(read_followed(&p.join("link.json"), 2).unwrap(), b"{}", "a link is followed");
        assert!(matches!(read_followed(&p.join("rules.json"), 1), Err(UntrustedError::TooLarge { .. })));
        assert!(matches!(read_followed(&p.join("none"), 9), Err(UntrustedError::Missing { .. })));
        assert!(matches!(read_followed(p, 9), Err(UntrustedError::WrongKind { kind: "a directory", .. })));
        assert!(matches!(read_followed(Path::new("/dev/zero"), 9), Err(UntrustedError::WrongKind { .. })));
        let cwd = rustix::fs::open(p, OFlags::RDONLY | OFlags::DIRECTORY, Mode::empty()).unwrap();
        rustix::fs::mknodat(&cwd, "f.json", FileType::Fifo, Mode::from_raw_mode(0o644), 0).unwrap();
        let started = std::time::Instant::now();
        let e = read_followed(&p.join("f.json"), 9).unwrap_err();
        assert!(e.to_string().contains("a FIFO"), "{e}");
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
        let proc = read_followed(Path::new("/proc/self/stat"), 2).unwrap_err();
        assert!(
            matches!(proc, UntrustedError::TooLarge { size: None, .. }),
            "a size-0 file past the bound: {proc}"
        );
        std::os::unix::fs::symlink(p, p.join("folder")).unwrap();
        let listed: Vec<OsString> =
            list_dir_followed(&p.join("folder")).unwrap().into_iter().map(|(n, _)| n).collect();
        assert!(listed.contains(&OsString::from("rules.json")), "a linked folder is listed: {listed:?}");
        assert!(matches!(list_dir_followed(&p.join("gone")), Err(UntrustedError::Missing { .. })));
    }

    /// A private directory is made 0700 beneath the root by descriptor, found again, and refused
    /// where a link is planted on the way or at the end, where others may write it, or where a
    /// name is not plain.
    #[test]
    fn a_private_directory_is_made_and_checked_by_descriptor() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let names = |last: &str| [".aw", "tmp", last].map(OsString::from);
        let made = private_dir(root, &names("s1")).unwrap();
        assert_eq!(made, root.join(".aw/tmp/s1"));
        assert_eq!(std::fs::metadata(&made).unwrap().permissions().mode() & 0o777, 0o700);
        assert_eq!(private_dir(root, &names("s1")).unwrap(), made, "the same one again");
        std::fs::create_dir(root.join("elsewhere")).unwrap();
        std::os::unix::fs::symlink(root.join("elsewhere"), root.join(".aw/tmp/s2")).unwrap();
        assert!(
            matches!(private_dir(root, &names("s2")), Err(UntrustedError::Link { .. })),
            "a link at the end"
        );
        std::os::unix::fs::symlink(root.join("elsewhere"), root.join(".bw")).unwrap();
        let through = private_dir(root, &[".bw", "tmp", "s"].map(OsString::from));
        assert!(matches!(through, Err(UntrustedError::Link { .. })), "a link on the way: {through:?}");
        assert!(!root.join("elsewhere/tmp").exists(), "nothing made behind the link");
        std::fs::create_dir(root.join(".aw/tmp/s3")).unwrap();
        std::fs::set_permissions(root.join(".aw/tmp/s3"), std::fs::Permissions::from_mode(0o777)).unwrap();
        let open = private_dir(root, &names("s3")).unwrap_err();
        assert!(open.to_string().contains("others may write"), "{open}");
        std::fs::write(root.join(".aw/tmp/s4"), "").unwrap();
        assert!(private_dir(root, &names("s4")).is_err(), "a file");
        assert!(matches!(private_dir(root, &names("..")), Err(UntrustedError::NotPlain { .. })));
        assert!(matches!(private_dir(root, &names("a/b")), Err(UntrustedError::NotPlain { .. })));
    }

    use std::os::unix::fs::PermissionsExt;
}
