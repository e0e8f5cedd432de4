//! The log's tree as the server serves it (V-65, V-66) and signs it: the latest durable
//! head, moved by each group's sync, the note signed for it when the configuration names a log
//! key, and the read-only answers to `checkpoint`, `inclusion_proof` and `consistency_proof`.
//!
//! the signature is off the answers' path. A group's sync only moves the durable head and
//! wakes the signer, a task of its own that signs the newest durable head (coalescing: groups
//! that committed while it signed get one signature, of the last). `checkpoint` waits, at most
//! [`SIGN_WAIT`], for the signer to reach the head durable when it asked: a note older than that
//! is never served as current, and a signer that failed (or is late) fails the request with why.
//!
//! V-65: these are read from the tree the store keeps, never from a walk of the
//! log, and only up to the durable head: a checkpoint or proof the server hands out is of
//! events a crash cannot take back. No `audit` command that writes or walks the whole log is
//! served (V-20 for the rest).
//!
//! V-66: any peer the socket admits may ask: a checkpoint and a proof's path are hashes, which
//! reveal nothing of an event. An event's body (the leaf a proof needs to be checked) goes only
//! to a peer running as the server's own user or as root, who can read the store's files
//! anyway; any other peer gets the path without it.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agentwarden::Code;
use agentwarden::Warden;
use agentwarden::store::Head;
use agentwarden::tlog::{LogSigner, MerkleHash, TlogError, TreeHead};
use agentwarden_protocol::Answer;

/// Why a tree request is refused: its `error` answer's code and reason.
type Refused = (Code, String);

/// The longest `checkpoint` waits for the signer to reach the head durable when it asked.
pub(crate) const SIGN_WAIT: Duration = Duration::from_secs(5);

/// The latest durable head and the note signed for it.
#[derive(Clone, Debug)]
struct Latest {
    head: Head,
    note: Option<String>,
    /// The size `note` signs, and the cosignature lines the witnesses gave for it.
    signed: u64,
    cosignatures: Vec<String>,
    /// The signer's last attempt, when it failed: the size it tried, the code and why.
    failed: Option<(u64, Code, String)>,
}

/// The log's tree, served and signed.
#[derive(Debug)]
pub(crate) struct Tlog {
    warden: Warden,
    signer: Option<LogSigner>,
    /// The key's file, beside which the last note it signed is kept.
    key: Option<PathBuf>,
    latest: Mutex<Latest>,
    /// Woken when a new note is signed: the witnesses' submitter waits on it.
    pub(crate) signed: tokio::sync::Notify,
    /// Woken when the durable head moves: the signer waits on it.
    to_sign: tokio::sync::Notify,
    /// Counts the signer's attempts: a `checkpoint` waiting for a note watches it.
    attempts: tokio::sync::watch::Sender<u64>,
}

impl Tlog {
    /// The tree of a store just opened: everything it holds is durable. With `signer`, its
    /// first checkpoint is signed now.
    /// `signer` is the key and the file it was read from, beside which its last note is
    /// kept and read.
    pub(crate) async fn start(warden: Warden, signer: Option<(LogSigner, PathBuf)>) -> Result<Tlog, String> {
        let head = warden.head().await.map_err(|e| format!("the log's head cannot be read: {e}"))?;
        let (signer, key) = signer.map_or((None, None), |(signer, key)| (Some(signer), Some(key)));
        let mut tlog = Tlog::new(warden, signer);
        tlog.key = key;
        tlog.synced(head);
        tlog.sign_latest().await;
        Ok(tlog)
    }

    /// The tree served from the empty head until a sync moves it.
    pub(crate) fn new(warden: Warden, signer: Option<LogSigner>) -> Tlog {
        let latest =
            Latest { head: Head::EMPTY, note: None, signed: 0, cosignatures: Vec::new(), failed: None };
        Tlog {
            warden,
            signer,
            key: None,
            latest: Mutex::new(latest),
            signed: tokio::sync::Notify::new(),
            to_sign: tokio::sync::Notify::new(),
            attempts: tokio::sync::watch::Sender::new(0),
        }
    }

    /// Starts the signer, with a log key: a task that signs the newest durable head each time
    /// the head moves, off the answers' path.
    pub(crate) fn spawn_signer(tlog: &Arc<Tlog>) {
        if tlog.signer.is_none() {
            return;
        }
        let tlog = Arc::clone(tlog);
        tokio::spawn(async move {
            loop {
                // One permit however many groups moved the head: they get one signature.
                tlog.to_sign.notified().await;
                tlog.sign_latest().await;
            }
        });
    }

    /// The head a sync about to start makes durable: read before it starts, so that it never
    /// names an event appended after. `None` when it cannot be read: the durable head
    /// then stays where it was.
    pub(crate) async fn before_sync(&self) -> Option<Head> {
        match self.warden.head().await {
            Ok(head) => Some(head),
            Err(e) => {
                tracing::warn!(error = %e, "the head cannot be read before the sync; the checkpoint stays");
                None
            }
        }
    }

    /// After a sync that made `head` durable: the served head moves to it (never back: groups
    /// complete in order, V-45) and the signer is woken; nothing is signed here.
    pub(crate) fn synced(&self, head: Head) {
        if let Ok(mut latest) = self.latest.lock()
            && head.seq >= latest.head.seq
        {
            latest.head = head;
        }
        self.to_sign.notify_one();
    }

    /// Signs the newest durable head, when it has no note yet. A signature that cannot be
    /// made is logged and kept as the signer's failure, which a `checkpoint` asking for that
    /// size gets; the last note stays for the witnesses, and no answer changes.
    async fn sign_latest(&self) {
        let Some(signer) = &self.signer else { return };
        let Some(head) =
            self.latest.lock().ok().map(|latest| (latest.note.is_some(), latest.signed, latest.head))
        else {
            return;
        };
        let (noted, signed, head) = head;
        if noted && signed >= head.seq {
            return;
        }
        let signature = self.sign(signer, head.seq).await;
        if let Ok(mut latest) = self.latest.lock() {
            match signature {
                Ok(note) if head.seq >= latest.signed || latest.note.is_none() => {
                    latest.signed = head.seq;
                    latest.note = Some(note);
                    latest.cosignatures.clear();
                    latest.failed = None;
                    self.signed.notify_one();
                }
                Ok(_) => {}
                Err(e) => {
                    tracing::warn!(error = %e, seq = head.seq, "the checkpoint could not be signed");
                    latest.failed = Some((head.seq, e.code(), e.reason()));
                }
            }
        }
        self.attempts.send_modify(|n| *n = n.wrapping_add(1));
    }

    /// The server's key follows the rule every signer does: its tree is signed only
    /// once a consistency proof from the last note the key kept holds, and the new note is kept
    /// before it is served. A store swapped for another history under a running or restarted
    /// server is refused, never signed.
    async fn sign(&self, signer: &LogSigner, size: u64) -> Result<String, TlogError> {
        let root = self.warden.tree_root(size).await?;
        let tree = TreeHead { origin: signer.name().to_owned(), size, root };
        if let Some(key) = &self.key
            && let Some(kept) = agentwarden::tlog::read_kept(key, signer)?
        {
            let proof = match kept.size <= size {
                true => self.warden.consistency_proof(kept.size, size).await?,
                false => Vec::new(),
            };
            agentwarden::tlog::check_extends(&kept, &tree, &proof)?;
        }
        let note = signer.sign_checkpoint(&tree)?.to_text();
        if let Some(key) = &self.key {
            agentwarden::tlog::keep(key, &note)?;
        }
        Ok(note)
    }

    /// The note signed last and the size it signs (A-40: what the witnesses are shown).
    pub(crate) fn signed_note(&self) -> Option<(u64, String)> {
        let latest = self.latest.lock().ok()?;
        latest.note.clone().map(|note| (latest.signed, note))
    }

    /// A witness's cosignature line of the note of `size`, kept with it while it is the latest
    /// the caller checked it.
    pub(crate) fn cosigned(&self, size: u64, line: String) {
        if let Ok(mut latest) = self.latest.lock()
            && latest.signed == size
            && latest.note.is_some()
            && !latest.cosignatures.contains(&line)
        {
            latest.cosignatures.push(line);
        }
    }

    /// The consistency proof from `old` events to `size` (A-40: a witness's request).
    pub(crate) async fn consistency_proof(&self, old: u64, size: u64) -> Result<Vec<MerkleHash>, TlogError> {
        self.warden.consistency_proof(old, size).await
    }

    fn latest(&self) -> Result<Latest, Refused> {
        self.latest
            .lock()
            .map(|latest| latest.clone())
            .map_err(|_| (Code::InternalError, "the server's checkpoint is unreadable".to_owned()))
    }

    /// The latest state once the signer has signed the head durable now, with a log key
    /// waited for at most `wait`; the signer's failure for that size, or the wait
    /// running out, refuses, never a note older than that head.
    async fn noted(&self, wait: Duration) -> Result<Latest, Refused> {
        // Watched before the state is read: no attempt between the two is missed.
        let mut attempts = self.attempts.subscribe();
        let asked = self.latest()?.head.seq;
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let latest = self.latest()?;
            if self.signer.is_none() || (latest.note.is_some() && latest.signed >= asked) {
                return Ok(latest);
            }
            if let Some((size, code, why)) = &latest.failed
                && *size >= asked
            {
                return Err((
                    code.clone(),
                    format!("the server could not sign its checkpoint of {size} events: {why}"),
                ));
            }
            if !matches!(tokio::time::timeout_at(deadline, attempts.changed()).await, Ok(Ok(()))) {
                return Err((
                    Code::RequestTimeout,
                    format!(
                        "the server's signer did not reach the {asked} durable events within {} ms; its \
                         last note is of {} events and is not served as current",
                        wait.as_millis(),
                        latest.signed
                    ),
                ));
            }
        }
    }

    /// `checkpoint` (V-65): the durable head, its root, and the note signed for it, or a later
    /// one.
    pub(crate) async fn checkpoint(&self) -> Answer {
        let latest = match self.noted(SIGN_WAIT).await {
            Ok(latest) => latest,
            Err((code, why)) => return Answer::error(code, why),
        };
        match self.warden.tree_root(latest.head.seq).await {
            Ok(root) => Answer::Checkpoint {
                size: latest.head.seq,
                root: root.to_base64(),
                head_hash: latest.head.hash.to_string(),
                note: latest.note.map(|note| note + &latest.cosignatures.concat()),
            },
            Err(e) => Answer::error(e.code(), format!("the tree cannot be read: {e}")),
        }
    }

    /// The durable size, or the refusal of a tree larger than it (A-33's words: the log holds
    /// fewer events than the checkpoint).
    fn within(&self, size: u64) -> Result<(), Refused> {
        let durable = self.latest()?.head.seq;
        if size > durable {
            let e = TlogError::Inconsistent(format!(
                "the log holds {durable} durable events, fewer than the {size} of the checkpoint: it was \
                 truncated, or the store is an older copy"
            ));
            return Err((e.code(), e.reason()));
        }
        Ok(())
    }

    /// `inclusion_proof` (V-65), with the event's body only when `reveal` (V-66).
    pub(crate) async fn inclusion(&self, seq: u64, size: u64, reveal: bool) -> Answer {
        if let Err((code, why)) = self.within(size) {
            return Answer::error(code, why);
        }
        match self.warden.inclusion_proof(seq, size).await {
            Ok(proof) => Answer::InclusionProof {
                seq,
                size,
                hashes: proof.hashes.iter().map(MerkleHash::to_base64).collect(),
                event: reveal.then_some(proof.event),
            },
            Err(e) => Answer::error(e.code(), e.reason()),
        }
    }

    /// `consistency_proof` (V-65).
    pub(crate) async fn consistency(&self, old: u64, size: u64) -> Answer {
        if let Err((code, why)) = self.within(size) {
            return Answer::error(code, why);
        }
        if old > size {
            let e =
                TlogError::Inconsistent(format!("a tree of {old} events does not grow into one of {size}"));
            return Answer::error(e.code(), e.reason());
        }
        let root = match self.warden.tree_root(size).await {
            Ok(root) => root,
            Err(e) => return Answer::error(e.code(), format!("the tree cannot be read: {e}")),
        };
        match self.warden.consistency_proof(old, size).await {
            Ok(hashes) => Answer::ConsistencyProof {
                old,
                size,
                root: root.to_base64(),
                hashes: hashes.iter().map(MerkleHash::to_base64).collect(),
            },
            Err(e) => Answer::error(e.code(), e.reason()),
        }
    }
}

/// Whether a peer of `peer_uid` may read an event's body (V-66): the server's own user, or
/// root; an unknown uid may not.
pub(crate) fn reveals_events(peer_uid: Option<u32>, server_uid: u32) -> bool {
    matches!(peer_uid, Some(uid) if uid == server_uid || uid == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn noted(warden: &Warden, n: usize) {
        for i in 0..n {
            let note = agentwarden::observe::OperatorNote { message: format!("n {i}") };
            warden.record(agentwarden::requests::Correlation::default(), &note).await.unwrap();
        }
    }

    /// Nothing past the durable head is proven or signed; once a sync moved it,
    /// the proof is served and the note signs exactly that head (V-65, A-43).
    #[tokio::test]
    async fn only_the_durable_head_is_proven_and_signed() {
        let store = std::sync::Arc::new(agentwarden::store::MemoryEventStore::new());
        let warden = Warden::builder().store(store).build().unwrap();
        let signer = || LogSigner::from_seed("log.example/a", [7; 32]).unwrap();
        let tlog = Tlog::new(warden.clone(), Some(signer()));
        noted(&warden, 5).await;
        let Answer::Error { code, .. } = tlog.inclusion(2, 5, true).await else { panic!("proven past it") };
        assert_eq!(code, Code::CheckpointInconsistent);
        let head = tlog.before_sync().await.unwrap();
        noted(&warden, 2).await;
        tlog.synced(head);
        tlog.sign_latest().await;
        let Answer::Checkpoint { size, note: Some(note), .. } = tlog.checkpoint().await else {
            panic!("no note")
        };
        assert_eq!(size, 5, "the head read before the sync, not the events appended after");
        let (_, signed) = signer().verifier().open_checkpoint(&note).unwrap();
        assert_eq!((signed.size, signed.root), (5, warden.tree_root(5).await.unwrap()));
        assert!(matches!(tlog.inclusion(2, 5, false).await, Answer::InclusionProof { event: None, .. }));
        assert!(matches!(tlog.inclusion(2, 6, true).await, Answer::Error { .. }));
        let Answer::ConsistencyProof { root, .. } = tlog.consistency(2, 5).await else { panic!("no proof") };
        assert_eq!(root, warden.tree_root(5).await.unwrap().to_base64());
    }

    /// The signer signs off the sync's path, coalescing: three heads moved before it runs get
    /// one signature, of the last; and a `checkpoint` asked meanwhile waits for it rather than
    /// serve the older note.
    #[tokio::test]
    async fn the_signer_signs_the_newest_head_and_checkpoint_waits_for_it() {
        let store = std::sync::Arc::new(agentwarden::store::MemoryEventStore::new());
        let warden = Warden::builder().store(store).build().unwrap();
        let signer = || LogSigner::from_seed("log.example/a", [7; 32]).unwrap();
        let keys = tempfile::tempdir().unwrap();
        let key = keys.path().join("log.key");
        let tlog = Arc::new(Tlog::start(warden.clone(), Some((signer(), key.clone()))).await.unwrap());
        for _ in 0..3 {
            noted(&warden, 1).await;
            tlog.synced(warden.head().await.unwrap());
        }
        assert_eq!(tlog.signed_note().map(|(size, _)| size), Some(0), "nothing signed on the sync's path");
        Tlog::spawn_signer(&tlog);
        let Answer::Checkpoint { size, note: Some(note), .. } = tlog.checkpoint().await else {
            panic!("no note")
        };
        let (_, head) = signer().verifier().open_checkpoint(&note).unwrap();
        assert_eq!((size, head.size), (3, 3), "the note covers the head durable when asked");
        // Every note signed is kept beside the key, the last one last.
        let kept = std::fs::read_to_string(agentwarden::tlog::kept_path(&key)).unwrap();
        assert_eq!(kept, note, "the note served is the key's kept one");
    }

    /// A signer that fails makes `checkpoint` fail with why, never serve the older note as
    /// current; with no signer at all it waits for nothing.
    #[tokio::test]
    async fn a_failing_signer_fails_the_checkpoint_with_its_reason() {
        let store = std::sync::Arc::new(agentwarden::store::MemoryEventStore::new());
        let warden = Warden::builder().store(store).build().unwrap();
        let signer = LogSigner::from_seed("log.example/a", [7; 32]).unwrap();
        let keys = tempfile::tempdir().unwrap();
        let tlog =
            Arc::new(Tlog::start(warden.clone(), Some((signer, keys.path().join("log.key")))).await.unwrap());
        Tlog::spawn_signer(&tlog);
        // A durable head past the store's tree: its root cannot be read, so it cannot be signed.
        let mut past = warden.head().await.unwrap();
        past.seq = 9;
        tlog.synced(past);
        let Answer::Error { code, reason } = tlog.checkpoint().await else { panic!("an older note served") };
        assert!(reason.contains("could not sign its checkpoint of 9 events"), "{code:?}: {reason}");
        // A signer that never answers: the wait is bounded, and says so.
        let idle = Tlog::new(warden.clone(), Some(LogSigner::from_seed("log.example/a", [7; 32]).unwrap()));
        idle.synced(past);
        let Err((code, why)) = idle.noted(Duration::from_millis(50)).await else { panic!("served") };
        assert_eq!(code, Code::RequestTimeout, "{why}");
        let unsigned = Tlog::new(warden, None);
        unsigned.synced(past);
        assert!(unsigned.noted(Duration::from_millis(50)).await.is_ok(), "no key: nothing to wait for");
    }

    #[test]
    fn only_the_servers_user_and_root_read_an_events_body() {
        for (peer, server, reveals, why) in [
            (Some(1000), 1000, true, "the server's own user"),
            (Some(0), 1000, true, "root"),
            (Some(1001), 1000, false, "another user: the agent's, in the isolated deployment"),
            (None, 1000, false, "a peer whose uid cannot be read"),
            (Some(0), 0, true, "a server run as root, asked by root"),
            (Some(1000), 0, false, "a server run as root, asked by a user"),
        ] {
            assert_eq!(reveals_events(peer, server), reveals, "{why}");
        }
    }
}
