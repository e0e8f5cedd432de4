//! The chunk splitter (F-4 … F-6). Deterministic: the same items and settings give the same
//! plan; every item lands in exactly one chunk.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::config::{PhaseConfig, Strategy};

/// What to run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "snake_case")]
pub enum Plan {
    /// One agent does everything, for this reason.
    SingleAgent {
        /// Why there is no fan-out.
        reason: String,
    },
    /// One agent per chunk.
    FanOut {
        /// How the items were split.
        strategy: Strategy,
        /// The chunks, each non-empty.
        chunks: Vec<Vec<String>>,
    },
}

/// Plans `items` (validated: unique, sorted) for a phase (F-4); the items move into the chunks.
pub fn plan(items: Vec<String>, phase: &PhaseConfig, max_agents: u64, no_fan_out: bool) -> Plan {
    let single = |reason: String| Plan::SingleAgent { reason };
    if no_fan_out {
        return single("--no-fan-out".into());
    }
    let count = items.len() as u64;
    if count < phase.min_threshold {
        return single(format!("{count} item(s), below the threshold of {}", phase.min_threshold));
    }
    let n = max_agents.min(count.div_ceil(phase.per_agent.max(1)));
    let Ok(n) = usize::try_from(n) else { return single("too many chunks".into()) };
    if n == 0 {
        return single("zero chunks".into());
    }
    let chunks = match phase.strategy {
        Strategy::RoundRobin => round_robin(items, n),
        Strategy::GroupByDirectory => group_by_directory(items, n),
    };
    Plan::FanOut { strategy: phase.strategy, chunks: chunks.into_iter().filter(|c| !c.is_empty()).collect() }
}

/// Item *i* to chunk *i mod n* (F-6).
fn round_robin(items: Vec<String>, n: usize) -> Vec<Vec<String>> {
    let mut chunks = vec![Vec::with_capacity(items.len() / n + 1); n];
    for (i, item) in items.into_iter().enumerate() {
        if let Some(chunk) = chunks.get_mut(i % n) {
            chunk.push(item);
        }
    }
    chunks
}

/// Group by parent directory; pack whole groups onto the least-loaded chunk, largest
/// first, ties by name; a group larger than the fair share is cut into runs of that size.
/// Items are sorted, so one directory's items are mostly adjacent: the map is consulted only
/// when the directory changes, and every string moves into its chunk once (F-5).
fn group_by_directory(mut items: Vec<String>, n: usize) -> Vec<Vec<String>> {
    let fair = items.len().div_ceil(n).max(1);
    let mut group_of: BTreeMap<&str, usize> = BTreeMap::new();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut current: Option<(&str, usize)> = None;
    for (i, item) in items.iter().enumerate() {
        let dir = item.rsplit_once('/').map_or("", |(dir, _)| dir);
        let group = match current {
            Some((last, group)) if last == dir => group,
            _ => *group_of.entry(dir).or_insert_with(|| {
                groups.push(Vec::new());
                groups.len() - 1
            }),
        };
        current = Some((dir, group));
        if let Some(members) = groups.get_mut(group) {
            members.push(i);
        }
    }
    // Runs in directory order, each group's members in item order.
    let mut runs: Vec<(&str, &[usize])> = Vec::new();
    for (dir, &group) in &group_of {
        for run in groups.get(group).map_or(&[][..], Vec::as_slice).chunks(fair) {
            runs.push((dir, run));
        }
    }
    // Largest first; ties by directory name (stable sort keeps run order within a directory).
    runs.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then_with(|| a.0.cmp(b.0)));
    let mut placed: Vec<(usize, &[usize])> = Vec::with_capacity(runs.len());
    let mut loads = vec![0usize; n];
    for (_, run) in runs {
        let least = loads.iter().enumerate().min_by_key(|(i, load)| (**load, *i)).map_or(0, |(i, _)| i);
        if let Some(load) = loads.get_mut(least) {
            *load += run.len();
        }
        placed.push((least, run));
    }
    let mut chunks: Vec<Vec<String>> = loads.iter().map(|load| Vec::with_capacity(*load)).collect();
    for (chunk, run) in placed {
        if let Some(chunk) = chunks.get_mut(chunk) {
            chunk.extend(run.iter().filter_map(|&i| items.get_mut(i).map(std::mem::take)));
        }
    }
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fanout::config::{PhaseConfig, PhaseKind};
    use proptest::prelude::{Strategy as _, TestCaseError, any, prop, prop_assert, prop_assert_eq, proptest};

    fn items(list: &[&str]) -> Vec<String> {
        let mut v: Vec<String> = list.iter().map(|s| (*s).to_owned()).collect();
        v.sort();
        v
    }

    fn phase(strategy: Strategy, per_agent: u64, min_threshold: u64) -> PhaseConfig {
        PhaseConfig { kind: PhaseKind::Files, strategy, per_agent, min_threshold }
    }

    #[test]
    fn f4_chunk_count_and_single_agent_reasons() {
        let many: Vec<String> = (0..1000).map(|i| format!("t{i:04}")).collect();
        let tests = PhaseConfig::default_for(PhaseKind::Tests);
        match plan(many.clone(), &tests, 8, false) {
            Plan::FanOut { chunks, .. } => assert_eq!(chunks.len(), 4, "ceil(1000 / 250)"),
            other => panic!("{other:?}"),
        }
        match plan(many.clone(), &tests, 2, false) {
            Plan::FanOut { chunks, .. } => assert_eq!(chunks.len(), 2, "capped by max_agents"),
            other => panic!("{other:?}"),
        }
        assert!(matches!(plan(many[..249].to_vec(), &tests, 8, false), Plan::SingleAgent { .. }));
        assert!(
            matches!(plan(many.clone(), &tests, 8, true), Plan::SingleAgent { reason } if reason == "--no-fan-out")
        );
    }

    #[test]
    fn f6_round_robin() {
        let plan = plan(items(&["a", "b", "c", "d", "e"]), &phase(Strategy::RoundRobin, 2, 1), 8, false);
        assert_eq!(
            plan,
            Plan::FanOut {
                strategy: Strategy::RoundRobin,
                chunks: vec![items(&["a", "d"]), items(&["b", "e"]), items(&["c"])]
            }
        );
    }

    #[test]
    fn f5_whole_directories_largest_first_and_big_ones_cut() {
        let list = items(&["src/a/1", "src/a/2", "src/a/3", "src/b/1", "src/b/2", "docs/x", "top"]);
        let Plan::FanOut { chunks, .. } =
            plan(list.clone(), &phase(Strategy::GroupByDirectory, 4, 1), 8, false)
        else {
            panic!("expected a fan-out")
        };
        // n = ceil(7 / 4) = 2; runs largest first, ties by name: src/a (3), src/b (2), "" (1),
        // docs (1); each onto the least-loaded chunk, the lower index on a tie.
        assert_eq!(
            chunks,
            vec![vec!["src/a/1", "src/a/2", "src/a/3", "docs/x"], vec!["src/b/1", "src/b/2", "top"]]
        );
        let big: Vec<String> = (0..10).map(|i| format!("d/{i}")).collect();
        let Plan::FanOut { chunks, .. } =
            plan(big.clone(), &phase(Strategy::GroupByDirectory, 5, 1), 8, false)
        else {
            panic!("expected a fan-out")
        };
        assert_eq!(
            chunks.iter().map(Vec::len).collect::<Vec<_>>(),
            [5, 5],
            "cut into runs of the fair share"
        );
    }

    fn any_items() -> impl proptest::strategy::Strategy<Value = Vec<String>> {
        prop::collection::btree_set("[a-d]{1,2}(/[a-d]{1,2}){0,2}", 1..200)
            .prop_map(|s| s.into_iter().collect())
    }

    proptest! {
        #[test]
        fn every_item_in_exactly_one_chunk_and_at_most_max_agents(
            list in any_items(),
            per_agent in 1u64..50,
            max_agents in 1u64..=8,
            by_directory in any::<bool>(),
        ) {
            let strategy = if by_directory { Strategy::GroupByDirectory } else { Strategy::RoundRobin };
            let p = phase(strategy, per_agent, 1);
            let first = plan(list.clone(), &p, max_agents, false);
            prop_assert_eq!(&first, &plan(list.clone(), &p, max_agents, false), "deterministic");
            let Plan::FanOut { chunks, .. } = first else { return Err(TestCaseError::fail("no fan-out")) };
            prop_assert!(chunks.len() as u64 <= max_agents);
            let mut all: Vec<String> = chunks.iter().flatten().cloned().collect();
            all.sort();
            prop_assert_eq!(all, list.clone());
            if by_directory {
                // A directory no larger than the fair share stays whole.
                let fair = list.len().div_ceil(chunks.len().max(1));
                let mut by_dir: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
                for (i, chunk) in chunks.iter().enumerate() {
                    for item in chunk {
                        by_dir.entry(item.rsplit_once('/').map_or("", |(d, _)| d)).or_default().push(i);
                    }
                }
                for (dir, homes) in by_dir {
                    let size = homes.len();
                    let mut homes = homes;
                    homes.dedup();
                    if size <= fair {
                        prop_assert_eq!(homes.len(), 1, "directory `{}` was split", dir);
                    }
                }
            }
        }
    }
}
