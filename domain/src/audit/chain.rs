//! The hash chain: sealing drafts into records, and verifying a sequence of records.
//!
//! `hash(n) = BLAKE3(hash(n-1) ‖ body(n))`, `hash(0)` = 64 zeros. A verifier walks the
//! records in order and names the first sequence number at which the chain breaks: a gap, a
//! body that declares another position, or a hash that does not match the stored bytes.

use super::checkpoint::Checkpoint;
use super::envelope::EventDraft;
use super::hash::Hash;
use super::page::RecordRef;
use super::record::{Head, StoredRecord, push_position};

/// Places `draft` in the chain right after `prev`.
pub fn seal(prev: &Head, draft: &EventDraft) -> Result<StoredRecord, serde_json::Error> {
    let seq = prev.seq.saturating_add(1);
    let mut body = Vec::with_capacity(draft.body_capacity());
    draft.write_body(seq, &prev.hash, &mut body)?;
    let hash = Hash::link(&prev.hash, &body);
    Ok(StoredRecord { seq, hash, body })
}

/// Seals a batch of drafts one after the other, starting after `prev`. Returns the records and
/// the new head.
pub fn seal_batch(
    prev: &Head,
    drafts: &[EventDraft],
) -> Result<(Vec<StoredRecord>, Head), serde_json::Error> {
    let mut head = *prev;
    let mut records = Vec::with_capacity(drafts.len());
    for draft in drafts {
        let record = seal(&head, draft)?;
        head = Head { seq: record.seq, hash: record.hash };
        records.push(record);
    }
    Ok((records, head))
}

/// Where and why a chain stopped verifying.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("audit chain broken at seq {seq}: {why}")]
pub struct ChainBreak {
    /// The first sequence number that does not verify.
    pub seq: u64,
    /// Why.
    pub why: BreakKind,
}

/// The ways a chain breaks.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BreakKind {
    /// The record at this position is missing; the next one found has another number.
    #[error("event missing (next stored event is seq {found})")]
    Gap {
        /// The sequence number found instead.
        found: u64,
    },
    /// The body does not begin `{"seq":N,"prev_hash":"<previous hash>",`.
    #[error("the body does not declare this position after the previous event's hash")]
    Position,
    /// The stored hash is not `BLAKE3(prev_hash ‖ body)`.
    #[error("the stored hash does not match the stored bytes")]
    HashMismatch,
    /// The store could not even be read at this position (reported by a store on open).
    #[error("{why}")]
    Unreadable {
        /// What the store said.
        why: String,
    },
    /// The log ends before a checkpoint's position.
    #[error("the log ends at seq {head}, before the checkpoint")]
    Truncated {
        /// The last sequence number present.
        head: u64,
    },
    /// The event at a checkpoint's position has another hash than the checkpoint recorded.
    #[error("the event's hash {found} differs from the checkpoint's {expected}")]
    CheckpointMismatch {
        /// The checkpoint's hash.
        expected: Hash,
        /// The log's.
        found: Hash,
    },
}

/// A streaming verifier: feed it the records in order, then [`ChainVerifier::finish`].
///
/// It holds one head and one small buffer, so verifying a log of any length takes constant
/// memory.
#[derive(Debug, Clone)]
pub struct ChainVerifier {
    head: Head,
    checkpoint: Option<Checkpoint>,
    prefix: Vec<u8>,
}

impl Default for ChainVerifier {
    fn default() -> Self {
        ChainVerifier::new()
    }
}

impl ChainVerifier {
    /// A verifier that expects the log to start at seq 1 after the genesis hash.
    pub fn new() -> Self {
        ChainVerifier { head: Head::EMPTY, checkpoint: None, prefix: Vec::with_capacity(96) }
    }

    /// A verifier that expects the next record right after `head`: for checking the tail of a
    /// log whose earlier part was verified before (a store's head on open).
    pub fn after(head: Head) -> Self {
        ChainVerifier { head, ..ChainVerifier::new() }
    }

    /// A verifier that also checks the log reaches `checkpoint.seq` with `checkpoint.head_hash`
    /// there: this finds a log truncated or rewritten behind a checkpoint, which the chain
    /// alone cannot.
    pub fn with_checkpoint(checkpoint: Checkpoint) -> Self {
        ChainVerifier { checkpoint: Some(checkpoint), ..ChainVerifier::new() }
    }

    /// The head verified so far.
    pub fn head(&self) -> Head {
        self.head
    }

    /// Checks the next record. After an error the verifier must not be fed further.
    pub fn push<'r>(&mut self, record: impl Into<RecordRef<'r>>) -> Result<(), ChainBreak> {
        let record = record.into();
        let seq = self.head.seq.saturating_add(1);
        if record.seq != seq {
            return Err(ChainBreak { seq, why: BreakKind::Gap { found: record.seq } });
        }
        self.prefix.clear();
        push_position(&mut self.prefix, seq, &self.head.hash);
        if !record.body.starts_with(&self.prefix) {
            return Err(ChainBreak { seq, why: BreakKind::Position });
        }
        if Hash::link(&self.head.hash, record.body) != record.hash {
            return Err(ChainBreak { seq, why: BreakKind::HashMismatch });
        }
        if let Some(checkpoint) = self.checkpoint.filter(|c| c.seq == seq)
            && checkpoint.head_hash != record.hash
        {
            return Err(ChainBreak {
                seq,
                why: BreakKind::CheckpointMismatch { expected: checkpoint.head_hash, found: record.hash },
            });
        }
        self.head = Head { seq, hash: record.hash };
        Ok(())
    }

    /// Ends the walk: the verified head, or the checkpoint the log fell short of.
    pub fn finish(self) -> Result<Head, ChainBreak> {
        match self.checkpoint {
            Some(checkpoint) if checkpoint.seq > self.head.seq => Err(ChainBreak {
                seq: self.head.seq.saturating_add(1),
                why: BreakKind::Truncated { head: self.head.seq },
            }),
            Some(checkpoint) if checkpoint.seq == 0 && checkpoint.head_hash != Hash::GENESIS => {
                Err(ChainBreak {
                    seq: 0,
                    why: BreakKind::CheckpointMismatch {
                        expected: checkpoint.head_hash,
                        found: Hash::GENESIS,
                    },
                })
            }
            _ => Ok(self.head),
        }
    }
}

/// Verifies a whole log, from seq 1.
pub fn verify<'a>(records: impl IntoIterator<Item = &'a StoredRecord>) -> Result<Head, ChainBreak> {
    let mut verifier = ChainVerifier::new();
    for record in records {
        verifier.push(record)?;
    }
    verifier.finish()
}

#[cfg(test)]
mod tests {
    use super::super::record::push_decimal;
    use super::seal;
    use crate::audit::Head;
    use crate::audit::{Actor, Correlation, CorrelationId, EventDraft, Hash, Timestamp};
    use crate::events::{AuditEvent, OperatorNote};

    /// A body is written into a buffer of the size `body_capacity` says, never grown on the
    /// way: at the longest seq, time and ids, whatever the payload's length.
    #[test]
    fn a_body_fits_the_capacity_its_draft_names() {
        let id = |c: char| Some(CorrelationId::new(c.to_string().repeat(256)).unwrap());
        let longest = Correlation { session: id('s'), turn: id('t'), run: id('r'), item: id('i') };
        for (correlation, message) in [(longest, "m".repeat(10_000)), (Correlation::default(), String::new())]
        {
            let draft = EventDraft::new(
                Timestamp::saturating_from_unix_millis(i64::MAX),
                Actor::new("a".repeat(128)).unwrap(),
                correlation,
                &AuditEvent::OperatorNote(OperatorNote { message }),
            )
            .unwrap();
            let record = seal(&Head { seq: u64::MAX - 1, hash: Hash::GENESIS }, &draft).unwrap();
            assert!(
                record.body.len() <= draft.body_capacity(),
                "{} > {}",
                record.body.len(),
                draft.body_capacity()
            );
            assert_eq!(record.body.capacity(), draft.body_capacity(), "grown on the way");
        }
    }

    #[test]
    fn decimals_are_written_as_to_string_writes_them() {
        for n in [0, 7, 10, 99, 100, 1_234_567, u64::MAX] {
            let mut out = b"seq:".to_vec();
            push_decimal(&mut out, n);
            assert_eq!(out, format!("seq:{n}").into_bytes());
        }
    }
}
