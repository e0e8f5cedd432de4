//! Tree manifests of protected paths and their diff.
//!
//! A manifest lists every entry under each protected path: its path relative to the workspace
//! root (`/`-separated), its kind (file, symlink, directory), its permission bits (so `chmod +x`
//! is a change), and a BLAKE3 digest — of the content for a file, of the target path for a
//! symlink (which is never followed), none for a directory. The diff names every added, removed
//! and modified path, sorted, instead of "hash mismatch".

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::audit::Hash;

/// What an entry is. A symlink is never followed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A symbolic link.
    Symlink,
    /// A directory.
    Dir,
}

/// One entry of a manifest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// File, symlink or directory.
    pub kind: EntryKind,
    /// Permission bits (`mode & 0o7777`).
    pub mode: u32,
    /// BLAKE3 of the content (file) or target path (symlink); `None` for a directory.
    pub digest: Option<Hash>,
}

/// Every entry under the protected paths, by relative path.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TreeManifest {
    /// The protected paths the manifest covers, as configured.
    pub protected: Vec<String>,
    /// Relative path → entry.
    pub entries: BTreeMap<String, Entry>,
}

/// What changed between two manifests; each list sorted.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TreeDiff {
    /// Present after, not before.
    pub added: Vec<String>,
    /// Present before, not after.
    pub removed: Vec<String>,
    /// Present in both, with another kind, mode or digest.
    pub modified: Vec<String>,
}

impl TreeDiff {
    /// Nothing changed.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.modified.is_empty()
    }

    /// Every changed path, sorted and without duplicates.
    pub fn changed_paths(&self) -> Vec<String> {
        let mut all: Vec<String> =
            self.added.iter().chain(&self.removed).chain(&self.modified).cloned().collect();
        all.sort();
        all.dedup();
        all
    }
}

/// The diff of two manifests, in one merge pass over their sorted entries.
pub fn diff(before: &TreeManifest, after: &TreeManifest) -> TreeDiff {
    let mut out = TreeDiff::default();
    let mut old = before.entries.iter().peekable();
    let mut new = after.entries.iter().peekable();
    loop {
        match (old.peek(), new.peek()) {
            (None, None) => return out,
            (Some((path, _)), None) => {
                out.removed.push((*path).clone());
                old.next();
            }
            (None, Some((path, _))) => {
                out.added.push((*path).clone());
                new.next();
            }
            (Some((a, entry_a)), Some((b, entry_b))) => match a.cmp(b) {
                std::cmp::Ordering::Less => {
                    out.removed.push((*a).clone());
                    old.next();
                }
                std::cmp::Ordering::Greater => {
                    out.added.push((*b).clone());
                    new.next();
                }
                std::cmp::Ordering::Equal => {
                    if entry_a != entry_b {
                        out.modified.push((*a).clone());
                    }
                    old.next();
                    new.next();
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn file(content: &[u8], mode: u32) -> Entry {
        Entry { kind: EntryKind::File, mode, digest: Some(Hash::link(&Hash::GENESIS, content)) }
    }

    fn manifest(entries: &[(&str, Entry)]) -> TreeManifest {
        TreeManifest {
            protected: vec!["okrs".into()],
            entries: entries.iter().map(|(p, e)| ((*p).to_owned(), e.clone())).collect(),
        }
    }

    #[test]
    fn a_diff_is_empty_only_without_any_change() {
        let one = || vec!["okrs/a.md".to_owned()];
        assert!(TreeDiff::default().is_empty());
        assert!(!TreeDiff { added: one(), ..TreeDiff::default() }.is_empty());
        assert!(!TreeDiff { removed: one(), ..TreeDiff::default() }.is_empty());
        assert!(!TreeDiff { modified: one(), ..TreeDiff::default() }.is_empty());
    }

    #[test]
    fn names_added_removed_and_modified_paths() {
        let before = manifest(&[
            ("okrs", Entry { kind: EntryKind::Dir, mode: 0o755, digest: None }),
            ("okrs/a.md", file(b"a", 0o644)),
            ("okrs/b.md", file(b"b", 0o644)),
            ("okrs/c.md", file(b"c", 0o644)),
            ("okrs/x.sh", file(b"x", 0o644)),
        ]);
        let after = manifest(&[
            ("okrs", Entry { kind: EntryKind::Dir, mode: 0o755, digest: None }),
            ("okrs/a.md", file(b"A", 0o644)),
            (
                "okrs/c.md",
                Entry {
                    kind: EntryKind::Symlink,
                    mode: 0o777,
                    digest: Some(Hash::link(&Hash::GENESIS, b"c")),
                },
            ),
            ("okrs/d.md", file(b"d", 0o644)),
            ("okrs/x.sh", file(b"x", 0o755)),
        ]);
        let d = diff(&before, &after);
        assert_eq!(d.added, ["okrs/d.md"]);
        assert_eq!(d.removed, ["okrs/b.md"]);
        assert_eq!(
            d.modified,
            ["okrs/a.md", "okrs/c.md", "okrs/x.sh"],
            "content, kind and chmod are changes"
        );
        assert_eq!(d.changed_paths(), ["okrs/a.md", "okrs/b.md", "okrs/c.md", "okrs/d.md", "okrs/x.sh"]);
        assert!(diff(&before, &before).is_empty());
    }

    fn any_manifest() -> impl Strategy<Value = TreeManifest> {
        prop::collection::btree_map("[a-c]{1,2}(/[a-c]{1,2})?", (any::<u8>(), 0u32..4), 0..12).prop_map(|m| {
            TreeManifest {
                protected: vec![],
                entries: m.into_iter().map(|(p, (content, mode))| (p, file(&[content], mode))).collect(),
            }
        })
    }

    proptest! {
        #[test]
        fn the_diff_partitions_every_path(before in any_manifest(), after in any_manifest()) {
            let d = diff(&before, &after);
            for path in before.entries.keys().chain(after.entries.keys()) {
                let in_before = before.entries.get(path);
                let in_after = after.entries.get(path);
                let expected = match (in_before, in_after) {
                    (None, Some(_)) => (true, false, false),
                    (Some(_), None) => (false, true, false),
                    (Some(a), Some(b)) => (false, false, a != b),
                    (None, None) => (false, false, false),
                };
                let found = (d.added.contains(path), d.removed.contains(path), d.modified.contains(path));
                prop_assert_eq!(found, expected, "{}", path);
            }
            for list in [&d.added, &d.removed, &d.modified] {
                prop_assert!(list.windows(2).all(|w| w[0] < w[1]), "sorted and unique");
            }
            prop_assert_eq!(diff(&after, &before).added, d.removed.clone());
        }
    }
}
