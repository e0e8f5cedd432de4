//! The human verbs — seal, approve, revoke, release — as use cases of the facade, each with its
//! rules: who may (never from inside a Claude Code session, H-5/H-32, read through the
//! environment port), what a request must hold (an approval reference's rules, a scope of
//! `persona:NAME`/`subagent:NAME`, a positive expiry, a name that is an actor), "revoke only
//! what is active", "release only what is quarantined", and the signature (K-1 … K-17): signed
//! with the human's SSH key and verified in process before anything is written, then appended
//! only at the head it names.
//!
//! K-7: a private key file without a passphrase is read and signs in process (`ssh-key`). A
//! public key file (`KEY.pub`), or a private key with a passphrase, signs through OpenSSH:
//! `ssh-keygen -Y sign -n agentwarden -f FILE`, so ssh-agent (FIDO keys, `ssh-add -c`
//! confirmation) and passphrase prompts work as they do for git. Either way the signature is
//! verified against `allowed_signers` before anything is written, and the record is appended
//! only at the head it names (`Expected::Head`): a writer in between makes it fail, never land
//! with a signature that no longer verifies.
//!
//! K-8: with `allowed_signers` configured, a record without a key is refused
//! (`signature_missing`); without it, a key is a usage error (there is nothing to verify the
//! signature with). The principal is `by` when given (it must be one the file lists for the
//! key), else the first principal the file lists for the key.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use agentwarden_domain::audit::{Actor, Correlation, CorrelationId, Head, Timestamp};
use agentwarden_domain::events::AuditEvent;
use agentwarden_domain::governance::{
    ApprovalGranted, ApprovalRevoked, ApprovalState, ContextSealed, EnvValue, FileRead, Name,
    RecordSignature, SIGNATURE_NAMESPACE, Scope, SignatureCode, SignatureRefusal, SignedContent,
    check_approval_ref, signed_bytes,
};
use agentwarden_domain::sessions::{SessionReleased, is_safe_id};
use agentwarden_ports::{Appended, Expected};
use ssh_key::{PrivateKey, PublicKey};

use crate::signing::{AllowedSigners, sign_with_private_key, verify_record};
use crate::{HookStorage, MAX_INPUT_BYTES, Warden, WardenError};

/// The variable Claude Code sets in every process it starts (H-5).
pub const CLAUDE_CODE_ENV: &str = "CLAUDECODE";

/// The variable Codex CLI sets in every command its shell tool runs (C-9; seen with 0.169.0).
pub const CODEX_ENV: &str = "CODEX_THREAD_ID";

/// The variable Gemini CLI sets in the environment of every command its shell tool runs (seen
/// with 0.61.0; the Gemini integration names it too, and a test holds the two equal).
pub const GEMINI_ENV: &str = "GEMINI_CLI";
/// The variable Copilot CLI sets in the environment of every command its shell tool runs (seen
/// with 1.0.102, `COPILOT_CLI=1`; the Copilot integration names it too, and a test holds the
/// two equal).
pub const COPILOT_ENV: &str = "COPILOT_CLI";

/// The variables that say a process runs inside an agent harness's session, each with
/// the harness: a human verb, and the resident service, refuse to run where one is set (H-5, C-9).
pub const AGENT_SESSION_ENVS: [(&str, &str); 4] = [
    (CLAUDE_CODE_ENV, "Claude Code"),
    (CODEX_ENV, "Codex"),
    (GEMINI_ENV, "Gemini CLI"),
    (COPILOT_ENV, "Copilot CLI"),
];

/// The first of [`AGENT_SESSION_ENVS`] that `is_set` says is set: (variable, harness).
pub fn agent_session(is_set: impl Fn(&str) -> bool) -> Option<(&'static str, &'static str)> {
    AGENT_SESSION_ENVS.into_iter().find(|(var, _)| is_set(var))
}

/// Who makes a human record, and with which key.
#[derive(Clone, Debug, Default)]
pub struct Signer {
    /// The human's name, recorded (`--by`); with a key, a principal the key list gives it.
    pub by: Option<String>,
    /// Their SSH key (`--key`): a private key file, or a public key to sign through ssh-agent.
    pub key: Option<PathBuf>,
}

/// Why a human record was not written.
#[derive(Debug, thiserror::Error)]
pub enum HumanActError {
    /// The request cannot be used as given (a bad name, reference, scope; from inside a Claude
    /// Code session; nothing to revoke or release): the CLI's exit 2.
    #[error("{0}")]
    Usage(String),
    /// The record would not count or could not be signed; the reason names its code when it has
    /// one (`refused: signer_not_allowed: …`): the CLI's exit 1.
    #[error("{0}")]
    Refused(String),
    /// The store failed.
    #[error(transparent)]
    Warden(#[from] WardenError),
}

impl HumanActError {
    fn usage(why: impl Into<String>) -> Self {
        HumanActError::Usage(why.into())
    }

    fn refused(why: impl Into<String>) -> Self {
        HumanActError::Refused(why.into())
    }
}

/// An approval to grant.
#[derive(Clone, Debug, Default)]
pub struct ApprovalRequest {
    /// The reference the gate's `approvalRef` names (G-21).
    pub reference: String,
    /// What it covers: `persona:NAME` and `subagent:NAME` entries; none: everything.
    pub scope: Vec<String>,
    /// How long it holds, in milliseconds (positive); `None`: until revoked.
    pub expires_in_ms: Option<i64>,
}

impl Warden {
    /// A human verb is refused inside an agent harness's session (`CLAUDECODE`
    /// or `CODEX_THREAD_ID` set in this Warden's environment) (H-5, H-32, C-9).
    fn refuse_inside_an_agent_session(&self, act: &str) -> Result<(), HumanActError> {
        refuse_inside_an_agent_session(|var| !matches!(self.environment.var(var), EnvValue::Unset), act)
    }

    /// Appends `event` at `head` when it was signed against it (K-7), else wherever the head is.
    async fn record_signed(
        &self,
        correlation: Correlation,
        event: &AuditEvent,
        at: Option<Head>,
    ) -> Result<Appended, WardenError> {
        let expected = at.map_or(Expected::Any, |head| Expected::Head(head.seq));
        self.record_expected(correlation, event, expected).await
    }

    /// `warden seal`: seals the context — every file the gate's decisions read (G-20) — signed
    /// when signatures are configured. Refused when there is nothing to seal (N-3).
    pub async fn seal(&self, signer: &Signer) -> Result<Appended, HumanActError> {
        self.refuse_inside_an_agent_session("seals")?;
        let by = checked_name(signer.by.as_deref())?;
        let (files, texts) = self.seal_contents().await.map_err(|e| HumanActError::Usage(e.to_string()))?;
        if files.is_empty() {
            return Err(HumanActError::Usage(nothing_to_seal(&self.config)));
        }
        let content = SignedContent::Seal { files: &files };
        let signed = signature_for(self, signer.key.as_deref(), by, content).await?;
        let (signature, at, key_list) =
            signed.map_or((None, None, None), |s| (Some(s.signature), Some(s.head), Some(s.key_list)));
        let by = by.map(str::to_owned).or_else(|| signature.as_ref().map(|s| s.principal.clone()));
        let event = AuditEvent::ContextSealed(ContextSealed { by, files, signature, key_list, texts });
        Ok(self.record_signed(Correlation::default(), &event, at).await?)
    }

    /// `warden approve`: grants the approval `request` names (G-21), signed when signatures are
    /// configured.
    pub async fn approve(
        &self,
        request: &ApprovalRequest,
        signer: &Signer,
    ) -> Result<Appended, HumanActError> {
        self.refuse_inside_an_agent_session("approves")?;
        let verdict = check_approval_ref(&request.reference);
        if !verdict.passed() {
            return Err(HumanActError::usage(format!("--ref: {}", verdict.reason())));
        }
        let scope = parse_scope(&request.scope)?;
        if request.expires_in_ms.is_some_and(|ms| ms <= 0) {
            return Err(HumanActError::usage("an approval's expiry must be a positive duration"));
        }
        let approved_by = checked_name(signer.by.as_deref())?;
        let expires_at = request
            .expires_in_ms
            .map(|ms| Timestamp::saturating_from_unix_millis(self.now().unix_millis().saturating_add(ms)));
        let content = SignedContent::Approval { approval_ref: &request.reference, scope: &scope, expires_at };
        let signed = signature_for(self, signer.key.as_deref(), approved_by, content).await?;
        let (signature, at) = signed.map_or((None, None), |s| (Some(s.signature), Some(s.head)));
        let approved_by =
            approved_by.map(str::to_owned).or_else(|| signature.as_ref().map(|s| s.principal.clone()));
        let event = AuditEvent::ApprovalGranted(ApprovalGranted {
            approval_ref: request.reference.clone(),
            approved_by,
            expires_at,
            scope,
            signature,
        });
        Ok(self.record_signed(Correlation::default(), &event, at).await?)
    }

    /// `warden revoke`: withdraws one approval (only an active one), or with `None` every
    /// approval and the seal.
    pub async fn revoke(&self, reference: Option<&str>, signer: &Signer) -> Result<Appended, HumanActError> {
        self.refuse_inside_an_agent_session("revokes")?;
        let by = checked_name(signer.by.as_deref())?;
        if let Some(wanted) = reference {
            let records = self.records().await?.governance;
            let state = records.approvals.get(wanted).map(|r| r.state(self.now()));
            if state != Some(ApprovalState::Active) {
                let why = state
                    .map_or_else(|| "was never granted".to_owned(), |s| format!("is {s:?}").to_lowercase());
                return Err(HumanActError::usage(format!("approval `{wanted}` {why}: nothing to revoke")));
            }
        }
        let content = SignedContent::Revoke { approval_ref: reference };
        let signed = signature_for(self, signer.key.as_deref(), by, content).await?;
        let (signature, at) = signed.map_or((None, None), |s| (Some(s.signature), Some(s.head)));
        let by = by.map(str::to_owned).or_else(|| signature.as_ref().map(|s| s.principal.clone()));
        let event = AuditEvent::ApprovalRevoked(ApprovalRevoked {
            approval_ref: reference.map(str::to_owned),
            by,
            signature,
        });
        Ok(self.record_signed(Correlation::default(), &event, at).await?)
    }

    /// `warden release`: lifts a Claude Code session's quarantine (H-28, H-32). Only a
    /// quarantined session is released; the marker in `storage` is removed first and the
    /// release recorded after — if it cannot be recorded, the marker is put back.
    pub async fn release(
        &self,
        session: &str,
        storage: &HookStorage,
        signer: &Signer,
    ) -> Result<Appended, HumanActError> {
        self.refuse_inside_an_agent_session("releases a quarantine")?;
        if !is_safe_id(session) {
            return Err(HumanActError::usage(format!(
                "--session `{session}` is not a session id (1 to {} of A-Z a-z 0-9 _ - ., not starting with `.`)",
                agentwarden_domain::sessions::MAX_ID_LEN
            )));
        }
        let by = checked_name(signer.by.as_deref())?;
        let mut state = self.records().await?;
        // Never a release before the quarantine and the violations kept while the log
        // could not be written are in it (H-33).
        self.quarantine_in_force(&mut state, session, storage).await;
        self.record_pending(&mut state, session, storage)
            .await
            .map_err(|e| HumanActError::Refused(format!("session `{session}` is not released: {e}")))?;
        let recorded = state.quarantined.get(session).cloned();
        let marker = storage.marker(session).map_err(|e| HumanActError::Refused(e.to_string()))?;
        if recorded.is_none() && marker.is_none() {
            return Err(HumanActError::usage(format!(
                "session `{session}` is not quarantined: nothing to release"
            )));
        }
        // Signed (and verified) before the marker is touched (K-9).
        let content = SignedContent::Release { session };
        let signed = signature_for(self, signer.key.as_deref(), by, content).await?;
        let (signature, at) = signed.map_or((None, None), |s| (Some(s.signature), Some(s.head)));
        let by = by.map(str::to_owned).or_else(|| signature.as_ref().map(|s| s.principal.clone()));
        storage.release(session).map_err(|e| HumanActError::Refused(e.to_string()))?;
        let correlation = Correlation { session: CorrelationId::new(session).ok(), ..Correlation::default() };
        let event = AuditEvent::SessionReleased(SessionReleased { by, signature });
        match self.record_signed(correlation, &event, at).await {
            Ok(appended) => Ok(appended),
            Err(e) => {
                if let Some(marker) = marker {
                    let _ = storage.quarantine(session, &marker);
                }
                Err(e.into())
            }
        }
    }
}

/// A name that can be recorded as who acted.
fn checked_name(by: Option<&str>) -> Result<Option<&str>, HumanActError> {
    if let Some(by) = by {
        Actor::new(by).map_err(|e| HumanActError::usage(format!("--by: {e}")))?;
    }
    Ok(by)
}

/// An approval's scope: `persona:NAME` and `subagent:NAME` entries.
fn parse_scope(entries: &[String]) -> Result<Scope, HumanActError> {
    let mut scope = Scope::default();
    for entry in entries {
        let (kind, raw) = entry.split_once(':').unwrap_or(("", entry));
        let name = Name::new(raw).map_err(|e| HumanActError::usage(format!("--scope `{entry}`: {e}")))?;
        match kind {
            "persona" => scope.personas.push(name.as_str().to_owned()),
            "subagent" => scope.subagents.push(name.as_str().to_owned()),
            _ => {
                return Err(HumanActError::usage(format!(
                    "--scope `{entry}` is not `persona:NAME` or `subagent:NAME`"
                )));
            }
        }
    }
    Ok(scope)
}

/// A human verb is refused inside an agent harness's session, one of [`AGENT_SESSION_ENVS`] that
/// `is_set` says is set (H-5, H-32, C-9): the refusal says that a human `act`s (`approves`,
/// `releases a quarantine`) from their own terminal. The command line asks it before any store
/// is opened; the Warden asks it again of its own environment.
pub fn refuse_inside_an_agent_session(is_set: impl Fn(&str) -> bool, act: &str) -> Result<(), HumanActError> {
    match agent_session(is_set) {
        None => Ok(()),
        Some((var, harness)) => Err(HumanActError::usage(format!(
            "refused: `{var}` is set, so this runs inside a {harness} session; \
             a human {act} from their own terminal"
        ))),
    }
}

/// What `config` would seal, known before any store is opened (or created) (N-3): a seal of
/// nothing is refused ([`nothing_to_seal`]).
pub async fn refuse_nothing_to_seal(config: &crate::Config) -> Result<(), HumanActError> {
    let files = Warden::builder()
        .store(std::sync::Arc::new(crate::store::MemoryEventStore::new()))
        .config(config.clone())
        .build()?
        .seal_digests()
        .await
        .map_err(|e| HumanActError::usage(e.to_string()))?;
    match files.is_empty() {
        true => Err(HumanActError::usage(nothing_to_seal(config))),
        false => Ok(()),
    }
}

/// A seal of no file would pass `context_sealed` for every decision while checking nothing,
/// so it is refused, saying where Warden looked (N-3).
pub fn nothing_to_seal(config: &crate::Config) -> String {
    let looked = match &config.source {
        Some(file) => format!("the configuration `{}`", file.display()),
        None => format!(
            "no `{}` from `{}` upward (the defaults)",
            crate::config::CONFIG_FILE,
            std::env::current_dir().map_or_else(|_| ".".into(), |d| d.display().to_string())
        ),
    };
    format!(
        "refused: nothing to seal: {looked}: no persona, agent or manifest file it names exists; \
         run `warden seal` in the project (where `agentwarden.toml` is) or pass --config FILE"
    )
}

fn refused(refusal: &SignatureRefusal) -> HumanActError {
    HumanActError::refused(format!("refused: {}: {}", refusal.code.as_str(), refusal.reason))
}

/// The text of the SSH key file `key`; a missing one is refused with how to make one and have
/// it trusted (N-11).
fn read_key(key: &Path) -> Result<String, HumanActError> {
    agentwarden_adapters::untrusted::read_text(None, key, MAX_INPUT_BYTES).map_err(|e| match e {
        agentwarden_adapters::untrusted::UntrustedError::Missing { .. } => HumanActError::usage(format!(
            "--key `{shown}` does not exist: make an SSH key with `ssh-keygen -t ed25519 -f {shown}` and have \
             its public half listed in `[approvals] allowed_signers` (docs/signed-approvals.md)",
            shown = key.display()
        )),
        e => HumanActError::usage(format!("--key `{}`: {e}", key.display())),
    })
}

/// Signs `message` with `key`: in process for an unencrypted private key, else through
/// `ssh-keygen -Y sign` (K-7). Returns the armored signature and the signer's public key.
fn sign(key: &Path, message: &[u8]) -> Result<(String, PublicKey), HumanActError> {
    let text = read_key(key)?;
    if let Ok(private) = PrivateKey::from_openssh(&text)
        && !private.is_encrypted()
    {
        let sig = sign_with_private_key(&private, message)
            .map_err(|e| HumanActError::refused(format!("cannot sign: {e}")))?;
        return Ok((sig, private.public_key().clone()));
    }
    let public = match PublicKey::from_openssh(&text) {
        Ok(public) => public,
        Err(_) => PrivateKey::from_openssh(&text).map(|p| p.public_key().clone()).map_err(|e| {
            HumanActError::usage(format!("--key `{}` is not an OpenSSH key: {e}", key.display()))
        })?,
    };
    let mut child = Command::new("ssh-keygen")
        .args(["-q", "-Y", "sign", "-n", SIGNATURE_NAMESPACE, "-f"])
        .arg(key)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| {
            HumanActError::refused(format!("cannot run `ssh-keygen` to sign with `{}`: {e}", key.display()))
        })?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(message)
            .map_err(|e| HumanActError::refused(format!("cannot hand `ssh-keygen` the record: {e}")))?;
    }
    let output =
        child.wait_with_output().map_err(|e| HumanActError::refused(format!("`ssh-keygen` failed: {e}")))?;
    if !output.status.success() {
        return Err(HumanActError::refused(format!(
            "`ssh-keygen -Y sign` with `{}` failed ({}); is the key in ssh-agent?",
            key.display(),
            output.status
        )));
    }
    let sig = String::from_utf8(output.stdout)
        .map_err(|_| HumanActError::refused("`ssh-keygen` printed no signature"))?;
    Ok((sig, public))
}

/// A record's signature, the head it must be appended at, and (for a seal) the key list it
/// seals (K-14).
pub(crate) struct Signed {
    pub(crate) signature: RecordSignature,
    pub(crate) head: Head,
    pub(crate) key_list: String,
}

fn unavailable(path: &Path, why: impl std::fmt::Display) -> HumanActError {
    refused(&SignatureRefusal {
        code: SignatureCode::SignersUnavailable,
        reason: format!("`{}` cannot be used: {why}", path.display()),
    })
}

/// The signature for `content`, made against the log's head now, verified before it is
/// returned. `None` when signatures are not configured and no key was given (K-1).
///
/// K-14: once a signed seal has pinned the key list, a record is verified against that list.
/// A seal made while the configured file is another list is a change of the list: it is signed
/// and verified with a key of the *pinned* list (`key_rotation_refused` otherwise), and carries
/// the new list. Any other record while the file is not the pinned list is refused
/// (`signers_unavailable`): it could not count.
pub(crate) async fn signature_for(
    warden: &Warden,
    key: Option<&Path>,
    by: Option<&str>,
    content: SignedContent<'_>,
) -> Result<Option<Signed>, HumanActError> {
    let config = warden.configuration();
    let (path, key) = match (&config.allowed_signers, key) {
        (None, None) => return Ok(None),
        (None, Some(_)) => {
            return Err(HumanActError::usage(
                "--key needs `[approvals] allowed_signers` in agentwarden.toml to verify the signature with",
            ));
        }
        (Some(path), None) => {
            return Err(refused(&SignatureRefusal {
                code: SignatureCode::Missing,
                reason: format!(
                    "`{}` is configured, so this record must be signed: give --key FILE (your SSH key)",
                    path.display()
                ),
            }));
        }
        (Some(path), Some(key)) => (path, key),
    };
    let now = warden.key_list_now(path).await?;
    let current = match now.read {
        FileRead::Text(text) => text,
        FileRead::Missing => return Err(unavailable(path, crate::records::SIGNERS_MISSING)),
        FileRead::Unreadable(why) => return Err(unavailable(path, why)),
    };
    let is_seal = matches!(content, SignedContent::Seal { .. });
    // Withdrawing never grants (K-9): a revocation is verified against the pinned list.
    let is_revoke = matches!(content, SignedContent::Revoke { .. });
    // The file is not the pinned list (a change pending): a seal is then the change (K-14).
    let pending = match &now.pinned {
        Some(_) if now.is_pinned => false,
        None => false,
        Some((seq, _)) if !is_seal && !is_revoke => {
            return Err(unavailable(
                path,
                format!(
                    "it is not the key list the signed seal at seq {seq} pinned; a human seals the new list first, \
                     signed with a key of the old one (`warden seal --key OLD_KEY`)"
                ),
            ));
        }
        Some(_) => true,
    };
    let rotation_refused = |why: String| {
        refused(&SignatureRefusal {
            code: SignatureCode::KeyRotationRefused,
            reason: format!(
                "`{}` is not the key list pinned at seq {}, and {why}",
                path.display(),
                now.pinned.as_ref().map_or(0, |(seq, _)| *seq)
            ),
        })
    };
    let signers = if pending && is_revoke {
        let old = now.pinned.as_ref().and_then(|(_, text)| text.as_deref()).unwrap_or(&current);
        AllowedSigners::parse(old).map_err(|why| unavailable(path, why))?
    } else if pending {
        let old = now.pinned.as_ref().and_then(|(_, text)| text.as_deref()).ok_or_else(|| {
            rotation_refused(
                "that list is not in the log (sealed by an earlier version): put the old list back and seal it \
                 once, then change it"
                    .into(),
            )
        })?;
        AllowedSigners::parse(old).map_err(|why| rotation_refused(format!("it cannot be read: {why}")))?
    } else {
        AllowedSigners::parse(&current).map_err(|why| unavailable(path, why))?
    };
    if let SignedContent::Seal { files } = content {
        // The list carried must be the one sealed: a change in between is a seal to make again.
        let sealed = files.get(&now.sealed_as).and_then(|d| d.split(' ').next());
        if sealed != Some(blake3::hash(current.as_bytes()).to_hex().as_str()) {
            return Err(HumanActError::refused(format!(
                "`{}` changed while sealing; seal again",
                path.display()
            )));
        }
    }
    let head = warden.head().await?;
    let head_hash = head.hash.to_string();
    // The principal is needed before signing: from --by, or the file's entry for the key.
    let public = read_public(key)?;
    let principal = match by {
        Some(by) => by.to_owned(),
        None => signers.principal_of(&public).map(str::to_owned).ok_or_else(|| {
            let refusal = SignatureRefusal {
                code: SignatureCode::SignerNotAllowed,
                reason: format!(
                    "the key `{}` is not listed in `{}` for namespace `{SIGNATURE_NAMESPACE}`",
                    key.display(),
                    path.display()
                ),
            };
            if pending && is_seal {
                rotation_refused(format!("the key `{}` is not in it", key.display()))
            } else {
                refused(&refusal)
            }
        })?,
    };
    let message = signed_bytes(content, &principal, head.seq, &head_hash);
    let (sshsig, _) = sign(key, &message)?;
    let signature = RecordSignature { principal, head_seq: head.seq, head_hash, sshsig };
    verify_record(&signers, head.seq.saturating_add(1), Some(head), Some(&signature), |p, s, h| {
        signed_bytes(content, p, s, h)
    })
    .map_err(|r| {
        if pending && is_seal {
            rotation_refused(format!("it is not signed by a key of it: {r}"))
        } else {
            refused(&r)
        }
    })?;
    Ok(Some(Signed { signature, head, key_list: current }))
}

/// The public half of `key` (a private or a public key file).
fn read_public(key: &Path) -> Result<PublicKey, HumanActError> {
    let text = read_key(key)?;
    PublicKey::from_openssh(&text)
        .or_else(|_| PrivateKey::from_openssh(&text).map(|p| p.public_key().clone()))
        .map_err(|e| HumanActError::usage(format!("--key `{}` is not an OpenSSH key: {e}", key.display())))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::{store::MemoryEventStore, wiring::FixedEnvironment};

    #[test]
    fn scopes_parse_or_are_usage_errors() {
        let scope = parse_scope(&["persona:main".into(), "subagent:coder".into()]).unwrap();
        assert_eq!((scope.personas, scope.subagents), (vec!["main".to_owned()], vec!["coder".to_owned()]));
        for bad in ["main", "agent:x", "persona:../x", "subagent:"] {
            assert!(matches!(parse_scope(&[bad.to_owned()]), Err(HumanActError::Usage(_))), "{bad}");
        }
    }

    /// Each verb's rules hold on the facade, not only at the CLI: never inside a Claude Code
    /// session (the environment port), a valid reference and expiry, revoke only what is active,
    /// release only what is quarantined — and nothing is recorded when one fails.
    #[tokio::test]
    async fn the_human_verbs_keep_their_rules_on_the_facade() {
        let store = Arc::new(MemoryEventStore::new());
        let dir = tempfile::tempdir().unwrap();
        let inside = Warden::builder()
            .store(store.clone())
            .environment(Arc::new(FixedEnvironment::with(CLAUDE_CODE_ENV, "1")))
            .build()
            .unwrap();
        let signer = Signer { by: Some("alice".into()), key: None };
        let approval = ApprovalRequest { reference: "GATE-1".into(), ..ApprovalRequest::default() };
        let refused = inside.approve(&approval, &signer).await.unwrap_err();
        assert!(matches!(&refused, HumanActError::Usage(why) if why.contains(CLAUDE_CODE_ENV)), "{refused}");
        // Inside a Codex session too (C-9).
        let in_codex = Warden::builder()
            .store(store.clone())
            .environment(Arc::new(FixedEnvironment::with(CODEX_ENV, "019a-thread")))
            .build()
            .unwrap();
        let refused = in_codex.seal(&signer).await.unwrap_err();
        assert!(
            matches!(&refused, HumanActError::Usage(why) if why.contains("inside a Codex session")),
            "{refused}"
        );
        let in_gemini = Warden::builder()
            .store(store.clone())
            .environment(Arc::new(FixedEnvironment::with(GEMINI_ENV, "1")))
            .build()
            .unwrap();
        let refused = in_gemini.seal(&signer).await.unwrap_err();
        assert!(
            matches!(&refused, HumanActError::Usage(why) if why.contains("inside a Gemini CLI session")),
            "{refused}"
        );
        let warden = Warden::builder()
            .store(store.clone())
            .environment(Arc::new(FixedEnvironment::default()))
            .build()
            .unwrap();
        let storage = HookStorage::new(dir.path().join("hooks"));
        let cases: [(&str, Result<Appended, HumanActError>); 5] = [
            ("empty reference", warden.approve(&ApprovalRequest::default(), &signer).await),
            (
                "zero expiry",
                warden
                    .approve(&ApprovalRequest { expires_in_ms: Some(0), ..approval.clone() }, &signer)
                    .await,
            ),
            ("bad name", warden.approve(&approval, &Signer { by: Some(String::new()), key: None }).await),
            ("never granted", warden.revoke(Some("GATE-1"), &signer).await),
            ("not quarantined", warden.release("s1", &storage, &signer).await),
        ];
        for (case, result) in cases {
            assert!(matches!(result, Err(HumanActError::Usage(_))), "{case}: {result:?}");
        }
        assert_eq!(warden.head().await.unwrap().seq, 0, "nothing was recorded");
        let granted = warden.approve(&approval, &signer).await.unwrap();
        assert_eq!(granted.head.seq, 1);
        assert_eq!(warden.revoke(Some("GATE-1"), &signer).await.unwrap().head.seq, 2);
        let again = warden.revoke(Some("GATE-1"), &signer).await.unwrap_err();
        assert!(matches!(&again, HumanActError::Usage(why) if why.contains("is revoked")), "{again}");
    }
}
