//! Signed human records (issue 21): the `allowed_signers` file, signing a record with an SSH
//! key, and verifying a record's signature — in process, with RustCrypto's `ssh-key` (SSHSIG,
//! the format of `ssh-keygen -Y sign`).
//!
//! K-4: `allowed_signers` is read strictly, in the OpenSSH format `ssh-keygen -Y verify` reads
//! (`ssh-key` 0.6 has no reader for it): one entry a line, `PRINCIPALS [OPTIONS] KEYTYPE BASE64
//! [COMMENT]`; blank lines and `#` comments skipped. Principals are a comma-separated list of
//! literal names (a wildcard `*` or `?` is refused: a pattern that matches more than its author
//! meant would let another name sign). The one option understood is `namespaces="a,b"` (the
//! entry signs only for those namespaces); `cert-authority`, `valid-after`, `valid-before` and
//! any other option make the whole file unusable (`signers_unavailable`), never ignored. A line
//! that does not parse makes the whole file unusable too: a key list half read is not the list
//! the human wrote.

use std::collections::HashMap;
use std::sync::Mutex;

use agentwarden_domain::audit::Head;
use agentwarden_domain::governance::{RecordSignature, SIGNATURE_NAMESPACE, SignatureCode, SignatureRefusal};
use ssh_key::{HashAlg, LineEnding, PrivateKey, PublicKey, SshSig};

/// One entry of `allowed_signers`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AllowedSigner {
    /// The principals it may sign as.
    pub principals: Vec<String>,
    /// `namespaces="…"`, if given: it signs only for these.
    pub namespaces: Option<Vec<String>>,
    /// Its public key.
    pub key: PublicKey,
}

/// The parsed `allowed_signers` file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AllowedSigners {
    /// The entries, in file order.
    pub entries: Vec<AllowedSigner>,
}

fn refusal(code: SignatureCode, reason: impl Into<String>) -> SignatureRefusal {
    SignatureRefusal { code, reason: reason.into() }
}

/// A key type's name, as the key field of a line starts (else the field holds options).
fn is_key_type(field: &str) -> bool {
    ["ssh-", "ecdsa-", "sk-"].iter().any(|prefix| field.starts_with(prefix))
}

/// Splits the options field: commas outside double quotes separate options.
fn split_options(field: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut quoted = false;
    let mut start = 0;
    for (i, c) in field.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => {
                parts.push(field.get(start..i).unwrap_or(""));
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(field.get(start..).unwrap_or(""));
    parts
}

/// Why an `allowed_signers` file is refused (K-4): the line, and what is wrong with it.
#[derive(Debug, thiserror::Error)]
#[error("line {line}: {cause}")]
pub struct AllowedSignersError {
    /// The line, from 1.
    pub line: usize,
    /// What is wrong with it.
    pub cause: SignersLineError,
}

/// What is wrong with a line of an `allowed_signers` file (K-4), by cause.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SignersLineError {
    /// A double quote opened and never closed.
    #[error("an unterminated quote")]
    UnterminatedQuote,
    /// A principal that is empty or a pattern (`*`, `?`, `"`): only literal ones are read.
    #[error("`{0}` is not a literal principal")]
    Principal(String),
    /// A `namespaces=` option whose value is not one quoted list.
    #[error("option `{0}` is not `namespaces=\"a,b\"`")]
    Namespaces(String),
    /// An option other than `namespaces=`.
    #[error("option `{0}` is not supported (only `namespaces=`)")]
    Unsupported(String),
    /// The key fields are not an OpenSSH public key.
    #[error("not an OpenSSH public key: {0}")]
    Key(ssh_key::Error),
}

/// Why a record cannot be signed with a private key.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SigningError {
    /// The key is protected by a passphrase, which Warden never asks for.
    #[error("the key is protected by a passphrase; give its public key (`.pub`) to sign through ssh-agent")]
    Encrypted,
    /// The signature could not be made.
    #[error("{0}")]
    Sign(ssh_key::Error),
    /// The signature could not be armored.
    #[error("{0}")]
    Armor(ssh_key::Error),
}

/// Splits a line into fields at whitespace outside double quotes.
fn fields(line: &str) -> Result<Vec<&str>, SignersLineError> {
    let mut out = Vec::new();
    let mut quoted = false;
    let mut start: Option<usize> = None;
    for (i, c) in line.char_indices() {
        if c == '"' {
            quoted = !quoted;
        }
        if c.is_ascii_whitespace() && !quoted {
            if let Some(s) = start.take() {
                out.push(line.get(s..i).unwrap_or(""));
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if quoted {
        return Err(SignersLineError::UnterminatedQuote);
    }
    if let Some(s) = start {
        out.push(line.get(s..).unwrap_or(""));
    }
    Ok(out)
}

impl AllowedSigners {
    /// Parses the file's text (K-4); the error names the line.
    pub fn parse(text: &str) -> Result<AllowedSigners, AllowedSignersError> {
        let mut entries = Vec::new();
        for (number, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let at = |cause: SignersLineError| AllowedSignersError { line: number + 1, cause };
            let parts = fields(line).map_err(at)?;
            let principals_field = parts.first().copied().unwrap_or("");
            let mut principals = Vec::new();
            for principal in principals_field.split(',') {
                if principal.is_empty() || principal.contains(['*', '?', '"']) {
                    return Err(at(SignersLineError::Principal(principal.to_owned())));
                }
                principals.push(principal.to_owned());
            }
            // The key starts at the field after the principals, or after the options.
            let rest = parts.get(1..).unwrap_or(&[]);
            let (options, key_fields) = match rest.first() {
                Some(first) if !is_key_type(first) => (Some(*first), rest.get(1..).unwrap_or(&[])),
                _ => (None, rest),
            };
            let mut namespaces = None;
            if let Some(options) = options {
                for option in split_options(options) {
                    let lower = option.to_ascii_lowercase();
                    match lower.strip_prefix("namespaces=") {
                        Some(_) => {
                            let value = option.get("namespaces=".len()..).unwrap_or("");
                            let inner = value
                                .strip_prefix('"')
                                .and_then(|v| v.strip_suffix('"'))
                                .ok_or_else(|| at(SignersLineError::Namespaces(option.to_owned())))?;
                            namespaces = Some(inner.split(',').map(str::to_owned).collect());
                        }
                        None => {
                            return Err(at(SignersLineError::Unsupported(option.to_owned())));
                        }
                    }
                }
            }
            let key =
                PublicKey::from_openssh(&key_fields.join(" ")).map_err(|e| at(SignersLineError::Key(e)))?;
            entries.push(AllowedSigner { principals, namespaces, key });
        }
        Ok(AllowedSigners { entries })
    }

    /// The entry that lets `key` sign as `principal` in Warden's namespace.
    fn allows(&self, principal: &str, key: &ssh_key::public::KeyData) -> bool {
        self.entries.iter().any(|entry| {
            entry.key.key_data() == key
                && entry.principals.iter().any(|p| p == principal)
                && entry.namespaces.as_ref().is_none_or(|ns| ns.iter().any(|n| n == SIGNATURE_NAMESPACE))
        })
    }

    /// The first principal an entry lists for `key` (who signs with it by default).
    pub fn principal_of(&self, key: &PublicKey) -> Option<&str> {
        self.entries
            .iter()
            .filter(|e| e.key.key_data() == key.key_data())
            .filter(|e| e.namespaces.as_ref().is_none_or(|ns| ns.iter().any(|n| n == SIGNATURE_NAMESPACE)))
            .find_map(|e| e.principals.first().map(String::as_str))
    }
}

/// Does `signature` make the record at `seq` (after `after`) what it says?
/// `bytes` gives what the record's signature must cover for a principal and head (K-1, K-2, K-3).
pub fn verify_record(
    signers: &AllowedSigners,
    seq: u64,
    after: Option<Head>,
    signature: Option<&RecordSignature>,
    bytes: impl FnOnce(&str, u64, &str) -> Vec<u8>,
) -> Result<(), SignatureRefusal> {
    let signature = signature.ok_or_else(|| {
        refusal(SignatureCode::Missing, "it carries no signature and `allowed_signers` is configured")
    })?;
    let expected = after.filter(|a| a.seq.saturating_add(1) == seq);
    let head_matches =
        expected.is_some_and(|a| a.seq == signature.head_seq && a.hash.to_string() == signature.head_hash);
    if !head_matches {
        return Err(refusal(
            SignatureCode::WrongHead,
            format!(
                "it was signed against head {} of the log, not the record before it (seq {}): replayed or copied",
                signature.head_seq,
                seq.saturating_sub(1)
            ),
        ));
    }
    let sshsig = SshSig::from_pem(&signature.sshsig)
        .map_err(|e| refusal(SignatureCode::Malformed, format!("not an SSH signature: {e}")))?;
    if sshsig.namespace() != SIGNATURE_NAMESPACE {
        return Err(refusal(
            SignatureCode::WrongNamespace,
            format!("signed for namespace `{}`, not `{SIGNATURE_NAMESPACE}`", sshsig.namespace()),
        ));
    }
    if !signers.allows(&signature.principal, sshsig.public_key()) {
        return Err(refusal(
            SignatureCode::SignerNotAllowed,
            format!(
                "its key ({}) is not listed in `allowed_signers` for `{}`",
                PublicKey::from(sshsig.public_key().clone()).fingerprint(HashAlg::Sha256),
                signature.principal
            ),
        ));
    }
    let message = bytes(&signature.principal, signature.head_seq, &signature.head_hash);
    PublicKey::from(sshsig.public_key().clone()).verify(SIGNATURE_NAMESPACE, &message, &sshsig).map_err(|e| {
        refusal(SignatureCode::Invalid, format!("the signature does not verify over the record: {e}"))
    })
}

/// Verification results by the digest of everything verified (K-5: a record is verified once
/// per process; the answer is the same for the same bytes, signature and key list).
#[derive(Debug, Default)]
pub(crate) struct VerifiedCache {
    results: Mutex<HashMap<[u8; 32], Result<(), SignatureRefusal>>>,
}

impl VerifiedCache {
    pub(crate) fn get_or(
        &self,
        key: [u8; 32],
        verify: impl FnOnce() -> Result<(), SignatureRefusal>,
    ) -> Result<(), SignatureRefusal> {
        if let Some(found) = self.results.lock().ok().and_then(|m| m.get(&key).cloned()) {
            return found;
        }
        let result = verify();
        if let Ok(mut map) = self.results.lock() {
            map.insert(key, result.clone());
        }
        result
    }
}

/// Signs `message` with the unencrypted private key `key` (OpenSSH format), in Warden's
/// namespace: the armored SSHSIG.
pub fn sign_with_private_key(key: &PrivateKey, message: &[u8]) -> Result<String, SigningError> {
    if key.is_encrypted() {
        return Err(SigningError::Encrypted);
    }
    let sig = key.sign(SIGNATURE_NAMESPACE, HashAlg::Sha512, message).map_err(SigningError::Sign)?;
    sig.to_pem(LineEnding::LF).map_err(SigningError::Armor)
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAICBTpl5EwMQaftglvSQwtBQC9LrXWCh2cYt78/9jhzuH";

    #[test]
    fn allowed_signers_lines_parse_strictly() {
        let ok = [
            (format!("alice {KEY}"), vec!["alice"], None),
            (format!("alice,bob {KEY} a comment"), vec!["alice", "bob"], None),
            (
                format!("alice namespaces=\"git,agentwarden\" {KEY}"),
                vec!["alice"],
                Some(vec!["git", "agentwarden"]),
            ),
            (format!("# a comment\n\n  alice {KEY}"), vec!["alice"], None),
        ];
        for (text, principals, namespaces) in ok {
            let parsed = AllowedSigners::parse(&text).unwrap();
            let [entry] = parsed.entries.as_slice() else { panic!("{text}: {parsed:?}") };
            assert_eq!(entry.principals, principals, "{text}");
            assert_eq!(
                entry.namespaces,
                namespaces.map(|n| n.into_iter().map(str::to_owned).collect::<Vec<_>>()),
                "{text}"
            );
        }
        let bad = [
            (format!("*@example.com {KEY}"), "a wildcard principal"),
            (format!("a?ice {KEY}"), "a wildcard principal"),
            (format!("alice cert-authority {KEY}"), "cert-authority is not supported"),
            (format!("alice valid-before=\"20300101\" {KEY}"), "validity is not supported"),
            (format!("alice namespaces=git {KEY}"), "an unquoted namespaces"),
            ("alice ssh-ed25519 AAAAnotbase64".to_owned(), "a key that does not parse"),
            ("alice".to_owned(), "no key"),
            (format!("alice namespaces=\"git {KEY}"), "an unterminated quote"),
            (format!(",alice {KEY}"), "an empty principal"),
            (format!("alice {KEY}\nbob junk"), "one bad line spoils the file"),
        ];
        for (text, why) in bad {
            assert!(AllowedSigners::parse(&text).is_err(), "{why}: {text}");
        }
    }
}
