//! The last checkpoint a log key signed, kept beside the key, for every signer: `warden
//! audit checkpoint --key K` and the server signing with `[server] log_key`.
//!
//! A key signs a tree only after a consistency proof from the last checkpoint that signer kept.
//! The note it signed last lies in `K.checkpoint` (written by descriptor through a random
//! `O_EXCL` temporary name in the same directory, synced, then renamed: a link or FIFO planted at
//! that name is replaced, never followed, U-4). Before a new tree is signed, that note is read
//! (it must verify under K: a note another key signed, or one that does not read, refuses), the
//! RFC 6962 consistency proof from its size to the new tree's is obtained and verified against
//! both roots. A smaller tree, the same size with another root, a proof that is missing,
//! malformed or does not hold: nothing is signed (`checkpoint_inconsistent`). So one key never
//! signs two trees of which one does not extend the other — the fork a witness would cosign —
//! whoever reported them. Without `K.checkpoint` the tree is signed as the key's first.

use std::path::{Path, PathBuf};

use agentwarden_adapters::untrusted::{self, UntrustedError};
use agentwarden_domain::audit::merkle::{MerkleHash, verify_consistency};
use agentwarden_domain::audit::note::{MAX_NOTE_BYTES, TreeHead};

use super::{LogSigner, TlogError};

/// Where the last checkpoint of the key at `key` is kept: `KEY.checkpoint`, beside it.
pub fn kept_path(key: &Path) -> PathBuf {
    let mut name = key.file_name().map(std::ffi::OsStr::to_os_string).unwrap_or_default();
    name.push(".checkpoint");
    key.with_file_name(name)
}

/// The last checkpoint `signer` (the key at `key`) signed, or `None` when it never kept one.
pub fn read_kept(key: &Path, signer: &LogSigner) -> Result<Option<TreeHead>, TlogError> {
    let kept = kept_path(key);
    let text = match untrusted::read_text(None, &kept, MAX_NOTE_BYTES as u64) {
        Ok(text) => text,
        Err(UntrustedError::Missing { .. }) => return Ok(None),
        Err(e) => {
            return Err(TlogError::CheckpointInvalid(format!(
                "cannot read the key's last checkpoint `{}`: {e}",
                kept.display()
            )));
        }
    };
    let (_, head) = signer.verifier().open_checkpoint(&text).map_err(|e| {
        TlogError::CheckpointInvalid(format!(
            "`{}` is not a checkpoint this key signed ({}): the key's history cannot be followed, so nothing \
             is signed (A-44)",
            kept.display(),
            e.reason()
        ))
    })?;
    Ok(Some(head))
}

/// Whether `new` extends `kept` by `proof`: never a smaller tree, never the same size
/// with another root, and the proof from `kept` to `new` holds against both roots.
pub fn check_extends(kept: &TreeHead, new: &TreeHead, proof: &[MerkleHash]) -> Result<(), TlogError> {
    let refuse = |why: String| {
        TlogError::Inconsistent(format!(
            "this key last signed a checkpoint of {} events (root {}); {why}: nothing is signed (A-44)",
            kept.size,
            kept.root.to_base64()
        ))
    };
    if new.size < kept.size {
        return Err(refuse(format!("the log now reports {} events: a rollback", new.size)));
    }
    verify_consistency(kept.size, new.size, &kept.root, &new.root, proof).map_err(|e| {
        refuse(format!(
            "the tree of {} events (root {}) does not extend it ({e})",
            new.size,
            new.root.to_base64()
        ))
    })
}

/// Keeps `note`, the checkpoint just signed by the key at `key`, as its last.
pub fn keep(key: &Path, note: &str) -> Result<(), TlogError> {
    let kept = kept_path(key);
    untrusted::write_atomic(None, &kept, note.as_bytes(), 0o600).map_err(|e| {
        TlogError::KeyUnusable(format!("cannot keep the signed checkpoint in `{}`: {e}", kept.display()))
    })
}

#[cfg(test)]
mod tests {
    use agentwarden_domain::audit::merkle::Frontier;

    use super::*;

    fn root(leaves: &[&str]) -> MerkleHash {
        let mut frontier = Frontier::new();
        for leaf in leaves {
            frontier.append(MerkleHash::leaf(leaf.as_bytes()));
        }
        frontier.root()
    }

    fn head(size: u64, root: MerkleHash) -> TreeHead {
        TreeHead { origin: "example.com/log".into(), size, root }
    }

    #[test]
    fn the_kept_checkpoint_lies_beside_the_key() {
        assert_eq!(kept_path(Path::new("/k/log.key")), PathBuf::from("/k/log.key.checkpoint"));
        assert_eq!(kept_path(Path::new("log.key")), PathBuf::from("log.key.checkpoint"));
    }

    /// (new tree, proof, why it is refused)
    #[test]
    fn a_tree_that_does_not_extend_the_kept_one_is_refused() {
        let two = root(&["a", "b"]);
        let seven_forged = root(&["x", "y", "c", "d", "e", "f", "g"]);
        let kept = head(2, two);
        for (new, proof, why) in [
            (head(1, root(&["a"])), vec![], "a rollback"),
            (head(2, root(&["a", "z"])), vec![], "the same size, another root"),
            (head(7, seven_forged), vec![], "no proof"),
            (head(7, seven_forged), vec![two; 3], "a proof that does not hold"),
        ] {
            let refused = check_extends(&kept, &new, &proof).unwrap_err();
            assert!(matches!(refused, TlogError::Inconsistent(_)), "{why}");
            assert!(refused.reason().contains("A-44"), "{why}: {}", refused.reason());
        }
        assert!(check_extends(&kept, &head(2, two), &[]).is_ok(), "the same tree");
    }
}
