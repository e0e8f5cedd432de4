//! The Merkle tree over the audit log, as Certificate Transparency hashes it (RFC 6962 §2.1,
//! RFC 9162 §2.1): SHA-256, a leaf is `SHA-256(0x00 ‖ leaf)`, a node `SHA-256(0x01 ‖ left ‖
//! right)`, a tree of `n` leaves splits at the largest power of two below `n`. So a checkpoint's
//! root, an inclusion proof and a consistency proof read the same to any transparency-log tool.
//!
//! a leaf is an event's exact stored body (the bytes the chain hashes), so whoever holds an
//! event can check it against a checkpoint with SHA-256 alone.
//!
//! The tree is kept without re-reading the log: a store keeps every *perfect* subtree's hash —
//! node `(level, index)` covers leaves `index·2^level .. (index+1)·2^level` — which appending a
//! leaf completes ([`Frontier::append`] names them). Any proof is then a few ranges of leaves
//! ([`inclusion_ranges`], [`consistency_ranges`]); each range is a handful of perfect nodes
//! ([`perfect_nodes`]) folded into the range's hash ([`fold`]). Everything here is pure: the store
//! reads the nodes, this module says which and what they make.

use std::fmt;

use base64ct::Encoding;
use sha2::{Digest, Sha256};

/// A SHA-256 hash in the tree: a leaf's, a node's or a root.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MerkleHash(pub [u8; 32]);

impl MerkleHash {
    /// The root of the empty tree: `SHA-256("")`.
    pub fn empty() -> MerkleHash {
        MerkleHash(Sha256::digest([]).into())
    }

    /// A leaf's hash: `SHA-256(0x00 ‖ leaf)`.
    pub fn leaf(leaf: &[u8]) -> MerkleHash {
        let mut hasher = Sha256::new();
        hasher.update([0x00]);
        hasher.update(leaf);
        MerkleHash(hasher.finalize().into())
    }

    /// An inner node's hash: `SHA-256(0x01 ‖ left ‖ right)`.
    pub fn node(left: &MerkleHash, right: &MerkleHash) -> MerkleHash {
        let mut hasher = Sha256::new();
        hasher.update([0x01]);
        hasher.update(left.0);
        hasher.update(right.0);
        MerkleHash(hasher.finalize().into())
    }

    /// Lowercase hex.
    pub fn to_hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Standard base64, as checkpoints and proofs write a hash.
    pub fn to_base64(&self) -> String {
        base64ct::Base64::encode_string(&self.0)
    }

    /// A hash from standard base64 of exactly 32 bytes.
    pub fn from_base64(text: &str) -> Result<MerkleHash, MerkleHashError> {
        let bytes = base64ct::Base64::decode_vec(text)
            .map_err(|e| MerkleHashError::NotBase64 { text: text.to_owned(), detail: e.to_string() })?;
        let hash: [u8; 32] =
            bytes.try_into().map_err(|_| MerkleHashError::NotThirtyTwoBytes { text: text.to_owned() })?;
        Ok(MerkleHash(hash))
    }
}

/// Why a text is not a Merkle hash in base64, by cause.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MerkleHashError {
    /// The text is not base64.
    #[error("`{text}` is not base64: {detail}")]
    NotBase64 {
        /// The text.
        text: String,
        /// The decoder's reason.
        detail: String,
    },
    /// The text decodes to another length than a hash's.
    #[error("`{text}` is not 32 bytes")]
    NotThirtyTwoBytes {
        /// The text.
        text: String,
    },
}

impl fmt::Debug for MerkleHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MerkleHash({})", self.to_hex())
    }
}

impl fmt::Display for MerkleHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

/// A perfect subtree: `2^level` leaves from `index·2^level`. A store keeps each one's hash once
/// it is complete.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Node {
    /// 0 for a leaf.
    pub level: u8,
    /// Its position among the nodes of its level.
    pub index: u64,
}

/// Leaves `start .. end` of the tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    /// The first leaf.
    pub start: u64,
    /// One past the last.
    pub end: u64,
}

/// Why a proof cannot be made or does not hold.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProofError {
    /// The leaf is not in the tree.
    #[error("leaf {index} is not in a tree of {size} leaves")]
    LeafOutside {
        /// The leaf asked for.
        index: u64,
        /// The tree's size.
        size: u64,
    },
    /// The older tree is larger than the newer.
    #[error("a tree of {old} leaves cannot extend to one of {new}")]
    Shrinks {
        /// The older size.
        old: u64,
        /// The newer size.
        new: u64,
    },
    /// The proof has the wrong number of hashes.
    #[error("the proof has {got} hashes; a proof for these sizes has {expected}")]
    Length {
        /// How many it has.
        got: usize,
        /// How many it must have.
        expected: usize,
    },
    /// The hashes do not lead to the root.
    #[error("the proof does not lead to the root")]
    Mismatch,
}

/// The largest power of two strictly below `n` (`n` ≥ 2).
fn split(n: u64) -> u64 {
    let below = n.saturating_sub(1);
    if below == 0 { 1 } else { 1 << (63 - below.leading_zeros()) }
}

/// The perfect subtrees that make up `range`, left to right: largest first, each aligned. The
/// hash of the range as the tree hashes it is [`fold`] of their hashes, when `range` is a range
/// a proof or a root names (it starts at a multiple of a power of two at least its length, or at
/// 0).
pub fn perfect_nodes(range: Range) -> Vec<Node> {
    let mut nodes = Vec::new();
    let mut start = range.start;
    while start < range.end {
        let left = range.end - start;
        // The largest aligned power of two that starts at `start` and fits.
        let align = if start == 0 { 63 } else { start.trailing_zeros() };
        let fits = 63 - left.leading_zeros();
        let level = align.min(fits);
        let Ok(level8) = u8::try_from(level) else { break };
        nodes.push(Node { level: level8, index: start >> level });
        start += 1 << level;
    }
    nodes
}

/// The hash of a range from its perfect subtrees' hashes, left to right: the rightmost ones are
/// joined first (`node(a, node(b, c))`), as the tree's split at powers of two joins them. No
/// hash is the empty tree's root.
pub fn fold(hashes: &[MerkleHash]) -> MerkleHash {
    let mut rest = hashes.iter().rev();
    let Some(last) = rest.next() else { return MerkleHash::empty() };
    rest.fold(*last, |right, left| MerkleHash::node(left, &right))
}

/// The ranges whose hashes make the inclusion proof of leaf `index` in a tree of `size` leaves
/// (RFC 6962 §2.1.1's `PATH`), in the proof's order: nearest the leaf first.
pub fn inclusion_ranges(index: u64, size: u64) -> Result<Vec<Range>, ProofError> {
    if index >= size {
        return Err(ProofError::LeafOutside { index, size });
    }
    let mut ranges = Vec::new();
    let (mut start, mut end, mut m) = (0, size, index);
    while end - start > 1 {
        let k = split(end - start);
        if m < k {
            ranges.push(Range { start: start + k, end });
            end = start + k;
        } else {
            ranges.push(Range { start, end: start + k });
            start += k;
            m -= k;
        }
    }
    ranges.reverse();
    Ok(ranges)
}

/// The ranges whose hashes make the proof that a tree of `new` leaves extends the tree of its
/// first `old` (RFC 6962 §2.1.2's `PROOF`), in the proof's order. Empty when `old` is 0 or
/// `new`: every tree extends the empty one and itself.
pub fn consistency_ranges(old: u64, new: u64) -> Result<Vec<Range>, ProofError> {
    if old > new {
        return Err(ProofError::Shrinks { old, new });
    }
    let mut ranges = Vec::new();
    if old == 0 || old == new {
        return Ok(ranges);
    }
    let (mut start, mut end, mut m, mut whole) = (0, new, old, true);
    loop {
        if m == end - start {
            if !whole {
                ranges.push(Range { start, end });
            }
            break;
        }
        let k = split(end - start);
        if m <= k {
            ranges.push(Range { start: start + k, end });
            end = start + k;
        } else {
            ranges.push(Range { start, end: start + k });
            start += k;
            m -= k;
            whole = false;
        }
    }
    ranges.reverse();
    Ok(ranges)
}

/// Checks that `leaf` (its [`MerkleHash::leaf`]) is leaf `index` of the tree of `size` leaves
/// whose root is `root` (RFC 9162 §2.1.3.2).
pub fn verify_inclusion(
    leaf: &MerkleHash,
    index: u64,
    size: u64,
    proof: &[MerkleHash],
    root: &MerkleHash,
) -> Result<(), ProofError> {
    let expected = inclusion_ranges(index, size)?.len();
    if proof.len() != expected {
        return Err(ProofError::Length { got: proof.len(), expected });
    }
    let (mut f, mut s, mut r) = (index, size - 1, *leaf);
    for p in proof {
        if s == 0 {
            return Err(ProofError::Mismatch);
        }
        if f & 1 == 1 || f == s {
            r = MerkleHash::node(p, &r);
            while f & 1 == 0 && f != 0 {
                f >>= 1;
                s >>= 1;
            }
        } else {
            r = MerkleHash::node(&r, p);
        }
        f >>= 1;
        s >>= 1;
    }
    if s == 0 && r == *root { Ok(()) } else { Err(ProofError::Mismatch) }
}

/// Checks that the tree of `new` leaves with root `new_root` extends the tree of `old` leaves
/// with root `old_root` (RFC 9162 §2.1.4.2). From the empty tree and to the same size, the proof
/// is empty (and the same size must have the same root).
pub fn verify_consistency(
    old: u64,
    new: u64,
    old_root: &MerkleHash,
    new_root: &MerkleHash,
    proof: &[MerkleHash],
) -> Result<(), ProofError> {
    let expected = consistency_ranges(old, new)?.len();
    if proof.len() != expected {
        return Err(ProofError::Length { got: proof.len(), expected });
    }
    if old == 0 {
        return if *old_root == MerkleHash::empty() { Ok(()) } else { Err(ProofError::Mismatch) };
    }
    if old == new {
        return if old_root == new_root { Ok(()) } else { Err(ProofError::Mismatch) };
    }
    // A power of two's old root is the path's first hash.
    let mut path: Vec<MerkleHash> = Vec::with_capacity(proof.len() + 1);
    if old.is_power_of_two() {
        path.push(*old_root);
    }
    path.extend_from_slice(proof);
    let (mut f, mut s) = (old - 1, new - 1);
    while f & 1 == 1 {
        f >>= 1;
        s >>= 1;
    }
    let Some((first, rest)) = path.split_first() else { return Err(ProofError::Mismatch) };
    let (mut fr, mut sr) = (*first, *first);
    for c in rest {
        if s == 0 {
            return Err(ProofError::Mismatch);
        }
        if f & 1 == 1 || f == s {
            fr = MerkleHash::node(c, &fr);
            sr = MerkleHash::node(c, &sr);
            while f & 1 == 0 && f != 0 {
                f >>= 1;
                s >>= 1;
            }
        } else {
            sr = MerkleHash::node(&sr, c);
        }
        f >>= 1;
        s >>= 1;
    }
    if fr == *old_root && sr == *new_root && s == 0 { Ok(()) } else { Err(ProofError::Mismatch) }
}

/// The right edge of the tree: the hashes of the perfect subtrees its leaves make, largest
/// first — what appending needs, and all the root needs. At most 64 hashes, whatever the size.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Frontier {
    size: u64,
    /// `(level, hash)`, levels strictly decreasing.
    edge: Vec<(u8, MerkleHash)>,
}

impl Frontier {
    /// The empty tree's.
    pub fn new() -> Frontier {
        Frontier::default()
    }

    /// The frontier of a tree of `size` leaves from the hashes of [`perfect_nodes`] of `0 ..
    /// size`, in that order; `None` when there are not as many as it names.
    pub fn from_nodes(size: u64, hashes: &[MerkleHash]) -> Option<Frontier> {
        let nodes = perfect_nodes(Range { start: 0, end: size });
        if nodes.len() != hashes.len() {
            return None;
        }
        let edge = nodes.iter().zip(hashes).map(|(node, hash)| (node.level, *hash)).collect();
        Some(Frontier { size, edge })
    }

    /// How many leaves.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The root.
    pub fn root(&self) -> MerkleHash {
        let hashes: Vec<MerkleHash> = self.edge.iter().map(|(_, hash)| *hash).collect();
        fold(&hashes)
    }

    /// Appends a leaf (its [`MerkleHash::leaf`]) and returns the perfect subtrees it completed,
    /// the leaf first: what a store keeps.
    pub fn append(&mut self, leaf: MerkleHash) -> Vec<(Node, MerkleHash)> {
        let index = self.size;
        let mut completed = vec![(Node { level: 0, index }, leaf)];
        let mut hash = leaf;
        let mut level = 0_u8;
        while let Some(&(last_level, last)) = self.edge.last() {
            if last_level != level {
                break;
            }
            self.edge.pop();
            hash = MerkleHash::node(&last, &hash);
            level = level.saturating_add(1);
            completed.push((Node { level, index: index >> level }, hash));
        }
        self.edge.push((level, hash));
        self.size = self.size.saturating_add(1);
        completed
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use proptest::prelude::*;

    use super::*;

    /// RFC 6962 §2.1's MTH, straight from its definition: the reference the rest is held to.
    fn mth(leaves: &[Vec<u8>]) -> MerkleHash {
        match leaves.len() {
            0 => MerkleHash::empty(),
            1 => MerkleHash::leaf(&leaves[0]),
            n => {
                let k = usize::try_from(split(n as u64)).unwrap();
                MerkleHash::node(&mth(&leaves[..k]), &mth(&leaves[k..]))
            }
        }
    }

    fn leaves(n: u64) -> Vec<Vec<u8>> {
        (0..n).map(|i| format!("event {i}").into_bytes()).collect()
    }

    /// A store: every node a frontier completed.
    fn store(leaves: &[Vec<u8>]) -> (Frontier, HashMap<Node, MerkleHash>) {
        let mut frontier = Frontier::new();
        let mut nodes = HashMap::new();
        for leaf in leaves {
            nodes.extend(frontier.append(MerkleHash::leaf(leaf)));
        }
        (frontier, nodes)
    }

    fn range_hash(nodes: &HashMap<Node, MerkleHash>, range: Range) -> MerkleHash {
        let hashes: Vec<MerkleHash> = perfect_nodes(range).iter().map(|n| nodes[n]).collect();
        fold(&hashes)
    }

    fn hex(hash: &MerkleHash) -> String {
        hash.to_hex()
    }

    /// The test vectors of Certificate Transparency's reference implementation: the roots of
    /// the first 0 … 8 of its eight leaves (also computed independently with Python's hashlib).
    #[test]
    fn the_roots_are_the_reference_implementations() {
        let data: [&[u8]; 8] = [
            b"",
            b"\x00",
            b"\x10",
            b"\x20\x21",
            b"\x30\x31",
            b"\x40\x41\x42\x43",
            b"\x50\x51\x52\x53\x54\x55\x56\x57",
            b"\x60\x61\x62\x63\x64\x65\x66\x67\x68\x69\x6a\x6b\x6c\x6d\x6e\x6f",
        ];
        let roots = [
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
            "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
            "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
            "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
            "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
            "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
            "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        ];
        let mut frontier = Frontier::new();
        assert_eq!(hex(&frontier.root()), roots[0]);
        for (n, leaf) in data.iter().enumerate() {
            frontier.append(MerkleHash::leaf(leaf));
            assert_eq!(hex(&frontier.root()), roots[n + 1], "{} leaves", n + 1);
            let owned: Vec<Vec<u8>> = data[..=n].iter().map(|d| d.to_vec()).collect();
            assert_eq!(hex(&mth(&owned)), roots[n + 1], "the reference, {} leaves", n + 1);
        }
    }

    /// The inclusion and consistency proofs of Certificate Transparency's reference
    /// implementation over the same eight leaves (its C++ `ReferenceMerklePath` and
    /// `ReferenceSnapshotConsistency`, as transparency-dev/merkle's tests carry them): made from
    /// stored nodes, hash for hash, and each verifies.
    #[test]
    fn the_proofs_are_the_reference_implementations() {
        let data: Vec<Vec<u8>> = [
            &b""[..],
            b"\x00",
            b"\x10",
            b"\x20\x21",
            b"\x30\x31",
            b"\x40\x41\x42\x43",
            b"\x50\x51\x52\x53\x54\x55\x56\x57",
            b"\x60\x61\x62\x63\x64\x65\x66\x67\x68\x69\x6a\x6b\x6c\x6d\x6e\x6f",
        ]
        .iter()
        .map(|d| d.to_vec())
        .collect();
        let (_, nodes) = store(&data);
        let path = |ranges: Vec<Range>| -> Vec<String> {
            ranges.into_iter().map(|r| hex(&range_hash(&nodes, r))).collect()
        };
        let inclusion: [(u64, u64, &[&str]); 5] = [
            (0, 1, &[]),
            (1, 2, &["6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d"]),
            (
                0,
                8,
                &[
                    "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
                    "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
                    "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
                ],
            ),
            (
                5,
                8,
                &[
                    "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
                    "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
                    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
                ],
            ),
            (
                1,
                5,
                &[
                    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
                    "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
                    "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
                ],
            ),
        ];
        for (index, size, expected) in inclusion {
            assert_eq!(path(inclusion_ranges(index, size).unwrap()), expected, "leaf {index} of {size}");
            let root = mth(&data[..usize::try_from(size).unwrap()]);
            let proof: Vec<MerkleHash> =
                inclusion_ranges(index, size).unwrap().into_iter().map(|r| range_hash(&nodes, r)).collect();
            let leaf = MerkleHash::leaf(&data[usize::try_from(index).unwrap()]);
            assert_eq!(verify_inclusion(&leaf, index, size, &proof, &root), Ok(()));
        }
        let consistency: [(u64, u64, &[&str]); 4] = [
            (1, 1, &[]),
            (
                1,
                8,
                &[
                    "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
                    "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
                    "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
                ],
            ),
            (
                6,
                8,
                &[
                    "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
                    "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
                    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
                ],
            ),
            (
                2,
                5,
                &[
                    "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
                    "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
                ],
            ),
        ];
        for (old, new, expected) in consistency {
            assert_eq!(path(consistency_ranges(old, new).unwrap()), expected, "{old} → {new}");
        }
    }

    /// Every inclusion and consistency proof of every tree up to 70 leaves verifies; the
    /// perfect nodes a store kept are all a proof needs; the frontier rebuilt from them has the
    /// same root.
    #[test]
    fn every_proof_of_small_trees_verifies_from_stored_nodes() {
        for size in 0..=70_u64 {
            let data = leaves(size);
            let (frontier, nodes) = store(&data);
            let root = mth(&data);
            assert_eq!(frontier.root(), root, "size {size}");
            assert_eq!(range_hash(&nodes, Range { start: 0, end: size }), root, "size {size}");
            let edge: Vec<MerkleHash> =
                perfect_nodes(Range { start: 0, end: size }).iter().map(|n| nodes[n]).collect();
            assert_eq!(Frontier::from_nodes(size, &edge).unwrap(), frontier);
            for index in 0..size {
                let proof: Vec<MerkleHash> = inclusion_ranges(index, size)
                    .unwrap()
                    .into_iter()
                    .map(|r| range_hash(&nodes, r))
                    .collect();
                let leaf = MerkleHash::leaf(&data[usize::try_from(index).unwrap()]);
                assert_eq!(verify_inclusion(&leaf, index, size, &proof, &root), Ok(()), "{index} in {size}");
            }
            for old in 0..=size {
                let old_root = mth(&data[..usize::try_from(old).unwrap()]);
                let proof: Vec<MerkleHash> = consistency_ranges(old, size)
                    .unwrap()
                    .into_iter()
                    .map(|r| range_hash(&nodes, r))
                    .collect();
                assert_eq!(verify_consistency(old, size, &old_root, &root, &proof), Ok(()), "{old} → {size}");
            }
        }
    }

    /// The proofs' lengths are RFC 9162's examples' (the tree of 7 leaves, §2.1.5).
    #[test]
    fn the_proofs_have_the_rfcs_shapes() {
        let r = |start, end| Range { start, end };
        // The audit paths of d0, d3, d4 and d6: [b, h, l], [c, g, l], [f, j, k], [i, k].
        assert_eq!(inclusion_ranges(0, 7).unwrap(), vec![r(1, 2), r(2, 4), r(4, 7)]);
        assert_eq!(inclusion_ranges(3, 7).unwrap(), vec![r(2, 3), r(0, 2), r(4, 7)]);
        assert_eq!(inclusion_ranges(4, 7).unwrap(), vec![r(5, 6), r(6, 7), r(0, 4)]);
        assert_eq!(inclusion_ranges(6, 7).unwrap(), vec![r(4, 6), r(0, 4)]);
        // The consistency proofs between the RFC's trees: 3 → 7 is [c, d, g, l]; 4 → 7 is [l];
        // 6 → 7 is [i, j, k].
        assert_eq!(consistency_ranges(3, 7).unwrap(), vec![r(2, 3), r(3, 4), r(0, 2), r(4, 7)]);
        assert_eq!(consistency_ranges(4, 7).unwrap(), vec![r(4, 7)]);
        assert_eq!(consistency_ranges(6, 7).unwrap(), vec![r(4, 6), r(6, 7), r(0, 4)]);
        assert_eq!(inclusion_ranges(7, 7), Err(ProofError::LeafOutside { index: 7, size: 7 }));
        assert_eq!(consistency_ranges(8, 7), Err(ProofError::Shrinks { old: 8, new: 7 }));
    }

    #[test]
    fn a_proof_of_the_wrong_length_or_for_nothing_is_refused() {
        let data = leaves(5);
        let root = mth(&data);
        let leaf = MerkleHash::leaf(&data[0]);
        assert_eq!(
            verify_inclusion(&leaf, 0, 5, &[], &root),
            Err(ProofError::Length { got: 0, expected: 3 })
        );
        assert_eq!(
            verify_inclusion(&leaf, 5, 5, &[], &root),
            Err(ProofError::LeafOutside { index: 5, size: 5 })
        );
        let other = mth(&leaves(3));
        assert_eq!(verify_consistency(5, 5, &root, &root, &[]), Ok(()));
        assert_eq!(
            verify_consistency(5, 5, &root, &other, &[]),
            Err(ProofError::Mismatch),
            "one size, two roots"
        );
        assert_eq!(verify_consistency(0, 5, &MerkleHash::empty(), &root, &[]), Ok(()));
        assert_eq!(verify_consistency(0, 5, &other, &root, &[]), Err(ProofError::Mismatch));
    }

    proptest! {
        /// A hash written as base64 reads back as itself; anything not 32 bytes is refused.
        #[test]
        fn a_hash_reads_back_from_its_base64(bytes in proptest::array::uniform32(any::<u8>()), short in 0..32_usize) {
            let hash = MerkleHash(bytes);
            prop_assert_eq!(MerkleHash::from_base64(&hash.to_base64()), Ok(hash));
            let cut = base64ct::Base64::encode_string(bytes.get(..short).unwrap_or_default());
            prop_assert!(MerkleHash::from_base64(&cut).is_err());
        }
    }

    proptest! {
        /// A proof holds only for the leaf, the position and the roots it was made for: any
        /// changed hash, leaf, index, or root fails it, and so does a fork (the same size with
        /// another history).
        #[test]
        fn a_changed_proof_leaf_or_root_fails(size in 1_u64..200, pick in any::<u64>(), flip in any::<u64>(), old_pick in any::<u64>()) {
            let data = leaves(size);
            let (_, nodes) = store(&data);
            let root = mth(&data);
            let index = pick % size;
            let proof: Vec<MerkleHash> =
                inclusion_ranges(index, size).unwrap().into_iter().map(|r| range_hash(&nodes, r)).collect();
            let leaf = MerkleHash::leaf(&data[usize::try_from(index).unwrap()]);
            prop_assert!(verify_inclusion(&leaf, index, size, &proof, &root).is_ok());
            prop_assert!(verify_inclusion(&MerkleHash::leaf(b"forged"), index, size, &proof, &root).is_err());
            if size > 1 {
                let other = (index + 1 + flip % (size - 1)) % size;
                prop_assert!(verify_inclusion(&leaf, other, size, &proof, &root).is_err(), "{index} as {other}");
            }
            if !proof.is_empty() {
                let mut bad = proof.clone();
                let at = usize::try_from(flip % proof.len() as u64).unwrap();
                bad[at].0[usize::try_from(flip % 32).unwrap()] ^= 1;
                prop_assert!(verify_inclusion(&leaf, index, size, &bad, &root).is_err());
            }
            // Consistency from an older size, and a fork of it.
            let old = 1 + old_pick % size;
            let old_root = mth(&data[..usize::try_from(old).unwrap()]);
            let proof: Vec<MerkleHash> =
                consistency_ranges(old, size).unwrap().into_iter().map(|r| range_hash(&nodes, r)).collect();
            prop_assert!(verify_consistency(old, size, &old_root, &root, &proof).is_ok());
            let mut forked = data[..usize::try_from(old).unwrap()].to_vec();
            forked[usize::try_from(flip % old).unwrap()].push(b'!');
            prop_assert!(verify_consistency(old, size, &mth(&forked), &root, &proof).is_err(), "a fork");
            if !proof.is_empty() {
                let mut bad = proof.clone();
                let at = usize::try_from(flip % proof.len() as u64).unwrap();
                bad[at].0[0] ^= 0x80;
                prop_assert!(verify_consistency(old, size, &old_root, &root, &bad).is_err());
            }
        }
    }
}
