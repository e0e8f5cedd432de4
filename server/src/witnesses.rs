//! The witnesses the server submits its signed checkpoints to: each `[server] witnesses`
//! entry (`URL VKEY`) gets every new note by C2SP `tlog-witness` `add-checkpoint`, from a task of
//! its own, never on a decision's path: a failed or slow witness is logged and shown by
//! `warden status`, and changes no answer.
//!
//! the request proves from the size the witness cosigned last as far as the server knows
//! (0 at start); a `409` with `text/x.tlog.size` names the witness's size, and the request is
//! made again from it, once. A `200`'s cosignature line is kept with the note only when it
//! verifies under that witness's key for exactly the checkpoint submitted; anything else is a
//! refusal, reported with the witness's reason (a `422` is the witness seeing a fork).

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agentwarden::observe::credentials;
use agentwarden::tlog::parse_note;
use agentwarden::tlog::{add_checkpoint_request, verify_cosignature};
use agentwarden_protocol::WitnessReport;

use crate::tlog::Tlog;

/// The longest one submission may take, connecting included.
const TIMEOUT: Duration = Duration::from_secs(5);
/// The largest answer read from a witness.
const MAX_ANSWER: u64 = 64 * 1024;

/// One witness, and what the server knows of it.
struct Witness {
    url: String,
    vkey: String,
    /// The size it cosigned last, as far as the server knows.
    size: u64,
    /// The size of the note it cosigned for this server: that note is not submitted again.
    cosigned: Option<u64>,
}

/// What `warden status` shows of the witnesses.
pub(crate) type Reports = Arc<Mutex<Vec<WitnessReport>>>;

/// Starts the submitter for `witnesses` (`(url, vkey)`); its reports, one per witness.
pub(crate) fn start(tlog: Arc<Tlog>, witnesses: &[(String, String)]) -> Reports {
    let reports: Reports = Arc::new(Mutex::new(
        witnesses
            .iter()
            // Shown to any peer of the socket: never the URL's credentials.
            .map(|(url, _)| WitnessReport { url: credentials(url), cosigned: None, last_error: None })
            .collect(),
    ));
    if witnesses.is_empty() {
        return reports;
    }
    let mut all: Vec<Witness> = witnesses
        .iter()
        .map(|(url, vkey)| Witness { url: url.clone(), vkey: vkey.clone(), size: 0, cosigned: None })
        .collect();
    let shared = Arc::clone(&reports);
    tokio::spawn(async move {
        loop {
            if let Some((size, note)) = tlog.signed_note() {
                for (at, witness) in all.iter_mut().enumerate() {
                    if witness.cosigned == Some(size) {
                        continue;
                    }
                    let outcome = submit(&tlog, witness, size, &note).await.map_err(|why| credentials(&why));
                    if let Err(why) = &outcome {
                        let shown = credentials(&witness.url);
                        tracing::warn!(witness = %shown, size, reason = %why, "a witness did not cosign");
                    }
                    if let Ok(mut reports) = shared.lock()
                        && let Some(report) = reports.get_mut(at)
                    {
                        match outcome {
                            Ok(()) => {
                                report.cosigned = Some(size);
                                report.last_error = None;
                            }
                            Err(why) => report.last_error = Some(why),
                        }
                    }
                }
            }
            tlog.signed.notified().await;
        }
    });
    reports
}

/// Submits the note of `size` to `witness`: its cosignature kept with the note, or why not.
async fn submit(tlog: &Tlog, witness: &mut Witness, size: u64, note: &str) -> Result<(), String> {
    let checkpoint = parse_note(note).map_err(|e| format!("the note: {e}"))?.text;
    for _ in 0..2 {
        let old = witness.size.min(size);
        let proof = tlog.consistency_proof(old, size).await.map_err(|e| e.to_string())?;
        let body = add_checkpoint_request(old, &proof, note);
        let url = witness.url.clone();
        let answer = tokio::task::spawn_blocking(move || post(&url, &body))
            .await
            .map_err(|e| format!("the submission failed: {e}"))??;
        match answer {
            (200, _, line) => {
                let read = parse_note(&format!("{checkpoint}\n{line}"))
                    .map_err(|e| format!("answered 200 with no cosignature line: {e}"))?;
                let signature = read.signatures.first().ok_or("answered 200 with no cosignature line")?;
                verify_cosignature(&witness.vkey, &checkpoint, signature).map_err(|e| e.to_string())?;
                tlog.cosigned(size, line);
                witness.size = size;
                witness.cosigned = Some(size);
                return Ok(());
            }
            (409, kind, body) if kind == "text/x.tlog.size" => {
                let theirs: u64 =
                    body.trim().parse().map_err(|_| format!("answered 409 with `{}`", body.trim()))?;
                if theirs > size {
                    return Err(format!(
                        "it has cosigned {theirs} events, more than this log's {size}: a rollback"
                    ));
                }
                witness.size = theirs;
            }
            (status, _, body) => return Err(format!("answered {status}: {}", body.trim())),
        }
    }
    Err("answered 409 twice".to_owned())
}

/// `POST URL/add-checkpoint` with `body`: the status, the content type and the body.
fn post(url: &str, body: &str) -> Result<(u16, String, String), String> {
    // Errors name the URL without its credentials, never the authority as given.
    let shown = credentials(url);
    let host = url.strip_prefix("http://").ok_or_else(|| format!("`{shown}` is not http://"))?;
    let (authority, prefix) = host.split_once('/').map_or((host, ""), |(a, p)| (a, p));
    let address = authority
        .to_socket_addrs()
        .map_err(|e| format!("`{shown}`: {e}"))?
        .next()
        .ok_or_else(|| format!("`{shown}` names no address"))?;
    let mut stream =
        TcpStream::connect_timeout(&address, TIMEOUT).map_err(|e| format!("cannot connect: {e}"))?;
    stream.set_read_timeout(Some(TIMEOUT)).map_err(|e| e.to_string())?;
    stream.set_write_timeout(Some(TIMEOUT)).map_err(|e| e.to_string())?;
    let path =
        if prefix.is_empty() { "/add-checkpoint".to_owned() } else { format!("/{prefix}/add-checkpoint") };
    write!(
        stream,
        "POST {path} HTTP/1.1\r\nHost: {authority}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .map_err(|e| format!("cannot send: {e}"))?;
    let mut answer = Vec::new();
    stream.take(MAX_ANSWER).read_to_end(&mut answer).map_err(|e| format!("no answer: {e}"))?;
    let answer = String::from_utf8(answer).map_err(|_| "the answer is not UTF-8".to_owned())?;
    let (head, body) = answer.split_once("\r\n\r\n").ok_or("the answer has no end of headers")?;
    let status =
        head.split(' ').nth(1).and_then(|s| s.parse().ok()).ok_or_else(|| {
            format!("not an HTTP status line: `{}`", head.lines().next().unwrap_or_default())
        })?;
    let kind = head
        .lines()
        .find_map(|l| {
            l.split_once(':').filter(|(n, _)| n.eq_ignore_ascii_case("content-type")).map(|(_, v)| v.trim())
        })
        .unwrap_or_default()
        .to_owned();
    Ok((status, kind, body.to_owned()))
}
