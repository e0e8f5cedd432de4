//! What a killed writer can leave in a sled directory, and what of it is discarded before sled
//! opens it (S-7..S-10, S-12).
//!
//! sled 0.34.7 writes three kinds of file besides its log `db`:
//!
//! - **Snapshots** (`snap.<lsn as 16 hex digits>`): on every open whose log has grown, sled
//!   writes the new snapshot to `snap.<lsn>.generating`, `fsync`s it, renames it to
//!   `snap.<lsn>`, and only then removes older snapshots. A snapshot is a cache of the page
//!   table at `lsn`: recovery reads the newest one and replays the log after it, or the whole log
//!   when there is none. But sled's reader takes every file named `snap.*` (it skips only
//!   `.in___motion`, an older temp name) and reads the last by name, and `snap.<lsn>.generating`
//!   sorts after `snap.<lsn>`: a writer killed after creating the temp file and before renaming
//!   it leaves a file that sled reads, finds short or with a bad checksum, and refuses the store
//!   with "Read corrupted data", for good. The temp file was never committed (the rename is the
//!   commit), and the previous snapshot, if any, is still there (older ones are removed only
//!   after the rename): discarding the temp file leaves exactly the state sled left before it
//!   began writing it, which sled recovers by replaying the log. So a `snap.<lsn>.generating`
//!   regular file is discarded (S-7). A finished `snap.<lsn>` is never touched: it is fsynced
//!   before its rename, so a damaged one was damaged by someone else, and the store fails.
//! - **`conf`** (the page size, compression and version, then a CRC): written once, when a store
//!   is created, with two writes and no `fsync`, before sled takes its lock. A writer killed
//!   between the two leaves the text without its CRC, which sled parses short and refuses for
//!   good. A `conf` that is a strict prefix of the one this build writes holds nothing sled will
//!   not write again: it is discarded and sled rewrites it (S-8). Any other `conf` is left to
//!   sled, which refuses one it cannot use.
//! - **`blobs/`**: created first, on creation. A directory holding only an empty `blobs/` (and a
//!   `conf` as above), no `db`, is a creation that was killed before the log existed: it holds
//!   no event, and a writer creates the store there (S-9). Any other directory without `db` is
//!   refused, as before, after looking again for up to 500 ms: another opener may be creating
//!   the store there right now.
//!
//! Every `snap.*` entry and `conf` must be a regular file: a FIFO there would hang sled's read,
//! a symlink could point anywhere, so either refuses the store (S-10).
//!
//! The cleaning is done by descriptor (the directory opened once; entries examined with
//! `fstatat(AT_SYMLINK_NOFOLLOW)`, opened with `O_NOFOLLOW | O_NONBLOCK`, removed with
//! `unlinkat`) and under sled's own lock (an exclusive `flock` on `db`, taken and released before
//! sled takes it), so it never removes the temp file of a live writer (S-12).

use std::os::fd::{AsFd, OwnedFd};
use std::path::Path;
use std::time::{Duration, Instant};

use agentwarden_ports::StoreError;
use rustix::fs::{AtFlags, Dir, FileType, FlockOperation, Mode, OFlags};
use rustix::io::Errno;

/// The `conf` text sled 0.34.7 writes for the configuration this crate opens with (sled's
/// default 512 KiB segments, no compression), before its 4-byte CRC. A test holds a new
/// store's `conf` to it, so a sled upgrade that changes it fails the build's tests.
pub(super) const CONF_TEXT: &[u8] = b"segment_size: 524288\nuse_compression: false\nversion: 0.34\n";

/// `conf` as sled writes it: the text, then a 4-byte CRC.
const CONF_WHOLE: usize = CONF_TEXT.len() + 4;

/// sled treats a `conf` of at most this many bytes as absent and rewrites it.
const CONF_SLED_REWRITES: usize = 8;

/// A file discarded before the store was opened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Discarded {
    /// The file's name in the store's directory.
    pub name: String,
    /// Its size when it was discarded.
    pub bytes: u64,
    /// What it was.
    pub what: Leftover,
}

/// The kinds of file a killed writer leaves that may be discarded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Leftover {
    /// `snap.<lsn>.generating`: a snapshot sled had not finished (S-7).
    UnfinishedSnapshot,
    /// `conf` without its checksum: a creation killed mid-write (S-8).
    TornConfig,
}

impl Leftover {
    /// Why discarding it is safe, in a few words.
    pub fn why(self) -> &'static str {
        match self {
            Leftover::UnfinishedSnapshot => {
                "an unfinished snapshot (sled renames it when complete and rebuilds it from the log)"
            }
            Leftover::TornConfig => "a settings file cut short at creation (sled writes it again)",
        }
    }
}

impl std::fmt::Display for Discarded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}` ({} bytes): {}", self.name, self.bytes, self.what.why())
    }
}

/// What the path holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Found {
    /// Nothing, or a creation killed before the log existed (S-9).
    Absent,
    /// A sled directory with its log.
    Store,
}

fn unavailable(what: &str, path: &Path, e: Errno) -> StoreError {
    StoreError::Unavailable { reason: format!("{what} `{}`: {e}", path.display()) }
}

/// What the path is, and what to do, in the user's terms (never "corrupt at seq 0") (N-4).
fn not_a_store(path: &Path) -> StoreError {
    let what = match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_file() => "a file",
        Ok(meta) if meta.is_dir() => "a directory that holds no Warden store",
        Ok(_) => "neither a file nor a directory",
        Err(_) => "not a directory",
    };
    StoreError::NotAStore {
        reason: format!(
            "`{}` is not a Warden store ({what}): give --store the store's directory (a new one is \
             created where nothing exists)",
            path.display()
        ),
    }
}

fn not_regular(path: &Path, name: &str) -> StoreError {
    StoreError::Corrupt {
        seq: 0,
        why: format!(
            "the store is corrupt: `{name}` in the store `{}` is not a regular file: sled would read it; remove it",
            path.display()
        ),
    }
}

/// How long a directory that is not (yet) a store is looked at again before it is refused:
/// another opener may be creating the store there right now (sled makes the directory, then
/// `blobs/`, `conf` and `db`, within milliseconds of each other).
const CREATION_GRACE: Duration = Duration::from_millis(500);

/// Examines the store at `path` and discards what a killed writer left that sled cannot open
/// past. Waits for the store's lock until `deadline`. With `create` off, a killed creation is
/// reported [`Found::Absent`] and left as it is.
pub(super) fn prepare(
    path: &Path,
    create: bool,
    deadline: Instant,
) -> Result<(Found, Vec<Discarded>), StoreError> {
    let grace = deadline.min(Instant::now() + CREATION_GRACE);
    loop {
        match examine(path, create, deadline)? {
            Some(found) => return Ok(found),
            None if Instant::now() < grace => std::thread::sleep(Duration::from_millis(5)),
            None => return Err(not_a_store(path)),
        }
    }
}

/// [`prepare`], once; `None` for a directory that is not a store (or not one yet).
fn examine(
    path: &Path,
    create: bool,
    deadline: Instant,
) -> Result<Option<(Found, Vec<Discarded>)>, StoreError> {
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let dir = match rustix::fs::openat(rustix::fs::CWD, path, flags, Mode::empty()) {
        Ok(dir) => dir,
        Err(Errno::NOENT) => return Ok(Some((Found::Absent, Vec::new()))),
        Err(Errno::NOTDIR) => return Err(not_a_store(path)),
        Err(e) => return Err(unavailable("cannot open the store", path, e)),
    };
    match rustix::fs::statat(&dir, "db", AtFlags::SYMLINK_NOFOLLOW) {
        Ok(stat) if FileType::from_raw_mode(stat.st_mode) == FileType::RegularFile => {}
        Ok(_) => return Err(not_regular(path, "db")),
        Err(Errno::NOENT) => {
            if !killed_creation(path, &dir)? {
                return Ok(None);
            }
            let discarded = if create { discard(path, &dir)? } else { Vec::new() };
            return Ok(Some((Found::Absent, discarded)));
        }
        Err(e) => return Err(unavailable("cannot examine the log of", path, e)),
    }
    let lock = lock(path, &dir, deadline)?;
    let discarded = discard(path, &dir)?;
    drop(lock);
    Ok(Some((Found::Store, discarded)))
}

/// Takes sled's lock (an exclusive `flock` on `db`), waiting until `deadline`.
fn lock(path: &Path, dir: &OwnedFd, deadline: Instant) -> Result<OwnedFd, StoreError> {
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let db = rustix::fs::openat(dir, "db", flags, Mode::empty())
        .map_err(|e| unavailable("cannot open the log of", path, e))?;
    let started = Instant::now();
    let mut pause = Duration::from_millis(2);
    loop {
        match rustix::fs::flock(&db, FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => return Ok(db),
            Err(Errno::WOULDBLOCK | Errno::INTR) => {
                let now = Instant::now();
                if now >= deadline {
                    return Err(StoreError::Locked {
                        path: path.display().to_string(),
                        waited_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
                    });
                }
                std::thread::sleep(pause.min(deadline - now));
                pause = (pause * 2).min(Duration::from_millis(50));
            }
            Err(e) => return Err(unavailable("cannot lock", path, e)),
        }
    }
}

/// The names in `dir`, without `.` and `..`.
fn names(path: &Path, dir: &impl AsFd) -> Result<Vec<Vec<u8>>, StoreError> {
    let mut names = Vec::new();
    for entry in Dir::read_from(dir).map_err(|e| unavailable("cannot list", path, e))? {
        let entry = entry.map_err(|e| unavailable("cannot list", path, e))?;
        let name = entry.file_name().to_bytes();
        if name != b"." && name != b".." {
            names.push(name.to_vec());
        }
    }
    Ok(names)
}

/// `snap.` + 16 uppercase hex digits + `.generating`: sled's temp name, exactly.
fn is_unfinished_snapshot(name: &[u8]) -> bool {
    name.strip_prefix(b"snap.")
        .and_then(|rest| rest.strip_suffix(b".generating"))
        .is_some_and(|lsn| lsn.len() == 16 && lsn.iter().all(|b| matches!(b, b'0'..=b'9' | b'A'..=b'F')))
}

/// A name sled reads as a snapshot.
fn is_snapshot_candidate(name: &[u8]) -> bool {
    name.starts_with(b"snap.") && !name.ends_with(b".in___motion")
}

fn display(name: &[u8]) -> String {
    String::from_utf8_lossy(name).into_owned()
}

fn file_type(path: &Path, dir: &OwnedFd, name: &[u8]) -> Result<Option<(FileType, u64)>, StoreError> {
    match rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(stat) => {
            Ok(Some((FileType::from_raw_mode(stat.st_mode), u64::try_from(stat.st_size).unwrap_or(0))))
        }
        Err(Errno::NOENT) => Ok(None),
        Err(e) => Err(unavailable(&format!("cannot examine `{}` in", display(name)), path, e)),
    }
}

/// Removes the leftovers in `dir` (S-7, S-8) and refuses entries sled must not read (S-10).
fn discard(path: &Path, dir: &OwnedFd) -> Result<Vec<Discarded>, StoreError> {
    let mut discarded = Vec::new();
    for name in names(path, dir)? {
        let what = if is_snapshot_candidate(&name) {
            match file_type(path, dir, &name)? {
                None => continue,
                Some((FileType::RegularFile, bytes)) if is_unfinished_snapshot(&name) => {
                    Some((Leftover::UnfinishedSnapshot, bytes))
                }
                Some((FileType::RegularFile, _)) => None,
                Some(_) => return Err(not_regular(path, &display(&name))),
            }
        } else if name == b"conf" {
            torn_conf(path, dir)?.map(|bytes| (Leftover::TornConfig, bytes))
        } else {
            None
        };
        if let Some((what, bytes)) = what {
            match rustix::fs::unlinkat(dir, name.as_slice(), AtFlags::empty()) {
                Ok(()) | Err(Errno::NOENT) => {}
                Err(e) => {
                    return Err(unavailable(&format!("cannot remove `{}` from", display(&name)), path, e));
                }
            }
            discarded.push(Discarded { name: display(&name), bytes, what });
        }
    }
    if !discarded.is_empty() {
        // Not needed for safety (a removal lost in a power cut is redone on the next open), but
        // it keeps the next open from finding the same files.
        rustix::fs::fsync(dir).map_err(|e| unavailable("cannot sync", path, e))?;
    }
    Ok(discarded)
}

/// The first bytes of `conf` (at most one more than this build writes), `None` if there is none.
/// A `conf` that is not a regular file refuses the store (S-10).
fn read_conf(path: &Path, dir: &OwnedFd) -> Result<Option<Vec<u8>>, StoreError> {
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let file = match rustix::fs::openat(dir, "conf", flags, Mode::empty()) {
        Ok(file) => file,
        Err(Errno::NOENT) => return Ok(None),
        Err(Errno::LOOP) => return Err(not_regular(path, "conf")),
        Err(e) => return Err(unavailable("cannot open `conf` in", path, e)),
    };
    let stat = rustix::fs::fstat(&file).map_err(|e| unavailable("cannot examine `conf` in", path, e))?;
    if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile {
        return Err(not_regular(path, "conf"));
    }
    let mut bytes = vec![0; CONF_WHOLE + 1];
    let mut read = 0;
    while read < bytes.len() {
        match rustix::io::read(&file, bytes.get_mut(read..).unwrap_or_default()) {
            Ok(0) => break,
            Ok(n) => read += n,
            Err(Errno::INTR) => {}
            Err(e) => return Err(unavailable("cannot read `conf` in", path, e)),
        }
    }
    bytes.truncate(read);
    Ok(Some(bytes))
}

/// `conf` is what this build writes, whole or cut short.
fn conf_is_ours(conf: &[u8]) -> bool {
    let text = CONF_TEXT.get(..conf.len().min(CONF_TEXT.len())).unwrap_or_default();
    conf.len() <= CONF_WHOLE && conf.starts_with(text)
}

/// The size of `conf` if it is a strict prefix of what this build writes and longer than what
/// sled rewrites by itself (S-8); `None` for no `conf` or any other.
fn torn_conf(path: &Path, dir: &OwnedFd) -> Result<Option<u64>, StoreError> {
    Ok(read_conf(path, dir)?.and_then(|conf| {
        let torn = conf.len() > CONF_SLED_REWRITES && conf.len() < CONF_WHOLE && conf_is_ours(&conf);
        torn.then_some(conf.len() as u64)
    }))
}

/// A directory without `db` that holds only what sled creates before it: an empty `blobs/`,
/// and a `conf` that is this build's, whole or cut short (S-9).
fn killed_creation(path: &Path, dir: &OwnedFd) -> Result<bool, StoreError> {
    let mut blobs = false;
    for name in names(path, dir)? {
        match name.as_slice() {
            b"blobs" => {
                let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
                let Ok(sub) = rustix::fs::openat(dir, "blobs", flags, Mode::empty()) else {
                    return Ok(false);
                };
                if !names(path, &sub)?.is_empty() {
                    return Ok(false);
                }
                blobs = true;
            }
            b"conf" if read_conf(path, dir)?.is_some_and(|conf| conf_is_ours(&conf)) => {}
            _ => return Ok(false),
        }
    }
    Ok(blobs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_sleds_exact_temp_name_is_an_unfinished_snapshot() {
        assert!(is_unfinished_snapshot(b"snap.00000000006AE3D5.generating"));
        for name in [
            &b"snap.00000000006AE3D5"[..],
            b"snap.00000000006ae3d5.generating",
            b"snap.6AE3D5.generating",
            b"snap.00000000006AE3D5.generating~",
            b"snap.00000000006AE3D5.in___motion",
            b"xsnap.00000000006AE3D5.generating",
        ] {
            assert!(!is_unfinished_snapshot(name), "{}", display(name));
        }
        assert!(!is_snapshot_candidate(b"snap.00000000006AE3D5.in___motion"));
        assert!(is_snapshot_candidate(b"snap.anything"));
    }

    /// `CONF_TEXT` is what this sled writes for this crate's configuration: a sled upgrade that
    /// changes it must change the constant, or torn `conf`s would no longer be recognised.
    #[test]
    fn conf_text_is_what_sled_writes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store");
        drop(super::super::SledEventStore::open(&super::super::SledConfig::new(&path)).unwrap());
        let conf = std::fs::read(path.join("conf")).unwrap();
        assert_eq!(conf.len(), CONF_WHOLE);
        assert_eq!(conf.get(..CONF_TEXT.len()).unwrap(), CONF_TEXT);
        assert!(conf_is_ours(&conf));
        assert!(conf_is_ours(conf.get(..9).unwrap()));
        assert!(!conf_is_ours(b"segment_size: 1048576\n"));
    }
}
