//! `warden audit checkpoint`, `audit prove` and `audit witness-request` through a running server
//! (V-65): what the server holding the store answers (the durable head, its root, a proof's path
//! and leaf), checked and signed here exactly as the direct form does, so that both print the
//! same bytes.
//!
//! V-65, V-67: with a server named by `--server` (only there: a configuration's `[server]
//! socket` without it refuses the command, `trust`) and no `--store` on the command line, these
//! three ask it: a running server
//! holds an embedded store's lock, and nothing else can read its tree. `--store` names the store
//! to read directly (a PostgreSQL store, or an embedded one while no server runs). A server that
//! cannot be reached, or answers anything but the answer asked for, fails the command: nothing
//! falls back to the store.

use std::path::PathBuf;
use std::time::Duration;

use agentwarden::code::Code;
use agentwarden::tlog::InclusionProof;
use agentwarden::tlog::MerkleHash;
use agentwarden::tlog::TlogError;
use agentwarden::tlog::TreeHead;
use agentwarden_protocol::{Answer, ClientError, Request};

use super::super::{EXIT_NO, Failure};

/// How long a served checkpoint or proof may take.
const TIMEOUT: Duration = Duration::from_secs(10);

/// The server a checkpoint or a proof is asked of.
#[derive(Debug, Clone)]
pub(in super::super) struct Served {
    socket: PathBuf,
    /// `--server-uid`: only a server running as it is believed (V-12).
    uid: Option<u32>,
}

impl Served {
    /// The server `--server` names for `audit checkpoint`, `prove` and `witness-request`,
    /// unless `--store` names a store (V-65, V-67).
    pub(in super::super) fn named(trusted: &crate::trust::Trusted) -> Option<Served> {
        match (&trusted.store, &trusted.server) {
            (None, Some(server)) => Some(Served { socket: server.socket.clone(), uid: server.uid }),
            _ => None,
        }
    }

    fn ask(&self, request: &Request) -> Result<Answer, Failure> {
        match agentwarden_protocol::exchange(&self.socket, self.uid, request, TIMEOUT) {
            Ok(Answer::Error { code, reason }) => Err(Failure::new(EXIT_NO, code, reason)),
            Ok(answer) => Ok(answer),
            Err(e) => Err(Failure::client(EXIT_NO, e)),
        }
    }

    fn invalid(&self, what: &str) -> Failure {
        Failure::client(
            EXIT_NO,
            ClientError::new(
                Code::ServerAnswerInvalid,
                format!("the server at `{}` answered {what}", self.socket.display()),
            ),
        )
    }

    /// The log's durable head: its size, root and chain hash (V-65).
    pub(super) fn head(&self) -> Result<(u64, MerkleHash, String), Failure> {
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
    pub(super) fn consistency(&self, old: u64, head: &TreeHead) -> Result<Vec<MerkleHash>, Failure> {
        let answer = self.ask(&Request::ConsistencyProof { old, size: head.size })?;
        let Answer::ConsistencyProof { old: got_old, size, root, hashes } = answer else {
            return Err(self.invalid("another kind of answer than a consistency proof"));
        };
        if (got_old, size) != (old, head.size) {
            return Err(self.invalid(&format!("the proof from {got_old} to {size} events")));
        }
        let root = MerkleHash::from_base64(&root).map_err(|e| self.invalid(&format!("a bad root: {e}")))?;
        if root != head.root {
            return Err(Failure::from(TlogError::Inconsistent(format!(
                "the log's first {} events are not those the checkpoint signed (their root is {root}, the \
                 checkpoint's {}): the log was rewritten",
                head.size, head.root
            ))));
        }
        hashes
            .iter()
            .map(|h| MerkleHash::from_base64(h))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.invalid(&format!("a bad hash: {e}")))
    }

    /// The note the server signed last; refused when it signs none.
    pub(super) fn note(&self) -> Result<String, Failure> {
        match self.ask(&Request::Checkpoint {})? {
            Answer::Checkpoint { note: Some(note), .. } => Ok(note),
            Answer::Checkpoint { note: None, .. } => Err(Failure::from(TlogError::KeyUnusable(format!(
                "the server at `{}` signs no checkpoint: its configuration names no `[server] log_key`",
                self.socket.display()
            )))),
            _ => Err(self.invalid("another kind of answer than a checkpoint")),
        }
    }

    /// The inclusion proof of `seq` in `head`'s tree, checked against its root as the direct
    /// form checks it: a proof that does not hold is `checkpoint_inconsistent`.
    pub(super) fn prove(&self, seq: u64, head: &TreeHead) -> Result<InclusionProof, Failure> {
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
            Failure::new(
                EXIT_NO,
                Code::EventWithheld,
                format!(
                    "the server at `{}` gives an event's body only to its own user: run this as that user, or \
                     against the store with --store",
                    self.socket.display()
                ),
            )
        })?;
        let proof = InclusionProof { seq, size, event, hashes };
        proof.verify(head).map_err(|e| {
            Failure::from(TlogError::Inconsistent(format!(
                "the log's first {} events are not those the checkpoint signed ({e}): the log was rewritten",
                head.size
            )))
        })?;
        Ok(proof)
    }
}
