//! A page of stored records in one buffer, for walks over the whole log.
//!
//! A walk reads every record once. Reading each into its own [`StoredRecord`] costs an
//! allocation per record, made by the thread that reads and freed by the thread that folds —
//! the pattern the system allocator handles worst. A [`RecordPage`] keeps a page's bodies in
//! one buffer and is cleared and refilled, so a walk of any length allocates a few pages and
//! nothing per record.

use super::hash::Hash;
use super::record::StoredRecord;

/// One stored record, borrowed: from a [`RecordPage`] or a [`StoredRecord`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordRef<'a> {
    /// Position in the log, from 1.
    pub seq: u64,
    /// `BLAKE3(prev_hash ‖ body)`, as stored.
    pub hash: Hash,
    /// The exact stored bytes of the envelope body.
    pub body: &'a [u8],
}

impl<'a> From<&'a StoredRecord> for RecordRef<'a> {
    fn from(record: &'a StoredRecord) -> Self {
        RecordRef { seq: record.seq, hash: record.hash, body: &record.body }
    }
}

impl RecordRef<'_> {
    /// An owned copy.
    pub fn to_owned_record(&self) -> StoredRecord {
        StoredRecord { seq: self.seq, hash: self.hash, body: self.body.to_vec() }
    }
}

/// Where one record's body ends in the page's buffer (it starts where the previous one ends).
#[derive(Clone, Copy, Debug)]
struct Entry {
    seq: u64,
    hash: Hash,
    end: usize,
}

/// Records in log order, their bodies back to back in one buffer. Reuse a page with
/// [`RecordPage::clear`]: it keeps its capacity.
#[derive(Clone, Debug, Default)]
pub struct RecordPage {
    bodies: Vec<u8>,
    entries: Vec<Entry>,
}

impl RecordPage {
    /// An empty page.
    pub fn new() -> Self {
        RecordPage::default()
    }

    /// Empties the page, keeping its buffers.
    pub fn clear(&mut self) {
        self.bodies.clear();
        self.entries.clear();
    }

    /// Appends a record; `body` is copied into the page's buffer.
    pub fn push(&mut self, seq: u64, hash: Hash, body: &[u8]) {
        self.bodies.extend_from_slice(body);
        self.entries.push(Entry { seq, hash, end: self.bodies.len() });
    }

    /// How many records.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True if the page holds no record.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The last record's position.
    pub fn last_seq(&self) -> Option<u64> {
        self.entries.last().map(|entry| entry.seq)
    }

    /// The records, in order.
    pub fn iter(&self) -> impl Iterator<Item = RecordRef<'_>> {
        let mut start = 0;
        self.entries.iter().map(move |entry| {
            // Every `end` was the buffer's length right after its body was appended, so the
            // ends rise and stay within the buffer; the fallback is unreachable.
            let body = self.bodies.get(start..entry.end).unwrap_or_default();
            start = entry.end;
            RecordRef { seq: entry.seq, hash: entry.hash, body }
        })
    }
}

impl<'a> Extend<&'a StoredRecord> for RecordPage {
    fn extend<I: IntoIterator<Item = &'a StoredRecord>>(&mut self, records: I) {
        for record in records {
            self.push(record.seq, record.hash, &record.body);
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn record(seq: u64, body: Vec<u8>) -> StoredRecord {
        StoredRecord { seq, hash: Hash::link(&Hash::GENESIS, &body), body }
    }

    proptest! {
        /// A page hands back exactly the records put in, in order, however it was reused.
        #[test]
        fn a_page_returns_its_records_unchanged(
            first in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..64), 0..20),
            second in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..64), 0..20),
        ) {
            let mut page = RecordPage::new();
            for bodies in [first, second] {
                let records: Vec<StoredRecord> =
                    bodies.into_iter().enumerate().map(|(i, b)| record(i as u64 + 1, b)).collect();
                page.clear();
                page.extend(&records);
                let back: Vec<StoredRecord> = page.iter().map(|r| r.to_owned_record()).collect();
                prop_assert_eq!(&back, &records);
                prop_assert_eq!(page.len(), records.len());
                prop_assert_eq!(page.is_empty(), records.is_empty());
                prop_assert_eq!(page.last_seq(), records.last().map(|r| r.seq));
            }
        }
    }

    #[test]
    fn a_stored_record_borrows_as_itself() {
        let stored = record(7, b"{\"seq\":7}".to_vec());
        let view = RecordRef::from(&stored);
        assert_eq!((view.seq, view.hash, view.body), (7, stored.hash, stored.body.as_slice()));
        assert_eq!(view.to_owned_record(), stored);
        let mut page = RecordPage::new();
        page.extend([&stored, &stored]);
        assert_eq!(page.iter().collect::<Vec<_>>(), vec![view, view]);
    }
}
