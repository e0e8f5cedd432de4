//! `warden audit copy --from STORE --to STORE`: the same log in another backend, byte for byte.
//!
//! A-18, fail closed: the source's whole chain is verified before anything is written. The
//! destination must verify too, and be empty or a prefix of the source (its head is the
//! source's record at that seq: same seq, same hash, so by the chain the same bytes before it);
//! then only the rest is copied, so an interrupted copy resumes. Anything else — a destination
//! longer than the source, or that diverges from it — is refused and nothing is written. The
//! records are appended in batches with the expected head and re-verified by the destination
//! as they land, so a writer racing the copy makes it fail (`store_conflict`), never fork.

use std::io::Write;
use std::sync::Arc;

use serde_json::json;

use agentwarden_domain::audit::{ChainVerifier, Head, StoredRecord};
use agentwarden_ports::{EventStore, StoreError};

use super::super::{EXIT_OK, Failure};
use agentwarden::{SledConfig, StoreLocation, WardenError};

const PAGE: usize = 1000;

/// Verifies `store` from seq 1 to its end, calling `each` on every record; returns the head.
async fn verify_all(
    store: &dyn EventStore,
    what: &str,
    mut each: impl FnMut(&StoredRecord) -> Result<(), Failure>,
) -> Result<Head, Failure> {
    let mut verifier = ChainVerifier::new();
    loop {
        let page =
            store.read(verifier.head().seq.saturating_add(1), PAGE).await.map_err(WardenError::from)?;
        for record in &page {
            verifier.push(record).map_err(|b| Failure::no(format!("the {what} does not verify: {b}")))?;
            each(record)?;
        }
        if page.len() < PAGE {
            return verifier.finish().map_err(|b| Failure::no(format!("the {what} does not verify: {b}")));
        }
    }
}

/// A store's location, parsed (a usage error if it cannot be): both are parsed before either
/// store is opened.
fn locate(location: &str, create: bool) -> Result<StoreLocation, Failure> {
    Ok(match StoreLocation::parse(location).map_err(|e| Failure::usage(e.to_string()))? {
        StoreLocation::Postgres(pg) => StoreLocation::Postgres(Box::new(pg.create_if_missing(create))),
        embedded => embedded,
    })
}

fn open(
    location: StoreLocation,
    sled: &SledConfig,
    create: bool,
) -> Result<(StoreLocation, Arc<dyn EventStore>), Failure> {
    let store = location.open(sled.clone().create_if_missing(create)).map_err(WardenError::from)?;
    Ok((location, store))
}

pub(crate) async fn run(
    from: &str,
    to: &str,
    batch: usize,
    sled: &SledConfig,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    if batch == 0 {
        return Err(Failure::usage("--batch must be at least 1"));
    }
    if from == to {
        return Err(Failure::usage(format!("`{from}` is both the source and the destination")));
    }
    let (from_at, to_at) = (locate(from, false)?, locate(to, true)?);
    let (source_at, source) = open(from_at, sled, false)?;
    let (dest_at, dest) = open(to_at, sled, true)?;
    let dest_head = verify_all(&*dest, "destination", |_| Ok(())).await?;
    let mut at_dest_head = None;
    let source_head = verify_all(&*source, "source", |record| {
        if record.seq == dest_head.seq {
            at_dest_head = Some(record.hash);
        }
        Ok(())
    })
    .await?;
    let is_prefix = dest_head.seq == 0 || at_dest_head == Some(dest_head.hash);
    if !is_prefix {
        return Err(Failure::no(format!(
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
            return Err(Failure::no(format!("the source ended at seq {} while being copied", head.seq)));
        }
        let appended = dest.append_sealed(head.seq, records).await.map_err(|e| match e {
            StoreError::Corrupt { seq, why } => {
                Failure::no(format!("the source changed while being copied, at seq {seq}: {why}"))
            }
            other => Failure::from(WardenError::from(other)),
        })?;
        head = appended.head;
    }
    writeln!(
        out,
        "{}",
        json!({
            "copied": head.seq - dest_head.seq,
            "already_there": dest_head.seq,
            "head": {"seq": head.seq, "hash": head.hash},
            "from": source_at.describe(),
            "to": dest_at.describe(),
        })
    )?;
    Ok(EXIT_OK)
}
