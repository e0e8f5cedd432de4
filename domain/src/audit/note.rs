//! Signed checkpoints in the formats transparency logs share, so that third-party tools read
//! them: a C2SP `tlog-checkpoint` (origin, tree size, root) as the text of a C2SP `signed-note`,
//! followed by its signature lines.
//!
//! ```text
//! warden.example/audit            ← origin: which log
//! 1234                            ← tree size, decimal
//! 7Xbm…Jw=                        ← the Merkle root, base64
//!                                 ← a blank line ends the text
//! — warden.example/audit AbCd…==  ← "— NAME BASE64(KEY_ID ‖ SIGNATURE)", one per signer
//! ```
//!
//! A-26: read strictly. The text is UTF-8 without control characters but newlines and ends
//! with one; a signature line names a key without spaces or `+` and carries at least the
//! 4-byte key id; the checkpoint's size has no sign and no leading zero, its root is exactly 32
//! bytes in standard base64, its origin is not empty. Anything else is refused with what is
//! wrong, never read as far as it goes. Signing and checking signatures need a key: the
//! application does them; this module says what is signed and how the key is named.

use base64ct::{Base64, Encoding};
use sha2::{Digest, Sha256};

use super::merkle::MerkleHash;

/// The signature type of an Ed25519 signed-note key (C2SP `signed-note`).
pub const ED25519: u8 = 0x01;

/// The largest note read: signed notes are small, and a bounded read is a bounded parse.
pub const MAX_NOTE_BYTES: usize = 1 << 20;

/// The most signature lines read.
pub const MAX_SIGNATURES: usize = 100;

/// Why a note or a checkpoint is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NoteError {
    /// Over [`MAX_NOTE_BYTES`] or [`MAX_SIGNATURES`].
    #[error("the note is too large: {0}")]
    TooLarge(String),
    /// The text is not well formed.
    #[error("the note's text is malformed: {0}")]
    Text(String),
    /// A signature line is not well formed.
    #[error("signature line {line} is malformed: {why}")]
    Signature {
        /// Its position among the signature lines, from 1.
        line: usize,
        /// What is wrong.
        why: String,
    },
    /// The text is not a checkpoint.
    #[error("the note is not a checkpoint: {0}")]
    Checkpoint(String),
}

/// One signature line: who signed (the key's name and its 4-byte id) and the signature bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoteSignature {
    /// The key's name.
    pub name: String,
    /// The first four bytes of [`key_id`].
    pub key_id: [u8; 4],
    /// What follows the key id: the signature (for a cosignature, its timestamp first).
    pub signature: Vec<u8>,
}

/// A signed note: its text (what is signed) and its signatures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    /// The text, ending with a newline.
    pub text: String,
    /// The signature lines, in order.
    pub signatures: Vec<NoteSignature>,
}

/// A key name as signed notes allow it: not empty, no white space, no `+`.
pub fn check_key_name(name: &str) -> Result<(), KeyError> {
    if name.is_empty() {
        return Err(KeyError::EmptyName);
    }
    if let Some(found) = name.chars().find(|c| c.is_whitespace() || c.is_control() || *c == '+') {
        return Err(KeyError::NameHolds { name: name.to_owned(), found });
    }
    Ok(())
}

/// Why a key's text (a verifier key, a signer key) cannot be read, by cause (X-97). More causes
/// may come with another key format.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KeyError {
    /// The key's name is empty.
    #[error("the key name is empty")]
    EmptyName,
    /// The key's name holds white space, a control character or `+`.
    #[error("the key name `{}` holds {found:?}", .name.escape_debug())]
    NameHolds {
        /// The name.
        name: String,
        /// The first character it may not hold.
        found: char,
    },
    /// The text is not of the key's form, `expected`.
    #[error("a {kind} is {expected}")]
    Form {
        /// Which key (`verifier key`, `signer key`).
        kind: &'static str,
        /// Its form.
        expected: &'static str,
    },
    /// The key id is not 8 lowercase hex digits.
    #[error("the key id is not 8 lowercase hex digits")]
    IdNotHex,
    /// The key is not base64.
    #[error("the key is not base64: {detail}")]
    NotBase64 {
        /// The decoder's reason.
        detail: String,
    },
    /// The key decodes to nothing.
    #[error("the key is empty")]
    Empty,
    /// The key id is not the key's.
    #[error("the key id `{id}` is not the key's (`{expected}`)")]
    WrongId {
        /// The id the text gives.
        id: String,
        /// The key's own.
        expected: String,
    },
}

/// A key's id: the first four bytes of `SHA-256(name ‖ "\n" ‖ type ‖ public key)`.
pub fn key_id(name: &str, signature_type: u8, public_key: &[u8]) -> [u8; 4] {
    let mut hasher = Sha256::new();
    hasher.update(name.as_bytes());
    hasher.update([b'\n', signature_type]);
    hasher.update(public_key);
    let digest: [u8; 32] = hasher.finalize().into();
    let [a, b, c, d, ..] = digest;
    [a, b, c, d]
}

/// A verifier key as tools print it: `NAME+KEYID(8 hex)+BASE64(type ‖ public key)`.
pub fn verifier_key(name: &str, signature_type: u8, public_key: &[u8]) -> String {
    let id = key_id(name, signature_type, public_key);
    let mut key = vec![signature_type];
    key.extend_from_slice(public_key);
    let hex: String = id.iter().map(|b| format!("{b:02x}")).collect();
    format!("{name}+{hex}+{}", Base64::encode_string(&key))
}

/// Reads a verifier key (`NAME+KEYID+BASE64(type ‖ public key)`): its name, type and public
/// key, the id checked against them.
pub fn parse_verifier_key(text: &str) -> Result<(String, u8, Vec<u8>), KeyError> {
    let mut parts = text.trim_end_matches('\n').splitn(3, '+');
    let (Some(name), Some(id), Some(key)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(KeyError::Form { kind: "verifier key", expected: "NAME+KEYID+KEY" });
    };
    check_key_name(name)?;
    let key = Base64::decode_vec(key).map_err(|e| KeyError::NotBase64 { detail: e.to_string() })?;
    let Some((&kind, public)) = key.split_first() else { return Err(KeyError::Empty) };
    let expected: String = key_id(name, kind, public).iter().map(|b| format!("{b:02x}")).collect();
    if id != expected {
        return Err(KeyError::WrongId { id: id.to_owned(), expected });
    }
    Ok((name.to_owned(), kind, public.to_vec()))
}

impl Note {
    /// The note as text: the text, a blank line, the signature lines.
    pub fn to_text(&self) -> String {
        let mut out = self.text.clone();
        out.push('\n');
        for s in &self.signatures {
            let mut blob = s.key_id.to_vec();
            blob.extend_from_slice(&s.signature);
            out.push_str(&format!("— {} {}\n", s.name, Base64::encode_string(&blob)));
        }
        out
    }

    /// The signatures by the key named `name` whose id is `key_id`.
    pub fn signatures_by<'a>(
        &'a self,
        name: &'a str,
        key_id: [u8; 4],
    ) -> impl Iterator<Item = &'a NoteSignature> {
        self.signatures.iter().filter(move |s| s.name == name && s.key_id == key_id)
    }
}

/// Reads a signed note (A-26).
pub fn parse_note(text: &str) -> Result<Note, NoteError> {
    if text.len() > MAX_NOTE_BYTES {
        return Err(NoteError::TooLarge(format!("{} bytes, over {MAX_NOTE_BYTES}", text.len())));
    }
    if let Some(c) = text.chars().find(|c| c.is_control() && *c != '\n') {
        return Err(NoteError::Text(format!("it holds the control character {c:?}")));
    }
    let Some(split) = text.rfind("\n\n") else {
        return Err(NoteError::Text("no blank line ends the text".to_owned()));
    };
    let (body, lines) = (text.get(..=split).unwrap_or_default(), text.get(split + 2..).unwrap_or_default());
    if !lines.ends_with('\n') {
        return Err(NoteError::Text("the last signature line has no newline".to_owned()));
    }
    let lines: Vec<&str> = lines.split_terminator('\n').collect();
    if lines.is_empty() {
        return Err(NoteError::Text("no signature line".to_owned()));
    }
    if lines.len() > MAX_SIGNATURES {
        return Err(NoteError::TooLarge(format!("{} signature lines, over {MAX_SIGNATURES}", lines.len())));
    }
    let signatures = lines
        .iter()
        .enumerate()
        .map(|(i, line)| signature(line).map_err(|why| NoteError::Signature { line: i + 1, why }))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Note { text: body.to_owned(), signatures })
}

fn signature(line: &str) -> Result<NoteSignature, String> {
    let rest = line.strip_prefix("— ").ok_or("it does not start with `— `")?;
    let (name, blob) = rest.split_once(' ').ok_or("it has no signature after the key name")?;
    check_key_name(name).map_err(|e| e.to_string())?;
    let blob = Base64::decode_vec(blob).map_err(|e| format!("the signature is not base64: {e}"))?;
    let (id, signature) = blob.split_at_checked(4).ok_or("the signature is shorter than a key id")?;
    let key_id: [u8; 4] = id.try_into().map_err(|_| "the key id is not four bytes")?;
    Ok(NoteSignature { name: name.to_owned(), key_id, signature: signature.to_vec() })
}

/// A checkpoint: which log, how many leaves, their Merkle root (C2SP `tlog-checkpoint`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeHead {
    /// The log's origin line (e.g. `warden.example/audit`).
    pub origin: String,
    /// How many leaves (events).
    pub size: u64,
    /// The Merkle root of those leaves.
    pub root: MerkleHash,
}

impl TreeHead {
    /// The checkpoint's text: what is signed.
    pub fn to_text(&self) -> String {
        format!("{}\n{}\n{}\n", self.origin, self.size, Base64::encode_string(&self.root.0))
    }

    /// Reads a checkpoint's text (extension lines after the root are refused: Warden writes none
    /// and reads only what it can vouch for).
    pub fn parse(text: &str) -> Result<TreeHead, NoteError> {
        let bad = |why: &str| NoteError::Checkpoint(why.to_owned());
        let lines: Vec<&str> =
            text.strip_suffix('\n').ok_or_else(|| bad("no final newline"))?.split('\n').collect();
        let [origin, size, root] = lines.as_slice() else {
            return Err(bad("it is not three lines: origin, size, root"));
        };
        if origin.trim().is_empty() || origin.trim() != *origin {
            return Err(bad("the origin is empty or padded"));
        }
        let well_formed = !size.is_empty()
            && size.bytes().all(|b| b.is_ascii_digit())
            && (*size == "0" || !size.starts_with('0'));
        let size: u64 = match well_formed {
            true => size.parse().map_err(|_| bad("the size is not a 64-bit number"))?,
            false => return Err(bad("the size is not a decimal number without a leading zero")),
        };
        let bytes = Base64::decode_vec(root)
            .map_err(|e| NoteError::Checkpoint(format!("the root is not base64: {e}")))?;
        let root: [u8; 32] = bytes.try_into().map_err(|_| bad("the root is not 32 bytes"))?;
        Ok(TreeHead { origin: (*origin).to_owned(), size, root: MerkleHash(root) })
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn head() -> TreeHead {
        TreeHead { origin: "warden.example/audit".into(), size: 7, root: MerkleHash::leaf(b"x") }
    }

    fn signed(text: String) -> Note {
        Note {
            text,
            signatures: vec![NoteSignature {
                name: "warden.example/audit".into(),
                key_id: [1, 2, 3, 4],
                signature: vec![9; 64],
            }],
        }
    }

    /// A verifier key reads back as what was written, and its id is the one the tools compute:
    /// the example key of Go's `golang.org/x/mod/sumdb/note` documentation is accepted (its
    /// id checked against the hash of its name and key), a changed id is not.
    #[test]
    fn a_verifier_key_is_named_as_the_tools_name_it() {
        let (name, kind, _) =
            parse_verifier_key("PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW").unwrap();
        assert_eq!((name.as_str(), kind), ("PeterNeumann", ED25519));
        assert!(
            parse_verifier_key("PeterNeumann+c74f20a4+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW").is_err()
        );
        let public = [0x11_u8; 32];
        let key = verifier_key("example.com/log", ED25519, &public);
        let (name, kind, read) = parse_verifier_key(&key).unwrap();
        assert_eq!((name.as_str(), kind, read.as_slice()), ("example.com/log", ED25519, &public[..]));
        let mut wrong = key.clone();
        wrong.replace_range(16..18, if &key[16..18] == "00" { "01" } else { "00" });
        assert!(matches!(parse_verifier_key(&wrong), Err(KeyError::WrongId { .. })), "{wrong}");
        assert!(parse_verifier_key("a b+00000000+AQ==").is_err());
    }

    #[test]
    fn a_checkpoint_reads_back_as_itself() {
        let note = signed(head().to_text());
        let text = note.to_text();
        assert!(text.starts_with("warden.example/audit\n7\n"), "{text}");
        assert!(text.contains("\n\n— warden.example/audit "), "{text}");
        let read = parse_note(&text).unwrap();
        assert_eq!(read, note);
        assert_eq!(TreeHead::parse(&read.text).unwrap(), head());
    }

    /// Table: what a strict reader refuses, and why (A-26).
    #[test]
    fn anything_else_is_refused() {
        let good = signed(head().to_text()).to_text();
        let root = Base64::encode_string(&head().root.0);
        let rows: Vec<(String, &str)> = vec![
            (good.replace("\n\n", "\n"), "no blank line"),
            (good.trim_end_matches('\n').to_owned(), "no final newline"),
            (good.replace("— ", "- "), "an ASCII dash"),
            (good.replace("— warden.example/audit ", "— warden example "), "a space in the name"),
            (good.replace("— warden.example/audit ", "— a+b "), "a plus in the name"),
            (format!("{}— k AQID\n", good), "a signature shorter than a key id"),
            (format!("{}— k !!!!\n", good), "not base64"),
            (good.replace("audit\n7", "audit\r\n7"), "a carriage return"),
            (format!("x\n\n{}", "— k AQIDBA==\n".repeat(MAX_SIGNATURES + 1)), "too many signatures"),
        ];
        for (text, why) in rows {
            assert!(parse_note(&text).is_err(), "{why}: {text:?}");
        }
        for (text, why) in [
            (format!("o\n07\n{root}\n"), "a leading zero"),
            (format!("o\n+7\n{root}\n"), "a sign"),
            (format!("o\n-1\n{root}\n"), "negative"),
            (format!("o\n99999999999999999999\n{root}\n"), "over 64 bits"),
            (format!(" o\n7\n{root}\n"), "a padded origin"),
            (format!("\n7\n{root}\n"), "no origin"),
            ("o\n7\nAAAA\n".to_owned(), "a short root"),
            (format!("o\n7\n{root}\next\n"), "an extension line"),
            (format!("o\n7\n{root}"), "no final newline"),
        ] {
            assert!(TreeHead::parse(&text).is_err(), "{why}: {text:?}");
        }
        assert_eq!(TreeHead::parse(&format!("o\n0\n{root}\n")).unwrap().size, 0);
    }

    proptest! {
        /// Any text the reader takes is written back byte for byte: no two readings of one note.
        #[test]
        fn what_is_read_is_written_back_unchanged(text in "[a-z0-9/.\n]{1,40}", name in "[a-z.]{1,12}", sig in proptest::collection::vec(any::<u8>(), 4..80)) {
            let candidate = format!("{text}\n\n— {name} {}\n", Base64::encode_string(&sig));
            if let Ok(note) = parse_note(&candidate) {
                prop_assert_eq!(note.to_text(), candidate);
            }
        }

        /// The reader never panics, whatever it is given.
        #[test]
        fn the_reader_takes_anything_without_panicking(text in "\\PC{0,200}") {
            let _ = parse_note(&text);
            let _ = TreeHead::parse(&text);
        }
    }
}
