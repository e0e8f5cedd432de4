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
//! Both names come from a session id checked by [`is_safe_id`] (H-25): one path component.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use agentwarden_adapters::paths;
use agentwarden_domain::claude_code::{SpawnTree, is_safe_id};
use serde::{Deserialize, Serialize};

/// The largest index read.
const MAX_INDEX_BYTES: u64 = 1024 * 1024;

/// What a quarantine marker says (best effort: any marker quarantines, readable or not).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Marker {
    /// The stable code of the cause.
    pub code: String,
    /// Why.
    pub reason: String,
    /// The subagent whose stop quarantined the session.
    pub agent_id: Option<String>,
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
        SessionIndex { session: session.to_owned(), head, quarantined, tracked, roots }
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

    fn named(&self, sub: &str, session: &str, suffix: &str) -> Result<PathBuf, String> {
        if !is_safe_id(session) {
            return Err(format!("session id `{}` is not safe as a file name", session.escape_debug()));
        }
        Ok(self.dir.join(sub).join(format!("{session}{suffix}")))
    }

    /// The marker of `session`: `Ok(None)` when there is none, `Err` when it cannot be told
    /// (the caller treats that as quarantined).
    pub fn marker(&self, session: &str) -> Result<Option<Marker>, String> {
        let path = self.named("quarantine", session, "")?;
        match paths::entry_exists(&path) {
            Ok(false) => Ok(None),
            Err(e) => Err(format!("the quarantine marker `{}` cannot be checked: {e}", path.display())),
            Ok(true) => {
                let marker = read_bounded(&path)
                    .ok()
                    .and_then(|bytes| serde_json::from_slice::<Marker>(&bytes).ok())
                    .unwrap_or_else(|| Marker {
                        code: "session_quarantined".into(),
                        reason: "a quarantine marker is in place".into(),
                        agent_id: None,
                    });
                Ok(Some(marker))
            }
        }
    }

    /// Quarantines `session`: its index is removed first (so that no fast path can allow from
    /// it), then the marker is written atomically. An existing marker is kept.
    pub fn quarantine(&self, session: &str, marker: &Marker) -> Result<(), String> {
        let path = self.named("quarantine", session, "")?;
        if let Ok(index) = self.named("sessions", session, ".json") {
            let _ = paths::remove_entry(&index);
        }
        if paths::entry_exists(&path).unwrap_or(false) {
            return Ok(());
        }
        let bytes = serde_json::to_vec(marker).map_err(|e| e.to_string())?;
        // Durable and not redirectable: a random temporary name, `O_EXCL | O_NOFOLLOW`, synced,
        // renamed, the directory synced (U-4).
        agentwarden_adapters::untrusted::write_atomic(None, &path, &bytes, 0o600).map_err(|e| e.to_string())
    }

    /// Removes the marker of `session`; `Ok(false)` when there was none.
    pub fn release(&self, session: &str) -> Result<bool, String> {
        let path = self.named("quarantine", session, "")?;
        paths::remove_entry(&path).map_err(|e| format!("cannot remove `{}`: {e}", path.display()))
    }

    /// The index of `session`, if it is there, readable, and about that session.
    pub fn read_index(&self, session: &str) -> Option<SessionIndex> {
        let path = self.named("sessions", session, ".json").ok()?;
        let bytes = read_bounded(&path).ok()?;
        serde_json::from_slice::<SessionIndex>(&bytes).ok().filter(|index| index.session == session)
    }

    /// Writes the index of its session atomically (best effort: without it the next call takes
    /// the slow path).
    pub fn write_index(&self, index: &SessionIndex) -> Result<(), String> {
        let path = self.named("sessions", &index.session, ".json")?;
        let bytes = serde_json::to_vec(index).map_err(|e| e.to_string())?;
        // Not synced: the index is a cache, and a lost one only sends the next call down the
        // slow path (H-24); written like every other file, never through a planted link (U-4).
        agentwarden_adapters::untrusted::write_cache(None, &path, &bytes, 0o600).map_err(|e| e.to_string())
    }
}

/// Reads a regular file by descriptor, at most [`MAX_INDEX_BYTES`] (U-1, U-3): a link, a FIFO
/// or anything else planted at the name is refused at once, never followed or waited on.
fn read_bounded(path: &Path) -> Result<Vec<u8>, String> {
    agentwarden_adapters::untrusted::read_bytes(None, path, MAX_INDEX_BYTES).map_err(|e| e.to_string())
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
        let marker = Marker { code: "revert_failed".into(), reason: "r".into(), agent_id: Some("a".into()) };
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
