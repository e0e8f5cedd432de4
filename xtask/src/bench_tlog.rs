//! `cargo xtask bench server tlog` (and the end of `cargo xtask bench server`): what the log's
//! tree costs the resident service (issue 37), in one run.
//!
//! - A-43: a server that signs its checkpoints off the answers' path (`--log-key`) beside one
//!   that does not, each on an empty store of its own, started one after the other: `warden-hook`
//!   on a `PreToolUse` of `Agent` (an allow, recorded), the median of whole processes, then 20
//!   hook processes at once (p50, p99); unsigned, signed, signed, unsigned, so that the
//!   machine's drift shows.
//! - V-65: on a store of `AGENTWARDEN_BENCH_PROOF_EVENTS` events (default 1 000 000, built by the
//!   `build_log` example), the server's answer to `checkpoint` and to `inclusion_proof` of events
//!   spread over the log, timed from the request's first byte to the answer's last, over one
//!   connection (median and p99 of 200 each), against the 10 ms target.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use crate::bench_server::{
    KILL_SWITCH, Server, Serving, concurrent, crowd_rows, ms, percentile, row, show, spawn_event, write_input,
};
use crate::measure::{WholeProcess, exec, target_dir, time_warden};

/// How many requests of each kind are timed.
const ASKED: u64 = 200;

pub(crate) fn run(warden: &Path, bin: &Path) -> Result<(), String> {
    let client = bin.join("warden-hook");
    let spawn = write_input("tlog-spawn", &spawn_event(1, "bench-tlog")?)?;
    let key = target_dir().join("bench-tlog-log.key");
    let _ = std::fs::remove_file(&key);
    exec(
        Command::new(warden).args(["audit", "keygen", "--origin", "bench.example/warden", "--out"]).arg(&key),
    )?;
    let key = key.to_string_lossy().into_owned();

    let mut rows = Vec::new();
    // Twice each, alternated: the machine's load moves between runs (shared cores), and a
    // difference that does not survive the swap is noise.
    let signed = vec!["--log-key", key.as_str()];
    for (name, args) in [
        ("tlog-unsigned", Vec::new()),
        ("tlog-signed", signed.clone()),
        ("tlog-signed", signed.clone()),
        ("tlog-unsigned", Vec::new()),
    ] {
        let server =
            Server::start_as(warden, bin, name, 0, &Serving { serve_args: &args, ..Serving::default() })?;
        let one = time_warden(
            &client,
            &WholeProcess { name, args: server.hook_args(), stdin: Some(&spawn), env: KILL_SWITCH },
        );
        let crowd = concurrent(&client, &server, 20, 10, 4_000_000);
        server.stop();
        rows.push((name, one, crowd));
    }

    let events: u64 = std::env::var("AGENTWARDEN_BENCH_PROOF_EVENTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1_000_000);
    let big = Server::start(warden, bin, "tlog-proofs", events)?;
    let asked = ask_tree(&big.socket);
    big.stop();

    println!("\nThe log's tree in the resident service (issue 37), in one run\n");
    println!("{:<58} {:>16} {:>26}  verdict", "measurement", "ours", "baseline / target");
    let unsigned = rows.first().map(|(_, one, _)| ms(one)).unwrap_or_default();
    for (name, one, crowd) in &rows {
        // Against the unsigned server run next to it: the first for the first pair, the last
        // for the second.
        let unsigned = match rows.iter().position(|(n, o, _)| *n == *name && ms(o) == ms(one)) {
            Some(at) if at >= 2 => rows.last().map(|(_, o, _)| ms(o)).unwrap_or_default(),
            _ => unsigned,
        };
        let against = match (name, ms(one), unsigned) {
            (&"tlog-signed", Some(v), Some(u)) => format!("{:.3} × unsigned", v / u),
            _ => "(the baseline)".to_owned(),
        };
        let what = match *name {
            "tlog-signed" => "`warden-hook` Agent, through a server that signs (A-43)",
            _ => "`warden-hook` Agent, through a server that does not sign",
        };
        row(what, &show(one), &against, None);
        let crowd_name = match *name {
            "tlog-signed" => "`warden-hook`, signing server,",
            _ => "`warden-hook`, unsigned server,",
        };
        crowd_rows(crowd_name, crowd.as_deref());
    }
    match asked {
        Ok(asked) => {
            for (what, times) in [
                (format!("`checkpoint` answered, {events}-event store: p50"), &asked.checkpoint),
                (format!("`inclusion_proof` answered, {events}-event store: p50"), &asked.inclusion),
            ] {
                let (p50, p99) = (percentile(times, 0.5), percentile(times, 0.99));
                row(&what, &format!("{p50:.3} ms"), "≤ 10 ms", Some(p50 <= 10.0));
                row("  p99", &format!("{p99:.3} ms"), "", None);
            }
            row("  the log's durable size the server answered", &asked.size.to_string(), "", None);
        }
        Err(e) => row("tree requests through the server", &format!("not measured: {e}"), "", None),
    }
    Ok(())
}

/// The times (ms, sorted) of `checkpoint` and `inclusion_proof` answers, and the size.
struct Asked {
    size: u64,
    checkpoint: Vec<f64>,
    inclusion: Vec<f64>,
}

/// One request over `stream`, its answer's body and how long it took (ms).
fn exchange(stream: &mut UnixStream, body: &str) -> Result<(String, f64), String> {
    let started = Instant::now();
    let length = u32::try_from(body.len()).map_err(|e| e.to_string())?;
    stream.write_all(&length.to_be_bytes()).map_err(|e| e.to_string())?;
    stream.write_all(body.as_bytes()).map_err(|e| e.to_string())?;
    let mut head = [0_u8; 4];
    stream.read_exact(&mut head).map_err(|e| e.to_string())?;
    let mut answer = vec![0_u8; u32::from_be_bytes(head) as usize];
    stream.read_exact(&mut answer).map_err(|e| e.to_string())?;
    let took = started.elapsed().as_secs_f64() * 1000.0;
    Ok((String::from_utf8_lossy(&answer).into_owned(), took))
}

/// The decimal number right after `key` in `text` (xtask reads no JSON library).
fn number_after(text: &str, key: &str) -> Option<u64> {
    let at = text.find(key)? + key.len();
    let digits: String = text.get(at..)?.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

fn ask_tree(socket: &Path) -> Result<Asked, String> {
    let mut stream = UnixStream::connect(socket).map_err(|e| e.to_string())?;
    let checkpoint = r#"{"version":2,"kind":"checkpoint"}"#;
    let (answer, _) = exchange(&mut stream, checkpoint)?;
    let size = number_after(&answer, r#""size":"#).ok_or(format!("no size: {answer}"))?;
    if size == 0 {
        return Err("the store is empty".into());
    }
    let mut times = Asked { size, checkpoint: Vec::new(), inclusion: Vec::new() };
    for n in 0..ASKED {
        let (answer, took) = exchange(&mut stream, checkpoint)?;
        if !answer.contains(r#""kind":"checkpoint""#) {
            return Err(format!("checkpoint {n}: {answer}"));
        }
        times.checkpoint.push(took);
        // Spread over the log: a stride coprime with most sizes.
        let seq = 1 + (n * 7_919_u64.wrapping_mul(127)) % size;
        let body = format!(r#"{{"version":2,"kind":"inclusion_proof","seq":{seq},"size":{size}}}"#);
        let (answer, took) = exchange(&mut stream, &body)?;
        if !answer.contains(r#""kind":"inclusion_proof""#) {
            return Err(format!("proof of {seq}: {answer}"));
        }
        times.inclusion.push(took);
    }
    times.checkpoint.sort_by(f64::total_cmp);
    times.inclusion.sort_by(f64::total_cmp);
    Ok(times)
}
