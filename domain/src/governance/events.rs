//! The events of the human records: the seal of the context, the approvals and their
//! revocation (`warden seal`, `approve`, `revoke`), which the gate's metadata is built from.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::scope::Scope;
use super::signed::RecordSignature;
use crate::audit::Timestamp;

/// `context_sealed`, version 1: a human declared the context final (`warden seal`), and this is
/// what was sealed: the digest of every file the decisions depend on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContextSealed {
    /// Who sealed it, when given.
    pub by: Option<String>,
    /// BLAKE3 (hex) of each file, by path relative to the workspace root.
    pub files: BTreeMap<String, String>,
    /// The approver's SSH signature (K-1), absent when none was made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<RecordSignature>,
    /// The text of `allowed_signers` as sealed (its digest is among `files`), kept so that
    /// a later change of the list can be verified against this one (K-14).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_list: Option<String>,
    /// The text of each sealed file a decision takes its rules from — the configuration — by
    /// the key of its digest in `files`, which content-addresses it: a decision made while a
    /// seal is in force is made with these rules, however the file reads now (H-49). Absent
    /// from a seal made by an earlier version.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub texts: BTreeMap<String, String>,
}

/// `approval_granted`, version 1: a human approved the pipeline run (`warden approve`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApprovalGranted {
    /// The approval's reference (a valid `approvalRef`).
    pub approval_ref: String,
    /// Who approved, when given.
    pub approved_by: Option<String>,
    /// When it stops being valid, if ever.
    pub expires_at: Option<Timestamp>,
    /// Whom it covers (empty lists: anyone).
    pub scope: Scope,
    /// The approver's SSH signature (K-1), absent when none was made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<RecordSignature>,
}

/// `approval_revoked`, version 1: a human withdrew an approval (`warden revoke --ref REF`), or
/// every approval and the seal (`warden revoke`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApprovalRevoked {
    /// The approval revoked; `None`: all of them, and the seal.
    pub approval_ref: Option<String>,
    /// Who revoked, when given.
    pub by: Option<String>,
    /// The human's SSH signature (K-1), absent when none was made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<RecordSignature>,
}
