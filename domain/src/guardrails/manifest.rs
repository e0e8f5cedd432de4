//! Tree manifests of protected paths and their diff.
//!
//! A manifest lists every entry under each protected path: its path relative to the workspace
//! root (`/`-separated), its kind (file, symlink, directory), its permission bits (so `chmod +x`
//! is a change), and a BLAKE3 digest — of the content for a file, of the target path for a
//! symlink (which is never followed), none for a directory. The diff names every added, removed
//! and modified path, sorted, instead of "hash mismatch".
//!
//! U-10: a protected tree holds files, links and directories. Anything else found there — a
//! FIFO, a socket, a device, an entry that could not be read — is an *odd* entry: it is always
//! a change (added or modified, never "the same as before": Warden cannot say what it holds),
//! it is named with its kind in [`TreeDiff::odd`], and it never stops the other entries being
//! named. U-11: a name that is not UTF-8, or that holds a backslash, is keyed escaped
//! ([`escape_name`]: `\\` for a backslash, `\xNN` for a byte that is not UTF-8), so the key
//! is text and the bytes can be recovered ([`unescape_name`]).

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
    /// A FIFO (named pipe): odd (U-10).
    Fifo,
    /// A Unix socket: odd.
    Socket,
    /// A character device: odd.
    CharDevice,
    /// A block device: odd.
    BlockDevice,
    /// An entry that could not be read (its kind or content unknown): odd.
    Unreadable,
}

impl EntryKind {
    /// Not a file, link or directory: always a change (U-10).
    pub fn is_odd(self) -> bool {
        !matches!(self, EntryKind::File | EntryKind::Symlink | EntryKind::Dir)
    }

    /// The kind in words.
    pub fn describe(self) -> &'static str {
        match self {
            EntryKind::File => "a regular file",
            EntryKind::Symlink => "a symbolic link",
            EntryKind::Dir => "a directory",
            EntryKind::Fifo => "a FIFO",
            EntryKind::Socket => "a socket",
            EntryKind::CharDevice => "a character device",
            EntryKind::BlockDevice => "a block device",
            EntryKind::Unreadable => "an unreadable entry",
        }
    }
}

/// The key of a name (U-11): UTF-8 without a backslash as is; otherwise each backslash as
/// `\\` and each byte that is not part of valid UTF-8 as `\xNN`.
pub fn escape_name(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c == '\\' {
                out.push_str("\\\\");
            } else {
                out.push(c);
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

/// The bytes of a name keyed by [`escape_name`]; `None` if `key` is no such escape.
pub fn unescape_name(key: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(key.len());
    let mut rest = key.as_bytes();
    while let Some((&b, tail)) = rest.split_first() {
        if b != b'\\' {
            out.push(b);
            rest = tail;
            continue;
        }
        match tail {
            [b'\\', more @ ..] => {
                out.push(b'\\');
                rest = more;
            }
            [b'x', hi, lo, more @ ..] => {
                let hex = [*hi, *lo];
                let text = std::str::from_utf8(&hex).ok()?;
                out.push(u8::from_str_radix(text, 16).ok()?);
                rest = more;
            }
            _ => return None,
        }
    }
    Some(out)
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
    /// The odd entries found after (U-10), each as `path (kind)`; every one is in `added` or
    /// `modified` too.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub odd: Vec<String>,
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

fn note_odd(out: &mut TreeDiff, path: &str, entry: &Entry) {
    if entry.kind.is_odd() {
        out.odd.push(format!("{path} ({})", entry.kind.describe()));
    } else if not_utf8(path) {
        out.odd.push(format!("{path} ({} whose name is not UTF-8)", entry.kind.describe()));
    }
}

/// The key names an entry whose name is not UTF-8 (U-11).
fn not_utf8(path: &str) -> bool {
    path.contains('\\') && unescape_name(path).is_none_or(|bytes| std::str::from_utf8(&bytes).is_err())
}

/// Always a change (U-10, U-11).
fn always_changed(path: &str, entry: &Entry) -> bool {
    entry.kind.is_odd() || not_utf8(path)
}

/// The diff of two manifests, in one merge pass over their sorted entries. An odd entry after
/// is always a change (U-10).
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
            (None, Some((path, entry))) => {
                note_odd(&mut out, path, entry);
                out.added.push((*path).clone());
                new.next();
            }
            (Some((a, entry_a)), Some((b, entry_b))) => match a.cmp(b) {
                std::cmp::Ordering::Less => {
                    out.removed.push((*a).clone());
                    old.next();
                }
                std::cmp::Ordering::Greater => {
                    note_odd(&mut out, b, entry_b);
                    out.added.push((*b).clone());
                    new.next();
                }
                std::cmp::Ordering::Equal => {
                    note_odd(&mut out, b, entry_b);
                    if entry_a != entry_b || always_changed(b, entry_b) {
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

    #[test]
    fn odd_entries_are_always_changes_and_named_with_their_kind() {
        let fifo = Entry { kind: EntryKind::Fifo, mode: 0o644, digest: None };
        let before = manifest(&[("okrs/a.md", file(b"a", 0o644)), ("okrs/p", fifo.clone())]);
        let after = manifest(&[
            ("okrs/a.md", file(b"A", 0o644)),
            ("okrs/p", fifo),
            ("okrs/s", Entry { kind: EntryKind::Socket, mode: 0o755, digest: None }),
        ]);
        let d = diff(&before, &after);
        assert_eq!(d.modified, ["okrs/a.md", "okrs/p"], "a FIFO there before is still a change");
        assert_eq!(d.added, ["okrs/s"]);
        assert_eq!(d.odd, ["okrs/p (a FIFO)", "okrs/s (a socket)"]);
        let named = manifest(&[("okrs/bad\\xff", file(b"x", 0o644))]);
        let d = diff(&named, &named);
        assert_eq!(d.modified, ["okrs/bad\\xff"], "a name that is not UTF-8 is always a change");
        assert_eq!(d.odd, ["okrs/bad\\xff (a regular file whose name is not UTF-8)"]);
        let backslash = manifest(&[("okrs/a\\\\b", file(b"x", 0o644))]);
        assert!(diff(&backslash, &backslash).is_empty(), "a UTF-8 name with a backslash is not odd");
    }

    #[test]
    fn escaped_names_are_text_and_come_back_exactly() {
        for name in [&b"plain.md"[..], b"bad\xff\xfe", b"back\\slash", b"\\xff", b"caf\xc3\xa9"] {
            let key = escape_name(name);
            assert_eq!(unescape_name(&key).as_deref(), Some(name), "{key}");
        }
        assert_eq!(escape_name(b"bad\xff"), "bad\\xff");
        assert_ne!(escape_name(b"bad\xff"), escape_name(b"bad\\xff"), "no two names share a key");
        assert_eq!(unescape_name("trailing\\"), None);
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
