//! A quorum of witnesses: a checkpoint counts as witnessed when at least `K` distinct
//! witness keys the verifier names cosigned it (C2SP `tlog-cosignature` v1).
//!
//! only the keys given count; a cosignature line by any other key — however well formed,
//! whatever name it claims — is ignored, and one key cosigning twice counts once. A line that
//! names a given key (its name and key id) but does not verify refuses the checkpoint
//! (`checkpoint_signature_invalid`), as A-32 does for the log's own lines: a checkpoint carrying
//! a forged cosignature is not half believed. `K` is from 1 to the number of distinct keys.

use std::collections::BTreeSet;

use agentwarden_domain::audit::note::{key_id, parse_note, parse_verifier_key};

use super::TlogError;
use super::witness::{COSIGNATURE, verify_cosignature};

/// Checks that the signed checkpoint `note` carries cosignatures by at least `quorum` distinct
/// keys of `witnesses` (verifier keys `NAME+ID+KEY` of type 0x04); how many cosigned.
pub fn check_quorum(note: &str, witnesses: &[String], quorum: usize) -> Result<usize, TlogError> {
    let invalid = |why: String| TlogError::CheckpointInvalid(why);
    let mut keys = BTreeSet::new();
    for vkey in witnesses {
        let (name, kind, public) =
            parse_verifier_key(vkey).map_err(|e| invalid(format!("the witness key: {e}")))?;
        if kind != COSIGNATURE {
            return Err(invalid(format!(
                "the witness key `{name}` is of type {kind:#04x}, not a cosignature key"
            )));
        }
        keys.insert((name.clone(), key_id(&name, kind, &public), vkey.clone()));
    }
    if quorum == 0 || quorum > keys.len() {
        return Err(invalid(format!("a quorum of {quorum} among {} distinct witness keys", keys.len())));
    }
    let read = parse_note(note).map_err(|e| invalid(e.to_string()))?;
    let mut cosigned = 0;
    for (name, id, vkey) in &keys {
        let mut lines = read.signatures_by(name, *id).peekable();
        if lines.peek().is_none() {
            continue;
        }
        for line in lines {
            verify_cosignature(vkey, &read.text, line)?;
        }
        cosigned += 1;
    }
    if cosigned < quorum {
        return Err(TlogError::QuorumUnmet(format!(
            "{cosigned} of the {} witness keys given cosigned the checkpoint; {quorum} must",
            keys.len()
        )));
    }
    Ok(cosigned)
}

#[cfg(test)]
mod tests {
    use agentwarden_domain::audit::note::Note;

    use super::*;
    use crate::tlog::{Cosigner, LogSigner};
    use agentwarden_domain::audit::merkle::MerkleHash;
    use agentwarden_domain::audit::note::TreeHead;

    fn cosigned(by: &[&Cosigner]) -> String {
        let signer = LogSigner::from_seed("log.example/a", [1; 32]).unwrap();
        let head = TreeHead { origin: "log.example/a".into(), size: 3, root: MerkleHash::leaf(b"x") };
        let mut note = signer.sign_checkpoint(&head).unwrap();
        for cosigner in by {
            note.signatures.push(cosigner.cosign(&head.to_text(), 1_700_000_000));
        }
        note.to_text()
    }

    /// What counts toward a quorum and what refuses the checkpoint (A-38, as a table).
    #[test]
    fn only_distinct_given_keys_that_verify_count() {
        let w = |i: u8| Cosigner::from_seed(&format!("witness.example/w{i}"), [i; 32]).unwrap();
        let (a, b, c) = (w(1), w(2), w(3));
        // Another key that claims a's name: its key id differs, so it names no given key.
        let impostor = Cosigner::from_seed("witness.example/w1", [9; 32]).unwrap();
        let keys = |ws: &[&Cosigner]| ws.iter().map(|w| w.verifier()).collect::<Vec<_>>();
        let code = |r: Result<usize, TlogError>| r.map_err(|e| e.code().as_str().to_owned());
        for (note, given, quorum, expected, why) in [
            (cosigned(&[&a, &b]), keys(&[&a, &b, &c]), 2, Ok(2), "two of three, two needed"),
            (cosigned(&[&a]), keys(&[&a, &b]), 2, Err("witness_quorum_unmet"), "one of two, two needed"),
            (
                cosigned(&[&a, &a]),
                keys(&[&a, &b]),
                2,
                Err("witness_quorum_unmet"),
                "one key twice counts once",
            ),
            (
                cosigned(&[&a, &c]),
                keys(&[&a, &b]),
                2,
                Err("witness_quorum_unmet"),
                "an unconfigured key does not count",
            ),
            (
                cosigned(&[&impostor, &b]),
                keys(&[&a, &b]),
                2,
                Err("witness_quorum_unmet"),
                "another key under a given name",
            ),
            (
                cosigned(&[&a, &b]),
                keys(&[&a, &a, &b]),
                3,
                Err("checkpoint_invalid"),
                "a key given twice is one key",
            ),
            (cosigned(&[&a]), keys(&[&a]), 0, Err("checkpoint_invalid"), "a quorum of none"),
            (cosigned(&[]), keys(&[&a]), 1, Err("witness_quorum_unmet"), "no cosignature at all"),
        ] {
            assert_eq!(code(check_quorum(&note, &given, quorum)), expected.map_err(str::to_owned), "{why}");
        }
        // A line under a given key whose signature was altered refuses the checkpoint.
        let mut forged = parse_note_text(&cosigned(&[&a, &b]));
        if let Some(last) = forged.signatures.last_mut().and_then(|s| s.signature.last_mut()) {
            *last ^= 1;
        }
        assert_eq!(
            code(check_quorum(&forged.to_text(), &keys(&[&a, &b]), 1)),
            Err("checkpoint_signature_invalid".to_owned())
        );
        let log_key = LogSigner::from_seed("log.example/a", [1; 32]).unwrap().verifier().to_text();
        assert_eq!(code(check_quorum(&cosigned(&[&a]), &[log_key], 1)), Err("checkpoint_invalid".to_owned()));
    }

    fn parse_note_text(text: &str) -> Note {
        parse_note(text).unwrap()
    }
}
