//! Reading the audit log back: streaming pages, verification (with an optional checkpoint),
//! checkpoints, and counts. Every walk reads fixed-size pages, so memory stays flat however
//! long the log is.

use std::collections::BTreeMap;
use std::sync::Arc;

use agentwarden_domain::audit::{ChainBreak, ChainVerifier, Checkpoint, Envelope, Head, StoredRecord};
use agentwarden_ports::{EventStore, StoreError};
use serde::Serialize;

use crate::warden::{Warden, WardenError};

/// How many records a walk reads at a time.
const PAGE: usize = 1024;

/// Reads a log in order, a page at a time.
pub struct Pages {
    store: Arc<dyn EventStore>,
    next: u64,
    remaining: u64,
    done: bool,
}

impl std::fmt::Debug for Pages {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pages").field("next", &self.next).field("remaining", &self.remaining).finish()
    }
}

impl Pages {
    /// The next page, or `None` at the end of the log (or of the limit).
    pub async fn next_page(&mut self) -> Result<Option<Vec<StoredRecord>>, StoreError> {
        if self.done || self.remaining == 0 {
            return Ok(None);
        }
        let want = usize::try_from(self.remaining).unwrap_or(PAGE).min(PAGE);
        let page = self.store.read(self.next, want).await?;
        match page.last() {
            None => {
                self.done = true;
                Ok(None)
            }
            Some(last) => {
                self.next = last.seq.saturating_add(1);
                self.remaining = self.remaining.saturating_sub(page.len() as u64);
                self.done = page.len() < want;
                Ok(Some(page))
            }
        }
    }
}

/// The answer of [`Warden::verify`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verification {
    /// Every event verifies (and the checkpoint, if one was given, is in the log).
    Intact {
        /// The verified head.
        head: Head,
    },
    /// The first place the chain breaks.
    Broken(ChainBreak),
}

impl Verification {
    /// True if nothing is broken.
    pub fn is_intact(&self) -> bool {
        matches!(self, Verification::Intact { .. })
    }
}

/// Counts over the whole log.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Stats {
    /// How many events.
    pub events: u64,
    /// Events per `event_type`.
    pub by_type: BTreeMap<String, u64>,
    /// Events per payload `decision` (events without one are not counted here).
    pub by_decision: BTreeMap<String, u64>,
}

#[derive(serde::Deserialize)]
struct DecisionOnly {
    decision: Option<serde_json::Value>,
}

impl Warden {
    /// Reads the log from `from` (inclusive), at most `limit` records.
    pub fn pages(&self, from: u64, limit: Option<u64>) -> Pages {
        Pages {
            store: self.store.clone(),
            next: from.max(1),
            remaining: limit.unwrap_or(u64::MAX),
            done: false,
        }
    }

    /// The current head.
    pub async fn head(&self) -> Result<Head, WardenError> {
        Ok(self.store.head().await?)
    }

    /// The current head as a checkpoint, to be kept outside the log.
    pub async fn checkpoint(&self) -> Result<Checkpoint, WardenError> {
        let head = self.store.head().await?;
        Ok(Checkpoint { seq: head.seq, head_hash: head.hash })
    }

    /// Walks the whole log and checks the hash chain, and `checkpoint` if given. A store error
    /// is an error, not a verdict.
    pub async fn verify(&self, checkpoint: Option<Checkpoint>) -> Result<Verification, WardenError> {
        let mut verifier = checkpoint.map_or_else(ChainVerifier::new, ChainVerifier::with_checkpoint);
        let mut pages = self.pages(1, None);
        while let Some(page) = pages.next_page().await? {
            for record in &page {
                if let Err(broken) = verifier.push(record) {
                    return Ok(Verification::Broken(broken));
                }
            }
        }
        Ok(match verifier.finish() {
            Ok(head) => Verification::Intact { head },
            Err(broken) => Verification::Broken(broken),
        })
    }

    /// One event, parsed.
    pub async fn event(&self, seq: u64) -> Result<Option<Envelope>, WardenError> {
        let page = self.store.read(seq, 1).await?;
        match page.first() {
            Some(record) if record.seq == seq => Envelope::parse(record)
                .map(Some)
                .map_err(|e| WardenError::Store(StoreError::Corrupt { seq, why: e.to_string() })),
            _ => Ok(None),
        }
    }

    /// Counts events by type and by decision. A record whose body cannot be parsed is counted
    /// under the type `<unreadable>`.
    pub async fn stats(&self) -> Result<Stats, WardenError> {
        let mut stats = Stats::default();
        let mut pages = self.pages(1, None);
        while let Some(page) = pages.next_page().await? {
            for record in &page {
                stats.events += 1;
                let Ok(envelope) = Envelope::parse(record) else {
                    *stats.by_type.entry("<unreadable>".into()).or_default() += 1;
                    continue;
                };
                *stats.by_type.entry(envelope.event_type).or_default() += 1;
                if let Ok(DecisionOnly { decision: Some(serde_json::Value::String(decision)) }) =
                    serde_json::from_str(envelope.payload.get())
                {
                    *stats.by_decision.entry(decision).or_default() += 1;
                }
            }
        }
        Ok(stats)
    }
}
