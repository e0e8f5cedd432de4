//! The OpenTelemetry export's cost (issue 39 item 4, V-61), at the end of `cargo xtask bench
//! server` and alone as `cargo xtask bench server export`: two servers on empty stores of their
//! own, one exporting to a sink in this process (OTLP/HTTP on 127.0.0.1, answered 200 and
//! otherwise ignored), one not, measured in alternation in one run:
//!
//! - the per-call rows through `warden-hook` (a spawn, recorded; a `Bash` call nothing
//!   governs; a subagent's `Read`, recorded), each the median of three rounds of whole-process
//!   medians, export on against export off (target ≤ 1.05 ×);
//! - the server's own time per decision: spawn decisions sent as frames over 8 connections,
//!   in rounds, export on against off (the same target);
//! - what the exporting server says it sent and dropped (`warden status`).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use crate::bench_server::{
    KILL_SWITCH, Server, Serving, bash_event, decisions, hook_output, row, timed_events, track_planner,
    write_input,
};
use crate::measure::{WholeProcess, median, time_warden};

/// Rounds of each measurement, alternating export off and on.
const ROUNDS: usize = 11;
/// Decisions per round of the per-decision row.
const DECISIONS: u64 = 2_000;
/// The target: export on within 5 % of export off.
const WITHIN: f64 = 1.05;

/// An OTLP/HTTP sink on 127.0.0.1: every request is read whole and answered 200 (an empty
/// `ExportTraceServiceResponse`); its URL and the requests it took.
fn sink() -> Result<(String, Arc<AtomicU64>), String> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| format!("the sink: {e}"))?;
    let url = format!("http://{}", listener.local_addr().map_err(|e| e.to_string())?);
    let requests = Arc::new(AtomicU64::new(0));
    let counted = Arc::clone(&requests);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let counted = Arc::clone(&counted);
            std::thread::spawn(move || -> Option<()> {
                let mut writer = stream.try_clone().ok()?;
                let mut reader = BufReader::new(stream);
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).ok()? == 0 {
                        return None;
                    }
                    let mut length = 0_usize;
                    loop {
                        let mut header = String::new();
                        reader.read_line(&mut header).ok()?;
                        let header = header.trim_end().to_ascii_lowercase();
                        if header.is_empty() {
                            break;
                        }
                        if let Some(value) = header.strip_prefix("content-length:") {
                            length = value.trim().parse().ok()?;
                        }
                    }
                    let mut body = vec![0_u8; length];
                    reader.read_exact(&mut body).ok()?;
                    counted.fetch_add(1, Ordering::Relaxed);
                    let answer = "HTTP/1.1 200 OK\r\ncontent-type: application/x-protobuf\r\ncontent-length: 0\r\n\r\n";
                    writer.write_all(answer.as_bytes()).ok()?;
                }
            });
        }
    });
    Ok((url, requests))
}

/// A number after `"key":` in the JSON `text` (the status, read without a JSON parser).
fn field(text: &str, key: &str) -> Option<u64> {
    let at = text.find(&format!("\"{key}\":"))? + key.len() + 3;
    text.get(at..)?.chars().take_while(char::is_ascii_digit).collect::<String>().parse().ok()
}

/// The export rows: measures, prints.
pub(crate) fn run(warden: &Path, bin: &Path) -> Result<(), String> {
    let (endpoint, requests) = sink()?;
    let client = bin.join("warden-hook");
    let off = Server::start(warden, bin, "export-off", 0)?;
    let env = [("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint.as_str())];
    let on = Server::start_as(warden, bin, "export-on", 0, &Serving { env: &env, ..Serving::default() })?;
    let [spawn, bash, read] = timed_events()?;
    let spawn = write_input("export-spawn", &spawn)?;
    let bash = write_input("export-bash", &bash)?;
    let read = write_input("export-read", &read)?;
    for server in [&off, &on] {
        // The first `Bash` of the session writes its index; the planner is made a subagent.
        hook_output(warden, &server.hook_args(), &bash_event("bench-session")?)?;
        track_planner(&client, &server.hook_args(), "bench-sub")?;
    }
    type Rows = [(&'static str, [&'static str; 2], String); 3];
    let rows: Rows = [
        ("`warden-hook` Agent (recorded)", ["export-spawn-off", "export-spawn-on"], spawn),
        ("`warden-hook` Bash (nothing governs)", ["export-bash-off", "export-bash-on"], bash),
        ("`warden-hook` subagent Read (recorded)", ["export-read-off", "export-read-on"], read),
    ];
    let mut timed: Vec<[Vec<f64>; 2]> = rows.iter().map(|_| [Vec::new(), Vec::new()]).collect();
    let mut per_decision = [Vec::new(), Vec::new()];
    let mut first = 1_000;
    for _ in 0..ROUNDS {
        for (side, server) in [&off, &on].into_iter().enumerate() {
            for ((_, names, input), times) in rows.iter().zip(timed.iter_mut()) {
                let run = WholeProcess {
                    name: names.get(side).copied().unwrap_or("export"),
                    args: server.hook_args(),
                    stdin: Some(input),
                    env: KILL_SWITCH,
                };
                if let (Some(times), Ok((ms, _))) = (times.get_mut(side), time_warden(&client, &run)) {
                    times.push(ms);
                }
            }
            let started = Instant::now();
            decisions(server, first, DECISIONS, 8)?;
            first += DECISIONS;
            if let Some(times) = per_decision.get_mut(side) {
                times.push(started.elapsed().as_secs_f64() * 1e6 / DECISIONS as f64);
            }
        }
    }
    // Let the last spans leave before the counts are read.
    std::thread::sleep(std::time::Duration::from_secs(2));
    let status = Command::new(warden)
        .args(["status", "--json", "--server"])
        .arg(&on.socket)
        .output()
        .map_err(|e| e.to_string())?;
    let status = String::from_utf8_lossy(&status.stdout).into_owned();
    off.stop();
    on.stop();

    println!(
        "\nThe OpenTelemetry export (issue 39), on against off in one run (medians of {ROUNDS} rounds)\n"
    );
    println!("{:<58} {:>16} {:>26}  verdict", "measurement", "export on", "export off / target");
    let compare = |what: &str, unit: &str, on: Option<f64>, off: Option<f64>| match (on, off) {
        (Some(on), Some(off)) => row(
            what,
            &format!("{on:.2} {unit}"),
            &format!("{off:.2} {unit}, ≤ {WITHIN} × ({:.3} ×)", on / off),
            Some(on <= WITHIN * off),
        ),
        _ => row(what, "not measured", "", None),
    };
    for ((what, _, _), [off, on]) in rows.iter().zip(timed.iter_mut()) {
        compare(what, "ms", median(on), median(off));
    }
    let [off_each, on_each] = &mut per_decision;
    compare(
        &format!("the server's time per decision ({DECISIONS} × {ROUNDS} over 8 connections)"),
        "µs",
        median(on_each),
        median(off_each),
    );
    let spans = (ROUNDS as u64) * DECISIONS;
    row(
        &format!("  spans exported / dropped (of at least {spans} decisions)"),
        &format!(
            "{} / {}",
            field(&status, "exported").map_or("?".to_owned(), |n| n.to_string()),
            field(&status, "dropped").map_or("?".to_owned(), |n| n.to_string())
        ),
        &format!("{} requests to the sink", requests.load(Ordering::Relaxed)),
        None,
    );
    Ok(())
}
