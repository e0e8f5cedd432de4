//! What `warden status` prints of a server that answers: its process, store and head, its
//! uptime and requests, its span export with what it dropped (V-61), and each witness with its
//! last failure, never hidden; in text, or the one JSON object `--json` prints. What it
//! shows was masked by the protocol's client already.

use std::io::{Result, Write};
use std::path::Path;

use agentwarden_protocol::ServerStatus;

/// The server at `socket`'s status, in text or as one JSON object.
pub fn status(socket: &Path, status: ServerStatus, json: bool, out: &mut dyn Write) -> Result<()> {
    let ServerStatus { pid, store, head_seq, head_hash, uptime_ms, requests_served, export, witnesses } =
        status;
    if json {
        let object = serde_json::json!({
            "answering": true, "socket": socket, "pid": pid, "store": store,
            "head": {"seq": head_seq, "hash": head_hash}, "uptime_ms": uptime_ms,
            "requests_served": requests_served, "export": export,
            "witnesses": witnesses,
        });
        return writeln!(out, "{object}");
    }
    writeln!(out, "server at {} answers (pid {pid})", socket.display())?;
    writeln!(out, "store: {store}, head seq {head_seq} ({head_hash})")?;
    writeln!(out, "uptime: {} s, requests served: {requests_served}", uptime_ms / 1000)?;
    // The spans dropped are counted and shown (V-61).
    match export {
        None => writeln!(out, "export: off")?,
        Some(e) => {
            let failing = e.last_error.map(|why| format!("; last export failed: {why}")).unwrap_or_default();
            writeln!(
                out,
                "export: spans to {}: {} exported, {} dropped, {} queued{failing}",
                e.endpoint, e.exported, e.dropped, e.queued
            )?;
        }
    }
    // A witness that failed is shown, never hidden.
    for w in witnesses.unwrap_or_default() {
        let cosigned = w.cosigned.map_or_else(|| "nothing yet".to_owned(), |n| format!("{n} events"));
        let failing = w.last_error.map(|why| format!("; last submission failed: {why}")).unwrap_or_default();
        writeln!(out, "witness {}: cosigned {cosigned}{failing}", w.url)?;
    }
    Ok(())
}
