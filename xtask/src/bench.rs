//! `cargo xtask bench`: runs the criterion benches, times `warden gate` and `warden hook` (a
//! spawn, and the fast path of a tool call nothing governs on an empty and a 1M-event store) as
//! whole processes, and prints one summary table: each figure beside its baseline from the
//! same run, the ratio, and the target. Then the resident service's rows (`bench_server`;
//! `cargo xtask bench server` runs only those), and, in a run without a filter, the domain gate
//! against Cedar (`bench_cedar`; `cargo xtask bench cedar` runs only that). The whole-session
//! rows of the real clients close every run (`bench_session`; `cargo xtask bench session`).
//! `cargo xtask bench confine` times the confined-call launcher alone (`bench_confine`).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cargo;
use crate::measure::{WholeProcess, exec, human_ns, median_ns_in, target_dir, time_warden};

/// One comparison: ours against a baseline, as criterion medians (ns per iteration).
struct Ratio {
    what: &'static str,
    ours: (&'static str, &'static str),
    baseline: (&'static str, &'static str),
    /// Events per iteration, for the rate columns.
    events: f64,
    target: f64,
}

const RATIOS: [Ratio; 13] = [
    Ratio {
        what: "gate through Warden (memory store) vs the domain gate alone",
        ours: ("facade_gate", "warden_memory"),
        baseline: ("facade_gate", "domain_alone"),
        events: 1.0,
        target: 0.5,
    },
    Ratio {
        what: "plan 1M items, round-robin, vs sort -u",
        ours: ("plan_1m", "round_robin"),
        baseline: ("plan_1m", "sort_u"),
        events: 1_000_000.0,
        target: 1.0,
    },
    Ratio {
        what: "plan 1M items, group-by-directory, vs sort -u",
        ours: ("plan_1m", "group_by_directory"),
        baseline: ("plan_1m", "sort_u"),
        events: 1_000_000.0,
        target: 1.0,
    },
    Ratio {
        what: "batched append (1000-event batches)",
        ours: ("append_batch_1000", "warden"),
        baseline: ("append_batch_1000", "raw_sled"),
        events: 1000.0,
        target: 0.6,
    },
    Ratio {
        what: "durable append, 32 callers (group commit)",
        ours: ("durable_append_32_callers", "warden_group_commit"),
        baseline: ("durable_append_32_callers", "naive_flush_per_append"),
        events: 640.0,
        target: 3.0,
    },
    Ratio {
        what: "PostgreSQL durable appends, 32 callers vs 1",
        ours: ("fleet_append", "postgres_32"),
        baseline: ("fleet_append", "postgres_1"),
        events: 256.0,
        target: 5.0,
    },
    Ratio {
        what: "PostgreSQL durable appends, 8 callers vs 1",
        ours: ("fleet_append", "postgres_8"),
        baseline: ("fleet_append", "postgres_1"),
        events: 256.0,
        target: 1.0,
    },
    Ratio {
        what: "PostgreSQL vs sled, 32 callers",
        ours: ("fleet_append", "postgres_32"),
        baseline: ("fleet_append", "sled_32"),
        events: 256.0,
        target: 0.2,
    },
    Ratio {
        what: "snapshot, 10 000 files / 1 GiB (MB/s)",
        ours: ("snapshot_1gib", "warden"),
        baseline: ("snapshot_1gib", "raw_blake3"),
        events: 1_034_240_000.0 / 1e6,
        target: 0.5,
    },
    Ratio {
        what: "replay `decisions`, whole log, vs raw scan",
        ours: ("replay", "warden_decisions"),
        baseline: ("replay", "raw_sled_scan"),
        events: f64::NAN, // the same count as verify's, read from its report
        target: 0.5,
    },
    Ratio {
        what: "replay `decisions` vs raw scan + BLAKE3",
        ours: ("replay", "warden_decisions"),
        baseline: ("replay", "raw_sled_scan_hash"),
        events: f64::NAN,
        target: 0.5,
    },
    Ratio {
        what: "replay `decisions` vs the store's paged read alone",
        ours: ("replay", "warden_decisions"),
        baseline: ("replay", "store_read_pages"),
        events: f64::NAN,
        target: 0.5,
    },
    Ratio {
        what: "verify, whole log (streaming)",
        ours: ("verify", "warden"),
        baseline: ("verify", "raw_sled_scan_hash"),
        events: f64::NAN, // read from the memory report
        target: 0.6,
    },
];

/// Absolute limits: (group, function, what, limit in ns).
const LIMITS: [(&str, &str, &str, f64); 11] = [
    ("plan_1m", "round_robin", "plan 1M items, round-robin", 0.5e9),
    ("plan_1m", "group_by_directory", "plan 1M items, group-by-directory", 0.5e9),
    ("merge_10k", "warden", "merge 10 000 chunk results", 10e6),
    ("snapshot_100k_files", "warden", "snapshot of 100 000 small files", 2e9),
    ("diff_100k_entries", "warden", "diff of two 100 000-entry manifests", 50e6),
    ("gate", "pre_parsed", "gate on pre-parsed inputs", 2_000.0),
    ("gate", "parse_and_evaluate", "gate incl. parsing 1 persona + 4 agents", 50_000.0),
    ("lineage", "walk_depth_16", "lineage walk, depth 16", 1_000.0),
    ("lineage", "authorize_three_layers", "three-layer tool-call authorization", 2_000.0),
    ("lineage", "authorize_depth_8_50_rules", "three layers, depth 8, 50 rules each (issue 24)", 5_000.0),
    ("signed_approval", "verify_record", "verify one signed approval (issue 21)", 100_000.0),
];

/// The median point estimate, in ns, of a bench of the workspace's (under `target/criterion`).
fn median_ns(group: &str, function: &str) -> Result<f64, String> {
    median_ns_in(&target_dir().join("criterion"), group, function)
}

/// `warden gate` on the example (Example 1, an allow with its durable append).
fn time_warden_gate(warden: &Path) -> Result<(f64, &'static str), String> {
    let store = target_dir().join("bench-gate-store");
    let _ = std::fs::remove_dir_all(&store);
    let args = ["--store", &store.to_string_lossy(), "gate", "--config", "examples/agentwarden.toml"]
        .into_iter()
        .chain(["--request", "examples/requests/example-1-allow.json"])
        .map(str::to_owned)
        .collect();
    time_warden(
        warden,
        &WholeProcess { name: "gate", args, stdin: None, env: ("CHIRALITY_ENABLE_SUBAGENTS", "true") },
    )
}

/// `warden hook` on the Claude Code example: a `PreToolUse` of `Task` from the main session,
/// sealed and approved, so an allow (gate, lineage, durable append, saved state).
fn time_warden_hook(warden: &Path) -> Result<(f64, &'static str), String> {
    let store = target_dir().join("bench-hook-store");
    let _ = std::fs::remove_dir_all(&store);
    let store = store.to_string_lossy().into_owned();
    let config = "examples/claude-code/agentwarden.toml";
    exec(
        Command::new(warden).args(["--store", &store, "seal", "--config", config]).env_remove("CLAUDECODE"),
    )?;
    exec(
        Command::new(warden)
            .args(["--store", &store, "approve", "--ref", "GATE-BENCH"])
            .env_remove("CLAUDECODE"),
    )?;
    let args = ["--store", &store, "hook", "--config", "examples/claude-code/agentwarden.toml"]
        .map(str::to_owned)
        .to_vec();
    let stdin = Some("examples/claude-code/events/pre-task-main-planner.json");
    time_warden(
        warden,
        &WholeProcess { name: "hook", args, stdin, env: ("AGENTWARDEN_ENABLE_SUBAGENTS", "true") },
    )
}

/// `warden hook` on a `PreToolUse` of `Bash` from the main session that nothing governs: the
/// fast path (H-24), which opens no store. Measured on a store of `events` events (built by
/// the `build_log` example; 0: empty), after one call that had the store wrote the session's
/// index.
fn time_warden_fast_path(warden: &Path, bin: &Path, events: u64) -> Result<(f64, &'static str), String> {
    let dir = target_dir().join(format!("bench-fast-path-{events}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let store = dir.join("audit").to_string_lossy().into_owned();
    if events > 0 {
        exec(Command::new(bin.join("examples").join("build_log")).arg(events.to_string()).arg(&store))?;
    }
    let config = "examples/claude-code/agentwarden.toml";
    exec(
        Command::new(warden).args(["--store", &store, "seal", "--config", config]).env_remove("CLAUDECODE"),
    )?;
    let cwd = std::env::current_dir().map_err(|e| e.to_string())?;
    let event = format!(
        r#"{{"session_id":"bench-session","hook_event_name":"PreToolUse","cwd":"{}","tool_name":"Bash","tool_use_id":"toolu_b","tool_input":{{"command":"ls"}}}}"#,
        cwd.display()
    );
    let input = dir.join("bash.json");
    std::fs::write(&input, event).map_err(|e| e.to_string())?;
    let input = input.to_string_lossy().into_owned();
    let args = ["--store", &store, "hook", "--config", config].map(str::to_owned).to_vec();
    // The first call has no index: the store answers (folding the log) and writes it.
    exec(Command::new(warden).args(&args).stdin(std::fs::File::open(&input).map_err(|e| e.to_string())?))?;
    let name = format!("fast-path-{events}");
    time_warden(
        warden,
        &WholeProcess {
            name: &name,
            args,
            stdin: Some(&input),
            env: ("AGENTWARDEN_ENABLE_SUBAGENTS", "true"),
        },
    )
}

/// What a fresh process's peak memory is measured on: a name, and the arguments after
/// `warden --store PATH`. The first, `None`, is the baseline: the raw sled scan (`raw_scan
/// PATH`), sled alone reading the whole log, whose peak grows with the log (sled keeps its page
/// table in memory). A walk meets "memory independent of log length" (ruling S-6) when its
/// growth from 100k to 1M events is the raw scan's, under the same allocator settings, within
/// [`WALK_SLACK_KIB`].
const MEMORY_RUNS: [(&str, Option<&[&str]>); 3] = [
    ("raw sled scan (the store alone)", None),
    ("`warden audit verify`", Some(&["audit", "verify"])),
    ("`warden audit replay --projection decisions`", Some(&["audit", "replay", "--projection", "decisions"])),
];

/// Every run under glibc's default arenas, and under `MALLOC_ARENA_MAX=1`.
const ARENAS: [Option<&str>; 2] = [None, Some("1")];

/// How much more than the raw scan a walk's peak may grow from 100k to 1M events: 8 MiB, under
/// 10 bytes per extra event.
const WALK_SLACK_KIB: u64 = 8 * 1024;

/// The log lengths memory is measured at.
const MEMORY_LENGTHS: [u64; 2] = [100_000, 1_000_000];

/// A peak RSS in KiB, or why it could not be measured.
type Peak = Result<u64, String>;

/// Median peak RSS of three runs of each of [`MEMORY_RUNS`] under each of [`ARENAS`]
/// (`[arena][run]`) on a fresh log of `events` events, read from `/usr/bin/time -f %M`.
fn peaks_kib(bin: &Path, events: u64) -> Vec<Vec<Peak>> {
    let store = target_dir().join(format!("bench-verify-{events}"));
    let _ = std::fs::remove_dir_all(&store);
    let built =
        exec(Command::new(bin.join("examples").join("build_log")).arg(events.to_string()).arg(&store));
    let median = |arenas: Option<&str>, args: Option<&[&str]>| -> Peak {
        built.clone()?;
        let mut runs = (0..3)
            .map(|_| {
                let mut command = Command::new("/usr/bin/time");
                command.args(["-f", "%M"]);
                match args {
                    Some(args) => command.arg(bin.join("warden")).arg("--store").arg(&store).args(args),
                    None => command.arg(bin.join("examples").join("raw_scan")).arg(&store),
                };
                if let Some(arenas) = arenas {
                    command.env("MALLOC_ARENA_MAX", arenas);
                }
                peak_kib(&mut command)
            })
            .collect::<Result<Vec<u64>, String>>()?;
        runs.sort_unstable();
        runs.get(1).copied().ok_or_else(|| "no runs".to_owned())
    };
    let peaks = ARENAS
        .iter()
        .map(|arenas| MEMORY_RUNS.iter().map(|(_, args)| median(*arenas, *args)).collect())
        .collect();
    let _ = std::fs::remove_dir_all(&store);
    peaks
}

fn peak_kib(command: &mut Command) -> Peak {
    let out = command.output().map_err(|e| format!("/usr/bin/time: {e}"))?;
    if !out.status.success() {
        return Err(format!("{command:?} failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .ok_or_else(|| "no peak RSS from /usr/bin/time".to_owned())
}

/// Prints the peaks at each of [`MEMORY_LENGTHS`] (`peaks[length][arena][run]`), their growth,
/// and for each walk whether it grew no more than the raw scan under the same arenas.
fn print_peaks(peaks: &[Vec<Vec<Peak>>]) {
    let (Some(short), Some(long)) = (peaks.first(), peaks.get(1)) else { return };
    println!(
        "\n{:<64} {:>10} {:>10} {:>10}  walk's own growth (≤ {WALK_SLACK_KIB} KiB)",
        "fresh-process peak RSS, median of 3 (KiB)", MEMORY_LENGTHS[0], MEMORY_LENGTHS[1], "growth"
    );
    for (a, arenas) in ARENAS.iter().enumerate() {
        let (Some(short), Some(long)) = (short.get(a), long.get(a)) else { continue };
        let growth = |r: usize| match (short.get(r), long.get(r)) {
            (Some(Ok(from)), Some(Ok(to))) => Some(to.saturating_sub(*from)),
            _ => None,
        };
        let show = |p: Option<&Peak>| match p {
            Some(Ok(kib)) => kib.to_string(),
            Some(Err(e)) => format!("not measured: {e}"),
            None => "—".to_owned(),
        };
        for (r, (what, _)) in MEMORY_RUNS.iter().enumerate() {
            let verdict = match (r, growth(r), growth(0)) {
                (1.., Some(ours), Some(raw)) => {
                    let own = ours.saturating_sub(raw);
                    format!("{own} KiB  {}", if own <= WALK_SLACK_KIB { "PASS" } else { "MISS" })
                }
                _ => String::new(),
            };
            let what = arenas.map_or_else(|| (*what).to_owned(), |n| format!("{what}, MALLOC_ARENA_MAX={n}"));
            println!(
                "{what:<64} {:>10} {:>10} {:>10}  {verdict}",
                show(short.get(r)),
                show(long.get(r)),
                growth(r).map(|g| format!("+{g}")).unwrap_or_default(),
            );
        }
    }
}

/// Builds the release binaries the whole-process rows run: `warden`, `warden-hook` and
/// `warden-confine` as `cargo xtask install` builds them (the launcher beside `warden`, where
/// the hook finds it), and the adapters' examples that build and scan stores.
fn build_release() -> Result<PathBuf, String> {
    use crate::install::{Linked, Profile, build_bins, static_hook};
    exec(Command::new(cargo()).args([
        "build",
        "--release",
        "--quiet",
        "-p",
        "agentwarden-adapters",
        "--example",
        "build_log",
        "--example",
        "raw_scan",
        "--example",
        "sled_memory",
    ]))?;
    build_bins(Profile::Release)?;
    // The client `cargo xtask install` ships is linked statically; the dynamically linked
    // one Cargo builds stays beside it as the baseline (V-43).
    let bin = target_dir().join("release");
    std::fs::copy(bin.join("warden-hook"), bin.join("warden-hook-dynamic"))
        .map_err(|e| format!("cannot keep the dynamically linked warden-hook: {e}"))?;
    match static_hook(Profile::Release)? {
        Linked::Static => println!("warden-hook: statically linked (as installed)"),
        Linked::Dynamic(why) => println!("warden-hook: dynamically linked: {why}"),
    }
    let (launcher, linked) = crate::install::launcher(Profile::Release)?;
    let beside = bin.join("warden-confine");
    if launcher != beside {
        // Cargo's file there is a hard link to its own copy: replaced, not written through.
        let _ = std::fs::remove_file(&beside);
        std::fs::copy(&launcher, &beside)
            .map_err(|e| format!("cannot put the launcher beside warden: {e}"))?;
    }
    println!("warden-confine: {linked} (as installed)");
    Ok(bin)
}

pub(crate) fn run(args: &[String]) -> Result<(), String> {
    // `--baseline REV` (server and session rows): another commit's binaries timed beside these in
    // the same run, each row no more than 3 % slower (issue 49, item 8).
    let (baseline, args) = crate::bench_baseline::split(args)?;
    let args = args.as_slice();
    let baseline = match (&baseline, args.first().map(String::as_str)) {
        (None, _) => None,
        (Some(rev), Some("server" | "session")) => Some(crate::bench_baseline::build(rev)?),
        (Some(_), _) => return Err("--baseline is taken by `bench server` and `bench session` only".into()),
    };
    // `cargo xtask bench server`: only the resident service's rows (with direct mode beside).
    if args.first().map(String::as_str) == Some("server") {
        let bin = build_release()?;
        // `cargo xtask bench server export`: only the export's rows (issue 39).
        if args.get(1).map(String::as_str) == Some("export") {
            return crate::bench_export::run(&bin.join("warden"), &bin);
        }
        // `cargo xtask bench server work --baseline REV`: only the decisions' instructions beside
        // that build's (issue 49, item 8), which the full run prints after its own rows.
        if args.get(1).map(String::as_str) == Some("work") {
            let old = baseline.as_deref().ok_or("`bench server work` needs --baseline REV")?;
            crate::bench_work::run(&bin, old);
            return Ok(());
        }
        // `cargo xtask bench server tlog`: only the log tree's rows (issue 37).
        if args.get(1).map(String::as_str) == Some("tlog") {
            return crate::bench_tlog::run(&bin.join("warden"), &bin);
        }
        crate::bench_server::run(&bin.join("warden"), &bin, baseline.as_deref())?;
        if let Some(old) = baseline.as_deref() {
            crate::bench_work::run(&bin, old);
        }
        // Issue 37: a server that signs beside one that does not, and proofs at 1M events.
        crate::bench_tlog::run(&bin.join("warden"), &bin)?;
        // Issue 39: the OpenTelemetry export on and off, in the same run.
        return crate::bench_export::run(&bin.join("warden"), &bin);
    }
    // `cargo xtask bench session`: only the whole-session rows of the real clients (issue 36).
    if args.first().map(String::as_str) == Some("session") {
        let bin = build_release()?;
        return crate::bench_session::run(&bin, baseline.as_deref(), args.get(1..).unwrap_or_default());
    }
    // `cargo xtask bench confine`: only the launcher around `true` against `true` (issue 50).
    if args.first().map(String::as_str) == Some("confine") {
        return crate::bench_confine::run();
    }
    // `cargo xtask bench cedar`: only the domain gate against Cedar (X-60).
    if args.first().map(String::as_str) == Some("cedar") {
        return crate::bench_cedar::run(args.get(1..).unwrap_or_default());
    }
    let memory = target_dir().join("criterion").join("verify-memory.txt");
    let _ = std::fs::create_dir_all(memory.parent().unwrap_or(Path::new(".")));
    for bench in ["event_store", "fleet_store", "snapshot"] {
        println!("$ cargo bench -p agentwarden-adapters --bench {bench} {}", args.join(" "));
        exec(
            Command::new(cargo())
                .args(["bench", "-p", "agentwarden-adapters", "--bench", bench, "--"])
                .args(args)
                .env("AGENTWARDEN_BENCH_MEMORY", &memory),
        )?;
    }
    for bench in ["executor", "replay", "signed", "facade_gate"] {
        println!("$ cargo bench -p agentwarden --bench {bench} {}", args.join(" "));
        exec(Command::new(cargo()).args(["bench", "-p", "agentwarden", "--bench", bench, "--"]).args(args))?;
    }
    for bench in ["gate", "lineage", "fanout"] {
        println!("$ cargo bench -p agentwarden-domain --bench {bench} {}", args.join(" "));
        exec(
            Command::new(cargo())
                .args(["bench", "-p", "agentwarden-domain", "--bench", bench, "--"])
                .args(args),
        )?;
    }
    let bin = build_release()?;
    let warden = bin.join("warden");
    let gate = time_warden_gate(&warden);
    let hook = time_warden_hook(&warden);
    let fast_empty = time_warden_fast_path(&warden, &bin, 0);
    let fast_big = time_warden_fast_path(&warden, &bin, 1_000_000);
    let has_time = Path::new("/usr/bin/time").exists();
    let peaks: Vec<Vec<Vec<Peak>>> =
        if has_time { MEMORY_LENGTHS.into_iter().map(|n| peaks_kib(&bin, n)).collect() } else { Vec::new() };

    let memory_report = std::fs::read_to_string(&memory).unwrap_or_default();
    let field = |name: &str| -> f64 {
        memory_report
            .lines()
            .find_map(|l| l.strip_prefix(name).and_then(|v| v.trim().parse().ok()))
            .unwrap_or(f64::NAN)
    };
    println!(
        "\nAgent Warden benchmark summary (medians; ratio = baseline time / our time, higher is better)\n"
    );
    println!(
        "{:<50} {:>12} {:>14} {:>12} {:>14} {:>7} {:>7}  verdict",
        "comparison", "ours", "ours/s", "baseline", "baseline/s", "ratio", "target"
    );
    for r in &RATIOS {
        let events = if r.events.is_nan() { field("events") } else { r.events };
        match (median_ns(r.ours.0, r.ours.1), median_ns(r.baseline.0, r.baseline.1)) {
            (Ok(ours), Ok(base)) => {
                let ratio = base / ours;
                println!(
                    "{:<50} {:>12} {:>14.0} {:>12} {:>14.0} {:>7.2} {:>7.1}  {}",
                    r.what,
                    human_ns(ours),
                    events / ours * 1e9,
                    human_ns(base),
                    events / base * 1e9,
                    ratio,
                    r.target,
                    if ratio >= r.target { "PASS" } else { "MISS" }
                );
            }
            (a, b) => println!("{:<50} missing: {:?} {:?}", r.what, a.err(), b.err()),
        }
    }
    for (group, function, what, limit) in LIMITS {
        match median_ns(group, function) {
            Ok(ns) => println!(
                "{what:<50} {:>12} {:>14.0} {:>12} {:>14} {:>7} {:>7}  {}",
                human_ns(ns),
                1e9 / ns,
                format!("≤ {}", human_ns(limit)),
                "",
                "",
                "",
                if ns <= limit { "PASS" } else { "MISS" }
            ),
            Err(e) => println!("{what:<50} missing: {e}"),
        }
    }
    match (median_ns("executor_8_chunks", "warden"), median_ns("executor_8_chunks", "one_chunk_alone")) {
        (Ok(all), Ok(one)) => println!(
            "{:<50} {:>12} {:>14} {:>12} {:>14} {:>7} {:>7}  {}",
            "executor overhead, 8 trivial chunks",
            human_ns(all - one),
            "",
            "≤ 50.00 ms",
            "",
            "",
            "",
            if all - one <= 50e6 { "PASS" } else { "MISS" }
        ),
        (a, b) => println!("executor overhead: missing: {:?} {:?}", a.err(), b.err()),
    }
    match median_ns("replay", "warden_decisions") {
        Ok(ns) => {
            let rate = field("events") / ns * 1e9;
            println!(
                "{:<50} {:>12} {:>14.0} {:>12} {:>14} {:>7} {:>7}  {}",
                "replay `decisions`, events/s",
                human_ns(ns),
                rate,
                "≥ 500000/s",
                "",
                "",
                "",
                if rate >= 500_000.0 { "PASS" } else { "MISS" }
            );
        }
        Err(e) => println!("replay: missing: {e}"),
    }
    for (what, measured, limit) in [
        ("`warden gate` whole process, durable append", gate, 20.0),
        ("`warden hook` whole process, Task allowed", hook, 20.0),
        ("`warden hook` Bash, fast path, empty store", fast_empty, 5.0),
        ("`warden hook` Bash, fast path, 1M-event store", fast_big, 5.0),
    ] {
        match measured {
            Ok((ms, how)) => println!(
                "{:<50} {:>12} {:>14} {:>12} {:>14} {:>7} {:>7}  {} ({how})",
                what,
                format!("{ms:.2} ms"),
                "",
                format!("≤ {limit:.0} ms"),
                "",
                "",
                "",
                if ms <= limit { "PASS" } else { "MISS" }
            ),
            Err(e) => println!("{what}: not measured: {e}"),
        }
    }
    println!(
        "\nin-bench verify ({:.0} events): peak RSS {:.0} KiB once the log was built, {:.0} KiB after the verify runs",
        field("events"),
        field("peak_rss_kb_before_verify"),
        field("peak_rss_kb_after_verify"),
    );
    if !has_time {
        println!("fresh-process peak RSS: not measured (no /usr/bin/time; apt-get install time)");
    }
    print_peaks(&peaks);
    crate::bench_server::run(&warden, &bin, None)?;
    crate::bench_export::run(&warden, &bin)?;
    crate::bench_session::run(&bin, None, &[])?;
    // The Cedar comparison closes a whole run (issue 20: side by side in one run); a run
    // filtered to some benches leaves it out rather than build Cedar for nothing.
    if args.is_empty() { crate::bench_cedar::run(&[]) } else { Ok(()) }
}
