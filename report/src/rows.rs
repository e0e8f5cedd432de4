//! `warden audit log`'s and `audit show`'s events as a human or a script reads them: one JSON
//! object per line, the pretty JSON of one event, or a row of the table; and `audit log`'s walk.

use std::io::Write;

use agentwarden::audit::Envelope;
use agentwarden::{Warden, WardenError};

use crate::filter::Filter;

/// Why `audit log` stopped listing.
#[derive(Debug)]
pub enum ListError {
    /// An event that cannot be read or printed: the log needs verifying.
    Unreadable(String),
    /// The store failed.
    Warden(WardenError),
    /// The output failed.
    Io(std::io::Error),
}

impl From<WardenError> for ListError {
    fn from(e: WardenError) -> Self {
        ListError::Warden(e)
    }
}

impl From<std::io::Error> for ListError {
    fn from(e: std::io::Error) -> Self {
        ListError::Io(e)
    }
}

/// `audit export --format jsonl`: the whole log, one envelope a line.
pub async fn export(warden: &Warden, out: &mut dyn Write) -> Result<(), ListError> {
    let mut pages = warden.pages(1, None);
    while let Some(page) = pages.next_page().await.map_err(WardenError::from)? {
        for record in &page {
            let envelope = Envelope::parse(record).map_err(|e| ListError::Unreadable(e.to_string()))?;
            writeln!(out, "{}", to_json(&envelope).map_err(|e| ListError::Unreadable(e.to_string()))?)?;
        }
    }
    Ok(())
}

/// `audit stats`: the counts by type and by decision, as text.
pub fn write_stats(stats: &agentwarden::Stats, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(out, "events: {}", stats.events)?;
    writeln!(out, "by type:")?;
    for (event_type, n) in &stats.by_type {
        writeln!(out, "  {event_type:<28} {n:>10}")?;
    }
    writeln!(out, "by decision:")?;
    for (decision, n) in &stats.by_decision {
        writeln!(out, "  {decision:<28} {n:>10}")?;
    }
    Ok(())
}

/// The table's header, above [`write_row`]'s rows.
pub fn write_header(out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(
        out,
        "{:>6}  {:<24}  {:<10}  {:<24}  {:<8}  {:<16}  HASH",
        "SEQ", "RECORDED_AT", "ACTOR", "TYPE", "DECISION", "SESSION"
    )
}

/// `audit log`: the events from seq `from` that `filter` keeps, at most `limit` of them, each a
/// row of the table or a line of JSON, read a page at a time; `progress` hears the last seq of
/// each page read.
pub async fn list(
    warden: &Warden,
    (from, limit): (u64, Option<u64>),
    filter: &Filter,
    json: bool,
    progress: &mut dyn FnMut(u64),
    out: &mut dyn Write,
) -> Result<(), ListError> {
    let mut remaining = limit.unwrap_or(u64::MAX);
    let mut pages = warden.pages(from, None);
    while remaining > 0 {
        let Some(page) = pages.next_page().await.map_err(WardenError::from)? else { break };
        for record in &page {
            let envelope = Envelope::parse(record)
                .map_err(|e| ListError::Unreadable(format!("{e} (run `warden audit verify`)")))?;
            if remaining == 0 || !filter.matches(&envelope)? {
                continue;
            }
            remaining -= 1;
            if json {
                writeln!(out, "{}", to_json(&envelope).map_err(|e| ListError::Unreadable(e.to_string()))?)?;
            } else {
                write_row(&envelope, out)?;
            }
        }
        if let Some(last) = page.last() {
            progress(last.seq);
        }
    }
    Ok(())
}

/// Why an event cannot be printed as JSON.
#[derive(Debug, thiserror::Error)]
#[error("cannot print event {seq}: {source}")]
pub struct PrintError {
    /// The event's place in the log.
    pub seq: u64,
    source: serde_json::Error,
}

/// One event as one line of JSON, or why it cannot be printed.
pub fn to_json(envelope: &Envelope) -> Result<String, PrintError> {
    serde_json::to_string(envelope).map_err(|source| PrintError { seq: envelope.seq, source })
}

/// One event as indented JSON, or why it cannot be printed.
pub fn pretty(envelope: &Envelope) -> Result<String, PrintError> {
    serde_json::to_string_pretty(envelope).map_err(|source| PrintError { seq: envelope.seq, source })
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
