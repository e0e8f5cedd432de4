//! A record: an event's exact stored bytes at its position in the log, and the log's head.
//!
//! This is the lowest layer of the audit log. It knows positions and hashes, not what an event
//! says: the envelope writes a body's bytes, the chain seals and verifies them, and the event
//! catalogue sits above both.

use std::fmt;

use super::hash::Hash;

/// One stored event: its sequence number, the exact body bytes, and its hash.
#[derive(Clone, PartialEq, Eq)]
pub struct StoredRecord {
    /// Position in the log, from 1.
    pub seq: u64,
    /// `BLAKE3(prev_hash ‖ body)`.
    pub hash: Hash,
    /// The exact stored bytes of the envelope body.
    pub body: Vec<u8>,
}

impl fmt::Debug for StoredRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoredRecord")
            .field("seq", &self.seq)
            .field("hash", &self.hash)
            .field("body", &String::from_utf8_lossy(&self.body))
            .finish()
    }
}

/// The end of a log: the last sequence number and its hash. The empty log's head is
/// `{seq: 0, hash: GENESIS}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Head {
    /// The last event's sequence number; 0 for an empty log.
    pub seq: u64,
    /// The last event's hash; [`Hash::GENESIS`] for an empty log.
    pub hash: Hash,
}

impl Head {
    /// The head of an empty log.
    pub const EMPTY: Head = Head { seq: 0, hash: Hash::GENESIS };
}

impl Default for Head {
    fn default() -> Self {
        Head::EMPTY
    }
}

/// Appends `n` in decimal to `out`, without the allocation of `n.to_string()` (this runs once
/// per record of every walk).
pub(super) fn push_decimal(out: &mut Vec<u8>, n: u64) {
    let start = out.len();
    let mut rest = n;
    // Twenty digits hold any u64: the loop is bounded whatever happens inside it.
    for _ in 0..20 {
        out.push(b'0' + (rest % 10) as u8);
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    if let Some(digits) = out.get_mut(start..) {
        digits.reverse();
    }
}

/// Appends how every body begins, `{"seq":N,"prev_hash":"<hex>",`: what a writer writes and a
/// verifier checks.
pub(super) fn push_position(out: &mut Vec<u8>, seq: u64, prev: &Hash) {
    out.extend_from_slice(b"{\"seq\":");
    push_decimal(out, seq);
    out.extend_from_slice(b",\"prev_hash\":\"");
    let mut hex = [0u8; 64];
    prev.write_hex(&mut hex);
    out.extend_from_slice(&hex);
    out.extend_from_slice(b"\",");
}
