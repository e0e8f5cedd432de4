//! Work items (§5.2): not an array → single-agent path; empty → reported; non-strings
//! filtered; items that are absolute paths or contain `..` rejected (a chunk must never be
//! pointed outside the workspace); duplicates removed; sorted.

use serde_json::Value;

/// The validated items, or why fan-out cannot use them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WorkItems {
    /// Not an array: run the single-agent path.
    NotAList,
    /// Nothing to do.
    Empty,
    /// Unique, sorted, each a relative path-like string.
    Items(Vec<String>),
}

fn escapes(item: &str) -> bool {
    // `contains` is a fast scan; only the rare item with `..` in it is split into segments.
    item.starts_with('/') || (item.contains("..") && item.split(['/', '\\']).any(|part| part == ".."))
}

/// An item's sort key: its first 32 bytes (zero-padded, as four big-endian words, so that
/// comparing keys compares prefixes), its length, and its index in the borrowed list. An item
/// of at most 32 bytes is wholly in its key: it is compared, deduplicated and copied out
/// without reading the original string again (which, among a million, is a cache miss).
#[derive(Clone, Copy, PartialEq, Eq)]
struct Key {
    prefix: [u64; 4],
    len: u32,
    index: u32,
}

impl Key {
    fn new(item: &str, index: usize) -> Key {
        let mut bytes = [0u8; 32];
        let src = item.as_bytes();
        let n = src.len().min(32);
        if let (Some(dst), Some(src)) = (bytes.get_mut(..n), src.get(..n)) {
            dst.copy_from_slice(src);
        }
        let mut prefix = [0u64; 4];
        for (word, chunk) in prefix.iter_mut().zip(bytes.chunks_exact(8)) {
            *word = u64::from_be_bytes(<[u8; 8]>::try_from(chunk).unwrap_or([0; 8]));
        }
        let len = u32::try_from(item.len()).unwrap_or(u32::MAX);
        Key { prefix, len, index: u32::try_from(index).unwrap_or(u32::MAX) }
    }

    /// True when the key holds the whole item: a prefix tie between two such items is decided
    /// by their lengths (the shorter is a prefix of the longer).
    fn is_short(&self) -> bool {
        self.len <= 32
    }

    fn text<'a>(&self, items: &[&'a str]) -> &'a str {
        items.get(self.index as usize).copied().unwrap_or_default()
    }

    /// The item as an owned string, from the key when it holds the whole item.
    fn to_string(self, items: &[&str]) -> String {
        if self.is_short() {
            let mut bytes = [0u8; 32];
            for (chunk, word) in bytes.chunks_exact_mut(8).zip(self.prefix) {
                chunk.copy_from_slice(&word.to_be_bytes());
            }
            if let Some(Ok(text)) = bytes.get(..self.len as usize).map(std::str::from_utf8) {
                return text.to_owned();
            }
        }
        self.text(items).to_owned()
    }
}

/// Sorted (byte order) and deduplicated copies of `items`. Sorting compact prefix keys in one
/// contiguous array keeps the comparisons in cache; the strings themselves are read only for
/// items longer than 32 bytes. The copies are allocated in sorted order, so the plan that
/// holds them is also freed in order.
fn sorted_unique(items: &[&str], mut keys: Vec<Key>) -> Vec<String> {
    keys.sort_unstable_by(|a, b| {
        a.prefix.cmp(&b.prefix).then_with(|| {
            if a.is_short() && b.is_short() { a.len.cmp(&b.len) } else { a.text(items).cmp(b.text(items)) }
        })
    });
    let mut out: Vec<String> = Vec::with_capacity(keys.len());
    let mut last: Option<Key> = None;
    for key in keys {
        let duplicate = last.is_some_and(|prev| {
            prev.prefix == key.prefix
                && prev.len == key.len
                && (key.is_short() || prev.text(items) == key.text(items))
        });
        if !duplicate {
            out.push(key.to_string(items));
        }
        last = Some(key);
    }
    out
}

/// Validates a JSON value as a work list, with one warning per item dropped.
pub fn validate_items(value: &Value) -> (WorkItems, Vec<String>) {
    let mut warnings = Vec::new();
    let Value::Array(values) = value else {
        warnings.push("work items are not an array: single-agent path".to_owned());
        return (WorkItems::NotAList, warnings);
    };
    let mut borrowed: Vec<&str> = Vec::with_capacity(values.len());
    let mut keys: Vec<Key> = Vec::with_capacity(values.len());
    let (mut non_strings, mut escaping) = (0usize, Vec::new());
    for value in values {
        match value {
            Value::String(item) if item.is_empty() || escapes(item) => escaping.push(item.clone()),
            Value::String(item) => {
                keys.push(Key::new(item, borrowed.len()));
                borrowed.push(item);
            }
            _ => non_strings += 1,
        }
    }
    let items = sorted_unique(&borrowed, keys);
    if non_strings > 0 {
        warnings.push(format!("{non_strings} work item(s) are not strings: filtered out"));
    }
    for item in escaping.iter().take(10) {
        warnings.push(format!(
            "work item `{}` is empty, absolute or contains `..`: rejected",
            item.escape_debug()
        ));
    }
    if escaping.len() > 10 {
        warnings.push(format!("{} more work items rejected", escaping.len() - 10));
    }
    if items.is_empty() {
        warnings.push("the work list is empty".to_owned());
        return (WorkItems::Empty, warnings);
    }
    (WorkItems::Items(items), warnings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// `sorted_unique` against the reference: `sort` then `dedup`.
    fn sorts_like_the_reference(items: &[String]) -> Result<(), proptest::test_runner::TestCaseError> {
        let borrowed: Vec<&str> = items.iter().map(String::as_str).collect();
        let keys = items.iter().enumerate().map(|(i, s)| Key::new(s, i)).collect();
        let mut expected = items.to_vec();
        expected.sort();
        expected.dedup();
        proptest::prop_assert_eq!(sorted_unique(&borrowed, keys), expected);
        Ok(())
    }

    proptest::proptest! {
        #[test]
        fn sorting_by_prefix_keys_is_byte_order(items in proptest::collection::vec(".{0,40}", 0..60)) {
            sorts_like_the_reference(&items)?;
        }

        #[test]
        fn long_shared_prefixes_and_duplicates_sort_and_dedupe_in_byte_order(
            items in proptest::collection::vec("[ab\\x00]{28,36}", 0..80),
            copies in 1usize..3,
        ) {
            let items: Vec<String> = items.iter().flat_map(|s| std::iter::repeat_n(s.clone(), copies)).collect();
            sorts_like_the_reference(&items)?;
        }
    }

    #[test]
    fn items_past_32_bytes_sort_by_their_whole_text_and_dotted_names_stay() {
        let shared = "x".repeat(32);
        let rows: [Vec<String>; 3] = [
            vec![format!("{shared}b"), format!("{shared}a"), format!("{shared}b")],
            vec![format!("{shared}zz"), shared.clone(), format!("{shared}a")],
            vec!["a..b/c".into(), "v1..2.txt".into(), "..hidden".into()],
        ];
        for items in &rows {
            sorts_like_the_reference(items).unwrap();
        }
        let (kept, warnings) = validate_items(&json!(["a..b/c", "v1..2.txt", "..hidden", "../up", "a/../b"]));
        assert_eq!(kept, WorkItems::Items(vec!["..hidden".into(), "a..b/c".into(), "v1..2.txt".into()]));
        assert_eq!(warnings.len(), 2, "only `..` as a whole segment escapes: {warnings:?}");
    }

    #[test]
    fn ten_rejections_are_named_and_the_rest_counted() {
        let rejected = |n: usize| -> Vec<String> {
            let mut list: Vec<Value> = (0..n).map(|i| json!(format!("/abs/{i}"))).collect();
            list.push(json!("ok"));
            validate_items(&Value::Array(list)).1
        };
        assert!(validate_items(&json!(["a", "b"])).1.is_empty(), "a clean list warns of nothing");
        assert_eq!(rejected(10).len(), 10);
        let eleven = rejected(11);
        assert_eq!(
            (eleven.len(), eleven.last().map(String::as_str)),
            (11, Some("1 more work items rejected"))
        );
        let twelve = rejected(12);
        assert_eq!(
            (twelve.len(), twelve.last().map(String::as_str)),
            (11, Some("2 more work items rejected"))
        );
    }

    #[test]
    fn the_5_2_table() {
        assert_eq!(validate_items(&json!({"a": 1})).0, WorkItems::NotAList);
        assert_eq!(validate_items(&json!([])).0, WorkItems::Empty);
        let (items, warnings) =
            validate_items(&json!(["b", 1, "a", null, "b", "/etc/passwd", "x/../../y", ""]));
        assert_eq!(items, WorkItems::Items(vec!["a".into(), "b".into()]));
        assert_eq!(warnings.len(), 4, "{warnings:?}");
    }
}
