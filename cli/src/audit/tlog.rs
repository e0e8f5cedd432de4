//! `warden audit keygen | checkpoint | prove | verify --checkpoint | verify-proof |
//! witness-request`: signed checkpoints of the log, and proofs against them (issue 37). Every
//! file and key is read, and refused, before the store is opened; `verify-proof` opens
//! none.

use std::io::Write;
use std::path::{Path, PathBuf};

use agentwarden::tlog::{
    LogSigner, LogVerifier, TlogError, WitnessPolicy, add_checkpoint_request, check_quorum, policy_in_force,
};
use agentwarden::{Verification, Warden, WardenError};
use agentwarden_adapters::untrusted::UntrustedError;
use agentwarden_domain::audit::Checkpoint;
use agentwarden_domain::audit::note::{MAX_NOTE_BYTES, TreeHead, parse_note};
use agentwarden_domain::audit::proof::{InclusionProof, MAX_PROOF_BYTES};
use serde_json::json;

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

/// The default place of the log's key: `$XDG_CONFIG_HOME/agentwarden/log.key`, else
/// `~/.config/agentwarden/log.key`.
pub(super) fn default_key() -> Result<PathBuf, Failure> {
    let config = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".config")))
        .ok_or_else(|| {
            Failure::from(TlogError::KeyUnusable(
                "no --key, and neither XDG_CONFIG_HOME nor HOME is set".into(),
            ))
        })?;
    Ok(config.join("agentwarden").join("log.key"))
}

/// `warden audit keygen`: a new log key at `out`, its verifier key printed.
pub(super) fn keygen(origin: &str, out_path: Option<PathBuf>, out: &mut dyn Write) -> Result<u8, Failure> {
    let path = match out_path {
        Some(path) => path,
        None => default_key()?,
    };
    let signer = LogSigner::generate(origin)?;
    write_new_key(&path, &signer.to_text())?;
    writeln!(out, "{}", signer.verifier().to_text())?;
    Ok(EXIT_OK)
}

/// Writes a secret key's `text` to the new file `path` (never over one that exists), mode 600,
/// its missing directories made mode 700.
pub(crate) fn write_new_key(path: &Path, text: &str) -> Result<(), Failure> {
    use std::os::unix::fs::DirBuilderExt;
    let unusable = |why: String| Failure::from(TlogError::KeyUnusable(why));
    let shown = path.display();
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(parent)
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

/// What a `--checkpoint FILE` holds.
pub(super) enum CheckpointFile {
    /// The unsigned `{"seq", "head_hash"}` of the chain.
    Chain(Checkpoint),
    /// A signed note (bare, or the `note` of `audit checkpoint --json`), with the chain's
    /// checkpoint when the JSON carried one.
    Signed { note: String, chain: Option<Checkpoint> },
}

/// Reads `--checkpoint FILE`: a signed note, `audit checkpoint --json`'s object, or the old
/// unsigned JSON.
pub(super) fn read_checkpoint_file(path: &Path) -> Result<CheckpointFile, Failure> {
    let text = agentwarden_adapters::untrusted::read_text(None, path, MAX_NOTE_BYTES as u64).map_err(
        |e| match e {
            // A missing file is refused with how one is made (N-11).
            UntrustedError::Missing { .. } => TlogError::CheckpointInvalid(format!(
                "cannot read checkpoint: {e}: write one with `warden audit checkpoint > {}`",
                path.display()
            )),
            e => TlogError::CheckpointInvalid(format!("cannot read checkpoint: {e}")),
        },
    )?;
    if !text.trim_start().starts_with('{') {
        return Ok(CheckpointFile::Signed { note: text, chain: None });
    }
    let invalid = |e: String| {
        Failure::from(TlogError::CheckpointInvalid(format!(
            "`{}` is not a checkpoint (a signed note, `audit checkpoint --json`'s object, or {{\"seq\", \
             \"head_hash\"}}): {e}",
            path.display()
        )))
    };
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| invalid(e.to_string()))?;
    match value.get("note").and_then(serde_json::Value::as_str) {
        Some(note) => {
            let chain = match (value.get("seq"), value.get("head_hash")) {
                (Some(seq), Some(hash)) => Some(
                    serde_json::from_value(json!({"seq": seq, "head_hash": hash}))
                        .map_err(|e| invalid(e.to_string()))?,
                ),
                _ => None,
            };
            Ok(CheckpointFile::Signed { note: note.to_owned(), chain })
        }
        None => serde_json::from_value(value).map(CheckpointFile::Chain).map_err(|e| invalid(e.to_string())),
    }
}

fn root64(head: &TreeHead) -> String {
    head.to_text().lines().nth(2).unwrap_or_default().to_owned()
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
        None => {
            let warden = open(None)?;
            let head = warden.head().await?;
            let tree = TreeHead {
                origin: signer.name().to_owned(),
                size: head.seq,
                root: warden.tree_root(head.seq).await?,
            };
            if let Some(kept) = &kept {
                let proof = match kept.size <= tree.size {
                    true => warden.consistency_proof(kept.size, tree.size).await?,
                    false => Vec::new(),
                };
                agentwarden::tlog::check_extends(kept, &tree, &proof)?;
            }
            (tree, head.hash.to_string())
        }
    };
    let size = tree.size;
    let note = signer.sign_checkpoint(&tree)?.to_text();
    // Kept before it is printed: a note out is always the key's last.
    agentwarden::tlog::keep(&path, &note)?;
    if json {
        let object = json!({
            "origin": tree.origin, "size": tree.size, "root": root64(&tree),
            "seq": size, "head_hash": head_hash, "note": note,
        });
        writeln!(out, "{object}")?;
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

/// The signed checkpoint of `file`, checked against `verifier` when given, else only read.
fn signed_head(file: CheckpointFile, verifier: Option<&str>, what: &str) -> Result<TreeHead, Failure> {
    let CheckpointFile::Signed { note, .. } = file else {
        return Err(Failure::from(TlogError::CheckpointInvalid(format!(
            "{what} needs a signed checkpoint (`warden audit checkpoint`), not the unsigned {{\"seq\", \
             \"head_hash\"}}"
        ))));
    };
    match verifier {
        Some(key) => Ok(LogVerifier::parse(key)?.open_checkpoint(&note)?.1),
        None => {
            let read = parse_note(&note).map_err(|e| TlogError::CheckpointInvalid(e.to_string()))?;
            Ok(TreeHead::parse(&read.text).map_err(|e| TlogError::CheckpointInvalid(e.to_string()))?)
        }
    }
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
    let head = signed_head(read_checkpoint_file(checkpoint)?, verifier, "`audit prove`")?;
    let proof = match served {
        Some(served) => served.prove(seq, &head)?,
        None => open(None)?.prove_in(seq, &head).await?,
    };
    if json {
        let object = json!({
            "origin": head.origin, "size": head.size, "root": root64(&head), "seq": seq, "proof": proof.to_text(),
        });
        writeln!(out, "{object}")?;
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
    let file = read_checkpoint_file(checkpoint)?;
    let CheckpointFile::Signed { note, .. } = &file else {
        return Err(TlogError::CheckpointInvalid("a witness cosigns signed checkpoints only".into()).into());
    };
    let note = note.clone();
    let head = signed_head(file, verifier_key, "`audit witness-request`")?;
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
    write!(out, "{}", add_checkpoint_request(old, &proof, &note))?;
    Ok(EXIT_OK)
}

/// The configuration `verify --checkpoint` runs with, and the sealed policy it names,
/// checked against the checkpoint: a policy needs a signed one carrying its quorum.
pub(super) fn configured_policy(
    file: Option<&CheckpointFile>,
) -> Result<(agentwarden::Config, Option<WitnessPolicy>), Failure> {
    let config = agentwarden::Config::load(None).map_err(|e| Failure::usage(e.to_string()))?;
    let policy = WitnessPolicy::configured(&config)?;
    if let Some(policy) = &policy {
        let Some(CheckpointFile::Signed { note, .. }) = file else {
            return Err(TlogError::CheckpointInvalid(
                "the configuration's `[audit] witnesses` need a signed checkpoint, cosigned by them".into(),
            )
            .into());
        };
        policy.check(note)?;
    }
    Ok((config, policy))
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
    let warden = match open(Some(held.config)) {
        Ok(warden) => warden,
        Err(WardenError::Store(agentwarden_ports::StoreError::Corrupt { seq, why })) => {
            let broken = agentwarden_domain::audit::ChainBreak {
                seq,
                why: agentwarden_domain::audit::BreakKind::Unreadable { why },
            };
            return super::print_verification(&Verification::Broken(broken), json, out);
        }
        Err(e) => return Err(e.into()),
    };
    let chain_head = match warden.verify(chain).await? {
        Verification::Intact { head } => head,
        broken @ Verification::Broken(_) => return super::print_verification(&broken, json, out),
    };
    // A policy counts only as sealed; a configuration changed since the seal refuses.
    policy_in_force(&warden.configuration_seal().await?, held.has_policy)?;
    let checkpoint = json!({"origin": head.origin, "size": head.size, "root": root64(&head)});
    // The walk proved the chain; the kept tree is held to the events it walked before
    // its nodes prove the checkpoint's consistency.
    let checked = match warden.check_kept_tree(&[head.size.min(chain_head.seq), chain_head.seq]).await {
        Ok(()) => warden.check_checkpoint(&head).await,
        Err(e) => Err(e),
    };
    match checked {
        Ok(check) => {
            let new_root =
                TreeHead { origin: head.origin.clone(), size: check.new_size, root: check.new_root };
            if json {
                let object = json!({
                    "intact": true, "events": chain_head.seq, "head_hash": chain_head.hash,
                    "checkpoint": {"origin": head.origin, "size": head.size, "root": root64(&head),
                                   "consistent": true, "root_now": root64(&new_root)},
                });
                writeln!(out, "{object}")?;
            } else {
                writeln!(out, "intact: {} events, head {}", chain_head.seq, chain_head.hash)?;
                writeln!(
                    out,
                    "consistent: the log extends {}'s checkpoint of {} events (root now {})",
                    head.origin,
                    head.size,
                    root64(&new_root)
                )?;
            }
            Ok(EXIT_OK)
        }
        Err(e) => {
            if json {
                let mut checkpoint = checkpoint;
                if let Some(object) = checkpoint.as_object_mut() {
                    object.insert("consistent".into(), json!(false));
                    object.insert("code".into(), json!(e.code().as_str()));
                    object.insert("why".into(), json!(e.reason()));
                }
                let object = json!({"intact": false, "events": chain_head.seq, "checkpoint": checkpoint});
                writeln!(out, "{object}")?;
            }
            Err(e.into())
        }
    }
}

/// `--witness VKEY… --quorum K`: the signed checkpoint carries cosignatures by at least
/// K distinct given witness keys (all of them by default).
pub(super) fn witnessed(
    file: Option<&CheckpointFile>,
    witnesses: &[String],
    quorum: Option<usize>,
) -> Result<usize, Failure> {
    let Some(CheckpointFile::Signed { note, .. }) = file else {
        return Err(TlogError::CheckpointInvalid(
            "--witness needs a signed checkpoint (`warden audit checkpoint`, cosigned by witnesses)".into(),
        )
        .into());
    };
    let distinct = witnesses.iter().collect::<std::collections::BTreeSet<_>>().len();
    Ok(check_quorum(note, witnesses, quorum.unwrap_or(distinct))?)
}

/// `warden audit verify-proof`: an event, its proof and a checkpoint, with no store.
pub(super) fn verify_proof(
    proof: &Path,
    checkpoint: &Path,
    verifier_key: &str,
    json: bool,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    let text = agentwarden_adapters::untrusted::read_text(None, proof, MAX_PROOF_BYTES as u64)
        .map_err(|e| match e {
            UntrustedError::Missing { .. } => TlogError::ProofMalformed(format!(
                "cannot read the proof: {e}: write one with `warden audit prove --checkpoint CHECKPOINT SEQ > {}`",
                proof.display()
            )),
            e => TlogError::ProofMalformed(format!("cannot read the proof: {e}")),
        })?;
    let proof = InclusionProof::parse(&text).map_err(|e| TlogError::ProofMalformed(e.to_string()))?;
    let head = signed_head(read_checkpoint_file(checkpoint)?, Some(verifier_key), "`audit verify-proof`")?;
    proof.verify(&head).map_err(|e| TlogError::ProofInvalid(e.to_string()))?;
    let event_type = serde_json::from_str::<serde_json::Value>(&proof.event)
        .ok()
        .and_then(|v| v.get("event_type").and_then(|t| t.as_str().map(str::to_owned)))
        .unwrap_or_else(|| "-".into());
    if json {
        let object = json!({
            "valid": true, "seq": proof.seq, "event_type": event_type,
            "origin": head.origin, "size": head.size, "root": root64(&head),
        });
        writeln!(out, "{object}")?;
    } else {
        writeln!(
            out,
            "valid: event {} ({event_type}) is in {}'s log of {} events (root {})",
            proof.seq,
            head.origin,
            head.size,
            root64(&head)
        )?;
    }
    Ok(EXIT_OK)
}
