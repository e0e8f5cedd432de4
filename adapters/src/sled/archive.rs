//! The archive: the log's older events, moved out of sled into immutable segment files (S-13).
//!
//! sled 0.34 keeps, for every page its tree ever had, a page-table slot, the page's header and
//! the list of its fragments on disk, also after the page left its cache (V-39): about 18 bytes
//! per event appended, for as long as the process lives, and a page table that every open
//! rebuilds. A log that only grows would grow a resident server's memory and every opener's
//! start-up without bound. So the store keeps only its newest events in sled (the *tail*) and
//! moves the ones before them, a segment at a time, into files; the keys it removes give their
//! pages back to sled, which reuses them.
//!
//! - **Layout.** The directory `archive/` beside sled's files holds one file per segment,
//!   `<first seq, 20 digits>.seg`: [`MAGIC`], then per event its seq (8 bytes, big-endian),
//!   its hash (32 bytes), its body's length (4 bytes, big-endian) and its body. The sled tree
//!   `archive` lists the segments: key = the first seq (8 bytes, big-endian), value = [`Entry`]
//!   (last seq, last hash, the file's length and its BLAKE3 digest).
//! - **Moving a segment** ([`super::SledEventStore::archive`]): the events, already durable in
//!   sled, are read and verified as a chain after the archive's last event (a broken chain is
//!   never archived), written to a temporary file under a random name created
//!   `O_EXCL | O_NOFOLLOW` (mode 0400), `fsync`ed, renamed to the segment's name and the
//!   directory `fsync`ed (U-4); then the segment is
//!   listed in the `archive` tree and sled flushed; only then do readers see it, and only then
//!   are the events' keys removed from the tail. A writer killed at any point leaves either a
//!   segment that is not listed (rewritten by the next move) and the events still in the tail,
//!   or a listed segment and some of its events still in the tail (skipped by readers, removed
//!   by the next move): no event is ever in neither place.
//! - **Reading a segment** checks the file by descriptor (`O_NOFOLLOW`, a regular file of the
//!   listed length), its digest against the listing, and every record's seq, length and the
//!   last hash: a segment edited, cut, swapped or replaced is refused with the seq it starts at
//!   — never read as events.

use std::ffi::OsStr;
use std::io::{BufWriter, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use agentwarden_domain::audit::{Hash, RecordRef};
use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;

/// The first bytes of every segment file.
pub(super) const MAGIC: &[u8] = b"agentwarden-segment/1\n";

/// The bytes of one record's header in a segment: seq, hash, body length.
const RECORD_HEADER: usize = 8 + 32 + 4;

/// A segment is cut once it holds this many bytes (with at least one event), whatever
/// [`super::SledConfig::archive_segment`] says: reading a segment reads all of it.
pub(super) const SEGMENT_BYTES: usize = 16 * 1024 * 1024;

/// The name of the sled tree that lists the segments.
pub(super) const TREE: &str = "archive";

/// The name of the directory that holds the segment files.
pub(super) const DIR: &str = "archive";

/// One segment as the `archive` tree lists it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Entry {
    /// The seq of its first event (the tree's key).
    pub first: u64,
    /// The seq of its last event.
    pub last: u64,
    /// Its last event's hash.
    pub last_hash: Hash,
    /// The file's length.
    pub bytes: u64,
    /// The file's BLAKE3 digest.
    pub digest: [u8; 32],
}

/// The length of an [`Entry`]'s value in the tree.
const ENTRY_BYTES: usize = 8 + 32 + 8 + 32;

impl Entry {
    /// The tree's value for this entry.
    pub(super) fn encode(&self) -> [u8; ENTRY_BYTES] {
        let mut out = [0u8; ENTRY_BYTES];
        out[..8].copy_from_slice(&self.last.to_be_bytes());
        out[8..40].copy_from_slice(self.last_hash.as_bytes());
        out[40..48].copy_from_slice(&self.bytes.to_be_bytes());
        out[48..].copy_from_slice(&self.digest);
        out
    }

    /// An entry from the tree's key and value; `None` if either has the wrong shape, the
    /// segment would end before it starts, or it would end at the largest seq (no event can
    /// follow it, and `last + 1` is computed wherever a segment is checked or followed).
    pub(super) fn decode(key: &[u8], value: &[u8]) -> Option<Entry> {
        let first = u64::from_be_bytes(<[u8; 8]>::try_from(key).ok()?);
        let value = <&[u8; ENTRY_BYTES]>::try_from(value).ok()?;
        let (last, rest) = value.split_first_chunk::<8>()?;
        let (hash, rest) = rest.split_first_chunk::<32>()?;
        let (bytes, digest) = rest.split_first_chunk::<8>()?;
        let entry = Entry {
            first,
            last: u64::from_be_bytes(*last),
            last_hash: Hash::from_bytes(*hash),
            bytes: u64::from_be_bytes(*bytes),
            digest: <[u8; 32]>::try_from(digest).ok()?,
        };
        (first >= 1 && entry.last >= first && entry.last < u64::MAX).then_some(entry)
    }

    /// The segment file's name.
    pub(super) fn name(&self) -> String {
        segment_name(self.first)
    }
}

/// The name of the segment file that starts at `first`.
pub(super) fn segment_name(first: u64) -> String {
    format!("{first:020}.seg")
}

/// Writes a segment as it goes, through a small buffer, counting its bytes and hashing them: a
/// move never holds a segment in memory.
pub(super) struct SegmentWriter<W: Write> {
    out: BufWriter<W>,
    hasher: blake3::Hasher,
    bytes: u64,
}

impl<W: Write> SegmentWriter<W> {
    /// A segment that starts with [`MAGIC`].
    pub(super) fn new(out: W) -> std::io::Result<Self> {
        let mut writer = SegmentWriter {
            out: BufWriter::with_capacity(64 * 1024, out),
            hasher: blake3::Hasher::new(),
            bytes: 0,
        };
        writer.put(MAGIC)?;
        Ok(writer)
    }

    fn put(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.out.write_all(bytes)?;
        self.hasher.update(bytes);
        self.bytes += bytes.len() as u64;
        Ok(())
    }

    /// Appends one record.
    pub(super) fn push(&mut self, record: RecordRef<'_>) -> std::io::Result<()> {
        let len = u32::try_from(record.body.len())
            .map_err(|_| std::io::Error::other(format!("event {} is too large for a segment", record.seq)))?;
        let mut header = [0u8; RECORD_HEADER];
        header[..8].copy_from_slice(&record.seq.to_be_bytes());
        header[8..40].copy_from_slice(record.hash.as_bytes());
        header[40..].copy_from_slice(&len.to_be_bytes());
        self.put(&header)?;
        self.put(record.body)
    }

    /// The bytes written so far.
    pub(super) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Flushes the buffer: the segment's length and digest.
    pub(super) fn finish(mut self) -> std::io::Result<(u64, [u8; 32])> {
        self.out.flush()?;
        Ok((self.bytes, *self.hasher.finalize().as_bytes()))
    }
}

/// A segment's bytes, checked against its listing, and where each record starts.
#[derive(Debug)]
pub(super) struct Segment {
    first: u64,
    bytes: Vec<u8>,
    /// The offset of each record's header, in seq order.
    starts: Vec<usize>,
}

impl Segment {
    /// Checks `bytes` against `entry`: the digest, the magic, every record's seq in order from
    /// `entry.first` to `entry.last` and its length, the last hash, nothing after the last
    /// record. The error says what is wrong, for a `Corrupt` naming `entry.first`.
    pub(super) fn parse(entry: &Entry, bytes: Vec<u8>) -> Result<Segment, String> {
        if *blake3::hash(&bytes).as_bytes() != entry.digest {
            return Err("its content differs from what was archived (digest mismatch)".into());
        }
        let mut at = MAGIC.len();
        if bytes.get(..at) != Some(MAGIC) {
            return Err("it is not an Agent Warden segment".into());
        }
        let count = entry.last - entry.first + 1;
        let mut starts = Vec::with_capacity(usize::try_from(count.min(1 << 16)).unwrap_or(1 << 16));
        let mut expected = entry.first;
        let mut last_hash = None;
        while at < bytes.len() {
            let (seq, hash, len) = header(&bytes, at).ok_or("a record's header is cut short")?;
            if seq != expected || seq > entry.last {
                return Err(format!("it holds seq {seq} where seq {expected} belongs"));
            }
            let end = at
                .checked_add(RECORD_HEADER)
                .and_then(|body| body.checked_add(len))
                .filter(|&end| end <= bytes.len())
                .ok_or_else(|| format!("event {seq} is cut short"))?;
            starts.push(at);
            last_hash = Some(hash);
            at = end;
            expected += 1;
        }
        if expected != entry.last + 1 {
            return Err(format!("it ends before seq {}", entry.last));
        }
        if last_hash != Some(entry.last_hash) {
            return Err("its last event's hash differs from what was archived".into());
        }
        Ok(Segment { first: entry.first, bytes, starts })
    }

    /// The seq of the segment's first event.
    pub(super) fn first(&self) -> u64 {
        self.first
    }

    /// The records from `seq` on (none if `seq` is not in the segment).
    pub(super) fn from(&self, seq: u64) -> impl Iterator<Item = RecordRef<'_>> {
        let skip = seq.checked_sub(self.first).and_then(|n| usize::try_from(n).ok()).unwrap_or(usize::MAX);
        self.starts.iter().skip(skip).filter_map(|&at| {
            let (seq, hash, len) = header(&self.bytes, at)?;
            let body = self.bytes.get(at + RECORD_HEADER..at + RECORD_HEADER + len)?;
            Some(RecordRef { seq, hash, body })
        })
    }
}

/// See [`crate::fuzzing::segment`].
#[cfg(feature = "fuzzing")]
#[expect(clippy::panic, reason = "a fuzz target's oracle: a panic is the finding")]
pub(crate) fn fuzz(data: &[u8]) {
    let (Some(key), Some(value), Some(file)) =
        (data.get(..8), data.get(8..8 + ENTRY_BYTES), data.get(8 + ENTRY_BYTES..))
    else {
        return;
    };
    let Some(listed) = Entry::decode(key, value) else { return };
    let entry = Entry { bytes: file.len() as u64, digest: *blake3::hash(file).as_bytes(), ..listed };
    let Ok(segment) = Segment::parse(&entry, file.to_vec()) else { return };
    let mut expected = entry.first;
    let mut last = None;
    for record in segment.from(entry.first) {
        if record.seq != expected {
            panic!("accepted segment yields seq {} where {expected} belongs", record.seq);
        }
        expected += 1;
        last = Some(record.hash);
    }
    if expected != entry.last + 1 || last != Some(entry.last_hash) {
        panic!(
            "accepted segment does not hold seqs {}..={} ending at the listed hash",
            entry.first, entry.last
        );
    }
}

/// A record's seq, hash and body length at `at`.
fn header(bytes: &[u8], at: usize) -> Option<(u64, Hash, usize)> {
    let header = bytes.get(at..at.checked_add(RECORD_HEADER)?)?;
    let (seq, rest) = header.split_first_chunk::<8>()?;
    let (hash, len) = rest.split_first_chunk::<32>()?;
    let len = u32::from_be_bytes(<[u8; 4]>::try_from(len).ok()?);
    Some((u64::from_be_bytes(*seq), Hash::from_bytes(*hash), usize::try_from(len).ok()?))
}

/// The archive directory, opened once by descriptor: a store directory renamed or replaced
/// afterwards does not redirect where segments are read or written.
#[derive(Debug)]
pub(super) struct ArchiveDir {
    fd: OwnedFd,
    path: PathBuf,
    /// Leftover temporary files were removed.
    cleaned: AtomicBool,
}

impl ArchiveDir {
    /// Opens `store/archive`; with `create`, creates it (mode 0700) when it does not exist.
    /// `None` when it does not exist and `create` is off. A symlink or anything but a
    /// directory there is an error.
    pub(super) fn open(store: &Path, create: bool) -> Result<Option<ArchiveDir>, String> {
        let path = store.join(DIR);
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let opened = match rustix::fs::openat(rustix::fs::CWD, &path, flags, Mode::empty()) {
            Err(Errno::NOENT) if create => {
                match rustix::fs::mkdirat(rustix::fs::CWD, &path, Mode::RWXU) {
                    Ok(()) | Err(Errno::EXIST) => {}
                    Err(e) => return Err(format!("cannot create `{}`: {e}", path.display())),
                }
                rustix::fs::openat(rustix::fs::CWD, &path, flags, Mode::empty())
            }
            other => other,
        };
        match opened {
            Ok(fd) => Ok(Some(ArchiveDir { fd, path, cleaned: AtomicBool::new(false) })),
            Err(Errno::NOENT) => Ok(None),
            Err(e) => Err(format!("cannot open `{}` as a directory: {e}", path.display())),
        }
    }

    /// Writes a segment under `name`, its bytes written by `fill`, whole or not at all (U-4: a
    /// temporary file created `O_EXCL | O_NOFOLLOW` under a random name, synced, renamed over
    /// `name`, the directory synced; removed if `fill` fails). The first write of an open first
    /// removes the temporary files of writers killed before their rename (the caller holds
    /// sled's lock: no other writer is live).
    pub(super) fn write(
        &self,
        name: &str,
        fill: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
    ) -> Result<(), String> {
        if !self.cleaned.swap(true, Ordering::AcqRel) {
            let entries = crate::untrusted::entries(self.fd.as_fd(), &self.path).map_err(|e| e.reason())?;
            for (entry, _) in entries {
                let text = entry.to_string_lossy();
                if text.starts_with('.') && text.ends_with(".tmp") {
                    rustix::fs::unlinkat(&self.fd, entry.as_os_str(), AtFlags::empty()).map_err(|e| {
                        format!("cannot remove the leftover `{}`: {e}", self.path.join(&entry).display())
                    })?;
                }
            }
        }
        crate::untrusted::write_at_with(self.fd.as_fd(), OsStr::new(name), 0o400, &self.path.join(name), fill)
            .map_err(|e| e.reason())
    }

    /// Reads the segment `entry` lists, and checks it ([`Segment::parse`]).
    pub(super) fn read(&self, entry: &Entry) -> Result<Segment, String> {
        let name = entry.name();
        let path = self.path.join(&name);
        // By descriptor, `O_NOFOLLOW | O_NONBLOCK`, a regular file, at most the listed length (U-3).
        let (file, len, _) = crate::untrusted::open_file_at(self.fd.as_fd(), OsStr::new(&name), &path)
            .map_err(|e| e.reason())?;
        if len != entry.bytes {
            return Err(format!("`{name}` holds {len} bytes, {} were archived", entry.bytes));
        }
        let bytes = crate::untrusted::read_bounded(file, len, entry.bytes, &path).map_err(|e| e.reason())?;
        Segment::parse(entry, bytes).map_err(|why| format!("`{name}`: {why}"))
    }

    /// Whether the segment `entry` lists is there: a regular file of its length.
    pub(super) fn holds(&self, entry: &Entry) -> Result<(), String> {
        let name = entry.name();
        let stat = rustix::fs::statat(&self.fd, &name, AtFlags::SYMLINK_NOFOLLOW)
            .map_err(|e| format!("`{}`: {e}", self.path.join(&name).display()))?;
        let len = u64::try_from(stat.st_size).unwrap_or(u64::MAX);
        if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile || len != entry.bytes {
            return Err(format!("`{name}` is not the {}-byte file that was archived", entry.bytes));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use proptest::prelude::*;

    fn segment(first: u64, bodies: &[&[u8]]) -> (Entry, Vec<u8>) {
        let mut bytes = Vec::new();
        let mut writer = SegmentWriter::new(&mut bytes).unwrap();
        let mut hash = Hash::from_bytes([0; 32]);
        for (i, body) in bodies.iter().enumerate() {
            hash = Hash::link(&hash, body);
            let seq = first + i as u64;
            writer.push(RecordRef { seq, hash, body }).unwrap();
        }
        let (len, digest) = writer.finish().unwrap();
        assert_eq!((len, digest), (bytes.len() as u64, *blake3::hash(&bytes).as_bytes()));
        let entry =
            Entry { first, last: first + bodies.len() as u64 - 1, last_hash: hash, bytes: len, digest };
        (entry, bytes)
    }

    fn with_digest(mut entry: Entry, bytes: &[u8]) -> Entry {
        entry.digest = *blake3::hash(bytes).as_bytes();
        entry.bytes = bytes.len() as u64;
        entry
    }

    #[test]
    fn a_segment_reads_back_from_any_seq() {
        let (entry, bytes) = segment(7, &[b"a", b"bb", b"", b"dddd"]);
        let segment = Segment::parse(&entry, bytes).unwrap();
        let seqs: Vec<u64> = segment.from(8).map(|r| r.seq).collect();
        assert_eq!(seqs, [8, 9, 10]);
        let bodies: Vec<&[u8]> = segment.from(7).map(|r| r.body).collect();
        assert_eq!(bodies, [&b"a"[..], b"bb", b"", b"dddd"]);
        assert_eq!(segment.from(11).count(), 0);
        assert_eq!(segment.from(6).count(), 0);
        assert_eq!(Entry::decode(&entry.first.to_be_bytes(), &entry.encode()), Some(entry));
    }

    #[test]
    fn a_segment_that_differs_from_its_listing_is_refused() {
        let (entry, bytes) = segment(1, &[b"one", b"two", b"three"]);
        // Any byte changed: the digest.
        let mut edited = bytes.clone();
        edited[MAGIC.len() + 50] ^= 1;
        assert!(Segment::parse(&entry, edited).unwrap_err().contains("digest"));
        // Rewritten with a matching digest but cut short, reordered or extended: the records.
        let cut = &bytes[..bytes.len() - 1];
        assert!(Segment::parse(&with_digest(entry, cut), cut.to_vec()).unwrap_err().contains("cut short"));
        let (_, shifted) = segment(2, &[b"one", b"two", b"three"]);
        let err = Segment::parse(&with_digest(entry, &shifted), shifted).unwrap_err();
        assert!(err.contains("seq 2 where seq 1"), "{err}");
        let (_, longer) = segment(1, &[b"one", b"two", b"three", b"four"]);
        let err = Segment::parse(&with_digest(entry, &longer), longer).unwrap_err();
        assert!(err.contains("seq 4 where seq 4") || err.contains("holds seq 4"), "{err}");
        let (_, other) = segment(1, &[b"one", b"two", b"THREE"]);
        let err = Segment::parse(&with_digest(entry, &other), other).unwrap_err();
        assert!(err.contains("last event's hash"), "{err}");
        let mut not_ours = bytes.clone();
        not_ours[0] = b'A';
        let err = Segment::parse(&with_digest(entry, &not_ours), not_ours).unwrap_err();
        assert!(err.contains("not an Agent Warden segment"), "{err}");
    }

    #[test]
    fn a_listing_of_the_wrong_shape_is_refused() {
        let (entry, _) = segment(3, &[b"x"]);
        let value = entry.encode();
        assert_eq!(Entry::decode(&[0; 7], &value), None);
        assert_eq!(Entry::decode(&3u64.to_be_bytes(), &value[..79]), None);
        assert_eq!(Entry::decode(&4u64.to_be_bytes(), &value), None, "ends before it starts");
        assert_eq!(Entry::decode(&0u64.to_be_bytes(), &Entry { first: 0, last: 0, ..entry }.encode()), None);
        let at_the_end = Entry { last: u64::MAX, ..entry }.encode();
        assert_eq!(Entry::decode(&3u64.to_be_bytes(), &at_the_end), None, "no seq follows u64::MAX");
        let before_it = Entry { last: u64::MAX - 1, ..entry };
        assert_eq!(Entry::decode(&3u64.to_be_bytes(), &before_it.encode()), Some(before_it));
    }

    proptest! {
        /// A whole segment with one byte changed, cut or added, its listing rewritten to match
        /// (as a writer of both files could): refused, or read as exactly the listed records.
        #[test]
        fn a_segment_rewritten_with_its_listing_is_refused_or_read_whole(
            bodies in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..40), 1..6),
            at in any::<prop::sample::Index>(),
            byte in any::<u8>(),
            how in 0u8..3,
        ) {
            let bodies: Vec<&[u8]> = bodies.iter().map(Vec::as_slice).collect();
            let (entry, mut bytes) = segment(5, &bodies);
            let at = at.index(bytes.len());
            match how {
                0 => bytes[at] ^= byte | 1,
                1 => bytes.truncate(at),
                _ => bytes.insert(at, byte),
            }
            let entry = with_digest(entry, &bytes);
            if let Ok(read) = Segment::parse(&entry, bytes) {
                let seqs: Vec<u64> = read.from(5).map(|r| r.seq).collect();
                prop_assert_eq!(seqs, (5..5 + bodies.len() as u64).collect::<Vec<_>>());
            }
        }

        /// The parser of a file an agent may have written never panics and never reads past
        /// its input, whatever the bytes and the listing.
        #[test]
        fn any_bytes_are_refused_or_read_without_panic(
            bytes in proptest::collection::vec(any::<u8>(), 0..400),
            first in 1u64..5,
            count in 1u64..5,
            keep_magic in any::<bool>(),
        ) {
            let bytes = if keep_magic { [MAGIC, &bytes].concat() } else { bytes };
            let entry = Entry {
                first,
                last: first + count - 1,
                last_hash: Hash::from_bytes([0; 32]),
                bytes: bytes.len() as u64,
                digest: *blake3::hash(&bytes).as_bytes(),
            };
            if let Ok(segment) = Segment::parse(&entry, bytes) {
                prop_assert_eq!(segment.from(first).count() as u64, count);
            }
        }
    }
}
