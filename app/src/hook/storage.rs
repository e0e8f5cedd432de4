//! The hook's own files in Warden's storage directory (beside the embedded store: `.agentwarden/`
//! by default), read and written without opening the store.
//!
//! - `quarantine/<session>`: the quarantine marker (H-28). Written atomically (a temporary file
//!   created with `O_EXCL`, synced, then renamed), so it holds even when the store is locked;
//!   checked by every `PreToolUse` before the store is opened. Any entry at that name counts,
//!   whatever it holds; one that cannot be looked at counts too (fail closed).
//! - `sessions/<session>.json`: the fast path's index (H-24) — whether the session is
//!   quarantined and which agents are tracked (with their types), as the store said when it was
//!   last written. Written atomically after each hook call that had the store; read by
//!   descriptor, bounded; anything unexpected in it is as if it were absent.
//!
//! - `snapshots/<session>/<agent>`: a copy of the content snapshot taken at the agent's start
//!   (U-12) with the root it was taken in, so that a stop can revert without the store (H-33).
//!   The store's own copy stays the reference: the agent can edit this one. Neither is removed
//!   by a hook event: any can be the agent's (H-53, H-54).
//! - `pending/<session>/<digest>.json`: a guardrail violation found and reverted at a stop
//!   while the log could not be written, until it is recorded (H-33). Its name is the BLAKE3 of
//!   its bytes, so the same violation is one file and an edited one no longer matches its name.
//!
//! Both names come from a session id checked by [`is_safe_id`] (H-25): one path component.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use agentwarden_adapters::paths;
use agentwarden_adapters::untrusted::UntrustedError;
use agentwarden_domain::guardrails::Violation;
use agentwarden_domain::sessions::{SpawnTree, is_safe_id};
use serde::{Deserialize, Serialize};

/// Why a hook file cannot be used, by cause (X-95): a session or a file name that cannot name a
/// file safely, an entry that cannot be looked at, read, written or removed, a copy that does not
/// read as one. Every one is a failure on a decision path: the caller fails closed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StorageError {
    /// A session id that is not one path component (H-25).
    #[error("session id `{}` is not safe as a file name", .0.escape_debug())]
    UnsafeSession(String),
    /// A file name under a session that is not one path component (H-25).
    #[error("`{}` is not safe as a file name", .0.escape_debug())]
    UnsafeName(String),
    /// Whether anything is at `path` cannot be told.
    #[error("the {what} `{}` cannot be checked: {source}", path.display())]
    Unchecked {
        /// What is there: `quarantine marker`, `pending violations`, `snapshot copy`.
        what: &'static str,
        /// Where.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A root that cannot be made absolute.
    #[error("`{}`: {source}", path.display())]
    Unresolvable {
        /// The root as given.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// An entry that cannot be removed.
    #[error("cannot remove `{}`: {source}", path.display())]
    Unremovable {
        /// Where.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A file read or written by descriptor that cannot be (U-1, U-4): planted, too large, or
    /// the I/O failed. The message names the path.
    #[error(transparent)]
    File(#[from] UntrustedError),
    /// A snapshot copy that does not read as one.
    #[error("the snapshot copy `{}` does not read as one", .0.display())]
    NotASnapshot(PathBuf),
    /// A value that cannot be written as JSON.
    #[error(transparent)]
    Encode(#[from] serde_json::Error),
}

/// The largest index read.
const MAX_INDEX_BYTES: u64 = 1024 * 1024;

/// The largest snapshot copy read: the content's bound (U-12) twice over, for its manifest.
const MAX_SNAPSHOT_COPY_BYTES: u64 = 128 * 1024 * 1024;

/// What a quarantine marker says (best effort: any marker quarantines, readable or not).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Marker {
    /// The stable code of the cause.
    pub code: String,
    /// Why.
    pub reason: String,
    /// The subagent whose stop quarantined the session.
    pub agent_id: Option<String>,
    /// The names of the pending violations written with it (H-33): one listed here and not
    /// found is a record the agent removed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pending: Vec<String>,
}

/// A violation found and reverted at a stop whose event could not be recorded (H-33).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PendingViolation {
    /// The subagent whose stop found it.
    pub agent_id: String,
    /// What was found, and what the revert achieved.
    pub violation: Violation,
}

/// A pending violation as found on disk: its file name and what it holds, or why it cannot be
/// read (removed, replaced, edited: its name is no longer its digest).
pub(crate) type PendingFile = (String, Result<PendingViolation, String>);

/// The copy of a content snapshot beside the store (H-33).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SnapshotCopy {
    /// The root the snapshot was taken in (the workspace, or the agent's worktree, H-27).
    pub root: PathBuf,
    /// The snapshot as `ContentSnapshot::encode` wrote it.
    pub encoded: Vec<u8>,
}

/// The fast path's index of one session (H-24).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionIndex {
    /// The session it is about (must match its file's name).
    pub session: String,
    /// The log's head when it was written.
    pub head: u64,
    /// Whether the store said the session is quarantined.
    pub quarantined: bool,
    /// Tracked agents: id → type.
    pub tracked: BTreeMap<String, String>,
    /// Tracked agents with a root of their own (a worktree, H-27): id → root. A write is
    /// checked against its protected paths too, wherever the agent's `cwd` has moved since.
    #[serde(default)]
    pub roots: BTreeMap<String, String>,
    /// Tracked agents that have not stopped: to a harness that names no subagent, a call
    /// without a caller is theirs while any runs (M-2).
    #[serde(default)]
    pub running: BTreeSet<String>,
    /// The seal digest of the configuration the store decided with (the sealed one while a
    /// seal is in force, H-49); the fast path answers only when the configuration it holds is
    /// that one, so a configuration edited since the seal never answers there.
    #[serde(default)]
    pub config: Option<String>,
}

impl SessionIndex {
    /// The index of `session` from its spawn tree.
    pub fn of(session: &str, head: u64, quarantined: bool, tree: &SpawnTree) -> SessionIndex {
        let tracked = tree
            .tracked()
            .filter_map(|id| tree.agents.get(id).map(|a| (id.clone(), a.agent_type.clone())))
            .collect();
        let roots = tree
            .tracked()
            .filter_map(|id| tree.agents.get(id).and_then(|a| a.root.clone()).map(|root| (id.clone(), root)))
            .collect();
        let running = tree.running().map(|(id, _)| id.clone()).collect();
        SessionIndex { session: session.to_owned(), head, quarantined, tracked, roots, running, config: None }
    }
}

/// Warden's storage directory for the hook's files.
#[derive(Clone, Debug)]
pub struct HookStorage {
    dir: PathBuf,
}

impl HookStorage {
    /// The hook's files under `dir`.
    pub fn new(dir: impl Into<PathBuf>) -> HookStorage {
        HookStorage { dir: dir.into() }
    }

    /// Beside an embedded store (its parent directory: `.agentwarden/` for the default
    /// `.agentwarden/audit`); for a PostgreSQL store, `.agentwarden/` under the workspace root.
    pub fn for_store(location: Option<&crate::StoreLocation>, root: &Path) -> HookStorage {
        match location {
            Some(crate::StoreLocation::Embedded(path)) => {
                let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
                HookStorage::new(parent)
            }
            _ => HookStorage::new(root.join(".agentwarden")),
        }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn named(&self, sub: &str, session: &str, suffix: &str) -> Result<PathBuf, StorageError> {
        if !is_safe_id(session) {
            return Err(StorageError::UnsafeSession(session.to_owned()));
        }
        Ok(self.dir.join(sub).join(format!("{session}{suffix}")))
    }

    /// `sub/<session>/<leaf>`, both ids checked (H-25).
    fn nested(&self, sub: &str, session: &str, leaf: &str) -> Result<PathBuf, StorageError> {
        let dir = self.named(sub, session, "")?;
        if !is_safe_id(leaf) {
            return Err(StorageError::UnsafeName(leaf.to_owned()));
        }
        Ok(dir.join(leaf))
    }

    /// The marker of `session`: `Ok(None)` when there is none, `Err` when it cannot be told
    /// (the caller treats that as quarantined).
    pub fn marker(&self, session: &str) -> Result<Option<Marker>, StorageError> {
        let path = self.named("quarantine", session, "")?;
        let found = match paths::entry_exists(&path) {
            Ok(false) => Ok(None),
            Err(source) => Err(StorageError::Unchecked { what: "quarantine marker", path, source }),
            Ok(true) => {
                let marker = read_marker(&path).unwrap_or_else(|| Marker {
                    code: "session_quarantined".into(),
                    reason: "a quarantine marker is in place".into(),
                    ..Marker::default()
                });
                Ok(Some(marker))
            }
        };
        found.and_then(|marker| match marker {
            Some(marker) => Ok(Some(marker)),
            // A violation not yet recorded quarantines its session, marker or not (H-33).
            None => match self.has_pending(session) {
                Ok(false) => Ok(None),
                Ok(true) => Ok(Some(Marker {
                    code: "session_quarantined".into(),
                    reason: "a guardrail violation found while the log could not be written is not \
                             recorded yet"
                        .into(),
                    ..Marker::default()
                })),
                Err(why) => Err(why),
            },
        })
    }

    /// Whether anything is at `pending/<session>` (an entry that cannot be looked at counts).
    fn has_pending(&self, session: &str) -> Result<bool, StorageError> {
        let dir = self.named("pending", session, "")?;
        paths::entry_exists(&dir).map_err(|source| StorageError::Unchecked {
            what: "pending violations",
            path: dir,
            source,
        })
    }

    /// Quarantines `session`: its index is removed first (so that no fast path can allow from
    /// it), then the marker is written atomically. An existing marker is kept.
    pub fn quarantine(&self, session: &str, marker: &Marker) -> Result<(), StorageError> {
        let path = self.named("quarantine", session, "")?;
        if let Ok(index) = self.named("sessions", session, ".json") {
            let _ = paths::remove_entry(&index);
        }
        if paths::entry_exists(&path).unwrap_or(false) {
            return Ok(());
        }
        write_private(&path, &serde_json::to_vec(marker)?)
    }

    /// Lists `name` among the marker's pending violations (H-33), writing `marker` first when
    /// there is none (or what is there does not read as a marker).
    pub(crate) fn note_pending(
        &self,
        session: &str,
        marker: &Marker,
        name: &str,
    ) -> Result<(), StorageError> {
        let path = self.named("quarantine", session, "")?;
        let mut marker = read_marker(&path).unwrap_or_else(|| marker.clone());
        if !marker.pending.iter().any(|n| n == name) {
            marker.pending.push(name.to_owned());
        }
        if let Ok(index) = self.named("sessions", session, ".json") {
            let _ = paths::remove_entry(&index);
        }
        write_private(&path, &serde_json::to_vec(&marker)?)
    }

    /// Removes `name` from the marker's pending list, once it is recorded (best effort: a name
    /// left listed whose file is gone is reported as removed by the agent: fail closed).
    pub(crate) fn unlist_pending(&self, session: &str, name: &str) -> Result<(), StorageError> {
        let path = self.named("quarantine", session, "")?;
        let Some(mut marker) = read_marker(&path) else {
            return Ok(());
        };
        marker.pending.retain(|n| n != name);
        write_private(&path, &serde_json::to_vec(&marker)?)
    }

    /// Keeps a copy of `session`'s `agent` content snapshot, taken in `root` (H-33; kept made
    /// absolute): written atomically and synced (U-4).
    pub(crate) fn write_snapshot(
        &self,
        session: &str,
        agent: &str,
        root: &Path,
        encoded: &[u8],
    ) -> Result<(), StorageError> {
        let path = self.nested("snapshots", session, agent)?;
        // Absolute: the stop that reads it may run from another working directory.
        let root = paths::canonical(root)
            .map_err(|source| StorageError::Unresolvable { path: root.to_path_buf(), source })?;
        let mut bytes = serde_json::to_vec(&root.to_string_lossy())?;
        bytes.push(b'\n');
        bytes.extend_from_slice(encoded);
        write_private(&path, &bytes)
    }

    /// The snapshot copy of `session`'s `agent`: `Ok(None)` when there is none.
    pub(crate) fn read_snapshot(
        &self,
        session: &str,
        agent: &str,
    ) -> Result<Option<SnapshotCopy>, StorageError> {
        let path = self.nested("snapshots", session, agent)?;
        match paths::entry_exists(&path) {
            Ok(false) => return Ok(None),
            Ok(true) => {}
            Err(source) => return Err(StorageError::Unchecked { what: "snapshot copy", path, source }),
        }
        let bytes = agentwarden_adapters::untrusted::read_bytes(None, &path, MAX_SNAPSHOT_COPY_BYTES)?;
        let newline = bytes.iter().position(|b| *b == b'\n');
        let root = newline
            .and_then(|at| bytes.get(..at))
            .and_then(|line| serde_json::from_slice::<String>(line).ok());
        match (root, newline.and_then(|at| bytes.get(at.saturating_add(1)..))) {
            (Some(root), Some(encoded)) => {
                Ok(Some(SnapshotCopy { root: PathBuf::from(root), encoded: encoded.to_vec() }))
            }
            _ => Err(StorageError::NotASnapshot(path)),
        }
    }

    /// Writes `pending` under `session` (H-33), synced, named by the BLAKE3 of its bytes;
    /// returns the name.
    pub(crate) fn add_pending(
        &self,
        session: &str,
        pending: &PendingViolation,
    ) -> Result<String, StorageError> {
        let bytes = serde_json::to_vec(pending)?;
        let name = format!("{}.json", blake3::hash(&bytes).to_hex());
        let path = self.nested("pending", session, &name)?;
        write_private(&path, &bytes)?;
        Ok(name)
    }

    /// Every pending violation of `session`, each read or with why it cannot be (a file that
    /// is not regular, not a violation, or not named by its digest). `Err` when the directory
    /// is there but cannot be listed.
    pub(crate) fn pending(&self, session: &str) -> Result<Vec<PendingFile>, StorageError> {
        let dir = self.named("pending", session, "")?;
        let there = paths::entry_exists(&dir).map_err(|source| StorageError::Unchecked {
            what: "pending violations",
            path: dir.clone(),
            source,
        })?;
        if !there {
            return Ok(Vec::new());
        }
        let listed = agentwarden_adapters::untrusted::list_dir(None, &dir)?;
        let mut out = Vec::new();
        for (name, _) in listed {
            let name = name.to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue; // a writer's temporary file (U-4)
            }
            let path = dir.join(&name);
            let read = agentwarden_adapters::untrusted::read_bytes(None, &path, MAX_INDEX_BYTES)
                .map_err(|e| e.to_string())
                .and_then(|bytes| {
                    if format!("{}.json", blake3::hash(&bytes).to_hex()) != name {
                        return Err(format!("`{}` is not named by its digest: edited", path.display()));
                    }
                    serde_json::from_slice::<PendingViolation>(&bytes)
                        .map_err(|e| format!("`{}` is not a pending violation: {e}", path.display()))
                });
            out.push((name, read));
        }
        Ok(out)
    }

    /// Removes the pending violation `name` of `session` (a file, or whatever is at its name),
    /// and the session's directory once it is empty.
    pub(crate) fn remove_pending(&self, session: &str, name: &str) -> Result<(), StorageError> {
        let path = self.nested("pending", session, name)?;
        paths::remove_tree(&path).map_err(|source| StorageError::Unremovable { path, source })?;
        let dir = self.named("pending", session, "")?;
        let _ = paths::remove_empty_dir(&dir);
        Ok(())
    }

    /// Removes the marker of `session`; `Ok(false)` when there was none.
    pub fn release(&self, session: &str) -> Result<bool, StorageError> {
        let path = self.named("quarantine", session, "")?;
        paths::remove_entry(&path).map_err(|source| StorageError::Unremovable { path, source })
    }

    /// The index of `session`, if it is there, readable, and about that session.
    pub fn read_index(&self, session: &str) -> Option<SessionIndex> {
        let path = self.named("sessions", session, ".json").ok()?;
        let bytes = read_bounded(&path).ok()?;
        serde_json::from_slice::<SessionIndex>(&bytes).ok().filter(|index| index.session == session)
    }

    /// Removes the index of `session` (best effort): the fast path then answers nothing for it,
    /// and every call goes to the store (H-59).
    pub fn forget_index(&self, session: &str) {
        if let Ok(index) = self.named("sessions", session, ".json") {
            let _ = paths::remove_entry(&index);
        }
    }

    /// Writes the index of its session atomically (best effort: without it the next call takes
    /// the slow path).
    pub fn write_index(&self, index: &SessionIndex) -> Result<(), StorageError> {
        let path = self.named("sessions", &index.session, ".json")?;
        let bytes = serde_json::to_vec(index)?;
        // Not synced: the index is a cache, and a lost one only sends the next call down the
        // slow path (H-24); written like every other file, never through a planted link (U-4).
        Ok(agentwarden_adapters::untrusted::write_cache(None, &path, &bytes, 0o600)?)
    }
}

/// Reads a regular file by descriptor, at most [`MAX_INDEX_BYTES`] (U-1, U-3): a link, a FIFO
/// or anything else planted at the name is refused at once, never followed or waited on.
fn read_bounded(path: &Path) -> Result<Vec<u8>, UntrustedError> {
    agentwarden_adapters::untrusted::read_bytes(None, path, MAX_INDEX_BYTES)
}

/// The marker at `path`, when it reads as one.
fn read_marker(path: &Path) -> Option<Marker> {
    read_bounded(path).ok().and_then(|bytes| serde_json::from_slice::<Marker>(&bytes).ok())
}

/// Writes `bytes` at `path`, durable and not redirectable: a random temporary name,
/// `O_EXCL | O_NOFOLLOW`, mode 0600, synced, renamed, the directory synced (U-4).
fn write_private(path: &Path, bytes: &[u8]) -> Result<(), StorageError> {
    Ok(agentwarden_adapters::untrusted::write_atomic(None, path, bytes, 0o600)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_marker_is_written_once_read_back_and_any_entry_counts() {
        let dir = tempfile::tempdir().unwrap();
        let storage = HookStorage::new(dir.path());
        assert_eq!(storage.marker("s1").unwrap(), None);
        let index = SessionIndex { session: "s1".into(), ..SessionIndex::default() };
        storage.write_index(&index).unwrap();
        assert_eq!(storage.read_index("s1"), Some(index));
        let marker = Marker {
            code: "revert_failed".into(),
            reason: "r".into(),
            agent_id: Some("a".into()),
            ..Marker::default()
        };
        storage.quarantine("s1", &marker).unwrap();
        assert_eq!(storage.marker("s1").unwrap(), Some(marker.clone()));
        assert_eq!(storage.read_index("s1"), None, "quarantining removes the index first");
        storage.quarantine("s1", &Marker::default()).unwrap();
        assert_eq!(storage.marker("s1").unwrap(), Some(marker), "an existing marker is kept");
        // A directory, or garbage, in its place still quarantines.
        std::fs::create_dir_all(dir.path().join("quarantine/s2")).unwrap();
        assert_eq!(storage.marker("s2").unwrap().unwrap().code, "session_quarantined");
        assert!(storage.release("s1").unwrap());
        assert!(!storage.release("s1").unwrap());
        assert_eq!(storage.marker("s1").unwrap(), None);
        assert!(storage.marker("../s1").is_err(), "an unsafe id names no file");
        assert!(storage.quarantine("..", &Marker::default()).is_err());
        let leftovers: Vec<_> = std::fs::read_dir(dir.path().join("quarantine"))
            .unwrap()
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().starts_with(".tmp-"))
            .collect();
        assert!(leftovers.is_empty(), "no temporary file is left behind");
    }

    #[test]
    fn an_index_about_another_session_or_unreadable_is_absent() {
        let dir = tempfile::tempdir().unwrap();
        let storage = HookStorage::new(dir.path());
        std::fs::create_dir_all(dir.path().join("sessions")).unwrap();
        let other = SessionIndex { session: "s2".into(), ..SessionIndex::default() };
        std::fs::write(dir.path().join("sessions/s1.json"), serde_json::to_vec(&other).unwrap()).unwrap();
        assert_eq!(storage.read_index("s1"), None, "copied from another session");
        std::fs::write(dir.path().join("sessions/s1.json"), b"{\"session\":\"s1\"").unwrap();
        assert_eq!(storage.read_index("s1"), None, "torn");
        std::fs::write(
            dir.path().join("sessions/s1.json"),
            br#"{"session":"s1","head":1,"quarantined":false,"tracked":{},"allow_all":true}"#,
        )
        .unwrap();
        assert_eq!(storage.read_index("s1"), None, "an unknown field");
    }

    #[test]
    fn a_fifo_or_a_link_planted_at_the_index_or_the_marker_never_hangs_and_never_allows() {
        let dir = tempfile::tempdir().unwrap();
        let storage = HookStorage::new(dir.path());
        std::fs::create_dir_all(dir.path().join("sessions")).unwrap();
        std::fs::create_dir_all(dir.path().join("quarantine")).unwrap();
        let fifo = |path: &Path| {
            let made = std::process::Command::new("mkfifo").arg(path).status().unwrap();
            assert!(made.success());
        };
        // A plain open of a FIFO would wait for a writer forever: these return at once.
        fifo(&dir.path().join("sessions/s1.json"));
        assert_eq!(storage.read_index("s1"), None, "a FIFO index is absent: the store decides");
        fifo(&dir.path().join("quarantine/s1"));
        assert!(storage.marker("s1").unwrap().is_some(), "a FIFO marker quarantines");
        // A link to a valid index elsewhere is not followed.
        let elsewhere = dir.path().join("forged.json");
        let index = SessionIndex { session: "s2".into(), ..SessionIndex::default() };
        std::fs::write(&elsewhere, serde_json::to_vec(&index).unwrap()).unwrap();
        std::os::unix::fs::symlink(&elsewhere, dir.path().join("sessions/s2.json")).unwrap();
        assert_eq!(storage.read_index("s2"), None, "a linked index is absent");
    }
}
