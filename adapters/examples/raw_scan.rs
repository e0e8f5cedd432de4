//! A raw sled scan of an event store, nothing verified or decoded: `cargo run --release -p
//! agentwarden-adapters --example raw_scan -- PATH`. `cargo xtask bench` runs it under
//! `/usr/bin/time` as the baseline for `warden audit verify`'s and `replay`'s peak memory: what
//! sled itself holds to read the whole log, which grows with the log (its in-memory page table).
//!
//! It opens the database as [`SledConfig::new`] does (same cache) and reads, as a walk does, the
//! archived segment files in order (each whole, S-13) and then the `events` tree, touching every
//! value.

use agentwarden_adapters::SledConfig;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: raw_scan PATH")?;
    let config = SledConfig::new(path);
    let db = sled::Config::new().path(&config.path).cache_capacity(config.cache_capacity).open()?;
    let events = db.open_tree("events")?;
    let (mut count, mut bytes) = (0u64, 0usize);
    let mut segments: Vec<_> = match std::fs::read_dir(config.path.join("archive")) {
        Ok(entries) => entries.map(|e| e.map(|e| e.path())).collect::<Result<_, _>>()?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(e.into()),
    };
    segments.retain(|p| p.extension().is_some_and(|e| e == "seg"));
    segments.sort();
    for segment in segments {
        let content = std::fs::read(segment)?;
        bytes += std::hint::black_box(content.len());
        count += 1;
    }
    for entry in events.iter() {
        let (_, value) = entry?;
        bytes += std::hint::black_box(value.len());
        count += 1;
    }
    if count == 0 {
        return Err("no events: not an event store".into());
    }
    println!("{count} sled events and segments, {bytes} bytes");
    Ok(())
}
