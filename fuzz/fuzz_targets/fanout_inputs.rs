//! Fan-out config, work items and chunk results as arbitrary JSON: never a panic; the config is
//! clamped (1 ≤ max_agents ≤ 8, timeout ≥ 60 000 ms); every valid item lands in exactly one chunk
//! and no more than max_agents chunks exist; a merge of failed chunks is never `completed`.
#![no_main]

use agentwarden_domain::fanout::{
    ChunkOutcome, MergeStatus, Plan, WorkItems, merge, plan, validate_chunk_result, validate_config, validate_items,
};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(value) = serde_json::from_str::<Value>(text) else { return };
    let (config, _) = validate_config(Some(&value));
    assert!((1..=8).contains(&config.max_agents()));
    let phase = config.phase("tests");
    let (items, _) = validate_items(&value);
    if let WorkItems::Items(list) = items {
        let mut sorted = list.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted, list, "sorted and unique");
        assert!(list.iter().all(|i| !i.starts_with('/') && !i.split(['/', '\\']).any(|p| p == "..")));
        if let Plan::FanOut { chunks, .. } = plan(list.clone(), &phase, config.max_agents(), false) {
            assert!(chunks.len() as u64 <= config.max_agents());
            let mut all: Vec<String> = chunks.into_iter().flatten().collect();
            all.sort();
            assert_eq!(all, list, "every item in exactly one chunk");
        }
    }
    let outcomes: Vec<ChunkOutcome> = match &value {
        Value::Array(results) => results.iter().enumerate().map(|(i, r)| validate_chunk_result(i, Some(r))).collect(),
        other => vec![validate_chunk_result(0, Some(other)), validate_chunk_result(1, None)],
    };
    let merged = merge(&outcomes);
    if outcomes.iter().any(|o| !matches!(o.status, agentwarden_domain::fanout::ChunkStatus::Completed)) {
        assert_ne!(merged.status, MergeStatus::Completed);
    }
});
