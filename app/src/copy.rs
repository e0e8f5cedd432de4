//! Copying a log to another store, byte for byte (`warden audit copy`, A-18).
//!
//! A-18, fail closed: the source's whole chain is verified before anything is written. The
//! destination must verify too, and be empty or a prefix of the source (its head is the
//! source's record at that seq: same seq, same hash, so by the chain the same bytes before it);
//! then only the rest is copied, so an interrupted copy resumes. Anything else — a destination
//! longer than the source, or that diverges from it — is refused and nothing is written. The
//! records are appended in batches with the expected head and re-verified by the destination
//! as they land, so a writer racing the copy makes it fail (`store_conflict`), never fork.

use std::sync::Arc;

use agentwarden_domain::audit::{ChainVerifier, Head, StoredRecord};
use agentwarden_ports::{EventStore, StoreError};

use crate::{StoreLocation, WardenError, store::SledConfig};

const PAGE: usize = 1000;

/// Why a copy was not made (or not finished).
#[derive(Debug, thiserror::Error)]
pub enum CopyError {
    /// The arguments cannot be used: a batch of 0, the same store twice, a location that does
    /// not parse; nothing was opened.
    #[error("{0}")]
    Usage(String),
    /// Refused: a store whose chain does not verify, a destination that is not a prefix of the
    /// source, a source that changed or ended while being copied.
    #[error("{0}")]
    Refused(String),
    /// A store failed.
    #[error(transparent)]
    Warden(#[from] WardenError),
}

/// What a copy did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Copied {
    /// How many events were appended to the destination.
    pub copied: u64,
    /// How many the destination held already.
    pub already_there: u64,
    /// The destination's head now.
    pub head: Head,
    /// The source, as shown (credentials masked).
    pub from: String,
    /// The destination, as shown.
    pub to: String,
}

/// Verifies `store` from seq 1 to its end, calling `each` on every record; returns the head.
async fn verify_all(
    store: &dyn EventStore,
    what: &str,
    mut each: impl FnMut(&StoredRecord),
) -> Result<Head, CopyError> {
    let mut verifier = ChainVerifier::new();
    let broken = |b| CopyError::Refused(format!("the {what} does not verify: {b}"));
    loop {
        let page =
            store.read(verifier.head().seq.saturating_add(1), PAGE).await.map_err(WardenError::from)?;
        for record in &page {
            verifier.push(record).map_err(broken)?;
            each(record);
        }
        if page.len() < PAGE {
            return verifier.finish().map_err(broken);
        }
    }
}

/// A store's location, parsed (a usage error if it cannot be): both are parsed before either
/// store is opened.
fn locate(location: &str, create: bool) -> Result<StoreLocation, CopyError> {
    let location = StoreLocation::parse(location).map_err(|e| CopyError::Usage(e.to_string()))?;
    Ok(match location {
        #[cfg(feature = "postgres")]
        StoreLocation::Postgres(pg) => StoreLocation::Postgres(Box::new(pg.create_if_missing(create))),
        embedded => {
            let _ = create;
            embedded
        }
    })
}

fn open(location: &StoreLocation, sled: &SledConfig, create: bool) -> Result<Arc<dyn EventStore>, CopyError> {
    Ok(location.open(sled.clone().create_if_missing(create)).map_err(WardenError::from)?)
}

/// Copies the log at `from` to `to` in appends of `batch` events, the embedded stores opened with
/// `sled`.
pub async fn copy_log(from: &str, to: &str, batch: usize, sled: &SledConfig) -> Result<Copied, CopyError> {
    if batch == 0 {
        return Err(CopyError::Usage("--batch must be at least 1".into()));
    }
    if from == to {
        return Err(CopyError::Usage(format!("`{from}` is both the source and the destination")));
    }
    let (source_at, dest_at) = (locate(from, false)?, locate(to, true)?);
    let source = open(&source_at, sled, false)?;
    let dest = open(&dest_at, sled, true)?;
    let dest_head = verify_all(&*dest, "destination", |_| {}).await?;
    let mut at_dest_head = None;
    let source_head = verify_all(&*source, "source", |record| {
        if record.seq == dest_head.seq {
            at_dest_head = Some(record.hash);
        }
    })
    .await?;
    let is_prefix = dest_head.seq == 0 || at_dest_head == Some(dest_head.hash);
    if !is_prefix {
        return Err(CopyError::Refused(format!(
            "refusing to copy: the destination `{}` (head seq {}) is not empty and not a prefix of the source \
             `{}` (head seq {})",
            dest_at.describe(),
            dest_head.seq,
            source_at.describe(),
            source_head.seq
        )));
    }
    let mut head = dest_head;
    while head.seq < source_head.seq {
        let records = source.read(head.seq.saturating_add(1), batch).await.map_err(WardenError::from)?;
        if records.is_empty() {
            return Err(CopyError::Refused(format!(
                "the source ended at seq {} while being copied",
                head.seq
            )));
        }
        let appended = dest.append_sealed(head.seq, records).await.map_err(|e| match e {
            StoreError::Corrupt { seq, why } => {
                CopyError::Refused(format!("the source changed while being copied, at seq {seq}: {why}"))
            }
            other => CopyError::Warden(WardenError::from(other)),
        })?;
        head = appended.head;
    }
    Ok(Copied {
        copied: head.seq - dest_head.seq,
        already_there: dest_head.seq,
        head,
        from: source_at.describe(),
        to: dest_at.describe(),
    })
}
