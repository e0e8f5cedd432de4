//! `--key FILE` of `warden seal` and `warden approve`: the record is signed with the human's SSH
//! key and verified in process before it is written (K-1 … K-3, issue 21).
//!
//! K-7: a private key file without a passphrase is read and signs in process (`ssh-key`). A
//! public key file (`KEY.pub`), or a private key with a passphrase, signs through OpenSSH:
//! `ssh-keygen -Y sign -n agentwarden -f FILE`, so ssh-agent (FIDO keys, `ssh-add -c`
//! confirmation) and passphrase prompts work as they do for git. Either way the signature is
//! verified against `allowed_signers` before anything is written, and the record is appended
//! only at the head it names (`Expected::Head`): a writer in between makes it fail, never land
//! with a signature that no longer verifies.
//!
//! K-8: with `allowed_signers` configured, a seal or approval without `--key` is refused
//! (`signature_missing`, exit 1); without it, `--key` is a usage error (there is nothing to
//! verify the signature with). The principal is `--by` when given (it must be one the file
//! lists for the key), else the first principal the file lists for the key.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use agentwarden_domain::audit::{AuditEvent, Correlation, Head};
use agentwarden_domain::governance::{
    FileRead, RecordSignature, SIGNATURE_NAMESPACE, SignatureCode, SignatureRefusal, SignedContent,
    signed_bytes,
};
use agentwarden_ports::Expected;
use ssh_key::{PrivateKey, PublicKey};

use super::{EXIT_OK, Failure};
use crate::signing::{AllowedSigners, sign_with_private_key, verify_record};
use crate::{MAX_INPUT_BYTES, Warden};

/// `--key`.
#[derive(Debug, clap::Args)]
pub(super) struct KeyArgs {
    /// Sign the record with this SSH key (required when `[approvals] allowed_signers` is set): a
    /// private key file, or a public key (`.pub`) to sign through ssh-agent.
    #[arg(long, value_name = "FILE")]
    pub(super) key: Option<PathBuf>,
}

fn refused(refusal: &SignatureRefusal) -> Failure {
    Failure::no(format!("refused: {}: {}", refusal.code.as_str(), refusal.reason))
}

/// Signs `message` with `key`: in process for an unencrypted private key, else through
/// `ssh-keygen -Y sign` (K-7). Returns the armored signature and the signer's public key.
fn sign(key: &Path, message: &[u8]) -> Result<(String, PublicKey), Failure> {
    let text = agentwarden_adapters::untrusted::read_text(None, key, MAX_INPUT_BYTES)
        .map_err(|e| Failure::usage(format!("--key `{}`: {e}", key.display())))?;
    if let Ok(private) = PrivateKey::from_openssh(&text)
        && !private.is_encrypted()
    {
        let sig =
            sign_with_private_key(&private, message).map_err(|e| Failure::no(format!("cannot sign: {e}")))?;
        return Ok((sig, private.public_key().clone()));
    }
    let public = match PublicKey::from_openssh(&text) {
        Ok(public) => public,
        Err(_) => PrivateKey::from_openssh(&text)
            .map(|p| p.public_key().clone())
            .map_err(|e| Failure::usage(format!("--key `{}` is not an OpenSSH key: {e}", key.display())))?,
    };
    let mut child = Command::new("ssh-keygen")
        .args(["-q", "-Y", "sign", "-n", SIGNATURE_NAMESPACE, "-f"])
        .arg(key)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| Failure::no(format!("cannot run `ssh-keygen` to sign with `{}`: {e}", key.display())))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(message)
            .map_err(|e| Failure::no(format!("cannot hand `ssh-keygen` the record: {e}")))?;
    }
    let output = child.wait_with_output().map_err(|e| Failure::no(format!("`ssh-keygen` failed: {e}")))?;
    if !output.status.success() {
        return Err(Failure::no(format!(
            "`ssh-keygen -Y sign` with `{}` failed ({}); is the key in ssh-agent?",
            key.display(),
            output.status
        )));
    }
    let sig =
        String::from_utf8(output.stdout).map_err(|_| Failure::no("`ssh-keygen` printed no signature"))?;
    Ok((sig, public))
}

/// A record's signature, the head it must be appended at, and (for a seal) the key list it
/// seals (K-14).
pub(super) struct Signed {
    pub(super) signature: RecordSignature,
    pub(super) head: Head,
    pub(super) key_list: String,
}

fn unavailable(path: &Path, why: impl std::fmt::Display) -> Failure {
    refused(&SignatureRefusal {
        code: SignatureCode::SignersUnavailable,
        reason: format!("`{}` cannot be used: {why}", path.display()),
    })
}

/// K-1: the signature for `content`, made against the log's head now, verified before it is
/// returned. `None` when signatures are not configured and no key was given.
///
/// K-14: once a signed seal has pinned the key list, a record is verified against that list.
/// A seal made while the configured file is another list is a change of the list: it is signed
/// and verified with a key of the *pinned* list (`key_rotation_refused` otherwise), and carries
/// the new list. Any other record while the file is not the pinned list is refused
/// (`signers_unavailable`): it could not count.
pub(super) async fn signature_for(
    warden: &Warden,
    key: Option<&Path>,
    by: Option<&str>,
    content: SignedContent<'_>,
) -> Result<Option<Signed>, Failure> {
    let config = warden.configuration();
    let (path, key) = match (&config.allowed_signers, key) {
        (None, None) => return Ok(None),
        (None, Some(_)) => {
            return Err(Failure::usage(
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
        FileRead::Missing => return Err(unavailable(path, "it is missing")),
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
            return Err(Failure::no(format!("`{}` changed while sealing; seal again", path.display())));
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
fn read_public(key: &Path) -> Result<PublicKey, Failure> {
    let text = agentwarden_adapters::untrusted::read_text(None, key, MAX_INPUT_BYTES)
        .map_err(|e| Failure::usage(format!("--key `{}`: {e}", key.display())))?;
    PublicKey::from_openssh(&text)
        .or_else(|_| PrivateKey::from_openssh(&text).map(|p| p.public_key().clone()))
        .map_err(|e| Failure::usage(format!("--key `{}` is not an OpenSSH key: {e}", key.display())))
}

/// Records `event`: at `head` when it was signed against it (K-7), else wherever the head is.
pub(super) async fn record(
    warden: &Warden,
    event: &AuditEvent,
    at: Option<Head>,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    let expected = at.map_or(Expected::Any, |head| Expected::Head(head.seq));
    let appended = warden.record_expected(Correlation::default(), event, expected).await?;
    writeln!(
        out,
        "{}",
        serde_json::json!({"seq": appended.head.seq, "hash": appended.head.hash.to_string()})
    )?;
    Ok(EXIT_OK)
}
