//! Content snapshots of the protected paths (issue 18 item 4, U-12 … U-14).
//!
//! A [`TreeManifest`] says *that* a protected file changed; a [`ContentSnapshot`] also keeps
//! what it held, so that a revert needs no git: a commit, a reset or a branch switch inside the
//! agent launders nothing. It is the manifest plus the bytes of every file and the target of
//! every link, encoded into one byte string Warden keeps in its own storage. Decoding checks
//! every entry's bytes against the manifest's digest (U-13): a snapshot that was damaged or
//! edited in the store is refused, never restored.
//!
//! Encoding: `AWCS1\n`, the manifest as JSON with its length (u64, big-endian) before it, then
//! for each file or link of the manifest in key order its length (u64) and its bytes.

use std::collections::BTreeMap;

use crate::audit::Hash;

use super::manifest::{EntryKind, TreeManifest};

const MAGIC: &[u8] = b"AWCS1\n";

/// The manifest of the protected paths and the bytes behind it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ContentSnapshot {
    /// Every entry, as a manifest.
    pub manifest: TreeManifest,
    /// Relative path → the bytes of a file or the target of a link; one for each such entry.
    pub contents: BTreeMap<String, Vec<u8>>,
}

/// Why a content snapshot cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContentError(pub String);

impl std::fmt::Display for ContentError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the content snapshot is unusable: {}", self.0)
    }
}

impl std::error::Error for ContentError {}

/// The digest a manifest keeps for a file's bytes.
pub fn file_digest(bytes: &[u8]) -> Hash {
    Hash::from_bytes(*blake3::hash(bytes).as_bytes())
}

/// The digest a manifest keeps for a link's target.
pub fn link_digest(target: &[u8]) -> Hash {
    Hash::link(&Hash::GENESIS, target)
}

fn err(why: impl Into<String>) -> ContentError {
    ContentError(why.into())
}

impl ContentSnapshot {
    /// Checks that every file and link has its bytes and that they match its digest (U-13).
    pub fn verify(&self) -> Result<(), ContentError> {
        for (path, entry) in &self.manifest.entries {
            let expected = match entry.kind {
                EntryKind::File | EntryKind::Symlink => entry.digest,
                _ => continue,
            };
            let bytes = self.contents.get(path).ok_or_else(|| err(format!("`{path}` has no content")))?;
            let digest = if entry.kind == EntryKind::File { file_digest(bytes) } else { link_digest(bytes) };
            if Some(digest) != expected {
                return Err(err(format!("the content of `{path}` does not match its digest")));
            }
        }
        if self.contents.len()
            != self
                .manifest
                .entries
                .values()
                .filter(|e| matches!(e.kind, EntryKind::File | EntryKind::Symlink))
                .count()
        {
            return Err(err("it holds content for entries its manifest does not list"));
        }
        Ok(())
    }

    /// The snapshot as one byte string.
    pub fn encode(&self) -> Result<Vec<u8>, ContentError> {
        let manifest = serde_json::to_vec(&self.manifest).map_err(|e| err(e.to_string()))?;
        let total: usize = self.contents.values().map(|c| c.len() + 8).sum();
        let mut out = Vec::with_capacity(MAGIC.len() + 8 + manifest.len() + total);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&(manifest.len() as u64).to_be_bytes());
        out.extend_from_slice(&manifest);
        for (path, entry) in &self.manifest.entries {
            if matches!(entry.kind, EntryKind::File | EntryKind::Symlink) {
                let bytes = self.contents.get(path).ok_or_else(|| err(format!("`{path}` has no content")))?;
                out.extend_from_slice(&(bytes.len() as u64).to_be_bytes());
                out.extend_from_slice(bytes);
            }
        }
        Ok(out)
    }

    /// Reads a snapshot [`ContentSnapshot::encode`] wrote and verifies it.
    pub fn decode(bytes: &[u8]) -> Result<ContentSnapshot, ContentError> {
        let rest = bytes.strip_prefix(MAGIC).ok_or_else(|| err("it is not a content snapshot"))?;
        let (manifest_bytes, mut rest) = take_sized(rest)?;
        let manifest: TreeManifest =
            serde_json::from_slice(manifest_bytes).map_err(|e| err(format!("its manifest: {e}")))?;
        let mut contents = BTreeMap::new();
        for (path, entry) in &manifest.entries {
            if matches!(entry.kind, EntryKind::File | EntryKind::Symlink) {
                let (content, tail) = take_sized(rest)?;
                contents.insert(path.clone(), content.to_vec());
                rest = tail;
            }
        }
        if !rest.is_empty() {
            return Err(err("it has bytes after its last entry"));
        }
        let snapshot = ContentSnapshot { manifest, contents };
        snapshot.verify()?;
        Ok(snapshot)
    }
}

fn take_sized(bytes: &[u8]) -> Result<(&[u8], &[u8]), ContentError> {
    let (len, rest) = bytes.split_first_chunk::<8>().ok_or_else(|| err("it is truncated"))?;
    let len = usize::try_from(u64::from_be_bytes(*len)).map_err(|_| err("a length is too large"))?;
    if rest.len() < len {
        return Err(err("it is truncated"));
    }
    Ok(rest.split_at(len))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::guardrails::Entry;

    proptest! {
        #[test]
        fn decoding_any_bytes_never_panics_and_only_a_verified_snapshot_is_accepted(
            tail in prop::collection::vec(any::<u8>(), 0..256),
            cut in any::<prop::sample::Index>(),
        ) {
            let mut bytes = MAGIC.to_vec();
            bytes.extend_from_slice(&tail);
            if let Ok(s) = ContentSnapshot::decode(&bytes) {
                prop_assert!(s.verify().is_ok());
            }
            let good = sample().encode().unwrap();
            let n = cut.index(good.len());
            prop_assert!(ContentSnapshot::decode(&good[..n]).is_err(), "a truncation at {} is refused", n);
        }
    }

    fn sample() -> ContentSnapshot {
        let mut s = ContentSnapshot::default();
        s.manifest.protected = vec!["okrs".into()];
        let entries = &mut s.manifest.entries;
        entries.insert("okrs".into(), Entry { kind: EntryKind::Dir, mode: 0o755, digest: None });
        entries.insert(
            "okrs/a.md".into(),
            Entry { kind: EntryKind::File, mode: 0o644, digest: Some(file_digest(b"a")) },
        );
        entries.insert(
            "okrs/l".into(),
            Entry { kind: EntryKind::Symlink, mode: 0o777, digest: Some(link_digest(b"a.md")) },
        );
        s.contents.insert("okrs/a.md".into(), b"a".to_vec());
        s.contents.insert("okrs/l".into(), b"a.md".to_vec());
        s
    }

    #[test]
    fn round_trips_and_refuses_any_damage() {
        let s = sample();
        let bytes = s.encode().unwrap();
        assert_eq!(ContentSnapshot::decode(&bytes).unwrap(), s);
        // Any single-byte change in the content or a truncation is refused.
        let mut damaged = bytes.clone();
        let last = damaged.len() - 1;
        damaged[last] ^= 1;
        assert!(ContentSnapshot::decode(&damaged).is_err());
        assert!(ContentSnapshot::decode(&bytes[..bytes.len() - 1]).is_err());
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(ContentSnapshot::decode(&longer).is_err());
        assert!(ContentSnapshot::decode(b"nope").is_err());
        let mut wrong = s.clone();
        wrong.contents.insert("okrs/a.md".into(), b"b".to_vec());
        assert!(wrong.verify().is_err());
    }
}
