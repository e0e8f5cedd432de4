//! The log's tree asked of a running server (V-65): its durable head, the consistency and
//! inclusion proofs read from its kept tree, and the note it signed last, each answer
//! checked against what was asked before it is used, so that a client signs and prints exactly
//! what the direct form would (`warden audit checkpoint`, `audit prove`, `audit
//! witness-request`). A server that cannot be reached, or answers anything but the answer asked
//! for, is a [`TreeError`]: nothing falls back to the store.

use std::path::PathBuf;
use std::time::Duration;

use agentwarden_domain::audit::merkle::MerkleHash;
use agentwarden_domain::audit::note::TreeHead;
use agentwarden_domain::audit::proof::InclusionProof;
use agentwarden_domain::code::Code;

use crate::{Answer, ClientError, Request};

/// How long a served checkpoint or proof may take.
const TIMEOUT: Duration = Duration::from_secs(10);

/// Why the server's tree could not be used, by cause.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TreeError {
    /// The exchange failed, the server refused, or it answered other than asked (its code and
    /// reason).
    #[error("{0}")]
    Client(ClientError),
    /// The server's tree is not the checkpoint's: the log was rewritten
    /// (`checkpoint_inconsistent`, A-33).
    #[error("{0}")]
    Inconsistent(String),
    /// The server signs no checkpoint: it has no `[server] log_key` (`log_key_unusable`, A-43).
    #[error("{0}")]
    NoLogKey(String),
    /// The server gives an event's body only to its own user (`event_withheld`, V-66).
    #[error("{0}")]
    Withheld(String),
}

/// A server the log's tree is asked of.
#[derive(Debug, Clone)]
pub struct TreeClient {
    socket: PathBuf,
    /// Only a server running as this user is believed (V-12).
    uid: Option<u32>,
}

impl TreeClient {
    /// The server at `socket`, believed only when it runs as `uid` (when given, V-12).
    pub fn new(socket: PathBuf, uid: Option<u32>) -> TreeClient {
        TreeClient { socket, uid }
    }

    fn ask(&self, request: &Request) -> Result<Answer, TreeError> {
        match crate::exchange(&self.socket, self.uid, request, TIMEOUT) {
            Ok(Answer::Error { code, reason }) => Err(TreeError::Client(ClientError::new(code, reason))),
            Ok(answer) => Ok(answer),
            Err(e) => Err(TreeError::Client(e)),
        }
    }

    fn invalid(&self, what: &str) -> TreeError {
        TreeError::Client(ClientError::new(
            Code::ServerAnswerInvalid,
            format!("the server at `{}` answered {what}", self.socket.display()),
        ))
    }

    /// The log's durable head: its size, root and chain hash (V-65).
    pub fn head(&self) -> Result<(u64, MerkleHash, String), TreeError> {
        match self.ask(&Request::Checkpoint {})? {
            Answer::Checkpoint { size, root, head_hash, .. } => {
                let root =
                    MerkleHash::from_base64(&root).map_err(|e| self.invalid(&format!("a bad root: {e}")))?;
                Ok((size, root, head_hash))
            }
            _ => Err(self.invalid("another kind of answer than a checkpoint")),
        }
    }

    /// The consistency proof from `old` events to `head`'s tree, once the server's root of that
    /// tree is `head`'s (A-33: else the log was rewritten).
    pub fn consistency(&self, old: u64, head: &TreeHead) -> Result<Vec<MerkleHash>, TreeError> {
        let answer = self.ask(&Request::ConsistencyProof { old, size: head.size })?;
        let Answer::ConsistencyProof { old: got_old, size, root, hashes } = answer else {
            return Err(self.invalid("another kind of answer than a consistency proof"));
        };
        if (got_old, size) != (old, head.size) {
            return Err(self.invalid(&format!("the proof from {got_old} to {size} events")));
        }
        let root = MerkleHash::from_base64(&root).map_err(|e| self.invalid(&format!("a bad root: {e}")))?;
        if root != head.root {
            return Err(TreeError::Inconsistent(format!(
                "the log's first {} events are not those the checkpoint signed (their root is {root}, the \
                 checkpoint's {}): the log was rewritten",
                head.size, head.root
            )));
        }
        hashes
            .iter()
            .map(|h| MerkleHash::from_base64(h))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.invalid(&format!("a bad hash: {e}")))
    }

    /// The note the server signed last; refused when it signs none.
    pub fn note(&self) -> Result<String, TreeError> {
        match self.ask(&Request::Checkpoint {})? {
            Answer::Checkpoint { note: Some(note), .. } => Ok(note),
            Answer::Checkpoint { note: None, .. } => Err(TreeError::NoLogKey(format!(
                "the server at `{}` signs no checkpoint: its configuration names no `[server] log_key`",
                self.socket.display()
            ))),
            _ => Err(self.invalid("another kind of answer than a checkpoint")),
        }
    }

    /// The inclusion proof of `seq` in `head`'s tree, checked against its root as the direct
    /// form checks it: a proof that does not hold is `checkpoint_inconsistent`.
    pub fn prove(&self, seq: u64, head: &TreeHead) -> Result<InclusionProof, TreeError> {
        let answer = self.ask(&Request::InclusionProof { seq, size: head.size })?;
        let Answer::InclusionProof { seq: got_seq, size, hashes, event } = answer else {
            return Err(self.invalid("another kind of answer than an inclusion proof"));
        };
        if (got_seq, size) != (seq, head.size) {
            return Err(self.invalid(&format!("the proof of event {got_seq} in {size} events")));
        }
        let hashes = hashes
            .iter()
            .map(|h| MerkleHash::from_base64(h))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.invalid(&format!("a bad hash: {e}")))?;
        // The event's body goes only to the server's own user (or root) (V-66).
        let event = event.ok_or_else(|| {
            TreeError::Withheld(format!(
                "the server at `{}` gives an event's body only to its own user: run this as that user, or \
                 against the store with --store",
                self.socket.display()
            ))
        })?;
        let proof = InclusionProof { seq, size, event, hashes };
        proof.verify(head).map_err(|e| {
            TreeError::Inconsistent(format!(
                "the log's first {} events are not those the checkpoint signed ({e}): the log was rewritten",
                head.size
            ))
        })?;
        Ok(proof)
    }
}
