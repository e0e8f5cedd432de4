//! The log's Ed25519 key: signing checkpoints as C2SP signed notes, and checking them.
//!
//! The key is written as Go's `golang.org/x/mod/sumdb/note` writes one (`PRIVATE+KEY+NAME+ID+
//! BASE64(0x01 ‖ seed)`), its public half as a verifier key (`NAME+ID+BASE64(0x01 ‖ public)`),
//! so any signed-note tool reads both; the key's name is the log's origin.
//!
//! A-30: the key lives in a file its holder alone can read — the server's user's in server
//! mode, the user's own in direct mode. It is refused, with `log_key_unusable` and why, when it
//! is missing, not a regular file (a link is not followed), readable or writable by group or
//! others, over 4 KiB, not an Ed25519 key of that form, or its id is not the hash of its name and
//! key. What a direct-mode key is worth: the guarded agent runs as the user and can read it, so
//! a checkpoint it signs proves only that someone with the user's access signed it; what holds
//! against the agent is a checkpoint kept where the agent cannot write, taken before it acted.
//!
//! A-32: a checkpoint is accepted only with a signature by the verifier key (its name and id
//! both match) that verifies, no signature by that key that fails, and an origin that is the
//! key's name — one log, one key; signatures by other keys are ignored, as the spec says.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use agentwarden_domain::audit::note::{
    ED25519, Note, NoteSignature, TreeHead, check_key_name, key_id, parse_note, parse_verifier_key,
    verifier_key,
};
use agentwarden_domain::audit::proof::SignerKeyText;
use ed25519_dalek::{Signature, Signer, SigningKey, Verifier, VerifyingKey};

use super::TlogError;

/// The largest key file read.
pub const MAX_KEY_BYTES: u64 = 4096;

/// The log's signing key.
pub struct LogSigner {
    name: String,
    key: SigningKey,
}

impl std::fmt::Debug for LogSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LogSigner").field("name", &self.name).finish_non_exhaustive()
    }
}

fn unusable(why: impl Into<String>) -> TlogError {
    TlogError::KeyUnusable(why.into())
}

impl LogSigner {
    /// The key named `name` (the log's origin) with the secret `seed`.
    pub fn from_seed(name: &str, seed: [u8; 32]) -> Result<LogSigner, TlogError> {
        check_key_name(name).map_err(|e| unusable(e.to_string()))?;
        Ok(LogSigner { name: name.to_owned(), key: SigningKey::from_bytes(&seed) })
    }

    /// A new key from the system's randomness.
    pub fn generate(name: &str) -> Result<LogSigner, TlogError> {
        let mut seed = [0_u8; 32];
        getrandom::getrandom(&mut seed).map_err(|e| unusable(format!("no randomness for a new key: {e}")))?;
        LogSigner::from_seed(name, seed)
    }

    /// Reads the key's text (A-30): an Ed25519 key whose id is its own.
    pub fn parse(text: &str) -> Result<LogSigner, TlogError> {
        let read = SignerKeyText::parse(text).map_err(|e| unusable(e.to_string()))?;
        if read.signature_type != ED25519 {
            return Err(unusable(format!(
                "the key is of type {:#04x}, not Ed25519 (0x01)",
                read.signature_type
            )));
        }
        let seed: [u8; 32] =
            read.secret.as_slice().try_into().map_err(|_| unusable("the Ed25519 seed is not 32 bytes"))?;
        let signer = LogSigner::from_seed(&read.name, seed)?;
        let id = hex(&signer.key_id());
        if id != read.key_id {
            return Err(unusable(format!("the key id `{}` is not the key's (`{id}`)", read.key_id)));
        }
        Ok(signer)
    }

    /// Reads the key from `path` (A-30): a regular file, not a link, readable by its holder only.
    pub fn read(path: &Path) -> Result<LogSigner, TlogError> {
        let make = format!("warden audit keygen --origin NAME --out {}", path.display());
        let text = read_secret_file(path, &make)?;
        LogSigner::parse(&text)
            .map_err(|e| unusable(format!("the log's key `{}`: {}", path.display(), e.reason())))
    }

    /// The key's text: the secret.
    pub fn to_text(&self) -> String {
        SignerKeyText {
            name: self.name.clone(),
            key_id: hex(&self.key_id()),
            signature_type: ED25519,
            secret: self.key.to_bytes().to_vec(),
        }
        .to_text()
    }

    /// The key's name: the log's origin.
    pub fn name(&self) -> &str {
        &self.name
    }

    fn key_id(&self) -> [u8; 4] {
        key_id(&self.name, ED25519, self.key.verifying_key().as_bytes())
    }

    /// The public half.
    pub fn verifier(&self) -> LogVerifier {
        LogVerifier { name: self.name.clone(), key: self.key.verifying_key() }
    }

    /// `text` signed: a note with this key's signature alone.
    pub fn sign(&self, text: &str) -> Note {
        let signature = self.key.sign(text.as_bytes());
        Note {
            text: text.to_owned(),
            signatures: vec![NoteSignature {
                name: self.name.clone(),
                key_id: self.key_id(),
                signature: signature.to_bytes().to_vec(),
            }],
        }
    }

    /// The checkpoint `head` as a signed note (its origin is this key's name).
    pub fn sign_checkpoint(&self, head: &TreeHead) -> Result<Note, TlogError> {
        if head.origin != self.name {
            return Err(unusable(format!("the key is `{}`'s, not `{}`'s", self.name, head.origin)));
        }
        Ok(self.sign(&head.to_text()))
    }
}

/// The log's public key: what an auditor checks checkpoints with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogVerifier {
    name: String,
    key: VerifyingKey,
}

impl LogVerifier {
    /// Reads a verifier key (`NAME+ID+BASE64(0x01 ‖ public key)`).
    pub fn parse(text: &str) -> Result<LogVerifier, TlogError> {
        let bad = |why: String| TlogError::CheckpointInvalid(format!("the verifier key: {why}"));
        let (name, kind, public) =
            parse_verifier_key(text.trim_end_matches('\n')).map_err(|e| bad(e.to_string()))?;
        if kind != ED25519 {
            return Err(bad(format!("type {kind:#04x}, not Ed25519 (0x01)")));
        }
        let bytes: [u8; 32] = public.as_slice().try_into().map_err(|_| bad("not 32 bytes".to_owned()))?;
        let key = VerifyingKey::from_bytes(&bytes).map_err(|e| bad(format!("not an Ed25519 key: {e}")))?;
        Ok(LogVerifier { name, key })
    }

    /// The key's text.
    pub fn to_text(&self) -> String {
        verifier_key(&self.name, ED25519, self.key.as_bytes())
    }

    /// The key's name: the log's origin.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Checks `note`'s signatures by this key (A-32): at least one, and all of them verify.
    pub fn verify(&self, note: &Note) -> Result<(), TlogError> {
        let id = key_id(&self.name, ED25519, self.key.as_bytes());
        let mut verified = false;
        for signature in note.signatures_by(&self.name, id) {
            let ok = Signature::from_slice(&signature.signature)
                .is_ok_and(|s| self.key.verify(note.text.as_bytes(), &s).is_ok());
            if !ok {
                return Err(TlogError::SignatureInvalid(format!(
                    "the signature by `{}` does not verify: the note was changed, or signed by another key of that \
                     name",
                    self.name
                )));
            }
            verified = true;
        }
        if verified {
            Ok(())
        } else {
            Err(TlogError::SignatureInvalid(format!("no signature by `{}` ({})", self.name, hex(&id))))
        }
    }

    /// Reads a signed checkpoint and checks it was signed by this key for this log (A-26, A-32).
    pub fn open_checkpoint(&self, text: &str) -> Result<(Note, TreeHead), TlogError> {
        let note = parse_note(text).map_err(|e| TlogError::CheckpointInvalid(e.to_string()))?;
        let head = TreeHead::parse(&note.text).map_err(|e| TlogError::CheckpointInvalid(e.to_string()))?;
        self.verify(&note)?;
        if head.origin != self.name {
            return Err(TlogError::SignatureInvalid(format!(
                "the checkpoint is of log `{}`, the key of `{}`",
                head.origin, self.name
            )));
        }
        Ok((note, head))
    }
}

/// The text of the key file `path` (A-30): a regular file, not a link, at most
/// [`MAX_KEY_BYTES`], readable and writable by its owner alone.
/// A missing key is refused with `make`, the command that makes one (N-11).
pub(super) fn read_secret_file(path: &Path, make: &str) -> Result<String, TlogError> {
    let shown = path.display();
    let (bytes, mode) =
        agentwarden_adapters::untrusted::read_bytes_mode(None, path, MAX_KEY_BYTES).map_err(|e| match e {
            agentwarden_adapters::untrusted::UntrustedError::Missing { .. } => {
                unusable(format!("the key `{shown}` does not exist: make one with `{make}`"))
            }
            e => unusable(format!("cannot read the key `{shown}`: {}", e.reason())),
        })?;
    if mode & 0o077 != 0 {
        return Err(unusable(format!(
            "the key `{shown}` is open to group or others (mode {:o}): `chmod 600` it, and make a new key if \
             anyone else could have read it",
            mode & 0o777
        )));
    }
    String::from_utf8(bytes).map_err(|_| unusable(format!("the key `{shown}` is not text")))
}

/// The default place of the log's key (A-30): `$XDG_CONFIG_HOME/agentwarden/log.key`, else
/// `~/.config/agentwarden/log.key`; `var` reads the process's environment.
pub fn default_key_path(var: impl Fn(&str) -> Option<OsString>) -> Result<PathBuf, TlogError> {
    let config = var("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| var("HOME").map(|home| PathBuf::from(home).join(".config")))
        .ok_or_else(|| unusable("no --key, and neither XDG_CONFIG_HOME nor HOME is set"))?;
    Ok(config.join("agentwarden").join("log.key"))
}

/// Writes a secret key's `text` to the new file `path` (never over one that exists), mode 600,
/// its missing directories made mode 700 (A-30): the log's key and a witness's.
pub fn write_new_key(path: &Path, text: &str) -> Result<(), TlogError> {
    use std::io::Write;
    let shown = path.display();
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        agentwarden_adapters::untrusted::create_dirs(parent, 0o700)
            .map_err(|e| unusable(format!("cannot make `{}`: {e}", parent.display())))?;
    }
    // By descriptor, never through a planted link or FIFO (`O_EXCL`, `O_NOFOLLOW`) (U-1, U-3).
    let mut file =
        agentwarden_adapters::untrusted::open_for_write(path, 0o600, true).map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => {
                unusable(format!("`{shown}` exists: a key is never overwritten"))
            }
            _ => unusable(format!("cannot create `{shown}`: {e}")),
        })?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.sync_all())
        .map_err(|e| unusable(format!("cannot write `{shown}`: {e}")))
}

/// Lowercase hex.
pub(super) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use agentwarden_domain::audit::merkle::MerkleHash;

    use super::*;

    const GO_SKEY: &str = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz";
    const GO_VKEY: &str = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW";
    const GO_TEXT: &str = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
    const GO_NOTE_SIGNATURE: &str = "— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n";

    /// The log key's default place (A-30): under an absolute `XDG_CONFIG_HOME`, else under
    /// `~/.config`; neither set is a refusal that says to give --key.
    #[test]
    fn the_default_key_is_under_the_config_home_else_the_home() {
        let env = |xdg: Option<&'static str>, home: Option<&'static str>| {
            move |name: &str| match name {
                "XDG_CONFIG_HOME" => xdg.map(OsString::from),
                "HOME" => home.map(OsString::from),
                _ => None,
            }
        };
        for (xdg, home, expected, why) in [
            (Some("/x"), Some("/h"), "/x/agentwarden/log.key", "XDG_CONFIG_HOME first"),
            (
                Some("rel"),
                Some("/h"),
                "/h/.config/agentwarden/log.key",
                "a relative XDG_CONFIG_HOME is ignored",
            ),
            (None, Some("/h"), "/h/.config/agentwarden/log.key", "HOME's .config"),
        ] {
            assert_eq!(default_key_path(env(xdg, home)).unwrap(), PathBuf::from(expected), "{why}");
        }
        let refused = default_key_path(env(None, None)).unwrap_err();
        assert!(
            matches!(refused, TlogError::KeyUnusable(ref why) if why.contains("no --key")),
            "{refused:?}"
        );
    }

    /// A new key is written mode 600 in directories made 700, and never over one that exists.
    #[test]
    fn a_new_key_is_private_and_never_overwritten() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("made/agentwarden/log.key");
        write_new_key(&path, "secret").unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!((mode(&path), mode(path.parent().unwrap())), (0o600, 0o700));
        let again = write_new_key(&path, "other").unwrap_err();
        assert!(
            matches!(again, TlogError::KeyUnusable(ref why) if why.contains("never overwritten")),
            "{again:?}"
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "secret");
    }

    /// The example of Go's `golang.org/x/mod/sumdb/note` (the signed-note reference): its signer
    /// key reads, its public half is its verifier key, and signing its text gives its note byte
    /// for byte (Ed25519 is deterministic); the note verifies with the verifier key.
    #[test]
    fn signing_matches_the_reference_implementation() {
        let signer = LogSigner::parse(GO_SKEY).unwrap();
        assert_eq!(signer.to_text(), format!("{GO_SKEY}\n"));
        assert_eq!(signer.verifier().to_text(), GO_VKEY);
        let note = signer.sign(GO_TEXT);
        assert_eq!(note.to_text(), format!("{GO_TEXT}\n{GO_NOTE_SIGNATURE}"));
        let verifier = LogVerifier::parse(GO_VKEY).unwrap();
        let read = parse_note(&note.to_text()).unwrap();
        verifier.verify(&read).unwrap();
    }

    /// The C2SP signed-note specification's example verifier key and note verify.
    #[test]
    fn the_specifications_example_verifies() {
        let verifier =
            LogVerifier::parse("example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k")
                .unwrap();
        let note = parse_note(
            "This is an example message.\n\n— example.com/foo \
             Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n",
        )
        .unwrap();
        verifier.verify(&note).unwrap();
    }

    fn head(origin: &str) -> TreeHead {
        TreeHead { origin: origin.into(), size: 3, root: MerkleHash::leaf(b"r") }
    }

    /// Table (A-32): what a verifier refuses.
    #[test]
    fn a_checkpoint_not_signed_by_the_key_is_refused() {
        let signer = LogSigner::from_seed("log.example/a", [7; 32]).unwrap();
        let verifier = signer.verifier();
        let good = signer.sign_checkpoint(&head("log.example/a")).unwrap().to_text();
        assert!(verifier.open_checkpoint(&good).is_ok());

        let other = LogSigner::from_seed("log.example/a", [8; 32]).unwrap();
        let by_other = other.sign_checkpoint(&head("log.example/a")).unwrap().to_text();
        let mut changed = good.replacen("\n3\n", "\n4\n", 1);
        let forged_name = LogSigner::from_seed("log.example/b", [7; 32]).unwrap();
        let other_log = forged_name.sign(&head("log.example/a").to_text()).to_text();
        let mut foreign_origin = signer.sign(&head("log.example/b").to_text());
        foreign_origin.signatures[0].name = "log.example/a".into();
        let rows = [
            (by_other, "signed by another key of the same name"),
            (std::mem::take(&mut changed), "a changed size"),
            (other_log, "signed by the same secret under another name"),
            (foreign_origin.to_text(), "the checkpoint of another log"),
        ];
        for (text, why) in rows {
            let refused = verifier.open_checkpoint(&text);
            assert!(matches!(refused, Err(TlogError::SignatureInvalid(_))), "{why}: {refused:?}");
        }
        // A second, bad signature by the key spoils a good one.
        let mut two = parse_note(&good).unwrap();
        let mut bad = two.signatures[0].clone();
        bad.signature[0] ^= 1;
        two.signatures.push(bad);
        assert!(verifier.open_checkpoint(&two.to_text()).is_err());
        // Signatures by unknown keys are ignored.
        let mut cosigned = parse_note(&good).unwrap();
        cosigned.signatures.push(other.sign("x\n").signatures[0].clone());
        cosigned.signatures[1].name = "witness.example".into();
        assert!(verifier.open_checkpoint(&cosigned.to_text()).is_ok());
        assert!(matches!(verifier.open_checkpoint("garbage"), Err(TlogError::CheckpointInvalid(_))));
        assert!(signer.sign_checkpoint(&head("log.example/b")).is_err(), "a key signs its own log's only");
    }

    /// Table (A-30): the key file's rules.
    #[test]
    fn a_key_file_open_to_others_or_not_a_key_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keys").join("log.key");
        let signer = LogSigner::generate("log.example/a").unwrap();
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, signer.to_text()).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert_eq!(LogSigner::read(&path).unwrap().verifier(), signer.verifier());

        let refuse = |path: &Path, want: &str, why: &str| {
            let refused = LogSigner::read(path).unwrap_err();
            assert_eq!(refused.code().as_str(), "log_key_unusable", "{why}");
            assert!(refused.reason().contains(want), "{why}: {}", refused.reason());
        };
        refuse(
            &dir.path().join("missing.key"),
            "does not exist: make one with `warden audit keygen",
            "missing",
        );
        for mode in [0o640, 0o604, 0o620] {
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
            refuse(&path, "open to group or others", "group or other bits");
        }
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        let link = dir.path().join("link.key");
        std::os::unix::fs::symlink(&path, &link).unwrap();
        refuse(&link, "cannot read", "a link");
        let write = |name: &str, text: &str| {
            let p = dir.path().join(name);
            std::fs::write(&p, text).unwrap();
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o600)).unwrap();
            p
        };
        refuse(&write("public.key", GO_VKEY), "PRIVATE+KEY", "a verifier key");
        let wrong_id = GO_SKEY.replace("c74f20a3", "c74f20a4");
        refuse(&write("id.key", &wrong_id), "is not the key's", "a wrong id");
        let ecdsa = SignerKeyText {
            name: "n".into(),
            key_id: "00000000".into(),
            signature_type: 2,
            secret: vec![1; 32],
        };
        refuse(&write("ecdsa.key", &ecdsa.to_text()), "not Ed25519", "another kind of key");
        refuse(&write("big.key", &"x".repeat(5000)), "cannot read", "too large");
    }
}
