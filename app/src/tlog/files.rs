//! What the transparency-log commands read from files, and what they ask the log (issue 37,
//! issue 49 item 6): a `--checkpoint FILE` (a signed note, `audit checkpoint --json`'s object or
//! the old unsigned `{"seq", "head_hash"}`, A-32), a `--proof FILE` checked against a signed
//! checkpoint with no store, the witness quorums, the head a key signs once
//! it extends the key's last, and the log's consistency with a signed checkpoint.
//! Each file is read by descriptor through the adapters, and refused, before any store is opened
//! a missing one is refused with how one is made (N-11).

use std::collections::BTreeSet;
use std::path::Path;

use agentwarden_adapters::untrusted::{self, UntrustedError};
use agentwarden_domain::audit::note::{MAX_NOTE_BYTES, TreeHead, parse_note};
use agentwarden_domain::audit::proof::{InclusionProof, MAX_PROOF_BYTES};
use agentwarden_domain::audit::{Checkpoint, Head};
use serde_json::json;

use super::{LogSigner, LogVerifier, TlogError, WitnessPolicy, check_extends, check_quorum, keep};
use crate::{Config, Warden};

/// What a `--checkpoint FILE` holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CheckpointFile {
    /// The unsigned `{"seq", "head_hash"}` of the chain.
    Chain(Checkpoint),
    /// A signed note (bare, or the `note` of `audit checkpoint --json`), with the chain's
    /// checkpoint when the JSON carried one.
    Signed {
        /// The signed note's text.
        note: String,
        /// The chain's checkpoint beside it, when given.
        chain: Option<Checkpoint>,
    },
}

impl CheckpointFile {
    /// Reads `--checkpoint FILE`: a signed note, `audit checkpoint --json`'s object, or the old
    /// unsigned JSON.
    pub fn read(path: &Path) -> Result<CheckpointFile, TlogError> {
        let text = untrusted::read_text(None, path, MAX_NOTE_BYTES as u64).map_err(|e| match e {
            // A missing file is refused with how one is made (N-11).
            UntrustedError::Missing { .. } => TlogError::CheckpointInvalid(format!(
                "cannot read checkpoint: {e}: write one with `warden audit checkpoint > {}`",
                path.display()
            )),
            e => TlogError::CheckpointInvalid(format!("cannot read checkpoint: {e}")),
        })?;
        if !text.trim_start().starts_with('{') {
            return Ok(CheckpointFile::Signed { note: text, chain: None });
        }
        let invalid = |e: String| {
            TlogError::CheckpointInvalid(format!(
                "`{}` is not a checkpoint (a signed note, `audit checkpoint --json`'s object, or {{\"seq\", \
                 \"head_hash\"}}): {e}",
                path.display()
            ))
        };
        let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| invalid(e.to_string()))?;
        match value.get("note").and_then(serde_json::Value::as_str) {
            Some(note) => {
                let chain = match (value.get("seq"), value.get("head_hash")) {
                    (Some(seq), Some(hash)) => Some(
                        serde_json::from_value(json!({"seq": seq, "head_hash": hash}))
                            .map_err(|e| invalid(e.to_string()))?,
                    ),
                    _ => None,
                };
                Ok(CheckpointFile::Signed { note: note.to_owned(), chain })
            }
            None => {
                serde_json::from_value(value).map(CheckpointFile::Chain).map_err(|e| invalid(e.to_string()))
            }
        }
    }

    /// The unsigned checkpoint of the file read from `path` (the old `{"seq", "head_hash"}`, or the
    /// one `audit checkpoint --json` carries beside its note); a bare signed note has none.
    pub fn read_chain(path: &Path) -> Result<Checkpoint, TlogError> {
        match CheckpointFile::read(path)? {
            CheckpointFile::Chain(checkpoint) | CheckpointFile::Signed { chain: Some(checkpoint), .. } => {
                Ok(checkpoint)
            }
            CheckpointFile::Signed { chain: None, .. } => Err(TlogError::CheckpointInvalid(format!(
                "`{}` is a bare signed note; give `warden audit checkpoint --json`'s object",
                path.display()
            ))),
        }
    }

    /// The signed note, when the file holds one.
    pub fn note(&self) -> Option<&str> {
        match self {
            CheckpointFile::Signed { note, .. } => Some(note),
            CheckpointFile::Chain(_) => None,
        }
    }

    /// The signed checkpoint's tree head, checked against `verifier` when given, else only read;
    /// `what` names the command that needs it in the refusal of an unsigned one.
    pub fn signed_head(&self, verifier: Option<&str>, what: &str) -> Result<TreeHead, TlogError> {
        let Some(note) = self.note() else {
            return Err(TlogError::CheckpointInvalid(format!(
                "{what} needs a signed checkpoint (`warden audit checkpoint`), not the unsigned {{\"seq\", \
                 \"head_hash\"}}"
            )));
        };
        match verifier {
            Some(key) => Ok(LogVerifier::parse(key)?.open_checkpoint(note)?.1),
            None => {
                let read = parse_note(note).map_err(|e| TlogError::CheckpointInvalid(e.to_string()))?;
                TreeHead::parse(&read.text).map_err(|e| TlogError::CheckpointInvalid(e.to_string()))
            }
        }
    }
}

/// The configuration's witness policy (`[audit] witnesses`, A-41), checked against the checkpoint
/// `file` when there is one: a policy needs a signed checkpoint carrying its quorum.
pub fn configured_policy(
    config: &Config,
    file: Option<&CheckpointFile>,
) -> Result<Option<WitnessPolicy>, TlogError> {
    let policy = WitnessPolicy::configured(config)?;
    if let Some(policy) = &policy {
        let Some(note) = file.and_then(CheckpointFile::note) else {
            return Err(TlogError::CheckpointInvalid(
                "the configuration's `[audit] witnesses` need a signed checkpoint, cosigned by them".into(),
            ));
        };
        policy.check(note)?;
    }
    Ok(policy)
}

/// `--witness VKEY… --quorum K`: the signed checkpoint carries cosignatures by at least
/// K distinct given witness keys (all of them by default); returns how many cosigned.
pub fn witnessed(
    file: Option<&CheckpointFile>,
    witnesses: &[String],
    quorum: Option<usize>,
) -> Result<usize, TlogError> {
    let Some(note) = file.and_then(CheckpointFile::note) else {
        return Err(TlogError::CheckpointInvalid(
            "--witness needs a signed checkpoint (`warden audit checkpoint`, cosigned by witnesses)".into(),
        ));
    };
    let distinct = witnesses.iter().collect::<BTreeSet<_>>().len();
    check_quorum(note, witnesses, quorum.unwrap_or(distinct))
}

/// The root of a tree head as its checkpoint writes it (base64).
pub fn root64(head: &TreeHead) -> String {
    head.to_text().lines().nth(2).unwrap_or_default().to_owned()
}

/// An event's inclusion proof that holds against a signed checkpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProvenEvent {
    /// The proof, checked.
    pub proof: InclusionProof,
    /// The event's type, `-` when its text names none.
    pub event_type: String,
    /// The checkpoint's tree head it holds against.
    pub head: TreeHead,
}

/// `audit verify-proof`: the proof at `proof` checked against the checkpoint at `checkpoint`
/// signed by `verifier`, with no store.
pub fn verify_proof_file(proof: &Path, checkpoint: &Path, verifier: &str) -> Result<ProvenEvent, TlogError> {
    let text = untrusted::read_text(None, proof, MAX_PROOF_BYTES as u64).map_err(|e| match e {
        UntrustedError::Missing { .. } => TlogError::ProofMalformed(format!(
            "cannot read the proof: {e}: write one with `warden audit prove --checkpoint CHECKPOINT SEQ > {}`",
            proof.display()
        )),
        e => TlogError::ProofMalformed(format!("cannot read the proof: {e}")),
    })?;
    let proof = InclusionProof::parse(&text).map_err(|e| TlogError::ProofMalformed(e.to_string()))?;
    let head = CheckpointFile::read(checkpoint)?.signed_head(Some(verifier), "`audit verify-proof`")?;
    proof.verify(&head).map_err(|e| TlogError::ProofInvalid(e.to_string()))?;
    let event_type = serde_json::from_str::<serde_json::Value>(&proof.event)
        .ok()
        .and_then(|v| v.get("event_type").and_then(|t| t.as_str().map(str::to_owned)))
        .unwrap_or_else(|| "-".into());
    Ok(ProvenEvent { proof, event_type, head })
}

/// Signs `tree` with the key at `key` and keeps the note beside it before it is returned: a note
/// handed out is always the key's last.
pub fn sign_and_keep(signer: &LogSigner, key: &Path, tree: &TreeHead) -> Result<String, TlogError> {
    let note = signer.sign_checkpoint(tree)?.to_text();
    keep(key, &note)?;
    Ok(note)
}

/// What [`Warden::consistent_with`] found of a signed checkpoint, once the chain verified.
#[derive(Debug)]
pub enum Consistency {
    /// The log extends the checkpoint: its chain's head, and its tree head now.
    Consistent {
        /// The chain's head.
        chain: Head,
        /// The log's tree now, under the checkpoint's origin.
        now: TreeHead,
    },
    /// The log does not extend it (or its kept tree does not hold to its events), and why.
    Inconsistent {
        /// The chain's head.
        chain: Head,
        /// Why.
        why: TlogError,
    },
}

impl Warden {
    /// The log's head as a tree under `origin`, with its chain head's hash, once it extends the
    /// last checkpoint the key signed (`kept`) by a verified consistency proof.
    pub async fn signable_head(
        &self,
        origin: &str,
        kept: Option<&TreeHead>,
    ) -> Result<(TreeHead, String), TlogError> {
        let head = self.head().await?;
        let tree =
            TreeHead { origin: origin.to_owned(), size: head.seq, root: self.tree_root(head.seq).await? };
        if let Some(kept) = kept {
            let proof = match kept.size <= tree.size {
                true => self.consistency_proof(kept.size, tree.size).await?,
                false => Vec::new(),
            };
            check_extends(kept, &tree, &proof)?;
        }
        Ok((tree, head.hash.to_string()))
    }

    /// The log's consistency with the signed checkpoint `head`, its chain having verified to
    /// `chain`: the kept tree is held to the events the walk proved before its nodes
    /// prove the checkpoint's consistency.
    pub async fn consistent_with(&self, head: &TreeHead, chain: Head) -> Consistency {
        let checked = match self.check_kept_tree(&[head.size.min(chain.seq), chain.seq]).await {
            Ok(()) => self.check_checkpoint(head).await,
            Err(e) => Err(e),
        };
        match checked {
            Ok(check) => Consistency::Consistent {
                chain,
                now: TreeHead { origin: head.origin.clone(), size: check.new_size, root: check.new_root },
            },
            Err(why) => Consistency::Inconsistent { chain, why },
        }
    }
}
