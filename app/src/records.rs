//! The recorded state Warden decides with: the seal and approvals (issue 11) and the harness
//! sessions' spawn trees, as one projection of the log ([`SessionRecords`]).
//!
//! H-3: it is rebuilt from the log, never trusted blindly. A Warden keeps it in memory and
//! catches it up from its head before each decision (reading only the events since, with the
//! chain verified on the way); across processes it is saved in the state store with the head it
//! was folded to. A saved state that is unreadable, or whose head is not on this log, is rebuilt
//! from seq 1. A log that does not verify is an error, so every decision that needs the records
//! is a deny.
//!
//! G-20 (what a seal covers): every file the gate's decisions depend on, by path relative to the
//! workspace root — `agentwarden.toml`, each persona and subagent instruction file (the files of
//! the configured directories that match the configured patterns), and the lineage manifests.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use agentwarden_adapters::untrusted;
use agentwarden_domain::audit::{Correlation, CorrelationId, Head};
use agentwarden_domain::events::{AuditEvent, DecodeError, decode_ref};
use agentwarden_domain::governance::{FileRead, ReadDigests};
use agentwarden_domain::lineage::Manifests;
use agentwarden_domain::sessions::SessionRecords;
use agentwarden_ports::StoreError;

use crate::MAX_INPUT_BYTES;
use crate::config::{ConfigError, FilePattern};
use crate::files::{digest, key};
use crate::manifests::{ManifestFile, read_manifest_files};
use crate::warden::{Warden, WardenError};

pub(crate) mod sealed;
mod signatures;

/// Why a missing `[approvals] allowed_signers` file is refused, and what to do (N-11).
pub(crate) const SIGNERS_MISSING: &str = "it does not exist: write it, one `PRINCIPAL KEYTYPE KEY` line per human who \
     signs (the public half of their SSH key, as `ssh-keygen -Y verify` reads it: docs/signed-approvals.md), or take \
     `[approvals] allowed_signers` out of the configuration";

/// The name under which the projection is saved in the state store: the name it was first saved
/// under, when one harness had sessions, kept so that a saved projection is found again.
pub const RECORDS_PROJECTION: &str = "claude_code";

/// The files of `dir` whose names match: every entry that is not a directory (a link, a FIFO
/// among them), so that sealing one fails rather than leaving it out (U-6).
fn matching(root: &Path, dir: &Path, pattern: &FilePattern) -> Vec<PathBuf> {
    let Ok(entries) = untrusted::list_dir(Some(root), dir) else { return Vec::new() };
    entries
        .into_iter()
        .filter(|(_, kind)| *kind != untrusted::FileType::Directory)
        .filter(|(name, _)| pattern.matches(&name.to_string_lossy()))
        .map(|(name, _)| dir.join(name))
        .collect()
}

impl Warden {
    /// The records, caught up with the log (H-3): a copy; memory keeps its own.
    pub async fn records(&self) -> Result<SessionRecords, WardenError> {
        Ok(self.hold().await?.clone())
    }

    /// The records caught up and taken out of memory for one decision, without a copy;
    /// the decision reads them, [`Warden::record_and_apply`] applies its events to them, and
    /// they go back into memory when the returned guard is dropped, however the decision
    /// ends. Only the log's events change them (no decision writes them otherwise), so what
    /// goes back is what the log says as of their head; a head behind the log is caught up by
    /// the next decision. While they are held, another caller of this Warden (or of a clone
    /// sharing its memory) finds memory empty and folds its own from the saved projection or
    /// the log: correct, and slower, so a decision holds them once and passes them down (V-38).
    pub(crate) async fn hold(&self) -> Result<Held<'_>, WardenError> {
        let state = self.caught_up().await?;
        Ok(Held { warden: self, state, lost: false })
    }

    /// The records kept in memory (or the saved ones, or none) caught up with the log; memory
    /// holds none until the caller puts them back.
    async fn caught_up(&self) -> Result<SessionRecords, WardenError> {
        let cached = self.records.lock().ok().and_then(|mut guard| guard.take());
        let start = match cached {
            Some(state) => Some(state),
            None if self.saved_start => self.saved_records().await?,
            None => None,
        };
        self.catch_up(start.unwrap_or_default()).await
    }

    /// The records as the saved projection holds them, if it can be read.
    async fn saved_records(&self) -> Result<Option<SessionRecords>, WardenError> {
        Ok(match &self.projections {
            Some(store) => store
                .read_projection(RECORDS_PROJECTION)
                .await?
                .and_then(|bytes| serde_json::from_slice::<SessionRecords>(&bytes).ok()),
            None => None,
        })
    }

    /// The records folded from the log's first event, neither the saved projection nor
    /// this process's memory taken as a starting point; kept in memory and saved in place of
    /// what was saved. `warden serve` starts from it, so that a resident Warden never decides
    /// with a projection written outside it; `doctor` compares it with the saved one (K-15).
    pub async fn records_from_log(&self) -> Result<SessionRecords, WardenError> {
        if let Ok(mut guard) = self.records.lock() {
            guard.take();
        }
        let state = self.catch_up(SessionRecords::default()).await?;
        self.keep(state.clone());
        self.save_records(&state).await;
        Ok(state)
    }

    /// What `doctor` reports: the seal, approvals, key lists, quarantines and releases
    /// that the saved projection (caught up) holds and the log does not say, by part; empty
    /// when they agree. The saved projection is rebuilt from the log either way (K-15).
    pub async fn saved_records_differ(&self) -> Result<Vec<&'static str>, WardenError> {
        if let Ok(mut guard) = self.records.lock() {
            guard.take();
        }
        let saved = match self.saved_records().await? {
            Some(saved) => Some(self.catch_up(saved).await?),
            None => None,
        };
        let fresh = self.records_from_log().await?;
        let Some(saved) = saved else { return Ok(Vec::new()) };
        let mut differ = Vec::new();
        if saved.governance.seal != fresh.governance.seal {
            differ.push("the seal");
        }
        if saved.governance.approvals != fresh.governance.approvals {
            differ.push("the approvals");
        }
        if saved.governance.key_lists != fresh.governance.key_lists {
            differ.push("the key lists");
        }
        if saved.quarantined != fresh.quarantined {
            differ.push("the quarantines");
        }
        if saved.releases != fresh.releases {
            differ.push("the releases");
        }
        Ok(differ)
    }

    /// `start` caught up with the log, its signatures checked (H-3); the caller keeps it.
    async fn catch_up(&self, start: SessionRecords) -> Result<SessionRecords, WardenError> {
        let mut state = start;
        // At the head (same seq, same hash: the same chain) there is nothing to fold: the
        // resident service, the log's only writer, decides without reading the log (V-31).
        if state.head.seq > 0 && self.store.head().await? == state.head {
            self.check_signatures(&mut state).await;
            return Ok(state);
        }
        // The walk's state (pages, verifier, the read-ahead) lives on the heap: only this path
        // needs it, and in line it made every decision's future larger (issue 22: the gate's,
        // `evaluate_delegation`, 4304 bytes before, 3824 after), and a future is copied whole
        // each time it is moved.
        Box::pin(self.fold_since(state)).await
    }

    /// [`Warden::catch_up`] behind the head: folds the events after `state.head`.
    async fn fold_since(&self, mut state: SessionRecords) -> Result<SessionRecords, WardenError> {
        if state.head.seq > 0 {
            let on_log = self.store.read(state.head.seq, 1).await?;
            if on_log.first().is_none_or(|r| r.seq != state.head.seq || r.hash != state.head.hash) {
                tracing::warn!(seq = state.head.seq, "the saved records are not on this log; rebuilding");
                state = SessionRecords::default();
            }
        }
        let after = state.head;
        let walked = self
            .walk_verified_after(after, None, &mut |_| {}, |envelope, head| {
                match decode_ref(envelope) {
                    Ok(event) => state.apply(head, envelope.session(), &event),
                    // An event this version does not know cannot be one the records depend on.
                    Err(DecodeError::UnknownType { .. }) => state.head = head,
                    Err(e) => return Err(StoreError::Corrupt { seq: head.seq, why: e.to_string() }.into()),
                }
                Ok(())
            })
            .await;
        if let Err(e) = walked {
            // A break in the chain is a store that cannot be trusted: `store_corrupt` (H-3).
            return Err(match e {
                WardenError::Broken(b) => StoreError::Corrupt { seq: b.seq, why: b.to_string() }.into(),
                other => other,
            });
        }
        // Saved again when the walk moved it: a caller that records nothing (the hook on a tool
        // call its index did not cover, `seal`, `approve`) must not leave every later process to
        // fold the same events again — from seq 1, at 1M events, that is seconds.
        if state.head != after {
            self.save_records(&state).await;
        }
        self.check_signatures(&mut state).await;
        Ok(state)
    }

    fn keep(&self, state: SessionRecords) {
        if let Ok(mut guard) = self.records.lock() {
            *guard = Some(state);
        }
    }

    /// Records `event` under `correlation`, applies it to `state` (when nothing else was appended
    /// in between) and saves the state — best effort — in the state store. Memory gets it back
    /// from the [`Held`] guard it came in (V-38). The event is borrowed: a caller may take back
    /// what it put in (the gate its report, X-50).
    pub(crate) async fn record_and_apply(
        &self,
        state: &mut SessionRecords,
        correlation: Correlation,
        event: &AuditEvent,
    ) -> Result<Head, WardenError> {
        let before = state.head;
        let session = correlation.session.clone();
        let appended = self.record_event(correlation, event).await?;
        if appended.first_seq == before.seq.saturating_add(1) {
            state.apply(appended.head, session.as_ref().map(CorrelationId::as_str), event);
            self.save_records(state).await;
        }
        Ok(appended.head)
    }

    async fn save_records(&self, state: &SessionRecords) {
        if self.deferred {
            return;
        }
        self.save_records_now(state).await;
    }

    /// Saves the records in the state store now (best effort), deferring or not: the resident
    /// service's decider calls it once its events are durable (V-27).
    pub async fn save_records_now(&self, state: &SessionRecords) {
        let Some(store) = &self.projections else { return };
        match serde_json::to_vec(state) {
            Ok(bytes) => {
                if let Err(e) = store.write_projection(RECORDS_PROJECTION, bytes).await {
                    tracing::warn!(error = %e, "the records could not be saved; they will be rebuilt");
                }
            }
            Err(e) => tracing::warn!(error = %e, "the records could not be encoded"),
        }
    }

    /// Adds the digests of the configuration file and the key list to `read` (G-20). U-16: the
    /// configuration's digest is of the bytes this Warden was configured from; a file that no
    /// longer holds them reads as changed, so neither a swap before the load nor one after it
    /// matches the seal.
    pub(crate) async fn read_context_digests(&self, read: &mut ReadDigests) {
        let mut files: Vec<PathBuf> = self.config.source.iter().cloned().collect();
        files.extend(self.config.allowed_signers.iter().cloned());
        for path in files {
            let (text, mode) = self.files.read_text_mode(&path, MAX_INPUT_BYTES).await;
            let mut now = digest(&text, mode);
            if Some(&path) == self.config.source.as_ref()
                && let Some(loaded) = &self.config.source_digest
                && now.as_ref() != Some(loaded)
            {
                now = Some(format!("{loaded} (loaded; the file now reads otherwise)"));
            }
            read.insert(key(&self.config.root, &path), now);
        }
    }

    /// The lineage manifests as this decision reads them — each file once, by descriptor —
    /// with their digests added to `read`, so that what is compared with the seal is exactly what
    /// is parsed: a manifest changed after the check cannot be the one that decides. V-36: the
    /// parse of the same bytes is taken from the last one ([`crate::manifests::ParsedManifests`]) (T-11).
    pub(crate) async fn sealed_manifests(
        &self,
        read: &mut ReadDigests,
    ) -> Result<std::sync::Arc<Manifests>, ConfigError> {
        let files = match read_manifest_files(Some(&self.config.root), &self.config.lineage.manifests) {
            Ok(files) => files,
            Err(e) => {
                // A deny either way; the comparison with the seal still names what went missing.
                for path in self.manifest_files() {
                    let (text, mode) = self.files.read_text_mode(&path, MAX_INPUT_BYTES).await;
                    read.insert(key(&self.config.root, &path), digest(&text, mode));
                }
                return Err(e);
            }
        };
        let digests: Vec<String> = files.iter().map(ManifestFile::digest).collect();
        for (file, digest) in files.iter().zip(&digests) {
            read.insert(key(&self.config.root, &file.path), Some(digest.clone()));
        }
        self.parsed_manifests.parse_digested(&files, &digests)
    }

    fn manifest_files(&self) -> Vec<PathBuf> {
        let path = &self.config.lineage.manifests;
        match untrusted::list_dir(Some(&self.config.root), path) {
            Ok(entries) => entries
                .into_iter()
                .map(|(name, _)| path.join(name))
                .filter(|p| p.extension().is_some_and(|e| e == "toml"))
                .collect(),
            Err(_) => vec![path.clone()],
        }
    }

    /// The digest of every file a seal covers (G-20); an unreadable one is an error: a seal
    /// must not silently leave a file out.
    pub async fn seal_digests(&self) -> Result<BTreeMap<String, String>, SealError> {
        Ok(self.seal_contents().await?.0)
    }

    /// [`Warden::seal_digests`], and the text of the configuration from the same read, by the
    /// same key: a seal carries the rules it seals, so that a decision can be made with them
    /// however the file reads later (H-49).
    pub(crate) async fn seal_contents(
        &self,
    ) -> Result<(BTreeMap<String, String>, BTreeMap<String, String>), SealError> {
        let subagents = &self.config.subagents;
        let mut files: Vec<PathBuf> = self.config.source.iter().cloned().collect();
        // The key list is sealed: a key added after the seal fails `context_sealed` (K-6).
        files.extend(self.config.allowed_signers.iter().cloned());
        let root = &self.config.root;
        files.extend(matching(root, &subagents.personas_dir, &subagents.persona_file_pattern));
        files.extend(matching(root, &subagents.agents_dir, &subagents.agent_file_pattern));
        // A manifest that is not there is not sealed; anything else (a link too) is read.
        files.extend(self.manifest_files().into_iter().filter(|p| {
            !matches!(untrusted::read_bytes(Some(root), p, 0), Err(untrusted::UntrustedError::Missing { .. }))
        }));
        let mut digests = BTreeMap::new();
        let mut texts = BTreeMap::new();
        for path in files {
            let (read, mode) = self.files.read_text_mode(&path, MAX_INPUT_BYTES).await;
            let digest = digest(&read, mode).ok_or_else(|| match &read {
                FileRead::Unreadable(why) => SealError::Unreadable { path: path.clone(), why: why.clone() },
                // The key list is the one sealed file the configuration names rather than finds (N-11).
                FileRead::Missing if self.config.allowed_signers.as_ref() == Some(&path) => {
                    SealError::SignersMissing { path: path.clone() }
                }
                _ => SealError::Vanished { path: path.clone() },
            })?;
            let name = key(&self.config.root, &path);
            if Some(&path) == self.config.source.as_ref()
                && let FileRead::Text(text) = read
            {
                texts.insert(name.clone(), text);
            }
            digests.insert(name, digest);
        }
        Ok((digests, texts))
    }
}

/// Why a file a seal covers cannot be sealed, by cause: a seal must not silently leave a
/// file out (G-20).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SealError {
    /// The file cannot be read.
    #[error("cannot seal `{}`: {why}", .path.display())]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// Why.
        why: String,
    },
    /// The `allowed_signers` file the configuration names is not there (N-11).
    #[error("cannot seal `{}`: {SIGNERS_MISSING}", .path.display())]
    SignersMissing {
        /// The file.
        path: PathBuf,
    },
    /// The file was there when listed and is gone.
    #[error("cannot seal `{}`: it vanished", .path.display())]
    Vanished {
        /// The file.
        path: PathBuf,
    },
}

/// The records held for one decision (V-38, [`Warden::hold`]): put back into memory when dropped.
pub(crate) struct Held<'w> {
    warden: &'w Warden,
    state: SessionRecords,
    /// Set when the state was lost on the way: nothing goes back.
    lost: bool,
}

impl std::ops::Deref for Held<'_> {
    type Target = SessionRecords;

    fn deref(&self) -> &SessionRecords {
        &self.state
    }
}

impl std::ops::DerefMut for Held<'_> {
    fn deref_mut(&mut self) -> &mut SessionRecords {
        &mut self.state
    }
}

impl Held<'_> {
    /// Catches the held records up with the log again (another writer may have appended since
    /// they were taken). On an error memory gets none back: the next decision folds its own.
    pub(crate) async fn catch_up_again(&mut self) -> Result<(), WardenError> {
        let state = std::mem::take(&mut self.state);
        match self.warden.catch_up(state).await {
            Ok(state) => {
                self.state = state;
                Ok(())
            }
            Err(e) => {
                self.lost = true;
                Err(e)
            }
        }
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        if !self.lost {
            self.warden.keep(std::mem::take(&mut self.state));
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use agentwarden_adapters::MemoryEventStore;

    use super::*;
    use crate::Config;

    /// A configuration file swapped after it was loaded (or before, and put back) does not
    /// read as what the seal holds; put back, it does again (U-16).
    #[tokio::test]
    async fn the_configuration_reads_as_changed_while_the_file_is_not_what_was_loaded() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("agentwarden.toml");
        let loaded = "[some_harness]\nmain_persona = \"main\"\n";
        std::fs::write(&path, loaded).unwrap();
        let config = Config::load(Some(&path)).unwrap();
        assert!(config.source_digest.is_some());
        let warden =
            Warden::builder().config(config).store(Arc::new(MemoryEventStore::new())).build().unwrap();
        let read = || async {
            let mut read = ReadDigests::new();
            warden.read_context_digests(&mut read).await;
            read.remove("agentwarden.toml").unwrap().unwrap()
        };
        let sealed = read().await;
        std::fs::write(&path, format!("{loaded}tools = \"shadow\"\n")).unwrap();
        let swapped = read().await;
        assert_ne!(swapped, sealed);
        assert!(swapped.contains("loaded; the file now reads otherwise"), "{swapped}");
        // Loaded while swapped, then put back before the digest is read: still not the seal's.
        let swapped_config = Config::load(Some(&path)).unwrap();
        std::fs::write(&path, loaded).unwrap();
        assert_eq!(read().await, sealed);
        let raced = Warden::builder()
            .config(swapped_config)
            .store(Arc::new(MemoryEventStore::new()))
            .build()
            .unwrap();
        let mut digests = ReadDigests::new();
        raced.read_context_digests(&mut digests).await;
        assert_ne!(digests["agentwarden.toml"].as_deref(), Some(sealed.as_str()));
    }
}
