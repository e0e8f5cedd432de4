//! The log's tree as the server serves it (V-65, V-66) and signs it: the latest durable
//! head, moved by each group's sync, the note signed for it when the configuration names a log
//! key, and the read-only answers to `checkpoint`, `inclusion_proof` and `consistency_proof`.
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

use std::sync::Mutex;

use agentwarden::Warden;
use agentwarden::tlog::{LogSigner, TlogError};
use agentwarden_domain::audit::Head;
use agentwarden_domain::audit::merkle::MerkleHash;
use agentwarden_domain::audit::note::TreeHead;
use agentwarden_domain::code::Code;
use agentwarden_protocol::Answer;

/// Why a tree request is refused: its `error` answer's code and reason.
type Refused = (Code, String);

/// The latest durable head and the note signed for it.
#[derive(Clone, Debug)]
struct Latest {
    head: Head,
    note: Option<String>,
    /// The size `note` signs, and the cosignature lines the witnesses gave for it.
    signed: u64,
    cosignatures: Vec<String>,
}

/// The log's tree, served and signed.
#[derive(Debug)]
pub(crate) struct Tlog {
    warden: Warden,
    signer: Option<LogSigner>,
    latest: Mutex<Latest>,
    /// Woken when a new note is signed: the witnesses' submitter waits on it.
    pub(crate) signed: tokio::sync::Notify,
}

impl Tlog {
    /// The tree of a store just opened: everything it holds is durable. With `signer`, its
    /// first checkpoint is signed now.
    pub(crate) async fn start(warden: Warden, signer: Option<LogSigner>) -> Result<Tlog, String> {
        let head = warden.head().await.map_err(|e| format!("the log's head cannot be read: {e}"))?;
        let tlog = Tlog::new(warden, signer);
        tlog.synced(head).await;
        Ok(tlog)
    }

    /// The tree served from the empty head until a sync moves it.
    pub(crate) fn new(warden: Warden, signer: Option<LogSigner>) -> Tlog {
        let latest = Latest { head: Head::EMPTY, note: None, signed: 0, cosignatures: Vec::new() };
        Tlog { warden, signer, latest: Mutex::new(latest), signed: tokio::sync::Notify::new() }
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

    /// After a sync that made `head` durable: the served head moves to it and, with a log key,
    /// its checkpoint is signed, once for the group. A signature that cannot be made is
    /// logged and leaves the last note: it never changes an answer.
    pub(crate) async fn synced(&self, head: Head) {
        let note = match &self.signer {
            None => None,
            Some(signer) => match self.sign(signer, head.seq).await {
                Ok(note) => Some(note),
                Err(e) => {
                    tracing::warn!(error = %e, seq = head.seq, "the checkpoint could not be signed");
                    return self.advance(head, None);
                }
            },
        };
        self.advance(head, note);
    }

    async fn sign(&self, signer: &LogSigner, size: u64) -> Result<String, TlogError> {
        let root = self.warden.tree_root(size).await?;
        let tree = TreeHead { origin: signer.name().to_owned(), size, root };
        Ok(signer.sign_checkpoint(&tree)?.to_text())
    }

    /// Moves the head forward (never back: groups complete in order, V-45), with the note
    /// signed for it, or keeping the last one.
    fn advance(&self, head: Head, note: Option<String>) {
        if let Ok(mut latest) = self.latest.lock()
            && head.seq >= latest.head.seq
        {
            let signed = note.is_some();
            if signed {
                latest.signed = head.seq;
                latest.note = note;
                latest.cosignatures.clear();
            }
            latest.head = head;
            if signed {
                self.signed.notify_one();
            }
        }
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
    pub(crate) async fn consistency_proof(
        &self,
        old: u64,
        size: u64,
    ) -> Result<Vec<agentwarden_domain::audit::merkle::MerkleHash>, TlogError> {
        self.warden.consistency_proof(old, size).await
    }

    fn latest(&self) -> Result<Latest, Refused> {
        self.latest
            .lock()
            .map(|latest| latest.clone())
            .map_err(|_| (Code::InternalError, "the server's checkpoint is unreadable".to_owned()))
    }

    /// `checkpoint` (V-65): the durable head, its root, and the last signed note.
    pub(crate) async fn checkpoint(&self) -> Answer {
        let latest = match self.latest() {
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
            let note = agentwarden_domain::events::OperatorNote { message: format!("n {i}") };
            warden.record(agentwarden_domain::audit::Correlation::default(), &note).await.unwrap();
        }
    }

    /// Nothing past the durable head is proven or signed; once a sync moved it,
    /// the proof is served and the note signs exactly that head (V-65, A-37).
    #[tokio::test]
    async fn only_the_durable_head_is_proven_and_signed() {
        let store = std::sync::Arc::new(agentwarden::MemoryEventStore::new());
        let warden = Warden::builder().store(store).build().unwrap();
        let signer = || LogSigner::from_seed("log.example/a", [7; 32]).unwrap();
        let tlog = Tlog::new(warden.clone(), Some(signer()));
        noted(&warden, 5).await;
        let Answer::Error { code, .. } = tlog.inclusion(2, 5, true).await else { panic!("proven past it") };
        assert_eq!(code, Code::CheckpointInconsistent);
        let head = tlog.before_sync().await.unwrap();
        noted(&warden, 2).await;
        tlog.synced(head).await;
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
