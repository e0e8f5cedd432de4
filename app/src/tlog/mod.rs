//! A log nobody can quietly rewrite (issue 37): signed checkpoints of the Merkle tree over the
//! audit log, inclusion and consistency proofs against them, and a witness that cosigns a
//! checkpoint only when the log it saw last extends to it.
//!
//! The formats are the transparency logs' (C2SP `signed-note`, `tlog-checkpoint`,
//! `tlog-cosignature`; RFC 6962 hashing), so their tools read what Warden writes. The tree and
//! the note format are the domain's ([`agentwarden_domain::audit::merkle`],
//! [`agentwarden_domain::audit::note`]); here are the key, what is read from the store, and the
//! witness's state. A witness above the facade reads a note, a tree head and a proof's bounds
//! here too, not in the domain.

mod files;
mod kept;
mod key;
mod log;
mod policy;
mod quorum;
mod witness;

use agentwarden_domain::code::Code;

pub use agentwarden_domain::audit::merkle::MerkleHash;
pub use agentwarden_domain::audit::note::{MAX_NOTE_BYTES, Note, TreeHead, parse_note};
pub use agentwarden_domain::audit::proof::{InclusionProof, MAX_PROOF_BYTES};
pub use files::{
    CheckpointFile, Consistency, ProvenEvent, configured_policy, root64, sign_and_keep, verify_proof_file,
    witnessed,
};
pub use kept::{check_extends, keep, kept_path, read_kept};
pub use key::{LogSigner, LogVerifier, MAX_KEY_BYTES, default_key_path, write_new_key};
pub use log::CheckpointCheck;
pub use policy::{ConfigSeal, WitnessPolicy, policy_in_force};
pub use quorum::check_quorum;
pub use witness::{
    COSIGNATURE, Cosigner, Witness, WitnessVerdict, add_checkpoint_request, parse_add_checkpoint,
    verify_cosignature,
};

use crate::WardenError;

/// Why a key, a checkpoint or a proof is refused; each has its code, given by
/// [`TlogError::code`] beside the message, which holds none.
#[derive(Debug, thiserror::Error)]
pub enum TlogError {
    /// The log's (or a witness's) signing key cannot be used.
    #[error("{0}")]
    KeyUnusable(String),
    /// The checkpoint, or the verifier key, is not well formed.
    #[error("{0}")]
    CheckpointInvalid(String),
    /// The checkpoint is not signed by the verifier key for its log.
    #[error("{0}")]
    SignatureInvalid(String),
    /// The log does not extend the checkpoint.
    #[error("{0}")]
    Inconsistent(String),
    /// The inclusion proof is not well formed.
    #[error("{0}")]
    ProofMalformed(String),
    /// The inclusion proof does not hold.
    #[error("{0}")]
    ProofInvalid(String),
    /// A witness refused a smaller tree than the last it cosigned.
    #[error("{0}")]
    WitnessRollback(String),
    /// A witness refused a tree that does not extend the last it cosigned.
    #[error("{0}")]
    WitnessFork(String),
    /// A witness's last checkpoint is not of the size the request's proof starts from.
    #[error("{0}")]
    WitnessConflict(String),
    /// Fewer distinct witness keys than the quorum cosigned the checkpoint.
    #[error("{0}")]
    QuorumUnmet(String),
    /// The configuration's witness policy cannot be used.
    #[error("{0}")]
    PolicyInvalid(String),
    /// The configuration's witness policy is not the one sealed.
    #[error("{0}")]
    PolicyUnsealed(String),
    /// The store failed.
    #[error(transparent)]
    Warden(#[from] WardenError),
}

impl TlogError {
    /// The reason's code.
    pub fn code(&self) -> Code {
        match self {
            TlogError::KeyUnusable(_) => Code::LogKeyUnusable,
            TlogError::CheckpointInvalid(_) => Code::CheckpointInvalid,
            TlogError::SignatureInvalid(_) => Code::CheckpointSignatureInvalid,
            TlogError::Inconsistent(_) => Code::CheckpointInconsistent,
            TlogError::ProofMalformed(_) => Code::ProofMalformed,
            TlogError::ProofInvalid(_) => Code::ProofInvalid,
            TlogError::WitnessRollback(_) => Code::WitnessRollback,
            TlogError::WitnessFork(_) => Code::WitnessFork,
            TlogError::WitnessConflict(_) => Code::WitnessConflict,
            TlogError::QuorumUnmet(_) => Code::WitnessQuorumUnmet,
            TlogError::PolicyInvalid(_) => Code::WitnessPolicyInvalid,
            TlogError::PolicyUnsealed(_) => Code::WitnessPolicyUnsealed,
            TlogError::Warden(e) => e.code(),
        }
    }

    /// The reason without its code.
    pub fn reason(&self) -> String {
        match self {
            TlogError::KeyUnusable(why)
            | TlogError::CheckpointInvalid(why)
            | TlogError::SignatureInvalid(why)
            | TlogError::Inconsistent(why)
            | TlogError::ProofMalformed(why)
            | TlogError::ProofInvalid(why)
            | TlogError::WitnessRollback(why)
            | TlogError::WitnessFork(why)
            | TlogError::WitnessConflict(why)
            | TlogError::QuorumUnmet(why)
            | TlogError::PolicyInvalid(why)
            | TlogError::PolicyUnsealed(why) => why.clone(),
            TlogError::Warden(e) => e.to_string(),
        }
    }
}
