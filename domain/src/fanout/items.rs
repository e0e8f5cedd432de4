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

/// Validates a JSON value as a work list, with one warning per item dropped.
pub fn validate_items(value: &Value) -> (WorkItems, Vec<String>) {
    let mut warnings = Vec::new();
    let Value::Array(values) = value else {
        warnings.push("work items are not an array: single-agent path".to_owned());
        return (WorkItems::NotAList, warnings);
    };
    let mut items: Vec<String> = Vec::with_capacity(values.len());
    let (mut non_strings, mut escaping) = (0usize, Vec::new());
    for value in values {
        match value {
            Value::String(item) if escapes(item) || item.is_empty() => escaping.push(item.clone()),
            Value::String(item) => items.push(item.clone()),
            _ => non_strings += 1,
        }
    }
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
    items.sort_unstable();
    items.dedup();
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
