//! What `warden audit verify | checkpoint | prove | verify-proof` print (issue 37): the chain's
//! verdict, a signed checkpoint and an inclusion proof with the tree they are in, and a log's
//! consistency with a checkpoint, in text or as the JSON objects `--json` prints. A break or an
//! inconsistency is the command line's failure (its line on stderr, exit 1); here, only what
//! `--json` prints of it on stdout.

use std::io::{Result, Write};

use agentwarden::Verification;
use agentwarden::audit::Head;
use agentwarden::tlog::{ProvenEvent, TlogError, TreeHead, root64};

/// `audit checkpoint --json`: the tree signed, the chain's head hash and the note.
pub fn checkpoint_json(tree: &TreeHead, head_hash: &str, note: &str) -> serde_json::Value {
    serde_json::json!({
        "origin": tree.origin, "size": tree.size, "root": root64(tree),
        "seq": tree.size, "head_hash": head_hash, "note": note,
    })
}

/// `audit prove --json`: the checkpoint's tree, the event and the proof's text.
pub fn prove_json(head: &TreeHead, seq: u64, proof: &str) -> serde_json::Value {
    serde_json::json!({
        "origin": head.origin, "size": head.size, "root": root64(head), "seq": seq, "proof": proof,
    })
}

/// `audit verify`'s verdict on the chain: `intact` with its head, in text or JSON; a break is
/// printed only with `--json` (its line is the command's failure).
pub fn verification(verification: &Verification, json: bool, out: &mut dyn Write) -> Result<()> {
    match verification {
        Verification::Intact { head } => {
            if json {
                writeln!(
                    out,
                    "{}",
                    serde_json::json!({"intact": true, "events": head.seq, "head_hash": head.hash})
                )
            } else {
                writeln!(out, "intact: {} events, head {}", head.seq, head.hash)
            }
        }
        Verification::Broken(broken) if json => {
            let object =
                serde_json::json!({"intact": false, "seq": broken.seq, "why": broken.why.to_string()});
            writeln!(out, "{object}")
        }
        Verification::Broken(_) => Ok(()),
    }
}

/// `audit verify --checkpoint` when the log extends the signed checkpoint `head`: the chain
/// intact, and the tree `now`.
pub fn consistent(
    chain: &Head,
    head: &TreeHead,
    now: &TreeHead,
    json: bool,
    out: &mut dyn Write,
) -> Result<()> {
    if json {
        let object = serde_json::json!({
            "intact": true, "events": chain.seq, "head_hash": chain.hash,
            "checkpoint": {"origin": head.origin, "size": head.size, "root": root64(head),
                           "consistent": true, "root_now": root64(now)},
        });
        writeln!(out, "{object}")
    } else {
        writeln!(out, "intact: {} events, head {}", chain.seq, chain.hash)?;
        writeln!(
            out,
            "consistent: the log extends {}'s checkpoint of {} events (root now {})",
            head.origin,
            head.size,
            root64(now)
        )
    }
}

/// `audit verify --checkpoint --json` when the log does not extend `head`, and why.
pub fn inconsistent_json(chain: &Head, head: &TreeHead, why: &TlogError) -> serde_json::Value {
    let checkpoint = serde_json::json!({
        "origin": head.origin, "size": head.size, "root": root64(head),
        "consistent": false, "code": why.code().as_str(), "why": why.reason(),
    });
    serde_json::json!({"intact": false, "events": chain.seq, "checkpoint": checkpoint})
}

/// `audit verify-proof`'s verdict: the event is in the checkpoint's log.
pub fn proven(proven: &ProvenEvent, json: bool, out: &mut dyn Write) -> Result<()> {
    let ProvenEvent { proof, event_type, head } = proven;
    if json {
        let object = serde_json::json!({
            "valid": true, "seq": proof.seq, "event_type": event_type,
            "origin": head.origin, "size": head.size, "root": root64(head),
        });
        writeln!(out, "{object}")
    } else {
        writeln!(
            out,
            "valid: event {} ({event_type}) is in {}'s log of {} events (root {})",
            proof.seq,
            head.origin,
            head.size,
            root64(head)
        )
    }
}
