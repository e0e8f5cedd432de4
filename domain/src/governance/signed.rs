//! Signed human records (issue 21): what a seal's or an approval's SSH signature covers, and
//! the codes of a record that is not one.
//!
//! K-1: with `[approvals] allowed_signers` configured, a `context_sealed` or `approval_granted`
//! record counts only when it carries an SSHSIG (namespace [`SIGNATURE_NAMESPACE`]) made by a key
//! that file lists for the record's principal, over [`signed_bytes`]: the verb, what it
//! records (the seal's digests; the approval's reference, scope and expiry), the principal, and
//! the head of the log it was made against. K-2: that head must be the record's own
//! predecessor (seq − 1 and its hash), so a signature cannot be replayed at another place in
//! the log, nor copied onto another record (its bytes would differ). The domain only builds the
//! bytes and carries the verdict: the application verifies (it holds the key list), and marks
//! each record it refuses with a [`SignatureRefusal`], which the gate reports with its code.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::scope::Scope;
use crate::audit::Timestamp;

/// The SSHSIG namespace of every Warden signature (`ssh-keygen -Y sign -n agentwarden`).
pub const SIGNATURE_NAMESPACE: &str = "agentwarden";

/// The signature a human record carries.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordSignature {
    /// The signer's principal, as `allowed_signers` names it.
    pub principal: String,
    /// The sequence number of the log's head the record was signed against.
    pub head_seq: u64,
    /// That head's hash (hex).
    pub head_hash: String,
    /// The armored SSHSIG (`-----BEGIN SSH SIGNATURE-----`).
    pub sshsig: String,
}

/// What a signed record says.
#[derive(Clone, Copy, Debug)]
pub enum SignedContent<'a> {
    /// `warden seal`: the digest of every sealed file.
    Seal {
        /// By path relative to the workspace root.
        files: &'a BTreeMap<String, String>,
    },
    /// `warden approve`.
    Approval {
        /// The reference.
        approval_ref: &'a str,
        /// Whom it covers.
        scope: &'a Scope,
        /// When it expires.
        expires_at: Option<Timestamp>,
    },
    /// `warden revoke`: one approval, or (`None`) every approval and the seal.
    Revoke {
        /// The reference.
        approval_ref: Option<&'a str>,
    },
    /// `warden release`: a session's quarantine lifted.
    Release {
        /// The session.
        session: &'a str,
    },
}

#[derive(Serialize)]
struct Canonical<'a> {
    format: &'static str,
    verb: &'static str,
    approval_ref: Option<&'a str>,
    scope: Option<&'a Scope>,
    expires_at: Option<Timestamp>,
    files: Option<&'a BTreeMap<String, String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    session: Option<&'a str>,
    principal: &'a str,
    head_seq: u64,
    head_hash: &'a str,
}

/// The exact bytes a record's signature is made over: one line of JSON with its fields in a
/// fixed order (`format` `agentwarden-signed/1`, `verb`, `approval_ref`, `scope`,
/// `expires_at`, `files`, `principal`, `head_seq`, `head_hash`; absent ones `null`).
pub fn signed_bytes(content: SignedContent<'_>, principal: &str, head_seq: u64, head_hash: &str) -> Vec<u8> {
    let (verb, approval_ref, scope, expires_at, files, session) = match content {
        SignedContent::Seal { files } => ("seal", None, None, None, Some(files), None),
        SignedContent::Approval { approval_ref, scope, expires_at } => {
            ("approve", Some(approval_ref), Some(scope), expires_at, None, None)
        }
        SignedContent::Revoke { approval_ref } => ("revoke", approval_ref, None, None, None, None),
        SignedContent::Release { session } => ("release", None, None, None, None, Some(session)),
    };
    let canonical = Canonical {
        format: "agentwarden-signed/1",
        verb,
        approval_ref,
        scope,
        expires_at,
        files,
        session,
        principal,
        head_seq,
        head_hash,
    };
    // A struct of strings, integers, maps with string keys and a timestamp cannot fail to
    // serialise; should it, the bytes are empty, which no signature covers (it fails closed).
    serde_json::to_vec(&canonical).unwrap_or_default()
}

/// Why a record's signature does not make it a seal or an approval (K-3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SignatureCode {
    /// Signatures are required and the record carries none.
    #[serde(rename = "signature_missing")]
    Missing,
    /// The signature is not an armored SSHSIG Warden can read.
    #[serde(rename = "signature_malformed")]
    Malformed,
    /// It was made for another namespace than [`SIGNATURE_NAMESPACE`].
    #[serde(rename = "signature_wrong_namespace")]
    WrongNamespace,
    /// It names another head of the log than the record's predecessor: replayed or copied.
    #[serde(rename = "signature_wrong_head")]
    WrongHead,
    /// Its key is not listed in `allowed_signers` for its principal (and namespace).
    #[serde(rename = "signer_not_allowed")]
    SignerNotAllowed,
    /// It does not verify over the record's bytes: forged, or made for other content.
    #[serde(rename = "signature_invalid")]
    Invalid,
    /// `allowed_signers` cannot be read or parsed: no signature can be checked.
    #[serde(rename = "signers_unavailable")]
    SignersUnavailable,
    /// A seal that changes the pinned key list is not signed by a key of that list (K-14).
    #[serde(rename = "key_rotation_refused")]
    KeyRotationRefused,
}

impl From<SignatureCode> for crate::code::Code {
    fn from(code: SignatureCode) -> Self {
        use crate::code::Code;
        match code {
            SignatureCode::Missing => Code::SignatureMissing,
            SignatureCode::Malformed => Code::SignatureMalformed,
            SignatureCode::WrongNamespace => Code::SignatureWrongNamespace,
            SignatureCode::WrongHead => Code::SignatureWrongHead,
            SignatureCode::SignerNotAllowed => Code::SignerNotAllowed,
            SignatureCode::Invalid => Code::SignatureInvalid,
            SignatureCode::SignersUnavailable => Code::SignersUnavailable,
            SignatureCode::KeyRotationRefused => Code::KeyRotationRefused,
        }
    }
}

impl SignatureCode {
    /// The stable code (X-1).
    pub const fn as_str(self) -> &'static str {
        match self {
            SignatureCode::Missing => "signature_missing",
            SignatureCode::Malformed => "signature_malformed",
            SignatureCode::WrongNamespace => "signature_wrong_namespace",
            SignatureCode::WrongHead => "signature_wrong_head",
            SignatureCode::SignerNotAllowed => "signer_not_allowed",
            SignatureCode::Invalid => "signature_invalid",
            SignatureCode::SignersUnavailable => "signers_unavailable",
            SignatureCode::KeyRotationRefused => "key_rotation_refused",
        }
    }
}

/// Why a record is not a seal or an approval (K-3): a stable code and what was seen.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SignatureRefusal {
    /// The code.
    pub code: SignatureCode,
    /// What was seen and what was expected.
    pub reason: String,
}

impl std::fmt::Display for SignatureRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.reason)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signed_bytes_are_fixed_and_cover_every_field() {
        let scope = Scope { personas: vec!["main".into()], subagents: vec![] };
        let approval = SignedContent::Approval { approval_ref: "R-1", scope: &scope, expires_at: None };
        let bytes = signed_bytes(approval, "alice", 4, "ab");
        assert_eq!(
            String::from_utf8(bytes.clone()).unwrap(),
            r#"{"format":"agentwarden-signed/1","verb":"approve","approval_ref":"R-1","scope":{"personas":["main"],"subagents":[]},"expires_at":null,"files":null,"principal":"alice","head_seq":4,"head_hash":"ab"}"#
        );
        // Each field changes the bytes.
        let other = Scope::default();
        let variants = [
            signed_bytes(
                SignedContent::Approval { approval_ref: "R-2", scope: &scope, expires_at: None },
                "alice",
                4,
                "ab",
            ),
            signed_bytes(
                SignedContent::Approval { approval_ref: "R-1", scope: &other, expires_at: None },
                "alice",
                4,
                "ab",
            ),
            signed_bytes(
                SignedContent::Approval {
                    approval_ref: "R-1",
                    scope: &scope,
                    expires_at: Some(Timestamp::saturating_from_unix_millis(1)),
                },
                "alice",
                4,
                "ab",
            ),
            signed_bytes(approval, "bob", 4, "ab"),
            signed_bytes(approval, "alice", 5, "ab"),
            signed_bytes(approval, "alice", 4, "cd"),
            signed_bytes(SignedContent::Seal { files: &BTreeMap::new() }, "alice", 4, "ab"),
            signed_bytes(SignedContent::Revoke { approval_ref: Some("R-1") }, "alice", 4, "ab"),
            signed_bytes(SignedContent::Release { session: "R-1" }, "alice", 4, "ab"),
        ];
        assert_ne!(
            signed_bytes(SignedContent::Revoke { approval_ref: None }, "alice", 4, "ab"),
            signed_bytes(SignedContent::Revoke { approval_ref: Some("R-1") }, "alice", 4, "ab"),
        );
        for (i, variant) in variants.iter().enumerate() {
            assert_ne!(variant, &bytes, "variant {i}");
        }
    }
}
