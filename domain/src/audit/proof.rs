//! An inclusion proof of one event, as `warden audit prove` writes it and `warden audit
//! verify-proof` reads it: the event's stored body (the Merkle leaf, A-25), its position, the
//! size of the tree it is proven in, and the audit path (RFC 6962 §2.1.1), nearest the leaf
//! first. With the checkpoint of that size and the log's public key, an auditor checks the event
//! with no store at all.
//!
//! ```text
//! agentwarden/inclusion-proof/v1
//! seq 42                          ← the event's sequence number (leaf 41)
//! size 100                        ← the tree it is proven in: the checkpoint's size
//! event {"seq":42,"prev_hash":…}  ← the event's stored body, byte for byte
//! hash 7Xbm…Jw=                   ← the audit path, base64, one line per hash
//! ```
//!
//! A-31: read strictly, as notes are (A-26): exactly these lines in this order, each ending
//! with a newline; decimal numbers without sign or leading zero; `seq` from 1 to `size`; 32-byte
//! hashes in standard base64; the event's body declares the same seq (`{"seq":N,`); at most
//! [`MAX_PROOF_BYTES`] and 64 hashes. What is read is written back byte for byte (fuzzed:
//! `tlog_proof`). The signer key of a log (`PRIVATE+KEY+NAME+ID+BASE64`) is read here too,
//! as Go's `golang.org/x/mod/sumdb/note` writes it.

use base64ct::{Base64, Encoding};

use super::merkle::{MerkleHash, ProofError, verify_inclusion};
use super::note::{KeyError, TreeHead, check_key_name};

/// The first line of a proof.
pub const PROOF_HEADER: &str = "agentwarden/inclusion-proof/v1";

/// The largest proof read: an event is at most 1 MiB, and a bounded read is a bounded parse.
pub const MAX_PROOF_BYTES: usize = 4 << 20;

/// The longest audit path: a tree of at most 2^64 leaves.
pub const MAX_PATH: usize = 64;

/// An inclusion proof of one event in a tree of `size` events.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InclusionProof {
    /// The event's sequence number (its leaf is `seq - 1`).
    pub seq: u64,
    /// How many events the tree holds: the checkpoint's size.
    pub size: u64,
    /// The event's stored body: the leaf.
    pub event: String,
    /// The audit path, nearest the leaf first.
    pub hashes: Vec<MerkleHash>,
}

/// Why a proof is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InclusionError {
    /// The proof is not well formed (A-31).
    #[error("the proof is malformed: {0}")]
    Malformed(String),
    /// The proof is of another tree than the checkpoint's.
    #[error("the proof is for a tree of {proof} events, the checkpoint for one of {checkpoint}")]
    OtherTree {
        /// The proof's size.
        proof: u64,
        /// The checkpoint's.
        checkpoint: u64,
    },
    /// The event, its position and the path do not lead to the checkpoint's root.
    #[error("event {seq} is not in the checkpoint's tree: {why}")]
    NotIncluded {
        /// The event's seq.
        seq: u64,
        /// What the Merkle check said.
        why: ProofError,
    },
}

fn number(line: Option<&str>, key: &str) -> Result<u64, InclusionError> {
    let bad = |why: String| InclusionError::Malformed(why);
    let line = line.ok_or_else(|| bad(format!("no `{key}` line")))?;
    let value = line
        .strip_prefix(key)
        .and_then(|rest| rest.strip_prefix(' '))
        .ok_or_else(|| bad(format!("`{}` is not `{key} N`", line.escape_debug())))?;
    let well_formed = !value.is_empty()
        && value.bytes().all(|b| b.is_ascii_digit())
        && (value == "0" || !value.starts_with('0'));
    if !well_formed {
        return Err(bad(format!("`{key}` is not a decimal number without a leading zero")));
    }
    value.parse().map_err(|_| bad(format!("`{key}` does not fit 64 bits")))
}

impl InclusionProof {
    /// The leaf's index in the tree.
    pub fn leaf_index(&self) -> u64 {
        self.seq.saturating_sub(1)
    }

    /// The proof as text (see the module's documentation).
    pub fn to_text(&self) -> String {
        let mut out = format!("{PROOF_HEADER}\nseq {}\nsize {}\nevent {}\n", self.seq, self.size, self.event);
        for hash in &self.hashes {
            out.push_str("hash ");
            out.push_str(&Base64::encode_string(&hash.0));
            out.push('\n');
        }
        out
    }

    /// Reads a proof (A-31).
    pub fn parse(text: &str) -> Result<InclusionProof, InclusionError> {
        let bad = |why: &str| InclusionError::Malformed(why.to_owned());
        if text.len() > MAX_PROOF_BYTES {
            return Err(bad("it is larger than 4 MiB"));
        }
        let body = text.strip_suffix('\n').ok_or_else(|| bad("no final newline"))?;
        let mut lines = body.split('\n');
        if lines.next() != Some(PROOF_HEADER) {
            return Err(InclusionError::Malformed(format!("the first line is not `{PROOF_HEADER}`")));
        }
        let seq = number(lines.next(), "seq")?;
        let size = number(lines.next(), "size")?;
        if seq == 0 || seq > size {
            return Err(InclusionError::Malformed(format!("seq {seq} is not in a tree of {size} events")));
        }
        let event = lines
            .next()
            .and_then(|line| line.strip_prefix("event "))
            .ok_or_else(|| bad("the fourth line is not `event BODY`"))?;
        if !event.starts_with(&format!("{{\"seq\":{seq},")) {
            return Err(InclusionError::Malformed(format!("the event does not declare seq {seq}")));
        }
        let mut hashes = Vec::new();
        for line in lines {
            if hashes.len() == MAX_PATH {
                return Err(bad("more than 64 hashes"));
            }
            let value =
                line.strip_prefix("hash ").ok_or_else(|| bad("a line after the event is not `hash B64`"))?;
            let bytes = Base64::decode_vec(value)
                .map_err(|e| InclusionError::Malformed(format!("a hash is not base64: {e}")))?;
            let hash: [u8; 32] = bytes.try_into().map_err(|_| bad("a hash is not 32 bytes"))?;
            hashes.push(MerkleHash(hash));
        }
        Ok(InclusionProof { seq, size, event: event.to_owned(), hashes })
    }

    /// Checks that the event is leaf `seq - 1` of the tree `head` names: same size, and the
    /// path from the event's leaf hash leads to its root.
    pub fn verify(&self, head: &TreeHead) -> Result<(), InclusionError> {
        if self.size != head.size {
            return Err(InclusionError::OtherTree { proof: self.size, checkpoint: head.size });
        }
        let leaf = MerkleHash::leaf(self.event.as_bytes());
        verify_inclusion(&leaf, self.leaf_index(), self.size, &self.hashes, &head.root)
            .map_err(|why| InclusionError::NotIncluded { seq: self.seq, why })
    }
}

/// A signer key as Go's `note.GenerateKey` writes it: `PRIVATE+KEY+NAME+KEYID+BASE64(type ‖
/// key)`. Its id cannot be checked without the public key, which the caller derives.
#[derive(Clone, PartialEq, Eq)]
pub struct SignerKeyText {
    /// The key's name: the log's origin.
    pub name: String,
    /// The id the text claims (8 lowercase hex digits).
    pub key_id: String,
    /// The signature type byte.
    pub signature_type: u8,
    /// The private key material (for Ed25519, the 32-byte seed).
    pub secret: Vec<u8>,
}

impl std::fmt::Debug for SignerKeyText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SignerKeyText")
            .field("name", &self.name)
            .field("key_id", &self.key_id)
            .field("signature_type", &self.signature_type)
            .finish_non_exhaustive()
    }
}

impl SignerKeyText {
    /// Reads the key's text (one line, an optional final newline).
    pub fn parse(text: &str) -> Result<SignerKeyText, KeyError> {
        let form = KeyError::Form { kind: "signer key", expected: "PRIVATE+KEY+NAME+KEYID+KEY" };
        let line = text.strip_suffix('\n').unwrap_or(text);
        let rest = line.strip_prefix("PRIVATE+KEY+").ok_or_else(|| form.clone())?;
        let mut parts = rest.splitn(3, '+');
        let (Some(name), Some(id), Some(key)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(form);
        };
        check_key_name(name)?;
        if id.len() != 8 || !id.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)) {
            return Err(KeyError::IdNotHex);
        }
        let key = Base64::decode_vec(key).map_err(|e| KeyError::NotBase64 { detail: e.to_string() })?;
        let Some((&signature_type, secret)) = key.split_first() else {
            return Err(KeyError::Empty);
        };
        Ok(SignerKeyText {
            name: name.to_owned(),
            key_id: id.to_owned(),
            signature_type,
            secret: secret.to_vec(),
        })
    }

    /// The key's text.
    pub fn to_text(&self) -> String {
        let mut key = vec![self.signature_type];
        key.extend_from_slice(&self.secret);
        format!("PRIVATE+KEY+{}+{}+{}\n", self.name, self.key_id, Base64::encode_string(&key))
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::audit::merkle::{Frontier, Node, fold, inclusion_ranges, perfect_nodes};
    use std::collections::HashMap;

    fn body(seq: u64) -> String {
        format!("{{\"seq\":{seq},\"prev_hash\":\"x\",\"n\":{seq}}}")
    }

    /// A tree of `size` events, the checkpoint of it, and the proof of `seq` in it.
    fn proven(size: u64, seq: u64) -> (TreeHead, InclusionProof) {
        let mut frontier = Frontier::new();
        let mut nodes: HashMap<Node, MerkleHash> = HashMap::new();
        for s in 1..=size {
            nodes.extend(frontier.append(MerkleHash::leaf(body(s).as_bytes())));
        }
        let hashes = inclusion_ranges(seq - 1, size)
            .unwrap()
            .into_iter()
            .map(|r| fold(&perfect_nodes(r).iter().map(|n| nodes[n]).collect::<Vec<_>>()))
            .collect();
        let head = TreeHead { origin: "o".into(), size, root: frontier.root() };
        (head, InclusionProof { seq, size, event: body(seq), hashes })
    }

    #[test]
    fn a_proof_reads_back_and_verifies() {
        let (head, proof) = proven(7, 4);
        let text = proof.to_text();
        assert!(
            text.starts_with("agentwarden/inclusion-proof/v1\nseq 4\nsize 7\nevent {\"seq\":4,"),
            "{text}"
        );
        let read = InclusionProof::parse(&text).unwrap();
        assert_eq!(read, proof);
        assert_eq!(read.verify(&head), Ok(()));
    }

    /// Table: what is refused, and why.
    #[test]
    fn a_proof_of_anything_else_is_refused() {
        let (head, proof) = proven(7, 4);
        let good = proof.to_text();
        let rows: Vec<(String, &str)> = vec![
            (good.replacen("v1", "v2", 1), "another version"),
            (good.trim_end().to_owned(), "no final newline"),
            (good.replace("seq 4\n", "seq 04\n"), "a leading zero"),
            (good.replace("seq 4\n", "seq 0\n"), "seq 0"),
            (good.replace("seq 4\n", "seq 8\n"), "seq past the size"),
            (good.replace("size 7\n", "size +7\n"), "a sign"),
            (good.replace("event {\"seq\":4,", "event {\"seq\":5,"), "the event declares another seq"),
            (good.replace("\nhash ", "\nhash  "), "padded base64"),
            (format!("{good}hash AAAA\n"), "a short hash"),
            (format!("{good}extra\n"), "a line more"),
            (
                format!("{good}{}", "hash AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n".repeat(MAX_PATH)),
                "over 64 hashes",
            ),
        ];
        for (text, why) in rows {
            assert!(InclusionProof::parse(&text).is_err(), "{why}: {text:?}");
        }
        // Well formed, and still refused by the checkpoint.
        let mut other = proof.clone();
        other.event = body(5).replace("\"seq\":5", "\"seq\":4");
        assert!(
            matches!(other.verify(&head), Err(InclusionError::NotIncluded { seq: 4, .. })),
            "another event"
        );
        let mut moved = proof.clone();
        moved.seq = 5;
        assert!(moved.verify(&head).is_err(), "the event at another position");
        let (bigger, _) = proven(8, 4);
        assert_eq!(proof.verify(&bigger), Err(InclusionError::OtherTree { proof: 7, checkpoint: 8 }));
        let mut short = proof.clone();
        short.hashes.pop();
        assert!(short.verify(&head).is_err(), "a path too short");
    }

    /// The example signer key of Go's `golang.org/x/mod/sumdb/note` documentation reads, and is
    /// written back as it was.
    #[test]
    fn a_signer_key_reads_as_go_writes_it() {
        let text = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz";
        let key = SignerKeyText::parse(text).unwrap();
        assert_eq!(
            (key.name.as_str(), key.key_id.as_str(), key.signature_type),
            ("PeterNeumann", "c74f20a3", 1)
        );
        assert_eq!(key.secret.len(), 32);
        assert_eq!(key.to_text(), format!("{text}\n"));
        assert!(!format!("{key:?}").contains("AYEK"), "the secret is not printed");
        for bad in [
            "PRIVATE+KEY+PeterNeumann+c74f20a3",
            "PUBLIC+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz",
            "PRIVATE+KEY+Peter Neumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz",
            "PRIVATE+KEY+PeterNeumann+C74F20A3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz",
            "PRIVATE+KEY+PeterNeumann+c74f20a3+!!!",
            "PRIVATE+KEY+PeterNeumann+c74f20a3+",
        ] {
            assert!(SignerKeyText::parse(bad).is_err(), "{bad}");
        }
    }

    proptest! {
        /// Every proof of every event of a random tree verifies against its checkpoint, and reads
        /// back as itself.
        #[test]
        fn every_proof_verifies(size in 1_u64..300, pick in any::<u64>()) {
            let seq = 1 + pick % size;
            let (head, proof) = proven(size, seq);
            let read = InclusionProof::parse(&proof.to_text()).unwrap();
            prop_assert_eq!(read.verify(&head), Ok(()));
        }

        /// The reader never panics, and what it takes is written back byte for byte.
        #[test]
        fn the_reader_takes_anything(text in "\\PC{0,200}") {
            if let Ok(proof) = InclusionProof::parse(&text) {
                prop_assert_eq!(proof.to_text(), text.clone());
            }
            let _ = SignerKeyText::parse(&text);
        }
    }
}
