//! `warden audit log`'s and `audit show`'s events as a human or a script reads them: one JSON
//! object per line, the pretty JSON of one event, or a row of the table.

use std::io::Write;

use agentwarden_domain::audit::Envelope;

/// One event as one line of JSON, or why it cannot be printed.
pub fn to_json(envelope: &Envelope) -> Result<String, String> {
    serde_json::to_string(envelope).map_err(|e| format!("cannot print event {}: {e}", envelope.seq))
}

/// One event as indented JSON, or why it cannot be printed.
pub fn pretty(envelope: &Envelope) -> Result<String, String> {
    serde_json::to_string_pretty(envelope).map_err(|e| format!("cannot print event {}: {e}", envelope.seq))
}

/// One event as a row of the table: seq, time, actor, type, decision, session, hash.
pub fn write_row(e: &Envelope, out: &mut dyn Write) -> std::io::Result<()> {
    let decision = serde_json::from_str::<serde_json::Value>(e.payload.get())
        .ok()
        .and_then(|p| {
            // `tool_call_authorized` keeps its decision inside the authorization.
            let decision =
                p.get("decision").or_else(|| p.get("authorization").and_then(|a| a.get("decision")));
            decision.and_then(|d| d.as_str().map(str::to_owned))
        })
        .unwrap_or_else(|| "-".into());
    let hash = e.hash.to_string();
    writeln!(
        out,
        "{:>6}  {:<24}  {:<10}  {:<24}  {:<8}  {:<16}  {}",
        e.seq,
        e.recorded_at.to_string(),
        e.actor,
        e.event_type,
        decision,
        e.session.as_deref().unwrap_or("-"),
        hash.get(..12).unwrap_or(&hash),
    )
}
