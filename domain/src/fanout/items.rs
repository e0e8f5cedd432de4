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
    item.starts_with('/') || item.split(['/', '\\']).any(|part| part == "..")
}

/// The first 32 bytes of `s`, big-endian, zero-padded: comparing keys compares prefixes.
fn prefix_key(s: &str) -> (u128, u128) {
    let mut bytes = [0u8; 32];
    for (slot, b) in bytes.iter_mut().zip(s.bytes()) {
        *slot = b;
    }
    let (hi, lo) = bytes.split_at(16);
    let word = |part: &[u8]| u128::from_be_bytes(<[u8; 16]>::try_from(part).unwrap_or([0; 16]));
    (word(hi), word(lo))
}

/// Sorted (byte order) and deduplicated copies of `items`. Sorting compact prefix keys in one
/// contiguous array keeps the comparisons in cache; the strings are only read on a prefix tie.
fn sorted_unique(items: &[&str]) -> Vec<String> {
    let mut keys: Vec<(u128, u128, u32)> = items
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let (hi, lo) = prefix_key(s);
            (hi, lo, u32::try_from(i).unwrap_or(u32::MAX))
        })
        .collect();
    let at = |i: u32| items.get(i as usize).copied().unwrap_or_default();
    keys.sort_unstable_by(|a, b| {
        (a.0, a.1).cmp(&(b.0, b.1)).then_with(|| {
            let (x, y) = (at(a.2), at(b.2));
            // Equal 32-byte prefixes of strings no longer than 32 bytes: only the lengths differ.
            if x.len() <= 32 && y.len() <= 32 { x.len().cmp(&y.len()) } else { x.cmp(y) }
        })
    });
    let mut out: Vec<String> = Vec::with_capacity(keys.len());
    let mut last: Option<&str> = None;
    for (_, _, i) in keys {
        let item = at(i);
        if last != Some(item) {
            out.push(item.to_owned());
            last = Some(item);
        }
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
    // Sort and dedupe borrowed strings; allocate only the survivors.
    let mut borrowed: Vec<&str> = Vec::with_capacity(values.len());
    let (mut non_strings, mut escaping) = (0usize, Vec::new());
    for value in values {
        match value {
            Value::String(item) if escapes(item) || item.is_empty() => escaping.push(item.clone()),
            Value::String(item) => borrowed.push(item),
            _ => non_strings += 1,
        }
    }
    let items = sorted_unique(&borrowed);
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

    proptest::proptest! {
        #[test]
        fn sorting_by_prefix_keys_is_byte_order(items in proptest::collection::vec(".{0,40}", 0..60)) {
            let borrowed: Vec<&str> = items.iter().map(String::as_str).collect();
            let mut expected: Vec<String> = items.clone();
            expected.sort();
            expected.dedup();
            proptest::prop_assert_eq!(sorted_unique(&borrowed), expected);
        }
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
