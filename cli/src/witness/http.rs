//! `warden witness serve`: the witness over HTTP, as C2SP `tlog-witness` says:
//! `POST /add-checkpoint` with the body `old N`, the consistency proof's lines, a blank line and
//! the signed checkpoint; `200` with the cosignature line, `409` with the witness's size
//! (`text/x.tlog.size`) when `old` is not it, `403` for a checkpoint no known key signed, `404`
//! for a log it does not witness, `422` for a proof that does not hold (a fork), `400` for what
//! cannot be read. The state is [`super::cosign`]'s, so the command line's
//! `add-checkpoint` and the server share it (one at a time, by its lock).
//!
//! HTTP/1.1 by hand over `std::net`: one route, one method, a `Content-Length` body of at
//! most 4 MiB read within 10 s, headers within 16 KiB, one request per connection (`Connection:
//! close`), one thread per connection up to [`MAX_CONNECTIONS`] (past it the connection is
//! closed unanswered). Anything else is `400`, `404`, `405`, `411` or `413`, never a panic.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use agentwarden::tlog::{Cosigner, LogVerifier, TlogError};
use agentwarden_domain::audit::note::{TreeHead, parse_note};
use agentwarden_domain::audit::proof::MAX_PROOF_BYTES;
use clap::Args;

use super::super::{EXIT_OK, Failure};
use super::{Refused, cosign, last_size};

/// The most connections served at once.
const MAX_CONNECTIONS: usize = 64;
/// The longest a request's headers may be.
const MAX_HEAD: u64 = 16 * 1024;
/// How long a client may take to send its request, or to take the answer.
const IO_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// Where to listen (`127.0.0.1:PORT`; port 0 picks one, printed on start).
    #[arg(long, value_name = "ADDR")]
    listen: String,
    /// The witness's cosigning key (from `warden witness keygen`).
    #[arg(long, value_name = "FILE")]
    key: PathBuf,
    /// The directory that keeps the last checkpoint cosigned per log.
    #[arg(long, value_name = "DIR")]
    state: PathBuf,
    /// The public key of a log witnessed (`NAME+ID+KEY`, from `warden audit keygen`), once per log.
    #[arg(long = "log", value_name = "KEY", required = true)]
    logs: Vec<String>,
}

struct Witnessing {
    cosigner: Cosigner,
    logs: Vec<LogVerifier>,
    state: PathBuf,
}

/// `warden witness serve`: serves until killed.
pub(super) fn serve(args: ServeArgs, out: &mut dyn Write) -> Result<u8, Failure> {
    let cosigner = Cosigner::read(&args.key)?;
    let logs = args.logs.iter().map(|l| LogVerifier::parse(l)).collect::<Result<Vec<_>, _>>()?;
    let listener = TcpListener::bind(&args.listen)
        .map_err(|e| Failure::usage(format!("cannot listen on `{}`: {e}", args.listen)))?;
    let at = listener.local_addr().map_err(|e| Failure::usage(e.to_string()))?;
    writeln!(out, "witnessing on http://{at}/add-checkpoint")?;
    out.flush()?;
    let witnessing = Arc::new(Witnessing { cosigner, logs, state: args.state });
    let open = Arc::new(AtomicUsize::new(0));
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        if open.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
            open.fetch_sub(1, Ordering::SeqCst);
            tracing::warn!("every connection busy: one closed unanswered");
            continue;
        }
        let (witnessing, open) = (Arc::clone(&witnessing), Arc::clone(&open));
        let spawned = std::thread::Builder::new().name("witness".into()).spawn(move || {
            if let Err(e) = connection(&witnessing, stream) {
                tracing::debug!(error = %e, "a witness connection failed");
            }
            open.fetch_sub(1, Ordering::SeqCst);
        });
        if spawned.is_err() {
            tracing::warn!("cannot start a thread: a connection closed unanswered");
        }
    }
    Ok(EXIT_OK)
}

/// An HTTP answer: status, content type, body.
type Reply = (u16, &'static str, String);

fn text(status: u16, body: impl Into<String>) -> Reply {
    (status, "text/plain; charset=utf-8", body.into())
}

fn connection(witnessing: &Witnessing, stream: TcpStream) -> std::io::Result<()> {
    stream.set_read_timeout(Some(IO_TIMEOUT))?;
    stream.set_write_timeout(Some(IO_TIMEOUT))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let reply = match read_request(&mut reader) {
        Ok(body) => add_checkpoint(witnessing, &body),
        Err(reply) => reply,
    };
    let (status, kind, body) = reply;
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        409 => "Conflict",
        411 => "Length Required",
        413 => "Content Too Large",
        422 => "Unprocessable Content",
        _ => "Internal Server Error",
    };
    let mut stream = stream;
    write!(
        stream,
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    stream.flush()
}

/// The body of a `POST /add-checkpoint`, or the answer that refuses the request.
fn read_request(reader: &mut impl BufRead) -> Result<String, Reply> {
    let mut head = reader.take(MAX_HEAD);
    let mut line = String::new();
    let bad = |why: &str| text(400, format!("{why}\n"));
    head.read_line(&mut line).map_err(|_| bad("the request line cannot be read"))?;
    let mut parts = line.trim_end_matches(['\r', '\n']).split(' ');
    let (method, target, version) = (parts.next(), parts.next(), parts.next());
    if !matches!(version, Some("HTTP/1.1" | "HTTP/1.0")) || parts.next().is_some() {
        return Err(bad("not an HTTP/1.1 request line"));
    }
    let mut length = None;
    loop {
        let mut header = String::new();
        let read = head.read_line(&mut header).map_err(|_| bad("the headers cannot be read"))?;
        if read == 0 || !header.ends_with('\n') {
            return Err(bad("the headers do not end within 16 KiB"));
        }
        let header = header.trim_end_matches(['\r', '\n']);
        if header.is_empty() {
            break;
        }
        let Some((name, value)) = header.split_once(':') else {
            return Err(bad("a header is not `Name: value`"));
        };
        if name.eq_ignore_ascii_case("transfer-encoding") {
            return Err(text(411, "a Content-Length body only\n"));
        }
        if name.eq_ignore_ascii_case("content-length") {
            let value = value.trim();
            let parsed = value.parse::<u64>().ok().filter(|_| value.bytes().all(|b| b.is_ascii_digit()));
            if parsed.is_none() || length.is_some() {
                return Err(bad("one decimal Content-Length"));
            }
            length = parsed;
        }
    }
    if target != Some("/add-checkpoint") {
        return Err(text(404, "only /add-checkpoint\n"));
    }
    if method != Some("POST") {
        return Err(text(405, "POST only\n"));
    }
    let length = length.ok_or_else(|| text(411, "a Content-Length is required\n"))?;
    if length > MAX_PROOF_BYTES as u64 {
        return Err(text(413, "the body is over 4 MiB\n"));
    }
    let mut body = Vec::new();
    let reader = head.into_inner();
    reader.take(length).read_to_end(&mut body).map_err(|_| bad("the body cannot be read"))?;
    if body.len() as u64 != length {
        return Err(bad("the body is shorter than its Content-Length"));
    }
    String::from_utf8(body).map_err(|_| bad("the body is not UTF-8"))
}

/// The log a request's checkpoint names (by its origin), when this witness witnesses it.
fn log_of<'a>(witnessing: &'a Witnessing, body: &str) -> Result<&'a LogVerifier, Reply> {
    let note = body.split_once("\n\n").map(|(_, note)| note).unwrap_or_default();
    let origin = parse_note(note)
        .ok()
        .and_then(|note| TreeHead::parse(&note.text).ok())
        .map(|head| head.origin)
        .ok_or_else(|| text(400, "the body holds no checkpoint\n"))?;
    witnessing
        .logs
        .iter()
        .find(|log| log.name() == origin)
        .ok_or_else(|| text(404, format!("this witness does not witness `{origin}`\n")))
}

/// `add-checkpoint` answered with the spec's status codes.
fn add_checkpoint(witnessing: &Witnessing, body: &str) -> Reply {
    let log = match log_of(witnessing, body) {
        Ok(log) => log,
        Err(reply) => return reply,
    };
    match cosign(&witnessing.cosigner, log, &witnessing.state, body) {
        Ok(line) => (200, "text/x.tlog.cosignature", line),
        Err(Refused::State(why)) => {
            tracing::error!(reason = %why, "the witness's state cannot be used");
            text(500, "the witness's state cannot be used\n")
        }
        Err(Refused::Tlog(e)) => {
            let reason = format!("{}: {}\n", e.code().as_str(), e.reason());
            match e {
                // The spec's 409: the witness's own size, for the log to prove from.
                TlogError::WitnessConflict(_) | TlogError::WitnessRollback(_) => {
                    match last_size(log, &witnessing.state) {
                        Ok(size) => (409, "text/x.tlog.size", format!("{size}\n")),
                        Err(_) => text(500, "the witness's state cannot be used\n"),
                    }
                }
                TlogError::SignatureInvalid(_) => text(403, reason),
                TlogError::WitnessFork(_) | TlogError::Inconsistent(_) => text(422, reason),
                _ => text(400, reason),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(raw: &str) -> Result<String, u16> {
        read_request(&mut BufReader::new(raw.as_bytes())).map_err(|(status, _, _)| status)
    }

    /// What the hand-rolled reader accepts and what it refuses (A-39, as a table).
    #[test]
    fn only_a_bounded_post_to_add_checkpoint_is_read() {
        let ok = "POST /add-checkpoint HTTP/1.1\r\nHost: w\r\nContent-Length: 5\r\n\r\nold 0";
        assert_eq!(read(ok), Ok("old 0".to_owned()));
        for (raw, status, why) in [
            ("GET /add-checkpoint HTTP/1.1\r\n\r\n", 405, "another method"),
            ("POST /other HTTP/1.1\r\nContent-Length: 1\r\n\r\nx", 404, "another path"),
            ("POST /add-checkpoint HTTP/1.1\r\n\r\n", 411, "no length"),
            ("POST /add-checkpoint HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", 411, "chunked"),
            ("POST /add-checkpoint HTTP/1.1\r\nContent-Length: 99999999\r\n\r\n", 413, "too large"),
            ("POST /add-checkpoint HTTP/1.1\r\nContent-Length: +5\r\n\r\nold 0", 400, "a signed length"),
            (
                "POST /add-checkpoint HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nold 0",
                400,
                "two lengths",
            ),
            ("POST /add-checkpoint HTTP/1.1\r\nContent-Length: 9\r\n\r\nold 0", 400, "a short body"),
            ("POST /add-checkpoint\r\n\r\n", 400, "no version"),
            ("POST /add-checkpoint HTTP/1.1\r\nbroken\r\n\r\n", 400, "a header without a colon"),
            ("POST /add-checkpoint HTTP/1.1\r\nContent-Length: 5", 400, "headers that never end"),
        ] {
            assert_eq!(read(raw), Err(status), "{why}");
        }
        let huge = format!("POST /add-checkpoint HTTP/1.1\r\nX: {}\r\n\r\n", "a".repeat(20_000));
        assert_eq!(read(&huge), Err(400), "headers over 16 KiB");
    }
}
