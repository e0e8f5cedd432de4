//! A witness: it keeps the last checkpoint it cosigned for a log, and cosigns a new one only
//! when the consistency proof from that one holds (C2SP `tlog-witness`'s `add-checkpoint`, its
//! cosignature C2SP `tlog-cosignature` v1: Ed25519, signature type 0x04, over
//! `cosignature/v1\ntime T\n` and the checkpoint's text).
//!
//! the witness refuses, and says which, a checkpoint not signed by the log's key
//! (`checkpoint_signature_invalid`), one whose `old` size is not the witness's last
//! (`witness_conflict`, with its size, as the spec's 409), a smaller tree than its last
//! (`witness_rollback`), and the same size with another root or a consistency proof that does
//! not hold (`witness_fork`). It stores the new checkpoint before it returns the cosignature, so
//! it never cosigns what it has not kept. Its key is a file under the rules of the log's key
//! of its own kind (0x04): one key, one witness.

use std::path::Path;

use agentwarden_domain::audit::merkle::{MerkleHash, verify_consistency};
use agentwarden_domain::audit::note::{
    NoteSignature, TreeHead, check_key_name, key_id, parse_verifier_key, verifier_key,
};
use agentwarden_domain::audit::proof::SignerKeyText;
use base64ct::{Base64, Encoding};
use ed25519_dalek::{Signature, Signer, SigningKey, Verifier, VerifyingKey};

use super::key::hex;
use super::{LogVerifier, TlogError};

/// The signature type of a timestamped Ed25519 cosignature (C2SP `tlog-cosignature`).
pub const COSIGNATURE: u8 = 0x04;

/// A witness's key.
pub struct Cosigner {
    name: String,
    key: SigningKey,
}

impl std::fmt::Debug for Cosigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cosigner").field("name", &self.name).finish_non_exhaustive()
    }
}

fn unusable(why: impl Into<String>) -> TlogError {
    TlogError::KeyUnusable(why.into())
}

/// The message a v1 cosignature signs.
fn cosigned_message(checkpoint: &str, timestamp: u64) -> String {
    format!("cosignature/v1\ntime {timestamp}\n{checkpoint}")
}

impl Cosigner {
    /// The witness key named `name` with the secret `seed`.
    pub fn from_seed(name: &str, seed: [u8; 32]) -> Result<Cosigner, TlogError> {
        check_key_name(name).map_err(|e| unusable(e.to_string()))?;
        Ok(Cosigner { name: name.to_owned(), key: SigningKey::from_bytes(&seed) })
    }

    /// A new witness key from the system's randomness.
    pub fn generate(name: &str) -> Result<Cosigner, TlogError> {
        let mut seed = [0_u8; 32];
        getrandom::getrandom(&mut seed).map_err(|e| unusable(format!("no randomness for a new key: {e}")))?;
        Cosigner::from_seed(name, seed)
    }

    fn key_id(&self) -> [u8; 4] {
        key_id(&self.name, COSIGNATURE, self.key.verifying_key().as_bytes())
    }

    /// Reads the key's text: `PRIVATE+KEY+NAME+ID+BASE64(0x04 ‖ seed)`, its id its own.
    pub fn parse(text: &str) -> Result<Cosigner, TlogError> {
        let read = SignerKeyText::parse(text).map_err(|e| unusable(e.to_string()))?;
        if read.signature_type != COSIGNATURE {
            return Err(unusable(format!(
                "the key is of type {:#04x}, not a witness's Ed25519 cosigning key (0x04)",
                read.signature_type
            )));
        }
        let seed: [u8; 32] =
            read.secret.as_slice().try_into().map_err(|_| unusable("the Ed25519 seed is not 32 bytes"))?;
        let cosigner = Cosigner::from_seed(&read.name, seed)?;
        if hex(&cosigner.key_id()) != read.key_id {
            return Err(unusable(format!("the key id `{}` is not the key's", read.key_id)));
        }
        Ok(cosigner)
    }

    /// Reads the key from `path`, under the log key's rules.
    pub fn read(path: &Path) -> Result<Cosigner, TlogError> {
        let make = format!("warden witness keygen --name NAME --out {}", path.display());
        let text = super::key::read_secret_file(path, &make)?;
        Cosigner::parse(&text)
            .map_err(|e| unusable(format!("the witness's key `{}`: {}", path.display(), e.reason())))
    }

    /// The key's text: the secret.
    pub fn to_text(&self) -> String {
        SignerKeyText {
            name: self.name.clone(),
            key_id: hex(&self.key_id()),
            signature_type: COSIGNATURE,
            secret: self.key.to_bytes().to_vec(),
        }
        .to_text()
    }

    /// The verifier key: `NAME+ID+BASE64(0x04 ‖ public key)`.
    pub fn verifier(&self) -> String {
        verifier_key(&self.name, COSIGNATURE, self.key.verifying_key().as_bytes())
    }

    /// The cosignature of `checkpoint` (its text) at `timestamp` (seconds since the epoch).
    pub fn cosign(&self, checkpoint: &str, timestamp: u64) -> NoteSignature {
        let signature = self.key.sign(cosigned_message(checkpoint, timestamp).as_bytes());
        let mut bytes = timestamp.to_be_bytes().to_vec();
        bytes.extend_from_slice(&signature.to_bytes());
        NoteSignature { name: self.name.clone(), key_id: self.key_id(), signature: bytes }
    }
}

/// Checks a cosignature of `checkpoint` by the witness verifier key `vkey`; its timestamp.
pub fn verify_cosignature(vkey: &str, checkpoint: &str, signature: &NoteSignature) -> Result<u64, TlogError> {
    let bad = |why: String| TlogError::CheckpointInvalid(format!("the witness key: {why}"));
    let (name, kind, public) = parse_verifier_key(vkey).map_err(|e| bad(e.to_string()))?;
    if kind != COSIGNATURE {
        return Err(bad(format!("type {kind:#04x}, not a cosignature key (0x04)")));
    }
    let bytes: [u8; 32] = public.as_slice().try_into().map_err(|_| bad("not 32 bytes".into()))?;
    let key = VerifyingKey::from_bytes(&bytes).map_err(|e| bad(e.to_string()))?;
    let refused = |why: &str| TlogError::SignatureInvalid(format!("the cosignature by `{name}` {why}"));
    if signature.name != name || signature.key_id != key_id(&name, COSIGNATURE, &bytes) {
        return Err(refused("is by another key"));
    }
    let (time, sig) = signature.signature.split_at_checked(8).ok_or_else(|| refused("is too short"))?;
    let timestamp = u64::from_be_bytes(time.try_into().map_err(|_| refused("has no timestamp"))?);
    let sig = Signature::from_slice(sig).map_err(|_| refused("is not an Ed25519 signature"))?;
    key.verify(cosigned_message(checkpoint, timestamp).as_bytes(), &sig)
        .map_err(|_| refused("does not verify"))?;
    Ok(timestamp)
}

/// What the witness answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WitnessVerdict {
    /// Cosigned: the checkpoint to keep (the witness's new state) and the cosignature line.
    Cosigned {
        /// The checkpoint's text, now the witness's last.
        checkpoint: TreeHead,
        /// The cosignature.
        cosignature: NoteSignature,
    },
}

/// One log's witness: its key, and the last checkpoint it cosigned.
#[derive(Debug)]
pub struct Witness {
    log: LogVerifier,
    last: Option<TreeHead>,
}

impl Witness {
    /// The witness of the log `log`, whose last cosigned checkpoint is `last` (none yet: the
    /// empty tree).
    pub fn new(log: LogVerifier, last: Option<TreeHead>) -> Witness {
        Witness { log, last }
    }

    /// The size of the last cosigned checkpoint (0: none).
    pub fn size(&self) -> u64 {
        self.last.as_ref().map_or(0, |head| head.size)
    }

    /// `add-checkpoint`: the request's `old` size, its consistency proof, and the signed
    /// checkpoint. The caller stores [`WitnessVerdict::Cosigned`]'s checkpoint before it hands out
    /// the cosignature.
    pub fn add_checkpoint(
        &self,
        old: u64,
        proof: &[MerkleHash],
        note: &str,
        cosigner: &Cosigner,
        now: u64,
    ) -> Result<WitnessVerdict, TlogError> {
        let (_, head) = self.log.open_checkpoint(note)?;
        let (last_size, last_root) =
            self.last.as_ref().map_or((0, MerkleHash::empty()), |last| (last.size, last.root));
        if head.size < last_size {
            return Err(TlogError::WitnessRollback(format!(
                "the checkpoint has {} events, the last one this witness cosigned {last_size}: a rollback",
                head.size
            )));
        }
        if old != last_size {
            return Err(TlogError::WitnessConflict(format!(
                "the proof is from {old} events; this witness's last checkpoint has {last_size}"
            )));
        }
        if head.size == last_size && head.root != last_root {
            return Err(TlogError::WitnessFork(format!(
                "the checkpoint has the size of the last one this witness cosigned ({last_size}) and another root: \
                 a fork"
            )));
        }
        verify_consistency(last_size, head.size, &last_root, &head.root, proof).map_err(|e| {
            TlogError::WitnessFork(format!(
                "the log of {} events does not extend the {last_size} this witness cosigned ({e}): a fork",
                head.size
            ))
        })?;
        let cosignature = cosigner.cosign(&head.to_text(), now);
        Ok(WitnessVerdict::Cosigned { checkpoint: head, cosignature })
    }
}

/// Reads a `tlog-witness` `add-checkpoint` request body: `old N`, the proof's hashes one base64
/// a line, a blank line, then the signed checkpoint.
pub fn parse_add_checkpoint(body: &str) -> Result<(u64, Vec<MerkleHash>, String), TlogError> {
    let bad = |why: &str| TlogError::ProofMalformed(format!("the add-checkpoint request: {why}"));
    let (head, note) = body.split_once("\n\n").ok_or_else(|| bad("no blank line before the checkpoint"))?;
    let mut lines = head.split('\n');
    let old = lines
        .next()
        .and_then(|l| l.strip_prefix("old "))
        .filter(|n| {
            !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) && (*n == "0" || !n.starts_with('0'))
        })
        .and_then(|n| n.parse::<u64>().ok())
        .ok_or_else(|| bad("the first line is not `old N`"))?;
    let mut proof = Vec::new();
    for line in lines {
        if proof.len() == 64 {
            return Err(bad("more than 64 hashes"));
        }
        let bytes = Base64::decode_vec(line).map_err(|_| bad("a proof line is not base64"))?;
        proof.push(MerkleHash(bytes.try_into().map_err(|_| bad("a proof hash is not 32 bytes"))?));
    }
    Ok((old, proof, note.to_owned()))
}

/// Writes an `add-checkpoint` request body.
pub fn add_checkpoint_request(old: u64, proof: &[MerkleHash], note: &str) -> String {
    let mut out = format!("old {old}\n");
    for hash in proof {
        out.push_str(&Base64::encode_string(&hash.0));
        out.push('\n');
    }
    out.push('\n');
    out.push_str(note);
    out
}

#[cfg(test)]
mod tests {
    use agentwarden_domain::audit::merkle::{Frontier, Range, consistency_ranges, fold, perfect_nodes};
    use agentwarden_domain::audit::note::{Note, parse_note};
    use std::collections::HashMap;

    use super::*;
    use crate::tlog::LogSigner;

    /// A log of `n` leaves, `fork` marking a leaf changed: its checkpoint note, and the consistency
    /// proof from `old`.
    fn log(signer: &LogSigner, n: u64, fork: Option<u64>, old: u64) -> (String, Vec<MerkleHash>) {
        let mut frontier = Frontier::new();
        let mut nodes = HashMap::new();
        for i in 0..n {
            let leaf = if Some(i) == fork { format!("forked {i}") } else { format!("leaf {i}") };
            nodes.extend(frontier.append(MerkleHash::leaf(leaf.as_bytes())));
        }
        let head = TreeHead { origin: signer.name().into(), size: n, root: frontier.root() };
        let proof = consistency_ranges(old, n)
            .unwrap()
            .into_iter()
            .map(|r: Range| fold(&perfect_nodes(r).iter().map(|node| nodes[node]).collect::<Vec<_>>()))
            .collect();
        (signer.sign_checkpoint(&head).unwrap().to_text(), proof)
    }

    /// The example cosignature of C2SP `tlog-cosignature` parses as a v1 Ed25519 cosignature:
    /// an 8-byte timestamp (1679315147, as the spec's signed message says) and 64 bytes.
    #[test]
    fn the_specifications_cosigned_checkpoint_reads() {
        let note: Note = parse_note(
            "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n\n\
             — example.com/behind-the-sofa Az3grlgtzPICa5OS8npVmf1Myq/5IZniMp+ZJurmRDeOoRDe4URYN7u5/Zhcyv2q1gGzGku9nTo+zyWE+xeMcTOAYQ8=\n\
             — witness.example.com/w1 jWbPPwAAAABkGFDLEZMHwSRaJNiIDoe9DYn/zXcrtPHeolMI5OWXEhZCB9dlrDJsX3b2oyin1nPZqhf5nNo0xUe+mbIUBkBIfZ+qnA==\n",
        )
        .unwrap();
        let cosignature = &note.signatures[1];
        assert_eq!(cosignature.signature.len(), 72);
        let time: [u8; 8] = cosignature.signature[..8].try_into().unwrap();
        assert_eq!(u64::from_be_bytes(time), 1_679_315_147);
        assert!(TreeHead::parse(&note.text).is_ok());
    }

    /// The witness cosigns a log that grows, and refuses a rollback, a fork, a stale `old`
    /// and another key's checkpoint, each by name; its cosignatures verify.
    #[test]
    fn the_witness_cosigns_growth_and_refuses_rollback_and_fork() {
        let signer = LogSigner::from_seed("log.example/a", [3; 32]).unwrap();
        let cosigner = Cosigner::from_seed("witness.example/w", [4; 32]).unwrap();
        let mut witness = Witness::new(signer.verifier(), None);
        let mut last = 0;
        for n in [1_u64, 5, 5, 8, 13] {
            let (note, proof) = log(&signer, n, None, last);
            let request = add_checkpoint_request(last, &proof, &note);
            let (old, proof, note) = parse_add_checkpoint(&request).unwrap();
            let WitnessVerdict::Cosigned { checkpoint, cosignature } =
                witness.add_checkpoint(old, &proof, &note, &cosigner, 1_700_000_000).unwrap();
            assert_eq!(
                verify_cosignature(&cosigner.verifier(), &checkpoint.to_text(), &cosignature).unwrap(),
                1_700_000_000
            );
            witness = Witness::new(signer.verifier(), Some(checkpoint));
            last = n;
        }
        let code = |r: Result<WitnessVerdict, TlogError>| r.unwrap_err().code().as_str().to_owned();
        let (older, proof) = log(&signer, 8, None, 0);
        assert_eq!(code(witness.add_checkpoint(0, &proof, &older, &cosigner, 1)), "witness_rollback");
        let (forked, proof) = log(&signer, 13, Some(2), 13);
        assert_eq!(code(witness.add_checkpoint(13, &proof, &forked, &cosigner, 1)), "witness_fork");
        let (forked, proof) = log(&signer, 20, Some(2), 13);
        assert_eq!(code(witness.add_checkpoint(13, &proof, &forked, &cosigner, 1)), "witness_fork");
        let (grown, proof) = log(&signer, 20, None, 8);
        assert_eq!(code(witness.add_checkpoint(8, &proof, &grown, &cosigner, 1)), "witness_conflict");
        let other = LogSigner::from_seed("log.example/a", [5; 32]).unwrap();
        let (foreign, proof) = log(&other, 20, None, 13);
        assert_eq!(
            code(witness.add_checkpoint(13, &proof, &foreign, &cosigner, 1)),
            "checkpoint_signature_invalid"
        );
        let (grown, proof) = log(&signer, 20, None, 13);
        assert!(witness.add_checkpoint(13, &proof, &grown, &cosigner, 1).is_ok());
    }

    #[test]
    fn a_witness_key_is_its_own_kind() {
        let cosigner = Cosigner::generate("witness.example/w").unwrap();
        let read = Cosigner::parse(&cosigner.to_text()).unwrap();
        assert_eq!(read.verifier(), cosigner.verifier());
        let log_key = LogSigner::from_seed("witness.example/w", [1; 32]).unwrap();
        assert!(Cosigner::parse(&log_key.to_text()).is_err(), "a log's key is not a witness's");
        assert!(LogSigner::parse(&cosigner.to_text()).is_err(), "a witness's key is not a log's");
    }
}
