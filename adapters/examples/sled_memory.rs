//! sled's own memory under the resident service's load, without the service: `cargo run
//! --release -p agentwarden-adapters --example sled_memory -- [OPTIONS] PATH`. `cargo xtask bench
//! server` runs it beside `warden serve`'s memory rows: sled's share of the server's growth
//! (V-39), with glibc's malloc thresholds held (`MALLOC_TRIM_THRESHOLD_=131072`): in this tight
//! loop, without it, the memory glibc keeps for sled's freed 512 KiB log buffers swamps what sled
//! itself holds.
//!
//! It opens a new store at PATH with [`SledConfig::new`] — as `warden serve` opens its store
//! (same cache, [`agentwarden_adapters::Durability::Flush`]: nothing is relaxed, and
//! [`Archiving::Background`], S-13) — and appends
//! one event at a time as the server's decider does: each appended deferred, then one `sync`
//! per group of `--group` events (the server's group commit). After 10 000, 100 000 and
//! 1 000 000 appends (or the counts `--at` lists), every `--every` appends and at the end, it
//! prints its own `VmRSS` and `VmHWM` from `/proc/self/status`, and the store's size on disk.
//!
//! The event appended is, with `--like STORE`, the last event of STORE (a real
//! `subagent_spawn_evaluated` of a `warden serve`, say), copied; without it, an operator note
//! of `--value-bytes` bytes. With `--records-bytes N`, a projection of N bytes is rewritten
//! every `--records-every` appends, as the server saves its records (V-27).
//!
//! Options: `--events N` (1 000 000), `--group G` (8), `--at N,N,…` (10 000, 100 000,
//! 1 000 000), `--every N` (0: only those),
//! `--cache-bytes B` (the store's default), `--archive KEEP,SEGMENT` (the store's default
//! archive sizes, S-13), `--like STORE`, `--value-bytes B` (1 800),
//! `--records-bytes N` (0), `--records-every N` (1 000).

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use agentwarden_adapters::{Archiving, SledConfig, SledEventStore};
use agentwarden_domain::audit::{
    Actor, Correlation, CorrelationId, Envelope, EventDraft, Hash, StoredRecord, Timestamp,
};
use agentwarden_domain::events::{AuditEvent, OperatorNote, decode};
use agentwarden_ports::{EventStore, Expected, ProjectionStore};

type Failure = Box<dyn std::error::Error>;

struct Options {
    path: String,
    events: u64,
    group: u64,
    at: Vec<u64>,
    every: u64,
    cache_bytes: Option<u64>,
    archive: Option<(u64, u64)>,
    like: Option<String>,
    last: Option<String>,
    value_bytes: usize,
    records_bytes: usize,
    records_every: u64,
}

fn options() -> Result<Options, Failure> {
    let mut o = Options {
        path: String::new(),
        events: 1_000_000,
        group: 8,
        at: vec![10_000, 100_000, 1_000_000],
        every: 0,
        cache_bytes: None,
        archive: None,
        like: None,
        last: None,
        value_bytes: 1_800,
        records_bytes: 0,
        records_every: 1_000,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--events" => o.events = value()?.parse()?,
            "--group" => o.group = value()?.parse::<u64>()?.max(1),
            "--at" => o.at = value()?.split(',').map(str::parse).collect::<Result<_, _>>()?,
            "--every" => o.every = value()?.parse()?,
            "--cache-bytes" => o.cache_bytes = Some(value()?.parse()?),
            "--archive" => {
                let sizes = value()?;
                let (keep, segment) = sizes.split_once(',').ok_or("--archive takes KEEP,SEGMENT")?;
                o.archive = Some((keep.parse()?, segment.parse()?));
            }
            "--like" => o.like = Some(value()?),
            "--last" => {
                o.last = Some(value()?);
                return Ok(o);
            }
            "--value-bytes" => o.value_bytes = value()?.parse()?,
            "--records-bytes" => o.records_bytes = value()?.parse()?,
            "--records-every" => o.records_every = value()?.parse::<u64>()?.max(1),
            _ if o.path.is_empty() && !arg.starts_with('-') => o.path = arg,
            _ => return Err(format!("unknown argument `{arg}`").into()),
        }
    }
    if o.path.is_empty() {
        return Err("usage: sled_memory [OPTIONS] PATH (a store that does not exist yet)".into());
    }
    Ok(o)
}

/// `VmRSS` and `VmHWM` of this process, in KiB.
fn memory_kib() -> Result<(u64, u64), Failure> {
    let status = std::fs::read_to_string("/proc/self/status")?;
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .ok_or_else(|| format!("no {name} in /proc/self/status"))
    };
    Ok((field("VmRSS:")?, field("VmHWM:")?))
}

/// The bytes of the files under `dir`.
fn disk_bytes(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    entries
        .flatten()
        .map(|e| match e.metadata() {
            Ok(m) if m.is_dir() => disk_bytes(&e.path()),
            Ok(m) => m.len(),
            Err(_) => 0,
        })
        .sum()
}

/// `--last STORE` (the probe's own child): prints STORE's last event, its seq on the first line
/// and its body after it.
async fn print_last(store: &str) -> Result<(), Failure> {
    let store = SledEventStore::open(&SledConfig::new(store).create_if_missing(false))?;
    let head = store.head().await?;
    let record = store.read(head.seq, 1).await?.pop().ok_or("the template store is empty")?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", record.seq)?;
    out.write_all(&record.body)?;
    Ok(())
}

/// STORE's last event, read by a child process: opening a long log makes sled rebuild its page
/// table, and what that leaves in this process's heap would be counted as the appends' (a
/// template from a 1M-event store: 40–45 MiB after 10 000 appends, against 20–26 MiB).
fn last_event(store: &str) -> Result<StoredRecord, Failure> {
    let out = std::process::Command::new(std::env::current_exe()?).args(["--last", store]).output()?;
    if !out.status.success() {
        return Err(format!("reading {store}: {}", String::from_utf8_lossy(&out.stderr)).into());
    }
    let at = out.stdout.iter().position(|&b| b == b'\n').ok_or("no seq from the child")?;
    let (seq, body) = out.stdout.split_at(at);
    let seq = std::str::from_utf8(seq)?.parse()?;
    let body = body.get(1..).unwrap_or_default().to_vec();
    Ok(StoredRecord { seq, hash: Hash::from_bytes([0; 32]), body })
}

/// The draft appended each time: a copy of STORE's last event, or a note of `bytes` bytes.
fn template(like: Option<&str>, bytes: usize) -> Result<EventDraft, Failure> {
    if let Some(like) = like {
        let record = last_event(like)?;
        let envelope = Envelope::parse(&record)?;
        let correlation = Correlation {
            session: envelope.session.clone().map(CorrelationId::new).transpose()?,
            turn: envelope.turn.clone().map(CorrelationId::new).transpose()?,
            run: envelope.run.clone().map(CorrelationId::new).transpose()?,
            item: envelope.item.clone().map(CorrelationId::new).transpose()?,
        };
        let event = decode(&envelope)?;
        println!(
            "# template: seq {} of {like}, {} ({} bytes stored)",
            record.seq,
            envelope.event_type,
            record.body.len() + 32
        );
        return Ok(EventDraft::new(envelope.recorded_at, Actor::new(envelope.actor)?, correlation, &event)?);
    }
    let at = Timestamp::from_unix_millis(1_771_666_200_000)?;
    // The envelope around the note's message takes about 120 bytes.
    let note = AuditEvent::OperatorNote(OperatorNote { message: "x".repeat(bytes.saturating_sub(120)) });
    Ok(EventDraft::new(at, Actor::new("bench")?, Correlation::default(), &note)?)
}

fn main() -> Result<(), Failure> {
    let o = options()?;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    if let Some(store) = &o.last {
        return runtime.block_on(print_last(store));
    }
    let draft = template(o.like.as_deref(), o.value_bytes)?;
    runtime.block_on(async {
        let mut config = SledConfig::new(&o.path).archiving(Archiving::Background);
        if let Some(bytes) = o.cache_bytes {
            config.cache_capacity = bytes;
        }
        if let Some((keep, segment)) = o.archive {
            config = config.archive_sizes(keep, segment);
        }
        if Path::new(&o.path).exists() {
            return Err(format!("{} exists: the probe starts from a new store", o.path).into());
        }
        let store = SledEventStore::open(&config)?;
        let (rss, hwm) = memory_kib()?;
        println!(
            "# cache {} bytes, group {}, records {} bytes every {}",
            config.cache_capacity, o.group, o.records_bytes, o.records_every
        );
        println!(
            "{:>10} {:>10} {:>10} {:>12} {:>8}",
            "appended", "rss_kib", "hwm_kib", "disk_bytes", "seconds"
        );
        println!("{:>10} {rss:>10} {hwm:>10} {:>12} {:>8.1}", 0, disk_bytes(Path::new(&o.path)), 0.0);
        let started = Instant::now();
        let mut appended = 0_u64;
        while appended < o.events {
            // A group ends at every count `--at` lists, so that each has its row.
            let next = o.at.iter().filter(|&&at| at > appended).min().map_or(u64::MAX, |at| at - appended);
            let group = o.group.min(o.events - appended).min(next);
            for _ in 0..group {
                store.append_deferred(Expected::Any, vec![draft.clone()]).await?;
                appended += 1;
                if o.records_bytes > 0 && appended.is_multiple_of(o.records_every) {
                    store.write_projection("records", vec![b'r'; o.records_bytes]).await?;
                }
            }
            store.sync().await?;
            let before = appended - group;
            let crossed = |step: u64| step > 0 && appended / step > before / step;
            let fixed = o.at.contains(&appended);
            if fixed || crossed(o.every) || appended == o.events {
                let (rss, hwm) = memory_kib()?;
                let disk = disk_bytes(Path::new(&o.path));
                let seconds = started.elapsed().as_secs_f64();
                println!("{appended:>10} {rss:>10} {hwm:>10} {disk:>12} {seconds:>8.1}");
            }
        }
        Ok(())
    })
}
