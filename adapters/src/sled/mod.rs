//! The embedded default event store, on sled 0.34.7.
//!
//! Layout: tree `events`, key = `seq` as 8 big-endian bytes, value = 32-byte hash ‖ body;
//! tree `meta`, key `format` = [`FORMAT`], and `recovered/<unix ms>/<n>` = a file discarded on
//! opening (S-7).
//!
//! - **Durability .** An append returns only after sled's `flush()`, which on Linux is
//!   `sync_file_range` — it survives a killed process, not necessarily a power cut.
//!   [`Durability::Fsync`] also calls `fsync` on the log file.
//! - **Group commit.** Concurrent appenders share one flush (see `group_commit`). A caller
//!   that groups its own appends (the resident service) appends them deferred, without
//!   waiting, and then calls `sync` once: one flush for the group (V-25).
//! - **Opening.** A path that does not exist is created. A path that exists must be an
//!   Agent Warden event store whose first event is seq 1 and whose head verifies against the
//!   event before it; otherwise opening fails — a store is never silently recreated. sled
//!   locks its directory against other processes: the opener retries until
//!   [`SledConfig::lock_timeout`], then fails with [`StoreError::Locked`].
//! - **Recovery (S-7..S-12).** Before sled opens it, under sled's lock, what a writer killed at
//!   any instant leaves and sled cannot open past (an unfinished `snap.*.generating`, a `conf`
//!   cut short) is discarded, by descriptor, and reported ([`SledEventStore::discarded`], a
//!   warning, and a note in the `meta` tree); nothing that holds an event is. See `recover`.
//! - **Poisoning.** After a failed flush the store refuses every further append: what reached
//!   the disk is unknown until it is reopened and its head verified.
//! - **Archive (S-13).** Only the newest events stay in sled: once more than
//!   [`SledConfig::archive_keep`] plus a segment are durable, the oldest are moved into a
//!   segment file under `archive/` and their keys removed, so sled's memory and its start-up
//!   do not grow with the log. Reads go through both, in seq order. See `archive`.

mod archive;
mod group_commit;
mod merkle;
mod recover;
mod state;

pub use recover::{Discarded, Leftover};

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{SyncSender, TrySendError};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

use agentwarden_domain::audit::merkle::{Frontier, MerkleHash, Node};
use agentwarden_domain::audit::{
    BreakKind, ChainBreak, ChainVerifier, EventDraft, Hash, Head, RecordPage, RecordRef, StoredRecord,
};
use agentwarden_ports::{
    Appended, EventStore, Expected, StoreError, merkle_leaves, merkle_nodes_from_events,
};
use async_trait::async_trait;

use crate::sealing::{check_sealed, prepare};
#[cfg(feature = "fuzzing")]
pub(crate) use archive::fuzz as fuzz_segment;
use archive::{ArchiveDir, Entry, Segment};
use group_commit::GroupCommit;
use recover::Found;

/// The format marker written into a new store's `meta` tree.
pub(crate) const FORMAT: &[u8] = b"agentwarden-events/1";

/// How durable an acknowledged append is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Durability {
    /// sled's `flush()` before returning (`sync_file_range` on Linux): survives a crash of the
    /// process. The default.
    #[default]
    Flush,
    /// `flush()` and then `fsync` of the log file: survives a crash of the machine, at the cost
    /// of a full sync per group commit.
    Fsync,
}

/// Where and how to open a [`SledEventStore`].
#[derive(Clone, Debug)]
pub struct SledConfig {
    /// The store's directory.
    pub path: PathBuf,
    /// See [`Durability`].
    pub durability: Durability,
    /// How long to wait for another process to release the store.
    pub lock_timeout: Duration,
    /// sled's page cache, in bytes.
    pub cache_capacity: u64,
    /// Create the store if the path does not exist. Readers turn this off: a missing log is
    /// an error for them, not an empty log that verifies.
    pub create_if_missing: bool,
    /// When older events are moved out of sled into segment files (S-13).
    pub archiving: Archiving,
    /// How many of the newest durable events stay in sled, at least (at least 1). With the
    /// default 1 024 and segments of 2 048, sled holds at most 3 072 events: less than its
    /// cache, so a move reads its events from memory (measured: `warden serve` holds
    /// 26 776 KiB after 1 M decisions against 27 132 KiB after 10 k; with 4 096 kept, 38 984
    /// against 29 532 KiB).
    pub archive_keep: u64,
    /// How many events a segment holds (at least 1; fewer when they pass 16 MiB).
    pub archive_segment: u64,
}

/// When a [`SledEventStore`] moves its older events into segment files (S-13).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Archiving {
    /// In the append that makes a segment due, once its events are durable: that append
    /// returns after the move (tens of milliseconds, once a segment). The default: for a
    /// process that may exit as soon as its append returns.
    #[default]
    Inline,
    /// On a thread of the store's own, woken when a segment is due: appends never wait for a
    /// move. For a long-running process (`warden serve`).
    Background,
    /// Never: a store opened to be read, or one whose tail a test edits.
    Off,
}

impl SledConfig {
    /// Defaults: [`Durability::Flush`], a 5 s lock wait, an 8 MiB cache (appends and sequential
    /// scans gain nothing from a larger one; measured: a 1M-event verify is faster with 8 MiB
    /// than with 64 MiB), [`Archiving::Inline`] of segments of 2 048 events once 1 024 more
    /// stay in sled.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        SledConfig {
            path: path.into(),
            durability: Durability::Flush,
            lock_timeout: Duration::from_secs(5),
            cache_capacity: 8 * 1024 * 1024,
            create_if_missing: true,
            archiving: Archiving::Inline,
            archive_keep: 1024,
            archive_segment: 2048,
        }
    }

    /// Sets when older events are archived.
    pub fn archiving(mut self, archiving: Archiving) -> Self {
        self.archiving = archiving;
        self
    }

    /// Sets how many events stay in sled and how many a segment holds (each at least 1).
    pub fn archive_sizes(mut self, keep: u64, segment: u64) -> Self {
        self.archive_keep = keep.max(1);
        self.archive_segment = segment.max(1);
        self
    }

    /// Sets whether a missing store is created.
    pub fn create_if_missing(mut self, create: bool) -> Self {
        self.create_if_missing = create;
        self
    }

    /// Sets the durability.
    pub fn durability(mut self, durability: Durability) -> Self {
        self.durability = durability;
        self
    }

    /// Sets the lock wait.
    pub fn lock_timeout(mut self, timeout: Duration) -> Self {
        self.lock_timeout = timeout;
        self
    }
}

/// The sled event store. Cheap to clone; clones share one database.
#[derive(Clone, Debug)]
pub struct SledEventStore {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    db: sled::Db,
    events: sled::Tree,
    state: sled::Tree,
    projections: sled::Tree,
    durability: Durability,
    log_file: Option<File>,
    head: Mutex<Head>,
    /// The kept Merkle nodes: see `merkle`.
    merkle: sled::Tree,
    /// The right edge of the tree over the log up to the head; locked under the head's lock.
    frontier: Mutex<Frontier>,
    written: AtomicU64,
    commit: GroupCommit,
    discarded: Vec<Discarded>,
    log: Log,
    archiving: Archiving,
    keep: u64,
    segment: u64,
    /// Held while a segment is moved: one move at a time.
    moving: Mutex<()>,
    /// A move failed: none is tried again until the store is reopened (the events stay in
    /// sled, and a failing move would otherwise be retried on every append).
    move_failed: AtomicBool,
    /// Wakes the [`Archiving::Background`] thread.
    wake: Option<SyncSender<()>>,
}

/// The log as readers see it: the archived segments, then the tail in sled (S-13).
#[derive(Debug)]
struct Log {
    path: PathBuf,
    events: sled::Tree,
    /// The segments, by first seq.
    index: sled::Tree,
    dir: OnceLock<ArchiveDir>,
    /// The last archived event; published only once its segment is durable and listed.
    archived: AtomicU64,
    archived_head: Mutex<Head>,
    /// The segment read last: a walk reads each segment once.
    cached: Mutex<Option<Arc<Segment>>>,
}

fn unavailable(what: &str) -> impl Fn(sled::Error) -> StoreError + '_ {
    move |e| StoreError::Unavailable { reason: format!("{what}: {e}") }
}

/// An I/O error opening the store names the store's path (N-5).
fn cannot_open(path: &Path, e: sled::Error) -> StoreError {
    StoreError::Unavailable { reason: format!("cannot open the store `{}`: {e}", path.display()) }
}

fn corrupt(seq: u64, why: impl Into<String>) -> StoreError {
    StoreError::Corrupt { seq, why: why.into() }
}

fn key(seq: u64) -> [u8; 8] {
    seq.to_be_bytes()
}

/// A stored entry's seq, hash and body, borrowed.
fn split<'v>(key: &[u8], value: &'v [u8]) -> Result<(u64, Hash, &'v [u8]), StoreError> {
    let seq =
        <[u8; 8]>::try_from(key).map(u64::from_be_bytes).map_err(|_| corrupt(0, "a key is not 8 bytes"))?;
    let (hash, body) =
        value.split_first_chunk::<32>().ok_or_else(|| corrupt(seq, "record shorter than its hash"))?;
    Ok((seq, Hash::from_bytes(*hash), body))
}

fn decode(key: &[u8], value: &[u8]) -> Result<StoredRecord, StoreError> {
    let (seq, hash, body) = split(key, value)?;
    Ok(StoredRecord { seq, hash, body: body.to_vec() })
}

fn encode(record: &StoredRecord) -> Vec<u8> {
    let mut value = Vec::with_capacity(32 + record.body.len());
    value.extend_from_slice(record.hash.as_bytes());
    value.extend_from_slice(&record.body);
    value
}

impl SledEventStore {
    /// Opens the store at `config.path`, creating it if the path does not exist.
    pub fn open(config: &SledConfig) -> Result<Self, StoreError> {
        let path = config.path.as_path();
        let deadline = Instant::now() + config.lock_timeout;
        let (found, mut discarded) = recover::prepare(path, config.create_if_missing, deadline)?;
        let exists = found == Found::Store;
        if !exists && !config.create_if_missing {
            return Err(StoreError::Missing { path: path.display().to_string() });
        }
        let db = open_locked(config, deadline, &mut discarded)?;
        let events = db.open_tree("events").map_err(unavailable("cannot open the events tree"))?;
        let meta = db.open_tree("meta").map_err(unavailable("cannot open the meta tree"))?;
        let state = db.open_tree("state").map_err(unavailable("cannot open the state tree"))?;
        let projections =
            db.open_tree("projections").map_err(unavailable("cannot open the projections tree"))?;
        match meta.get("format").map_err(unavailable("cannot read the format marker"))? {
            Some(format) if format.as_ref() == FORMAT => {}
            Some(other) => {
                return Err(corrupt(
                    0,
                    format!("unknown store format `{}`", String::from_utf8_lossy(&other)),
                ));
            }
            // A store that was created but never written to (a crash between creating the
            // directory and writing the marker) holds nothing to lose.
            None if events.is_empty() => {
                meta.insert("format", FORMAT).map_err(unavailable("cannot write the format marker"))?;
                db.flush().map_err(unavailable("cannot flush the new store"))?;
            }
            None => return Err(corrupt(0, "events present but no format marker")),
        }
        let index = db.open_tree(archive::TREE).map_err(unavailable("cannot open the archive tree"))?;
        let log = Log::open(path, events.clone(), index)?;
        let head = log.verified_head()?;
        let merkle = db.open_tree(merkle::TREE).map_err(unavailable("cannot open the Merkle tree"))?;
        let frontier = merkle::reconcile(&merkle, &log, head)?;
        let log_file = match config.durability {
            Durability::Flush => None,
            Durability::Fsync => Some(File::open(path.join("db")).map_err(|e| StoreError::Unavailable {
                reason: format!("cannot open the log file for fsync: {e}"),
            })?),
        };
        for file in &discarded {
            tracing::warn!(
                path = %path.display(),
                file = %file.name,
                bytes = file.bytes,
                "discarded {} left by a writer that was killed",
                file.what.why()
            );
        }
        note_discarded(&meta, &discarded)?;
        tracing::debug!(path = %path.display(), head = head.seq, created = !exists, "opened sled event store");
        let (wake, woken) = match config.archiving {
            Archiving::Background => {
                let (wake, woken) = std::sync::mpsc::sync_channel(1);
                (Some(wake), Some(woken))
            }
            Archiving::Inline | Archiving::Off => (None, None),
        };
        let inner = Arc::new(Inner {
            db,
            events,
            state,
            projections,
            durability: config.durability,
            log_file,
            head: Mutex::new(head),
            merkle,
            frontier: Mutex::new(frontier),
            written: AtomicU64::new(head.seq),
            commit: GroupCommit::new(head.seq),
            discarded,
            log,
            archiving: config.archiving,
            keep: config.archive_keep.max(1),
            segment: config.archive_segment.max(1),
            moving: Mutex::new(()),
            move_failed: AtomicBool::new(false),
            wake,
        });
        if let Some(woken) = woken {
            let weak = Arc::downgrade(&inner);
            std::thread::Builder::new()
                .name("sled-archive".into())
                .spawn(move || archiver(&weak, &woken))
                .map_err(|e| StoreError::Unavailable { reason: format!("cannot start the archiver: {e}") })?;
        }
        let store = SledEventStore { inner };
        if store.inner.wake.is_some() && store.archive_due() {
            // A store left with segments due (written with archiving off, or by appends whose
            // moves were cut short) is brought back within bounds, off the appends' path.
            store.wake_archiver();
        }
        Ok(store)
    }

    /// Seals and writes the batch under the head lock; durability is awaited afterwards.
    fn write(&self, expected: Expected, batch: &[EventDraft]) -> Result<Appended, StoreError> {
        let inner = &self.inner;
        inner.commit.check_healthy()?;
        let mut head = inner.head.lock().map_err(|_| poisoned())?;
        let (records, new_head) = prepare(&head, expected, batch)?;
        self.write_records(&mut head, &records, new_head)
    }

    /// Checks and writes records sealed elsewhere, under the head lock.
    fn write_sealed(&self, expected: u64, records: &[StoredRecord]) -> Result<Appended, StoreError> {
        self.inner.commit.check_healthy()?;
        let mut head = self.inner.head.lock().map_err(|_| poisoned())?;
        let new_head = check_sealed(&head, expected, records)?;
        self.write_records(&mut head, records, new_head)
    }

    fn write_records(
        &self,
        head: &mut Head,
        records: &[StoredRecord],
        new_head: Head,
    ) -> Result<Appended, StoreError> {
        let inner = &self.inner;
        // The batch's leaves join a copy of the frontier, kept only once the batch is written
        // the nodes they complete are written after the events, before the head moves.
        let mut frontier = inner.frontier.lock().map_err(|_| poisoned())?;
        let mut grown = frontier.clone();
        let mut completed = Vec::new();
        for record in records {
            completed.extend(grown.append(MerkleHash::leaf(&record.body)));
        }
        if grown.size() != new_head.seq {
            return Err(corrupt(
                new_head.seq,
                format!(
                    "the Merkle tree holds {} events where the log will hold {}",
                    grown.size(),
                    new_head.seq
                ),
            ));
        }
        match records {
            // One key is atomic by itself; sled's batch path takes a global write lock and
            // seals a batch marker in its log, which costs far more than the insert.
            [record] => {
                inner
                    .events
                    .insert(key(record.seq), encode(record))
                    .map_err(unavailable("cannot write the event"))?;
            }
            _ => {
                let mut write = sled::Batch::default();
                for record in records {
                    write.insert(&key(record.seq), encode(record));
                }
                inner.events.apply_batch(write).map_err(unavailable("cannot write the batch"))?;
            }
        }
        if let Err(e) = merkle::write_kept(&inner.merkle, &completed) {
            // The events are written and their nodes are not: nothing more is written until
            // the store is reopened, whose opening brings the tree level with the events.
            let reason = format!("the Merkle tree could not follow the log: {e}");
            inner.commit.poison(reason.clone());
            return Err(StoreError::Poisoned { reason });
        }
        *frontier = grown;
        *head = new_head;
        inner.written.store(new_head.seq, Ordering::Release);
        Ok(Appended { first_seq: records.first().map_or(new_head.seq, |r| r.seq), head: new_head })
    }

    fn read_blocking(&self, from: u64, limit: usize) -> Result<Vec<StoredRecord>, StoreError> {
        let mut out = Vec::with_capacity(limit.min(4096));
        self.inner.log.walk(from, limit, |r| {
            out.push(StoredRecord { seq: r.seq, hash: r.hash, body: r.body.to_vec() });
        })?;
        Ok(out)
    }

    /// [`SledEventStore::read_blocking`] into `page`: each value is copied once, into the
    /// page's buffer, with no allocation per record.
    fn read_page_blocking(
        &self,
        from: u64,
        limit: usize,
        mut page: RecordPage,
    ) -> Result<RecordPage, StoreError> {
        page.clear();
        self.inner.log.walk(from, limit, |r| page.push(r.seq, r.hash, r.body))?;
        Ok(page)
    }

    fn current_head(&self) -> Result<Head, StoreError> {
        self.inner.head.lock().map(|h| *h).map_err(|_| poisoned())
    }
}

impl Inner {
    fn make_durable(&self) -> Result<(), String> {
        self.db.flush().map_err(|e| format!("flush failed: {e}"))?;
        if let Some(file) = &self.log_file {
            file.sync_all().map_err(|e| format!("fsync failed: {e}"))?;
        }
        Ok(())
    }
}

fn poisoned() -> StoreError {
    StoreError::Poisoned { reason: "a writer panicked while holding the head".into() }
}

/// How many times an open that sled refused is retried, after discarding more leftovers (S-12).
const RECOVERY_RETRIES: usize = 8;

/// How many of those retries may follow a refusal with nothing discarded.
const QUIET_RETRIES: usize = 3;

/// Opens sled, retrying while another process holds its lock, up to `deadline`. sled takes its
/// lock only once `recover::prepare` has released it, so a writer killed in between can leave
/// a new leftover: when sled then refuses the store, the leftovers are discarded again and the
/// open retried, as long as something was discarded.
fn open_locked(
    config: &SledConfig,
    deadline: Instant,
    discarded: &mut Vec<Discarded>,
) -> Result<sled::Db, StoreError> {
    let started = Instant::now();
    let mut pause = Duration::from_millis(2);
    let mut retries = 0;
    let mut quiet_retries = 0;
    loop {
        let opened = sled::Config::new()
            .path(&config.path)
            .cache_capacity(config.cache_capacity)
            .flush_every_ms(None)
            .open();
        match opened {
            Ok(db) => return Ok(db),
            Err(sled::Error::Io(e)) if e.to_string().contains("could not acquire lock") => {
                let now = Instant::now();
                if now >= deadline {
                    return Err(StoreError::Locked {
                        path: config.path.display().to_string(),
                        waited_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
                    });
                }
                std::thread::sleep(pause.min(deadline - now));
                pause = (pause * 2).min(Duration::from_millis(50));
            }
            Err(e) if retries < RECOVERY_RETRIES => {
                let (_, more) = recover::prepare(&config.path, config.create_if_missing, deadline)?;
                if more.is_empty() {
                    // Nothing new to discard: a refusal that lasts is final. One that passes
                    // was another opener creating the store (sled reads `conf` before its
                    // lock, and writes it in two steps): look again a few times.
                    if quiet_retries >= QUIET_RETRIES {
                        return Err(cannot_open(&config.path, e));
                    }
                    quiet_retries += 1;
                    std::thread::sleep(Duration::from_millis(10));
                }
                discarded.extend(more);
                retries += 1;
            }
            Err(e) => return Err(cannot_open(&config.path, e)),
        }
    }
}

/// Records in the `meta` tree, under `recovered/<unix ms>/<n>`, each file discarded before
/// opening: the evidence outlives the warning on a hook's stderr (S-12).
fn note_discarded(meta: &sled::Tree, discarded: &[Discarded]) -> Result<(), StoreError> {
    if discarded.is_empty() {
        return Ok(());
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    for (n, file) in discarded.iter().enumerate() {
        let key = format!("{RECOVERED}{now:020}/{n}");
        meta.insert(key.as_bytes(), file.to_string().as_bytes())
            .map_err(unavailable("cannot note a discarded file"))?;
    }
    meta.flush().map_err(unavailable("cannot note a discarded file"))?;
    Ok(())
}

/// The prefix of the `meta` keys that record discarded files.
const RECOVERED: &str = "recovered/";

impl Log {
    /// The log at `path`: its segments listed in `index` are checked to follow one another
    /// from seq 1, and each one's file to be there, a regular file of its listed length (one
    /// `fstatat` a segment); nothing is read from the files.
    fn open(path: &Path, events: sled::Tree, index: sled::Tree) -> Result<Log, StoreError> {
        let dir = OnceLock::new();
        if let Some(opened) = ArchiveDir::open(path, false).map_err(|why| corrupt(1, why))? {
            let _ = dir.set(opened);
        }
        let mut archived = Head::EMPTY;
        for listed in index.iter() {
            let (k, v) = listed.map_err(unavailable("cannot read the archive tree"))?;
            let entry = Entry::decode(&k, &v)
                .ok_or_else(|| corrupt(archived.seq + 1, "an archive listing has the wrong shape"))?;
            if entry.first != archived.seq + 1 {
                return Err(corrupt(
                    archived.seq + 1,
                    format!("the archive holds seq {} where seq {} belongs", entry.first, archived.seq + 1),
                ));
            }
            // Every listed file is there, a regular file of its length: a segment removed,
            // cut or replaced refuses the store at once, not only when a walk reaches it.
            let dir = dir.get().ok_or_else(|| {
                corrupt(
                    1,
                    format!("segments are listed but `{}` is missing", path.join(archive::DIR).display()),
                )
            })?;
            dir.holds(&entry).map_err(|why| corrupt(entry.first, format!("an archived segment: {why}")))?;
            archived = Head { seq: entry.last, hash: entry.last_hash };
        }
        Ok(Log {
            path: path.to_path_buf(),
            events,
            index,
            dir,
            archived: AtomicU64::new(archived.seq),
            archived_head: Mutex::new(archived),
            cached: Mutex::new(None),
        })
    }

    fn archived_head(&self) -> Result<Head, StoreError> {
        self.archived_head.lock().map(|h| *h).map_err(|_| poisoned())
    }

    /// The log's head, checked: the log starts at seq 1 (in the archive or in sled), sled's
    /// events follow the archive's last, and the last event verifies against the one before it.
    fn verified_head(&self) -> Result<Head, StoreError> {
        let archived = self.archived_head()?;
        let events = &self.events;
        let last = match events.last().map_err(unavailable("cannot read the head"))? {
            Some((k, v)) => decode(&k, &v)?,
            None => return Ok(archived),
        };
        // Keys at or before the archive's last event are ones a cut-short move left: skipped.
        if last.seq <= archived.seq {
            return Ok(archived);
        }
        let first = match events.range(key(archived.seq + 1)..).next() {
            Some(entry) => {
                entry.map_err(unavailable("cannot read the first event")).and_then(|(k, v)| decode(&k, &v))?
            }
            None => return Err(corrupt(0, "the log changed while it was opened")),
        };
        if first.seq != archived.seq + 1 {
            return Err(match archived.seq {
                0 => corrupt(1, format!("the log starts at seq {}", first.seq)),
                n => corrupt(n + 1, format!("the log after its archive starts at seq {}", first.seq)),
            });
        }
        let before = match last.seq {
            0 => return Err(corrupt(0, "an event has seq 0")),
            seq if seq - 1 == archived.seq => archived,
            seq => {
                let value = events
                    .get(key(seq - 1))
                    .map_err(unavailable("cannot read the event before the head"))?
                    .ok_or_else(|| corrupt(seq - 1, "event missing before the head"))?;
                let previous = decode(&key(seq - 1), &value)?;
                Head { seq: previous.seq, hash: previous.hash }
            }
        };
        let mut verifier = ChainVerifier::after(before);
        match verifier.push(&last) {
            Ok(()) => Ok(verifier.head()),
            // The tail check trusts the stored hash of the event before the head; to name the
            // first bad event exactly, walk the whole chain once (only on this failure path).
            Err(tail) => Err(self.first_break().map_or_else(
                || corrupt(tail.seq, tail.why.to_string()),
                |b| corrupt(b.seq, b.why.to_string()),
            )),
        }
    }

    /// The first place the chain breaks, walking from seq 1.
    fn first_break(&self) -> Option<ChainBreak> {
        let mut verifier = ChainVerifier::new();
        let mut broken = None;
        loop {
            let from = verifier.head().seq.saturating_add(1);
            let mut seen = 0;
            let walked = self.walk(from, 1024, |record| {
                seen += 1;
                if broken.is_none()
                    && let Err(b) = verifier.push(record)
                {
                    broken = Some(b);
                }
            });
            if let Err(e) = walked {
                let seq = verifier.head().seq.saturating_add(1);
                return Some(ChainBreak { seq, why: BreakKind::Unreadable { why: e.to_string() } });
            }
            if broken.is_some() {
                return broken;
            }
            if seen == 0 {
                return verifier.finish().err();
            }
        }
    }

    /// Calls `each` for up to `limit` records from `from` on, in seq order: from the archived
    /// segments, then from sled. A key a concurrent move removed under the walk is read from its
    /// segment instead; a gap nothing explains is passed on as it is (a verifier names it).
    fn walk(&self, from: u64, limit: usize, mut each: impl FnMut(RecordRef<'_>)) -> Result<(), StoreError> {
        let mut next = from.max(1);
        let mut left = limit;
        while left > 0 {
            if next <= self.archived.load(Ordering::Acquire) {
                let segment = self.segment(next)?;
                let before = left;
                for record in segment.from(next).take(left) {
                    next = record.seq + 1;
                    left -= 1;
                    each(record);
                }
                if left == before {
                    return Err(corrupt(next, "the archived segment that lists it does not hold it"));
                }
                continue;
            }
            let mut moved = false;
            for entry in self.events.range(key(next)..) {
                if left == 0 {
                    break;
                }
                let (k, v) = entry.map_err(unavailable("cannot read events"))?;
                let (seq, hash, body) = split(&k, &v)?;
                if seq != next && next <= self.archived.load(Ordering::Acquire) {
                    moved = true;
                    break;
                }
                next = seq.saturating_add(1);
                left -= 1;
                each(RecordRef { seq, hash, body });
            }
            if !moved {
                break;
            }
        }
        Ok(())
    }

    /// The archived segment that holds `seq`, read and checked (or the one read last).
    fn segment(&self, seq: u64) -> Result<Arc<Segment>, StoreError> {
        let mut cached = self.cached.lock().map_err(|_| poisoned())?;
        if let Some(segment) = cached.as_ref().filter(|s| s.first() <= seq && s.from(seq).next().is_some()) {
            return Ok(segment.clone());
        }
        let listed = self.index.range(..=key(seq)).next_back();
        let (k, v) = listed
            .ok_or_else(|| corrupt(seq, "no archived segment holds it"))?
            .map_err(unavailable("cannot read the archive tree"))?;
        let entry =
            Entry::decode(&k, &v).ok_or_else(|| corrupt(seq, "an archive listing has the wrong shape"))?;
        if entry.last < seq {
            return Err(corrupt(seq, "no archived segment holds it"));
        }
        let dir = self.dir.get().ok_or_else(|| {
            corrupt(entry.first, format!("`{}` is missing", self.path.join(archive::DIR).display()))
        })?;
        let segment = Arc::new(
            dir.read(&entry).map_err(|why| corrupt(entry.first, format!("an archived segment: {why}")))?,
        );
        *cached = Some(segment.clone());
        Ok(segment)
    }
}

/// Keeps `error` for the caller and turns it into the I/O error that abandons a segment file.
fn stop(slot: &mut Option<StoreError>, error: StoreError) -> std::io::Error {
    let why = error.to_string();
    *slot = Some(error);
    std::io::Error::other(why)
}

/// The [`Archiving::Background`] thread: a move each time it is woken, until the store is gone.
fn archiver(store: &Weak<Inner>, woken: &std::sync::mpsc::Receiver<()>) {
    while woken.recv().is_ok() {
        let Some(inner) = store.upgrade() else { return };
        SledEventStore { inner }.archive_logged(None);
    }
}

#[async_trait]
impl EventStore for SledEventStore {
    async fn append(&self, expected: Expected, batch: Vec<EventDraft>) -> Result<Appended, StoreError> {
        let appended = self.write(expected, &batch)?;
        self.durable(appended).await
    }

    async fn append_sealed(&self, expected: u64, records: Vec<StoredRecord>) -> Result<Appended, StoreError> {
        let appended = self.write_sealed(expected, &records)?;
        self.durable(appended).await
    }

    async fn append_deferred(
        &self,
        expected: Expected,
        batch: Vec<EventDraft>,
    ) -> Result<Appended, StoreError> {
        self.write(expected, &batch)
    }

    async fn sync(&self) -> Result<(), StoreError> {
        self.durable_up_to(self.inner.written.load(Ordering::Acquire)).await
    }

    async fn read(&self, from: u64, limit: usize) -> Result<Vec<StoredRecord>, StoreError> {
        let store = self.clone();
        tokio::task::spawn_blocking(move || store.read_blocking(from, limit))
            .await
            .map_err(|e| StoreError::Unavailable { reason: format!("read task failed: {e}") })?
    }

    async fn read_page(&self, from: u64, limit: usize, page: RecordPage) -> Result<RecordPage, StoreError> {
        let store = self.clone();
        tokio::task::spawn_blocking(move || store.read_page_blocking(from, limit, page))
            .await
            .map_err(|e| StoreError::Unavailable { reason: format!("read task failed: {e}") })?
    }

    async fn head(&self) -> Result<Head, StoreError> {
        self.current_head()
    }

    /// A node of the kept levels is read from the `merkle` tree; one below covers at
    /// most 64 events, hashed from them, one pass per block of 64 asked for.
    async fn merkle_nodes(&self, nodes: &[Node]) -> Result<Vec<MerkleHash>, StoreError> {
        let head = self.current_head()?.seq;
        let mut out: Vec<Option<MerkleHash>> = vec![None; nodes.len()];
        let mut blocks: std::collections::BTreeMap<u64, Vec<usize>> = std::collections::BTreeMap::new();
        for (at, (node, slot)) in nodes.iter().zip(out.iter_mut()).enumerate() {
            merkle_leaves(node, head)?;
            if node.level >= merkle::KEPT_LEVEL {
                let value = self
                    .inner
                    .merkle
                    .get(merkle::node_key(node))
                    .map_err(unavailable("cannot read the Merkle tree"))?;
                let value = value.ok_or_else(|| {
                    corrupt(
                        merkle::first_seq(node),
                        format!("the kept Merkle tree lacks node {}/{}", node.level, node.index),
                    )
                })?;
                *slot = Some(merkle::node_hash(node, &value)?);
            } else {
                blocks.entry(node.index >> (merkle::KEPT_LEVEL - node.level)).or_default().push(at);
            }
        }
        for wanted in blocks.values() {
            let these: Vec<Node> = wanted.iter().filter_map(|&at| nodes.get(at).copied()).collect();
            let hashes = merkle_nodes_from_events(self, &these).await?;
            for (&at, hash) in wanted.iter().zip(hashes) {
                if let Some(slot) = out.get_mut(at) {
                    *slot = Some(hash);
                }
            }
        }
        out.into_iter()
            .zip(nodes)
            .map(|(hash, node)| {
                hash.ok_or_else(|| StoreError::Unavailable {
                    reason: format!("Merkle node {}/{} was not computed", node.level, node.index),
                })
            })
            .collect()
    }
}

impl SledEventStore {
    /// Returns `appended` once it is durable (group commit).
    async fn durable(&self, appended: Appended) -> Result<Appended, StoreError> {
        self.durable_up_to(appended.head.seq).await?;
        Ok(appended)
    }

    /// Returns once every event up to `seq` is durable (group commit).
    async fn durable_up_to(&self, seq: u64) -> Result<(), StoreError> {
        let inner = &self.inner;
        let flush = || {
            let inner = inner.clone();
            async move {
                tokio::task::spawn_blocking(move || inner.make_durable())
                    .await
                    .unwrap_or_else(|e| Err(format!("the flush task failed: {e}")))
            }
        };
        inner.commit.wait_durable(seq, &inner.written, flush).await?;
        if self.archive_due() {
            match inner.archiving {
                Archiving::Inline => {
                    let store = self.clone();
                    // One segment at most: an append waits for one move, never for a backlog.
                    // The move's outcome is logged; the append it follows is durable either way.
                    let _ = tokio::task::spawn_blocking(move || store.archive_logged(Some(1))).await;
                }
                Archiving::Background => self.wake_archiver(),
                Archiving::Off => {}
            }
        }
        Ok(())
    }

    /// Whether a segment is due to be moved: more than `archive_keep` plus a segment of durable
    /// events in sled, archiving on, and no move failed since the store was opened.
    fn archive_due(&self) -> bool {
        let inner = &self.inner;
        inner.archiving != Archiving::Off && !inner.move_failed.load(Ordering::Acquire) && self.segment_due()
    }

    /// More than `archive_keep` plus a segment of durable events are in sled.
    fn segment_due(&self) -> bool {
        let inner = &self.inner;
        inner.commit.durable().saturating_sub(inner.log.archived.load(Ordering::Acquire))
            >= inner.keep.saturating_add(inner.segment)
    }

    /// Wakes the background archiver (a wake already pending is enough).
    fn wake_archiver(&self) {
        if let Some(wake) = &self.inner.wake
            && let Err(TrySendError::Disconnected(())) = wake.try_send(())
        {
            tracing::error!("the archiver thread is gone; the log stays in sled");
        }
    }

    /// [`SledEventStore::archive`], its failure logged: a move that fails is not tried again
    /// until the store is reopened (its events stay in sled, readable and verifiable).
    fn archive_logged(&self, segments: Option<u64>) {
        if let Err(e) = self.archive_some(segments) {
            self.inner.move_failed.store(true, Ordering::Release);
            tracing::error!(error = %e, "older events could not be archived; they stay in sled");
        }
    }

    /// Moves every segment that is due out of sled into its file (S-13), and returns how many
    /// events it moved. Only durable events are moved, and only when more than
    /// [`SledConfig::archive_keep`] plus a segment of them are in sled; each segment's events
    /// are verified as a chain after the archive's last event first (a broken chain is never
    /// archived: the error names the seq). A failure to make the listing durable poisons the
    /// store, as a failed flush does. Another move in progress in this process: returns 0.
    pub fn archive(&self) -> Result<u64, StoreError> {
        self.archive_some(None)
    }

    /// [`SledEventStore::archive`], of at most `segments` segments.
    fn archive_some(&self, segments: Option<u64>) -> Result<u64, StoreError> {
        let inner = &self.inner;
        let Ok(_moving) = inner.moving.try_lock() else { return Ok(0) };
        let mut moved = 0;
        let mut left = segments.unwrap_or(u64::MAX);
        while left > 0 && self.segment_due() {
            moved += self.move_segment()?;
            left -= 1;
        }
        Ok(moved)
    }

    /// Moves the next segment: see [`SledEventStore::archive`] and `archive`'s module comment.
    fn move_segment(&self) -> Result<u64, StoreError> {
        let inner = &self.inner;
        let log = &inner.log;
        let archived = log.archived_head()?;
        let first = archived.seq + 1;
        let dir = match log.dir.get() {
            Some(dir) => dir,
            None => {
                let opened = ArchiveDir::open(&log.path, true)
                    .and_then(|d| d.ok_or_else(|| "the archive directory vanished".to_owned()))
                    .map_err(|reason| StoreError::Unavailable { reason })?;
                log.dir.get_or_init(|| opened)
            }
        };
        // The events are verified and written as they are read; a break found on the way
        // abandons the file (removed) and is the move's error.
        let mut refused = None;
        let mut written = None;
        let wrote = dir.write(&archive::segment_name(first), |file| {
            let mut writer = archive::SegmentWriter::new(file)?;
            let mut verifier = ChainVerifier::after(archived);
            for entry in log.events.range(key(first)..=key(archived.seq + inner.segment)) {
                let (k, v) =
                    entry.map_err(|e| stop(&mut refused, unavailable("cannot read events to archive")(e)))?;
                let (seq, hash, body) = split(&k, &v).map_err(|e| stop(&mut refused, e))?;
                let record = RecordRef { seq, hash, body };
                verifier
                    .push(record)
                    .map_err(|b| stop(&mut refused, corrupt(b.seq, format!("not archived: {}", b.why))))?;
                writer.push(record)?;
                if writer.bytes() >= archive::SEGMENT_BYTES as u64 {
                    break;
                }
            }
            if verifier.head().seq < first {
                refused = Some(corrupt(first, "not archived: the event is missing"));
                return Err(std::io::Error::other("the event is missing"));
            }
            let (bytes, digest) = writer.finish()?;
            written = Some((verifier.head(), bytes, digest));
            Ok(())
        });
        if let Some(refused) = refused {
            return Err(refused);
        }
        wrote.map_err(|reason| StoreError::Unavailable { reason })?;
        let (head, bytes, digest) = written
            .ok_or_else(|| StoreError::Unavailable { reason: "the segment was not written".into() })?;
        let entry = Entry { first, last: head.seq, last_hash: head.hash, bytes, digest };
        log.index.insert(key(first), &entry.encode()[..]).map_err(unavailable("cannot list the segment"))?;
        if let Err(reason) = inner.make_durable() {
            let reason = format!("the archive listing could not be made durable: {reason}");
            inner.commit.poison(reason.clone());
            return Err(StoreError::Poisoned { reason });
        }
        *log.archived_head.lock().map_err(|_| poisoned())? = head;
        log.archived.store(head.seq, Ordering::Release);
        // The moved events' keys, and any a cut-short move left before them.
        for k in log.events.range(..=key(head.seq)).keys() {
            let k = k.map_err(unavailable("cannot read archived keys"))?;
            log.events.remove(k).map_err(unavailable("cannot remove an archived key"))?;
        }
        Ok(head.seq - archived.seq)
    }

    /// The files discarded when this handle opened the store (S-7, S-8): what a killed writer
    /// had left.
    pub fn discarded(&self) -> &[Discarded] {
        &self.inner.discarded
    }

    /// Every discard this store has recorded, oldest first: when (Unix milliseconds) and what.
    pub fn recoveries(&self) -> Result<Vec<(u64, String)>, StoreError> {
        let meta = self.inner.db.open_tree("meta").map_err(unavailable("cannot open the meta tree"))?;
        let mut out = Vec::new();
        for entry in meta.scan_prefix(RECOVERED) {
            let (key, value) = entry.map_err(unavailable("cannot read the recovery notes"))?;
            let when = key
                .get(RECOVERED.len()..RECOVERED.len() + 20)
                .and_then(|digits| std::str::from_utf8(digits).ok())
                .and_then(|digits| digits.parse().ok())
                .unwrap_or(0);
            out.push((when, String::from_utf8_lossy(&value).into_owned()));
        }
        Ok(out)
    }

    /// The store's durability mode.
    pub fn durability(&self) -> Durability {
        self.inner.durability
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use agentwarden_domain::audit::{Actor, Correlation, Timestamp};
    use agentwarden_domain::events::{AuditEvent, OperatorNote};

    /// A move made while a walk is inside sled's keys removes the keys ahead of it: the walk
    /// reads them from their segment instead, and sees every event once, in order (S-13).
    /// Deterministic: the move is made from the walk's own callback.
    #[test]
    fn a_walk_that_meets_a_move_reads_the_moved_events_from_their_segment() {
        let dir = tempfile::tempdir().unwrap();
        let config = SledConfig::new(dir.path().join("store")).archive_sizes(2, 3).archiving(Archiving::Off);
        let store = SledEventStore::open(&config).unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let actor = Actor::new("test").unwrap();
        let at = Timestamp::from_unix_millis(1_771_666_200_000).unwrap();
        for i in 0..20 {
            let note = AuditEvent::OperatorNote(OperatorNote { message: format!("event {i}") });
            let draft = EventDraft::new(at, actor.clone(), Correlation::default(), &note).unwrap();
            runtime.block_on(store.append(Expected::Any, vec![draft])).unwrap();
        }
        let mut seen = Vec::new();
        store
            .inner
            .log
            .walk(1, 100, |record| {
                seen.push(record.seq);
                if record.seq == 2 {
                    // Segments of 3 up to seq 18 move, and their keys leave sled.
                    assert_eq!(store.archive().unwrap(), 18);
                }
            })
            .unwrap();
        assert_eq!(seen, (1..=20).collect::<Vec<u64>>());
    }
}
