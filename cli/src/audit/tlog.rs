//! `warden audit keygen | checkpoint | prove | verify --checkpoint | verify-proof |
//! witness-request`: signed checkpoints of the log, and proofs against them (issue 37). Every
//! file and key is read, and refused, before the store is opened; `verify-proof` opens
//! none.

use std::io::Write;
use std::path::{Path, PathBuf};

use agentwarden::audit::Checkpoint;
use agentwarden::tlog::TreeHead;
use agentwarden::tlog::{
    CheckpointFile, Consistency, LogSigner, LogVerifier, TlogError, add_checkpoint_request, policy_in_force,
    sign_and_keep, verify_proof_file,
};
use agentwarden::{Verification, Warden, WardenError};
use agentwarden_report::text::tlog as render;

use super::super::{EXIT_NO, EXIT_OK, EXIT_USAGE, Failure};
use super::served::Served;

/// A key's, a checkpoint's or a proof's refusal keeps its code typed beside its reason.
impl From<TlogError> for Failure {
    fn from(error: TlogError) -> Self {
        let exit = match &error {
            TlogError::KeyUnusable(_)
            | TlogError::CheckpointInvalid(_)
            | TlogError::ProofMalformed(_)
            | TlogError::PolicyInvalid(_) => EXIT_USAGE,
            TlogError::SignatureInvalid(_)
            | TlogError::Inconsistent(_)
            | TlogError::ProofInvalid(_)
            | TlogError::WitnessRollback(_)
            | TlogError::WitnessFork(_)
            | TlogError::WitnessConflict(_)
            | TlogError::QuorumUnmet(_)
            | TlogError::PolicyUnsealed(_)
            | TlogError::Warden(_) => EXIT_NO,
        };
        match error {
            TlogError::Warden(e) => e.into(),
            other => Failure::new(exit, other.code(), other.reason()),
        }
    }
}

/// The default place of the log's key, from the process's environment.
fn default_key() -> Result<PathBuf, Failure> {
    Ok(agentwarden::tlog::default_key_path(|name| std::env::var_os(name))?)
}

/// `warden audit keygen`: a new log key at `out`, its verifier key printed.
pub(super) fn keygen(origin: &str, out_path: Option<PathBuf>, out: &mut dyn Write) -> Result<u8, Failure> {
    let path = match out_path {
        Some(path) => path,
        None => default_key()?,
    };
    let signer = LogSigner::generate(origin)?;
    agentwarden::tlog::write_new_key(&path, &signer.to_text())?;
    writeln!(out, "{}", signer.verifier().to_text())?;
    Ok(EXIT_OK)
}

fn verifier(text: Option<&str>, what: &str) -> Result<LogVerifier, Failure> {
    let text = text.ok_or_else(|| {
        TlogError::CheckpointInvalid(format!("{what} needs --verifier KEY (the log's public key)"))
    })?;
    Ok(LogVerifier::parse(text)?)
}

/// `warden audit checkpoint`: the log's head signed as a C2SP checkpoint; through `served`, the
/// server's durable head, signed here (V-65). A-44: only once the head extends, by a verified
/// consistency proof, the last checkpoint the key signed (kept beside it, `agentwarden::tlog::keep`),
/// which the new one then replaces before it is printed.
pub(super) async fn checkpoint(
    key: Option<PathBuf>,
    json: bool,
    served: Option<&Served>,
    open: impl FnOnce(Option<agentwarden::Config>) -> Result<Warden, WardenError>,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    let path = match key {
        Some(path) => path,
        None => default_key()?,
    };
    let signer = LogSigner::read(&path)?;
    let kept = agentwarden::tlog::read_kept(&path, &signer)?;
    let (tree, head_hash) = match served {
        Some(served) => {
            let (size, root, head_hash) = served.head()?;
            let tree = TreeHead { origin: signer.name().to_owned(), size, root };
            if let Some(kept) = &kept {
                let proof = match kept.size <= tree.size {
                    true => served.consistency(kept.size, &tree)?,
                    false => Vec::new(),
                };
                agentwarden::tlog::check_extends(kept, &tree, &proof)?;
            }
            (tree, head_hash)
        }
        None => open(None)?.signable_head(signer.name(), kept.as_ref()).await?,
    };
    // Kept before it is printed: a note out is always the key's last.
    let note = sign_and_keep(&signer, &path, &tree)?;
    if json {
        writeln!(out, "{}", render::checkpoint_json(&tree, &head_hash, &note))?;
    } else {
        write!(out, "{note}")?;
    }
    Ok(EXIT_OK)
}

/// `warden audit checkpoint --server-note`: the note the server signed last.
pub(super) fn server_note(served: Option<&Served>, out: &mut dyn Write) -> Result<u8, Failure> {
    let served = served
        .ok_or_else(|| Failure::usage("--server-note asks a server: give --server PATH, without --store"))?;
    write!(out, "{}", served.note()?)?;
    Ok(EXIT_OK)
}

/// `warden audit prove SEQ --checkpoint FILE`: the inclusion proof of event SEQ in the
/// checkpoint's tree, which must be the store's.
pub(super) async fn prove(
    seq: u64,
    checkpoint: &Path,
    verifier: Option<&str>,
    json: bool,
    served: Option<&Served>,
    open: impl FnOnce(Option<agentwarden::Config>) -> Result<Warden, WardenError>,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    let head = CheckpointFile::read(checkpoint)?.signed_head(verifier, "`audit prove`")?;
    let proof = match served {
        Some(served) => served.prove(seq, &head)?,
        None => open(None)?.prove_in(seq, &head).await?,
    };
    if json {
        writeln!(out, "{}", render::prove_json(&head, seq, &proof.to_text()))?;
    } else {
        write!(out, "{}", proof.to_text())?;
    }
    Ok(EXIT_OK)
}

/// `warden audit witness-request --old N --checkpoint FILE`: the body of a `tlog-witness`
/// `add-checkpoint` request from a witness's last size `old` to the checkpoint.
pub(super) async fn witness_request(
    old: u64,
    checkpoint: &Path,
    verifier_key: Option<&str>,
    served: Option<&Served>,
    open: impl FnOnce(Option<agentwarden::Config>) -> Result<Warden, WardenError>,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    let file = CheckpointFile::read(checkpoint)?;
    let Some(note) = file.note() else {
        return Err(TlogError::CheckpointInvalid("a witness cosigns signed checkpoints only".into()).into());
    };
    let head = file.signed_head(verifier_key, "`audit witness-request`")?;
    if old > head.size {
        return Err(Failure::usage(format!("--old {old} is past the checkpoint's {} events", head.size)));
    }
    let proof = match served {
        Some(served) => served.consistency(old, &head)?,
        None => {
            let warden = open(None)?;
            warden.check_checkpoint(&head).await?;
            warden.consistency_proof(old, head.size).await?
        }
    };
    write!(out, "{}", add_checkpoint_request(old, &proof, note))?;
    Ok(EXIT_OK)
}

/// What `verify --checkpoint` holds to the seal once the store is open.
pub(super) struct Held {
    /// The configuration it runs with.
    pub(super) config: agentwarden::Config,
    /// Whether that configuration names a witness policy (already checked).
    pub(super) has_policy: bool,
}

/// `warden audit verify --checkpoint FILE` with a signed checkpoint: the chain walked, the
/// configuration held to the seal, then the log's consistency with the checkpoint.
pub(super) async fn verify_signed(
    note: &str,
    chain: Option<Checkpoint>,
    verifier_key: Option<&str>,
    json: bool,
    held: Held,
    open: impl FnOnce(Option<agentwarden::Config>) -> Result<Warden, WardenError>,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    let (_, head) = verifier(verifier_key, "a signed checkpoint")?.open_checkpoint(note)?;
    let warden = match super::opened(open(Some(held.config)))? {
        Ok(warden) => warden,
        Err(broken) => return super::print_verification(&broken, json, out),
    };
    let chain_head = match warden.verify(chain).await? {
        Verification::Intact { head } => head,
        broken @ Verification::Broken(_) => return super::print_verification(&broken, json, out),
    };
    // A policy counts only as sealed; a configuration changed since the seal refuses.
    policy_in_force(&warden.configuration_seal().await?, held.has_policy)?;
    match warden.consistent_with(&head, chain_head).await {
        Consistency::Consistent { chain, now } => {
            render::consistent(&chain, &head, &now, json, out)?;
            Ok(EXIT_OK)
        }
        Consistency::Inconsistent { chain, why } => {
            if json {
                writeln!(out, "{}", render::inconsistent_json(&chain, &head, &why))?;
            }
            Err(why.into())
        }
    }
}

/// `warden audit verify-proof`: an event, its proof and a checkpoint, with no store.
pub(super) fn verify_proof(
    proof: &Path,
    checkpoint: &Path,
    verifier_key: &str,
    json: bool,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    render::proven(&verify_proof_file(proof, checkpoint, verifier_key)?, json, out)?;
    Ok(EXIT_OK)
}
