//! The human gates as records (issue 11): what a seal sealed, and which approvals were granted,
//! revoked, or have expired — a projection of the log — and the checks the gate makes with them.
//!
//! The spec's gate trusts two booleans and a string in the caller's metadata. With records, the
//! `context_sealed` gate also requires that every file read for the decision still has the
//! digest it had when it was sealed (G-20), and, when recorded approval is required, that a seal
//! is in force at all; the `approval_ref` gate requires that `approvalRef` names a granted,
//! unrevoked, unexpired approval whose scope covers the request (G-21). Without records
//! ([`super::GateInputs::recorded`] is `None`) the gate is exactly the spec's.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::events::{ApprovalGranted, ApprovalRevoked, ContextSealed};
use super::report::{Code, Verdict};
use super::scope::Scope;
use super::signed::{RecordSignature, SignatureRefusal, SignedContent, signed_bytes};
use crate::audit::{Head, Timestamp};

/// A recorded event as the fold of the human records ([`Approvals::apply`]) reads it: one of the
/// three events it folds, borrowed, or another event, which changes nothing. The event
/// catalogue (`crate::events`, above this module) says which of its events is which, so that
/// governance never names the catalogue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ApprovalsEvent<'a> {
    /// `context_sealed`.
    Sealed(&'a ContextSealed),
    /// `approval_granted`.
    Granted(&'a ApprovalGranted),
    /// `approval_revoked`.
    Revoked(&'a ApprovalRevoked),
    /// Any other event.
    Other,
}

/// The seal in force: the digest of every file sealed, by path relative to the workspace root.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SealRecord {
    /// The `context_sealed` event.
    pub seq: u64,
    /// Who sealed.
    pub by: Option<String>,
    /// BLAKE3 (hex) by relative path.
    pub files: BTreeMap<String, String>,
    /// Its SSH signature, if it carries one (K-1).
    #[serde(default)]
    pub signature: Option<RecordSignature>,
    /// The log's head before it (what a signature must name, K-2).
    #[serde(default)]
    pub after: Option<Head>,
    /// Set by the application when signatures are required and this record's does not verify:
    /// it is then not a seal or an approval (K-3). Never trusted from a saved projection: the
    /// application sets it again before every decision.
    #[serde(default)]
    pub refused: Option<SignatureRefusal>,
    /// The sealed text of each file a decision takes its rules from (the configuration), by the
    /// key of its digest in `files` (H-49).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub texts: BTreeMap<String, String>,
}

/// What a seal holds of one file's text (H-49), [`SealRecord::sealed_text`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SealedText<'a> {
    /// The seal does not cover the file: it was not there when sealed.
    NotSealed,
    /// Its text as sealed, checked against the sealed digest.
    Text(&'a str),
    /// The seal covers the file's digest but not its text (a seal made by an earlier version).
    DigestOnly,
    /// The text the seal carries is not the one its digest names: not to be decided with.
    Mismatch,
}

/// One approval and what became of it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApprovalRecord {
    /// The `approval_granted` event.
    pub seq: u64,
    /// Its reference.
    pub approval_ref: String,
    /// Who approved.
    pub approved_by: Option<String>,
    /// When it stops being valid.
    pub expires_at: Option<Timestamp>,
    /// Whom it covers.
    pub scope: Scope,
    /// The `approval_revoked` event, if it was revoked.
    pub revoked: Option<u64>,
    /// Its SSH signature, if it carries one (K-1).
    #[serde(default)]
    pub signature: Option<RecordSignature>,
    /// The log's head before it (what a signature must name, K-2).
    #[serde(default)]
    pub after: Option<Head>,
    /// Set by the application when signatures are required and this record's does not verify:
    /// it is then not a seal or an approval (K-3). Never trusted from a saved projection: the
    /// application sets it again before every decision.
    #[serde(default)]
    pub refused: Option<SignatureRefusal>,
}

/// An approval's state at an instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalState {
    /// Granted, not revoked, not expired.
    Active,
    /// Revoked.
    Revoked,
    /// Past its expiry.
    Expired,
}

impl SealRecord {
    /// The sealed text of the file `key` names (H-49): only when its BLAKE3 is the digest the
    /// seal holds for it (the digest's first word; the permission bits follow it, U-15).
    pub fn sealed_text(&self, key: &str) -> SealedText<'_> {
        let Some(digest) = self.files.get(key) else { return SealedText::NotSealed };
        let Some(text) = self.texts.get(key) else { return SealedText::DigestOnly };
        let hex = digest.split(' ').next().unwrap_or_default();
        if blake3::hash(text.as_bytes()).to_hex().as_str() == hex {
            SealedText::Text(text)
        } else {
            SealedText::Mismatch
        }
    }

    /// What its signature covers, for `principal` and the head it names (K-1).
    pub fn signed_bytes(&self, principal: &str, head_seq: u64, head_hash: &str) -> Vec<u8> {
        signed_bytes(SignedContent::Seal { files: &self.files }, principal, head_seq, head_hash)
    }
}

impl ApprovalRecord {
    /// What its signature covers, for `principal` and the head it names (K-1).
    pub fn signed_bytes(&self, principal: &str, head_seq: u64, head_hash: &str) -> Vec<u8> {
        let content = SignedContent::Approval {
            approval_ref: &self.approval_ref,
            scope: &self.scope,
            expires_at: self.expires_at,
        };
        signed_bytes(content, principal, head_seq, head_hash)
    }

    /// The state at `now`: revoked wins over expired.
    pub fn state(&self, now: Timestamp) -> ApprovalState {
        match (self.revoked, self.expires_at) {
            (Some(_), _) => ApprovalState::Revoked,
            (None, Some(expiry)) if now >= expiry => ApprovalState::Expired,
            (None, _) => ApprovalState::Active,
        }
    }
}

/// The recorded human gates: a projection of `context_sealed`, `approval_granted` and
/// `approval_revoked` events.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Approvals {
    /// The seal in force.
    pub seal: Option<SealRecord>,
    /// The seal a `revoke` of everything withdrew, until the next seal: a revoke withdraws the
    /// permission a seal gave, never the rules it sealed, which still decide (H-51). Required
    /// when read back: a state saved without it (an earlier version) is rebuilt from the log.
    pub withdrawn: Option<SealRecord>,
    /// Every approval granted, by reference (a new grant of a reference replaces the old).
    pub approvals: BTreeMap<String, ApprovalRecord>,
    /// Every signed seal, in log order: the first pins the key list; the
    /// application walks the rest, and one that seals another list moves the pin only when
    /// signed by a key of the list pinned before it. None is left out, not even one that repeats
    /// the list of the one before (that one may be refused: a human's seal of the same list must
    /// still be weighed). Required when read back: a state saved without it (an earlier version) is
    /// rebuilt from the log rather than read as "nothing pinned" (K-10, K-14).
    pub key_lists: Vec<SignersPin>,
}

/// A signed seal that pins a key list, if the list before it lets it (K-10, K-14).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignersPin {
    /// The `context_sealed` event.
    pub seq: u64,
    /// Its sealed files' digests, by relative path.
    pub files: BTreeMap<String, String>,
    /// The text of the key list it sealed (K-14; absent from seals of earlier versions).
    pub key_list: Option<String>,
    /// Its signature.
    pub signature: Option<RecordSignature>,
    /// The log's head before it.
    pub after: Head,
}

impl Approvals {
    /// Whether the files in `read` are as the seal in force recorded them — a
    /// refused seal fails with its refusal's code, a file changed, missing or added since with
    /// `sealed_file_changed` naming each; `None` when no seal is recorded (G-20, T-11).
    pub fn seal_verdict(&self, read: &ReadDigests) -> Option<Verdict> {
        let seal = self.seal.as_ref()?;
        Some(match &seal.refused {
            Some(refused) => Verdict::fail(
                refused.code.into(),
                format!("the seal (seq {}) is not a seal: {}", seal.seq, refused.reason),
            ),
            None => {
                let changes = seal_changes(&seal.files, read);
                if changes.is_empty() {
                    Verdict::pass(format!("{} file(s) match the seal", read.len()))
                } else {
                    Verdict::fail(
                        Code::SealedFileChanged,
                        format!(
                            "the context changed since it was sealed (seq {}): {}",
                            seal.seq,
                            changes.join(", ")
                        ),
                    )
                }
            }
        })
    }

    /// Applies the event at `seq`, whose predecessor is `after`; other event types change
    /// nothing. `event` is a recorded event as this fold reads it: the catalogue's
    /// `&AuditEvent` converts (X-68: governance does not name the catalogue).
    pub fn apply<'a>(&mut self, after: Head, seq: u64, event: impl Into<ApprovalsEvent<'a>>) {
        match event.into() {
            ApprovalsEvent::Sealed(e) => {
                if e.signature.is_some() {
                    self.key_lists.push(SignersPin {
                        seq,
                        files: e.files.clone(),
                        key_list: e.key_list.clone(),
                        signature: e.signature.clone(),
                        after,
                    });
                }
                self.withdrawn = None;
                self.seal = Some(SealRecord {
                    seq,
                    by: e.by.clone(),
                    files: e.files.clone(),
                    signature: e.signature.clone(),
                    after: Some(after),
                    refused: None,
                    texts: e.texts.clone(),
                });
            }
            ApprovalsEvent::Granted(e) => {
                let record = ApprovalRecord {
                    seq,
                    approval_ref: e.approval_ref.clone(),
                    approved_by: e.approved_by.clone(),
                    expires_at: e.expires_at,
                    scope: e.scope.clone(),
                    revoked: None,
                    signature: e.signature.clone(),
                    after: Some(after),
                    refused: None,
                };
                self.approvals.insert(e.approval_ref.clone(), record);
            }
            ApprovalsEvent::Revoked(e) => match &e.approval_ref {
                Some(reference) => {
                    if let Some(record) = self.approvals.get_mut(reference) {
                        record.revoked.get_or_insert(seq);
                    }
                }
                None => {
                    if let Some(seal) = self.seal.take() {
                        self.withdrawn = Some(seal);
                    }
                    for record in self.approvals.values_mut() {
                        record.revoked.get_or_insert(seq);
                    }
                }
            },
            ApprovalsEvent::Other => {}
        }
    }

    /// Does `approval_ref` name an approval in force at `now` that covers `persona`
    /// delegating `subagents`? The failure says which of these did not hold (G-21).
    pub fn check_approval(
        &self,
        approval_ref: &str,
        persona: &str,
        subagents: &[&str],
        now: Timestamp,
    ) -> Verdict {
        let Some(record) = self.approvals.get(approval_ref) else {
            return Verdict::fail(
                Code::ApprovalNotRecorded,
                format!("approval `{approval_ref}` was never granted"),
            );
        };
        if let Some(refused) = &record.refused {
            return Verdict::fail(
                refused.code.into(),
                format!(
                    "approval `{approval_ref}` (seq {}) is not an approval: {}",
                    record.seq, refused.reason
                ),
            );
        }
        match record.state(now) {
            ApprovalState::Revoked => Verdict::fail(
                Code::ApprovalRevoked,
                format!("approval `{approval_ref}` was revoked (seq {})", record.revoked.unwrap_or_default()),
            ),
            ApprovalState::Expired => Verdict::fail(
                Code::ApprovalExpired,
                format!(
                    "approval `{approval_ref}` expired at {}",
                    record.expires_at.map(|t| t.to_string()).unwrap_or_default()
                ),
            ),
            ApprovalState::Active if !record.scope.covers(persona, subagents) => Verdict::fail(
                Code::ApprovalOutOfScope,
                format!(
                    "approval `{approval_ref}` covers {}, not persona `{persona}` delegating {}",
                    record.scope.describe(),
                    subagents.join(", ")
                ),
            ),
            ApprovalState::Active => Verdict::pass(format!(
                "approval `{approval_ref}` is recorded, in force and in scope (seq {})",
                record.seq
            )),
        }
    }

    /// The newest approval in force at `now` that covers the request, else the newest in force.
    pub fn best_for(&self, persona: &str, subagents: &[&str], now: Timestamp) -> Option<&ApprovalRecord> {
        let active = || {
            self.approvals
                .values()
                .filter(move |r| r.refused.is_none() && r.state(now) == ApprovalState::Active)
        };
        active()
            .filter(|r| r.scope.covers(persona, subagents))
            .max_by_key(|r| r.seq)
            .or_else(|| active().max_by_key(|r| r.seq))
    }

    /// The `subagentGovernance` metadata the records stand for (what a harness's hook hands
    /// the gate): `contextSealed` while a seal is in force, `pipelineRunApproved` and
    /// `approvalRef` from [`Approvals::best_for`].
    pub fn metadata_for(&self, persona: &str, subagents: &[&str], now: Timestamp) -> serde_json::Value {
        let approval = self.best_for(persona, subagents, now);
        let mut metadata = serde_json::Map::new();
        let sealed = self.seal.as_ref().is_some_and(|s| s.refused.is_none());
        metadata.insert("contextSealed".into(), sealed.into());
        metadata.insert("pipelineRunApproved".into(), approval.is_some().into());
        if let Some(approval) = approval {
            metadata.insert("approvalRef".into(), approval.approval_ref.clone().into());
            if let Some(by) = &approval.approved_by {
                metadata.insert("approvedBy".into(), by.clone().into());
            }
        }
        serde_json::Value::Object(metadata)
    }
}

/// The files read for one decision: relative path → BLAKE3 (hex) of what was read, `None` when
/// the file was missing or unreadable.
pub type ReadDigests = BTreeMap<String, Option<String>>;

/// Every file read that differs from the seal, each with how: changed, missing, or not
/// sealed (added since) (G-20).
pub fn seal_changes(sealed: &BTreeMap<String, String>, read: &ReadDigests) -> Vec<String> {
    read.iter()
        .filter_map(|(path, digest)| match (sealed.get(path), digest) {
            (Some(was), Some(now)) if was == now => None,
            (Some(_), Some(_)) => Some(format!("`{path}` changed")),
            (Some(_), None) => Some(format!("`{path}` is missing")),
            (None, Some(_)) => Some(format!("`{path}` was not sealed")),
            (None, None) => None,
        })
        .collect()
}

/// What the log says, for one gate decision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recorded {
    /// `require_recorded_approval`: a seal must be in force and `approvalRef` must be recorded.
    pub require: bool,
    /// The recorded seal and approvals.
    pub approvals: Approvals,
    /// The digests of the files read for this decision.
    pub read: ReadDigests,
    /// The decision's time (for expiry).
    pub now: Timestamp,
}

/// What the report records of the seal and the approval in force (for investigations).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordedSummary {
    /// Whether recorded approval was required.
    pub required: bool,
    /// The `context_sealed` event in force.
    pub seal_seq: Option<u64>,
    /// The files compared with the seal.
    pub files_checked: Vec<String>,
    /// The `approval_granted` event of the `approvalRef`, if recorded.
    pub approval_seq: Option<u64>,
    /// Its state at the decision.
    pub approval_state: Option<ApprovalState>,
}

impl Recorded {
    /// A `context_sealed` verdict that passed on the metadata, held to the seal in force (G-20).
    pub(crate) fn context_sealed(&self, metadata: Verdict) -> Verdict {
        if !metadata.passed() {
            return metadata;
        }
        match self.approvals.seal_verdict(&self.read) {
            Some(verdict) if verdict.passed() => {
                Verdict::pass(format!("contextSealed is true and {}", verdict.reason()))
            }
            Some(verdict) => verdict,
            None if self.require => Verdict::fail(
                Code::SealNotRecorded,
                "contextSealed is true but no seal is recorded (run `warden seal`)",
            ),
            None => metadata,
        }
    }

    /// An `approval_ref` verdict that passed on the metadata, held to the approvals recorded (G-21).
    pub(crate) fn approval(
        &self,
        metadata: Verdict,
        approval_ref: Option<&str>,
        persona: &str,
        subagents: &[&str],
    ) -> Verdict {
        match approval_ref {
            Some(reference) if metadata.passed() && self.require => {
                self.approvals.check_approval(reference, persona, subagents, self.now)
            }
            _ => metadata,
        }
    }

    /// The summary recorded in the report.
    pub(crate) fn summary(&self, approval_ref: Option<&str>) -> RecordedSummary {
        let record = approval_ref.and_then(|r| self.approvals.approvals.get(r));
        RecordedSummary {
            required: self.require,
            seal_seq: self.approvals.seal.as_ref().map(|s| s.seq),
            files_checked: self.read.keys().cloned().collect(),
            approval_seq: record.map(|r| r.seq),
            approval_state: record.map(|r| r.state(self.now)),
        }
    }
}
