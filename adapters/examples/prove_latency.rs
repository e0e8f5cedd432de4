//! How long an inclusion proof takes on an embedded store, in the process that holds it (what
//! `warden audit prove` and a server pay once the store is open): `cargo run --release -p
//! agentwarden-adapters --example prove_latency -- PATH [PROOFS]`. For PROOFS random events
//! (default 200) it reads the event and the proof's nodes from the kept tree and checks
//! the proof against the root; then, as the baseline in the same run, it hashes the same nodes
//! from the events (`merkle_nodes_from_events`, what every proof cost before the tree was kept)
//! for a few of them. Prints the medians and the slowest.

use std::time::{Duration, Instant};

use agentwarden_adapters::{Archiving, SledConfig, SledEventStore};
use agentwarden_domain::audit::merkle::{
    MerkleHash, Node, Range, fold, inclusion_ranges, perfect_nodes, verify_inclusion,
};
use agentwarden_ports::{EventStore, merkle_nodes_from_events};

/// The nodes of the inclusion proof of leaf `index` in a tree of `size`, and of its root.
fn proof_nodes(index: u64, size: u64) -> Result<(Vec<Vec<Node>>, Vec<Node>), String> {
    let ranges = inclusion_ranges(index, size).map_err(|e| e.to_string())?;
    Ok((ranges.into_iter().map(perfect_nodes).collect(), perfect_nodes(Range { start: 0, end: size })))
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times.get(times.len() / 2).copied().unwrap_or_default()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: prove_latency PATH [PROOFS]";
    let path = args.next().ok_or(usage)?;
    let proofs: u64 = args.next().map_or(Ok(200), |n| n.parse())?;
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).build()?;
    let opened = Instant::now();
    let store =
        SledEventStore::open(&SledConfig::new(&path).create_if_missing(false).archiving(Archiving::Off))?;
    let open_time = opened.elapsed();
    runtime.block_on(async {
        let size = store.head().await?.seq;
        if size == 0 {
            return Err("the store is empty".into());
        }
        let (_, root_nodes) = proof_nodes(0, size)?;
        let root = fold(&store.merkle_nodes(&root_nodes).await?);
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut kept = Vec::new();
        let mut hashed = Vec::new();
        for round in 0..proofs {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let index = state % size;
            let (per_range, _) = proof_nodes(index, size)?;
            let nodes: Vec<Node> = per_range.iter().flatten().copied().collect();
            let started = Instant::now();
            let record = store.read(index + 1, 1).await?.into_iter().next().ok_or("no such event")?;
            let hashes = store.merkle_nodes(&nodes).await?;
            let mut rest = hashes.as_slice();
            let mut path: Vec<MerkleHash> = Vec::new();
            for range in &per_range {
                let (these, after) = rest.split_at_checked(range.len()).ok_or("too few nodes")?;
                path.push(fold(these));
                rest = after;
            }
            verify_inclusion(&MerkleHash::leaf(&record.body), index, size, &path, &root)
                .map_err(|e| format!("event {}: {e}", index + 1))?;
            kept.push(started.elapsed());
            if round < 3 {
                let started = Instant::now();
                let again = merkle_nodes_from_events(&store, &nodes).await?;
                hashed.push(started.elapsed());
                if again != hashes {
                    return Err(format!("event {}: the kept nodes are not the events'", index + 1).into());
                }
            }
        }
        let slowest = kept.iter().max().copied().unwrap_or_default();
        println!("store of {size} events opened in {open_time:?}");
        println!("{proofs} proofs from the kept tree: median {:?}, slowest {slowest:?}", median(&mut kept));
        println!("{} proofs hashed from the events (before): median {:?}", hashed.len(), median(&mut hashed));
        Ok::<_, Box<dyn std::error::Error>>(())
    })
}
