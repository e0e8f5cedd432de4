//! The Merkle tree over the sled store's log, kept as the log grows.
//!
//! Tree `merkle`: key = the node's level (1 byte) ‖ its index (8 bytes, big-endian), value = its
//! 32-byte hash. Only nodes of level [`KEPT_LEVEL`] and above are kept — one key for every 32
//! events, so that the tree, like the log (S-13), costs sled almost nothing as it grows: at 1 M
//! events about 31 000 keys. A node below that level covers at most 64 events, and is hashed
//! from them when asked for (read from sled or from their archived segment). The nodes are not
//! moved with the events into the archive: they stay here for the whole log.
//!
//! The store keeps, under its head lock, the [`Frontier`] of its log — the right edge, built on
//! opening from the kept nodes and the events after them — and appends each event's leaf to it
//! as the event is written: the nodes an append completes are written right after its events,
//! before the head moves, and made durable by the same flush. A crash can therefore leave the
//! kept tree behind the events (never the events behind a flush of the tree: sled recovers a
//! prefix of its writes, and the events are written first); every opening checks the tree
//! against the log's head and brings it level with the events, hashing only the events past
//! the last kept node. The same opening upcasts a store written before the tree was kept: it
//! hashes the whole log once. A kept node past the head (a tree ahead of its events) is removed,
//! and a tree whose right edge is not all there is rebuilt from the events: never silently wrong.

use agentwarden_domain::audit::Head;
use agentwarden_domain::audit::merkle::{Frontier, MerkleHash, Node, Range, perfect_nodes};
use agentwarden_ports::StoreError;

use super::{Log, corrupt, unavailable};

/// The sled tree that holds the kept nodes.
pub(super) const TREE: &str = "merkle";

/// The lowest level kept: a node of `2^6 = 64` events.
pub(super) const KEPT_LEVEL: u8 = 6;

/// A kept node's key.
pub(super) fn node_key(node: &Node) -> [u8; 9] {
    let mut key = [0; 9];
    let (level, index) = key.split_at_mut(1);
    level.copy_from_slice(&[node.level]);
    index.copy_from_slice(&node.index.to_be_bytes());
    key
}

/// A kept node's hash, read back: a value that is not 32 bytes is a corrupt tree.
pub(super) fn node_hash(node: &Node, value: &[u8]) -> Result<MerkleHash, StoreError> {
    <[u8; 32]>::try_from(value).map(MerkleHash).map_err(|_| {
        corrupt(
            first_seq(node),
            format!("the kept Merkle node {}/{} is not 32 bytes", node.level, node.index),
        )
    })
}

/// The first event a node covers.
pub(super) fn first_seq(node: &Node) -> u64 {
    node.index.checked_shl(u32::from(node.level)).unwrap_or(u64::MAX).saturating_add(1)
}

/// The kept nodes among `completed` (what [`Frontier::append`] returned), written to `tree`.
pub(super) fn write_kept(tree: &sled::Tree, completed: &[(Node, MerkleHash)]) -> Result<(), StoreError> {
    for (node, hash) in completed.iter().filter(|(node, _)| node.level >= KEPT_LEVEL) {
        tree.insert(node_key(node), &hash.0[..]).map_err(unavailable("cannot write a Merkle node"))?;
    }
    Ok(())
}

/// Brings the kept tree level with the log of `head` and returns its frontier (see the module
/// comment): nodes past the head removed, a right edge not all there rebuilt, the events past
/// the last kept node hashed.
pub(super) fn reconcile(tree: &sled::Tree, log: &Log, head: Head) -> Result<Frontier, StoreError> {
    let last = tree
        .scan_prefix([KEPT_LEVEL])
        .next_back()
        .transpose()
        .map_err(unavailable("cannot read the Merkle tree"))?;
    let mut kept = match last {
        Some((key, _)) => {
            let index = key
                .get(1..)
                .and_then(|bytes| <[u8; 8]>::try_from(bytes).ok())
                .map(u64::from_be_bytes)
                .ok_or_else(|| corrupt(0, "a kept Merkle node's key is not 9 bytes"))?;
            index.saturating_add(1).checked_shl(u32::from(KEPT_LEVEL)).unwrap_or(u64::MAX)
        }
        None => 0,
    };
    if kept > head.seq {
        tracing::warn!(
            kept,
            head = head.seq,
            "the kept Merkle tree is ahead of the log; its nodes past the head are removed"
        );
        remove_past(tree, head.seq)?;
        kept = head.seq >> KEPT_LEVEL << KEPT_LEVEL;
    }
    let edge = perfect_nodes(Range { start: 0, end: kept });
    let mut hashes = Vec::with_capacity(edge.len());
    for node in &edge {
        match tree.get(node_key(node)).map_err(unavailable("cannot read the Merkle tree"))? {
            Some(value) => hashes.push(node_hash(node, &value)?),
            None => break,
        }
    }
    let mut frontier = match Frontier::from_nodes(kept, &hashes) {
        Some(frontier) => frontier,
        None => {
            tracing::warn!(
                kept,
                "the kept Merkle tree lacks a node of its right edge; it is rebuilt from the events"
            );
            tree.clear().map_err(unavailable("cannot clear the Merkle tree"))?;
            Frontier::new()
        }
    };
    // The events past the last kept node, hashed a page at a time.
    while frontier.size() < head.seq {
        let from = frontier.size() + 1;
        let mut completed = Vec::new();
        let mut next = from;
        let mut gap = None;
        log.walk(from, 4096, |record| {
            if gap.is_some() || record.seq != next {
                gap.get_or_insert(next);
                return;
            }
            next += 1;
            completed.extend(
                frontier
                    .append(MerkleHash::leaf(record.body))
                    .into_iter()
                    .filter(|(n, _)| n.level >= KEPT_LEVEL),
            );
        })?;
        if let Some(seq) = gap.or((next == from).then_some(from)) {
            return Err(corrupt(seq, "the event is missing: the Merkle tree cannot be built"));
        }
        write_kept(tree, &completed)?;
    }
    Ok(frontier)
}

/// Removes every kept node not complete in a log of `size` events.
fn remove_past(tree: &sled::Tree, size: u64) -> Result<(), StoreError> {
    for level in KEPT_LEVEL..64 {
        let from = Node { level, index: size >> level };
        let until = node_key(&Node { level: level + 1, index: 0 });
        for key in tree.range(node_key(&from)..until).keys() {
            let key = key.map_err(unavailable("cannot read the Merkle tree"))?;
            tree.remove(key).map_err(unavailable("cannot remove a Merkle node"))?;
        }
    }
    Ok(())
}
