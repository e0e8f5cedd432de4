//! The witness of `warden witness`: a witness of other logs, run as another user or on another host. It
//! keeps, per log, the last checkpoint it cosigned in its state directory, and cosigns a new one
//! only when the consistency proof from that one holds; it refuses a rollback and a fork and
//! says which. One invocation at a time holds the state directory (an exclusive lock), and the
//! new checkpoint is stored before the cosignature is printed.

mod http;

use std::io::Read;
use std::path::{Path, PathBuf};

use agentwarden::files::{self, UntrustedError};
use agentwarden::tlog::{Cosigner, LogVerifier, TlogError, Witness, WitnessVerdict, parse_add_checkpoint};
use agentwarden::tlog::{MAX_NOTE_BYTES, MAX_PROOF_BYTES, MerkleHash, Note};

pub use http::{Listening, Witnessing, listen};

/// An `add-checkpoint` request from `path`, or stdin when `None`: at most 4 MiB of
/// UTF-8.
pub fn read_request(path: Option<&Path>) -> Result<String, TlogError> {
    let max = MAX_PROOF_BYTES as u64;
    let malformed = |why: String| TlogError::ProofMalformed(format!("cannot read the request: {why}"));
    match path {
        Some(path) => files::read_text(None, path, max).map_err(|e| malformed(e.to_string())),
        None => {
            let mut bytes = Vec::new();
            std::io::stdin()
                .lock()
                .take(max + 1)
                .read_to_end(&mut bytes)
                .map_err(|e| malformed(e.to_string()))?;
            if bytes.len() as u64 > max {
                return Err(malformed("over 4 MiB".into()));
            }
            String::from_utf8(bytes).map_err(|_| malformed("not UTF-8".into()))
        }
    }
}

/// Why the witness did not cosign: the log's request, or its own state.
#[derive(Debug)]
pub enum Refused {
    /// The request: not signed, a rollback, a fork, a conflict, malformed.
    Tlog(TlogError),
    /// The witness's state directory cannot be used.
    State(String),
}

impl From<TlogError> for Refused {
    fn from(e: TlogError) -> Self {
        Refused::Tlog(e)
    }
}

/// The size of the last checkpoint the witness in `state` cosigned for `log` (0: none).
pub fn last_size(log: &LogVerifier, state: &Path) -> Result<u64, Refused> {
    Ok(last_checkpoint(log, state)?.map_or(0, |head| head.size))
}

fn state_file(log: &LogVerifier, state: &Path) -> PathBuf {
    // One file per log, named by the hash of its key.
    state.join(format!("{}.checkpoint", MerkleHash::leaf(log.to_text().as_bytes()).to_hex()))
}

fn last_checkpoint(log: &LogVerifier, state: &Path) -> Result<Option<agentwarden::tlog::TreeHead>, Refused> {
    let file = state_file(log, state);
    match files::read_text(None, &file, MAX_NOTE_BYTES as u64) {
        Ok(text) => Ok(Some(
            log.open_checkpoint(&text)
                .map_err(|e| {
                    TlogError::CheckpointInvalid(format!(
                        "the witness's last checkpoint `{}` does not verify ({e}): refusing to cosign anything",
                        file.display()
                    ))
                })?
                .1,
        )),
        Err(UntrustedError::Missing { .. }) => Ok(None),
        Err(e) => Err(Refused::State(format!("the witness's state `{}`: {e}", state.display()))),
    }
}

/// `add-checkpoint` on the witness's state directory: under its exclusive lock, the
/// request checked against the last checkpoint cosigned for `log`, the new one stored, then its
/// cosignature line returned.
pub fn cosign(cosigner: &Cosigner, log: &LogVerifier, state: &Path, body: &str) -> Result<String, Refused> {
    let (old, proof, note) = parse_add_checkpoint(body)?;
    let state_error =
        |why: String| Refused::State(format!("the witness's state `{}`: {why}", state.display()));
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(state)
        .map_err(|e| state_error(e.to_string()))?;
    // By descriptor; a link or FIFO planted at the lock's name is refused, never
    // followed or waited on (U-1, U-3).
    let lock =
        files::open_for_write(&state.join(".lock"), 0o600, false).map_err(|e| state_error(e.to_string()))?;
    rustix::fs::flock(&lock, rustix::fs::FlockOperation::LockExclusive)
        .map_err(|e| state_error(e.to_string()))?;
    let last = last_checkpoint(log, state)?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_err(|e| state_error(format!("the clock is before 1970: {e}")))?
        .as_secs();
    let WitnessVerdict::Cosigned { cosignature, .. } =
        Witness::new(log.clone(), last).add_checkpoint(old, &proof, &note, cosigner, now)?;
    files::write_atomic(None, &state_file(log, state), note.as_bytes(), 0o600)
        .map_err(|e| state_error(e.to_string()))?;
    let line = Note { text: String::new(), signatures: vec![cosignature] }.to_text();
    Ok(line.trim_start_matches('\n').to_owned())
}
