//! Guardrail snapshot benches (issue 6 targets):
//! - a tree of 10 000 files / 1 GiB, page-cached: ≥ 0.5 × raw BLAKE3 over the same bytes (read
//!   and hashed file by file on one core, measured in the same run);
//! - 100 000 small files: ≤ 2 s; the diff of two 100 000-entry manifests: ≤ 50 ms.
//!
//! `AGENTWARDEN_BENCH_QUICK=1` shrinks the trees tenfold.

use std::hint::black_box;
use std::io::Read;
use std::path::Path;
use std::time::Duration;

use agentwarden_adapters::LocalFileSystem;
use agentwarden_domain::guardrails::{TreeManifest, diff};
use agentwarden_ports::FileSystem;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

#[expect(clippy::panic, reason = "a broken bench setup must stop the bench")]
fn fail(why: &str) -> ! {
    panic!("bench setup failed: {why}")
}

fn quick() -> bool {
    std::env::var_os("AGENTWARDEN_BENCH_QUICK").is_some()
}

/// `files` files of `size` bytes under `root/tree`, 100 per directory.
fn build(root: &Path, files: usize, size: usize) {
    let mut content = vec![0u8; size];
    for i in 0..files {
        let dir = root.join("tree").join(format!("d{:04}", i / 100));
        if i % 100 == 0 {
            std::fs::create_dir_all(&dir).unwrap_or_else(|e| fail(&e.to_string()));
        }
        if let Some(first) = content.first_mut() {
            *first = (i % 251) as u8;
        }
        std::fs::write(dir.join(format!("f{i:06}.bin")), &content).unwrap_or_else(|e| fail(&e.to_string()));
    }
}

fn raw_blake3(root: &Path) -> u64 {
    let mut bytes = 0u64;
    let mut stack = vec![root.join("tree")];
    let mut buffer = vec![0u8; 64 * 1024];
    while let Some(path) = stack.pop() {
        let meta = std::fs::symlink_metadata(&path).unwrap_or_else(|e| fail(&e.to_string()));
        if meta.is_dir() {
            for entry in std::fs::read_dir(&path).unwrap_or_else(|e| fail(&e.to_string())) {
                stack.push(entry.unwrap_or_else(|e| fail(&e.to_string())).path());
            }
        } else {
            let mut file = std::fs::File::open(&path).unwrap_or_else(|e| fail(&e.to_string()));
            let mut hasher = blake3::Hasher::new();
            loop {
                let n = file.read(&mut buffer).unwrap_or_else(|e| fail(&e.to_string()));
                if n == 0 {
                    break;
                }
                hasher.update(buffer.get(..n).unwrap_or_default());
                bytes += n as u64;
            }
            black_box(hasher.finalize());
        }
    }
    bytes
}

fn snapshot_of(rt: &tokio::runtime::Runtime, root: &Path) -> TreeManifest {
    rt.block_on(LocalFileSystem::default().snapshot(root, &["tree".to_owned()]))
        .unwrap_or_else(|e| fail(&e.to_string()))
}

fn snapshots(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap_or_else(|e| fail(&e.to_string()));
    let scale = if quick() { 10 } else { 1 };

    let big = tempfile::tempdir().unwrap_or_else(|e| fail(&e.to_string()));
    let (files, size) = (10_000 / scale, 100 * 1024 + 1024);
    build(big.path(), files, size);
    let bytes = raw_blake3(big.path()); // also warms the page cache
    let mut group = c.benchmark_group("snapshot_1gib");
    group.throughput(Throughput::Bytes(bytes));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    group.bench_function("warden", |b| b.iter(|| snapshot_of(&rt, big.path())));
    group.bench_function("raw_blake3", |b| b.iter(|| raw_blake3(big.path())));
    group.finish();
    drop(big);

    let small = tempfile::tempdir().unwrap_or_else(|e| fail(&e.to_string()));
    build(small.path(), 100_000 / scale, 16);
    let before = snapshot_of(&rt, small.path());
    let mut group = c.benchmark_group("snapshot_100k_files");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(15));
    group.bench_function("warden", |b| b.iter(|| snapshot_of(&rt, small.path())));
    group.finish();

    // Change every 100th file, then diff the two manifests.
    let mut after = before.clone();
    for (i, entry) in after.entries.values_mut().enumerate() {
        if i % 100 == 0 {
            entry.mode ^= 0o100;
        }
    }
    let mut group = c.benchmark_group("diff_100k_entries");
    group.bench_function("warden", |b| b.iter(|| diff(black_box(&before), black_box(&after))));
    group.finish();
}

criterion_group!(benches, snapshots);
criterion_main!(benches);
