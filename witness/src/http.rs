//! The witness over HTTP (`warden witness serve`), as C2SP `tlog-witness` says:
//! `POST /add-checkpoint` with the body `old N`, the consistency proof's lines, a blank line and
//! the signed checkpoint; `200` with the cosignature line, `409` with the witness's size
//! (`text/x.tlog.size`) when `old` is not it, `403` for a checkpoint no known key signed, `404`
//! for a log it does not witness, `422` for a proof that does not hold (a fork), `400` for what
//! cannot be read. The state is [`crate::cosign`]'s, so the command line's
//! `add-checkpoint` and the server share it (one at a time, by its lock).
//!
//! A slow client holds no one else up: HTTP/1.1 is hyper's server, one request per
//! connection (`Connection: close`); the whole request — headers and a `Content-Length` body of
//! at most 4 MiB — must arrive within [`REQUEST_DEADLINE`] of the connection, however it
//! trickles, and the connection is closed at [`CONNECTION_DEADLINE`] whatever it is doing. At
//! most [`MAX_PER_PEER`] connections are open from one peer (an IPv4 address, an IPv6 /64) and
//! [`MAX_CONNECTIONS`] in all; past either, a new connection is closed unanswered. Anything
//! else is `400`, `404`, `405`, `408`, `411`, `413` or `431`, never a panic.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use agentwarden::tlog::{Cosigner, LogVerifier, TlogError};
use agentwarden::tlog::{MAX_PROOF_BYTES, TreeHead, parse_note};
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::header::{CONTENT_LENGTH, CONTENT_TYPE, TRANSFER_ENCODING};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::time::Instant;

use crate::{Refused, cosign, last_size};

/// The most connections open at once.
const MAX_CONNECTIONS: usize = 128;
/// The most connections open at once from one peer: an IPv4 address or an IPv6 /64.
const MAX_PER_PEER: usize = 8;
/// The longest a request's line and headers may be.
const MAX_HEAD: usize = 16 * 1024;
/// How long a client has, from its connection, to send its whole request.
const REQUEST_DEADLINE: Duration = Duration::from_secs(10);
/// How long a connection may stay open at all: the request, the cosigning, the answer.
const CONNECTION_DEADLINE: Duration = Duration::from_secs(20);

/// What the witness serves with: its cosigning key, the logs it witnesses and its state
/// directory (the one `add-checkpoint` keeps).
#[derive(Debug)]
pub struct Witnessing {
    cosigner: Cosigner,
    logs: Vec<LogVerifier>,
    state: PathBuf,
}

impl Witnessing {
    /// The witness of `logs` cosigning with `cosigner`, its state in `state`.
    #[must_use]
    pub fn new(cosigner: Cosigner, logs: Vec<LogVerifier>, state: PathBuf) -> Self {
        Witnessing { cosigner, logs, state }
    }
}

/// A witness bound to its address, not yet answering.
#[derive(Debug)]
pub struct Listening {
    listener: TcpListener,
    witnessing: Witnessing,
}

/// The witness `witnessing` bound to `addr` (`127.0.0.1:PORT`; port 0 picks one).
pub async fn listen(addr: &str, witnessing: Witnessing) -> std::io::Result<Listening> {
    Ok(Listening { listener: TcpListener::bind(addr).await?, witnessing })
}

impl Listening {
    /// The address bound.
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Answers `POST /add-checkpoint` until the process ends.
    pub async fn serve(self) {
        accept(self.listener, Arc::new(self.witnessing)).await;
    }
}

/// Accepts connections until the listener fails for good, each admitted under the caps
/// served as a task of its own.
async fn accept(listener: TcpListener, witnessing: Arc<Witnessing>) {
    let admission = Arc::new(Admission::default());
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(e) => {
                // Out of descriptors, a connection reset before it was accepted: wait a little
                // and go on, rather than spin or stop witnessing.
                tracing::debug!(error = %e, "cannot accept a connection");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Some(ticket) = admission.admit(peer) else {
            tracing::warn!(peer = %peer.ip(), "too many connections: one closed unanswered");
            continue;
        };
        let witnessing = Arc::clone(&witnessing);
        tokio::spawn(async move {
            connection(witnessing, stream).await;
            drop(ticket);
        });
    }
}

/// The connections open, in all and per peer.
#[derive(Default)]
struct Admission {
    open: Mutex<(usize, HashMap<IpAddr, usize>)>,
}

/// One admitted connection; dropping it gives its place back.
struct Ticket {
    admission: Arc<Admission>,
    peer: IpAddr,
}

/// Who a connection is from, for the per-peer cap: an IPv4 address (also when mapped into
/// IPv6), or an IPv6 /64, the least a host is handed.
fn peer_of(addr: SocketAddr) -> IpAddr {
    match addr.ip() {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(Ipv6Addr::from_bits(v6.to_bits() & !u128::from(u64::MAX))),
        },
    }
}

impl Admission {
    /// A place for a connection from `addr`, unless it would pass a cap.
    fn admit(self: &Arc<Self>, addr: SocketAddr) -> Option<Ticket> {
        let peer = peer_of(addr);
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        let (all, by_peer) = &mut *open;
        let mine = by_peer.entry(peer).or_insert(0);
        if *all >= MAX_CONNECTIONS || *mine >= MAX_PER_PEER {
            if *mine == 0 {
                by_peer.remove(&peer);
            }
            return None;
        }
        *mine += 1;
        *all += 1;
        Some(Ticket { admission: Arc::clone(self), peer })
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let mut open = self.admission.open.lock().unwrap_or_else(PoisonError::into_inner);
        let (all, by_peer) = &mut *open;
        *all = all.saturating_sub(1);
        if let Some(mine) = by_peer.get_mut(&self.peer) {
            *mine = mine.saturating_sub(1);
            if *mine == 0 {
                by_peer.remove(&self.peer);
            }
        }
    }
}

/// Serves one connection: one request, read by its deadline, answered, closed; the whole of it
/// within [`CONNECTION_DEADLINE`].
async fn connection(witnessing: Arc<Witnessing>, stream: tokio::net::TcpStream) {
    let deadline = Instant::now() + REQUEST_DEADLINE;
    let service = hyper::service::service_fn(move |request| {
        let witnessing = Arc::clone(&witnessing);
        async move { Ok::<_, std::convert::Infallible>(response(answer(witnessing, request, deadline).await)) }
    });
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(REQUEST_DEADLINE)
        .max_header_size(MAX_HEAD)
        .keep_alive(false)
        .title_case_headers(true);
    let served = http.serve_connection(TokioIo::new(stream), service);
    match tokio::time::timeout(CONNECTION_DEADLINE, served).await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => tracing::debug!(error = %e, "a witness connection failed"),
        Err(_) => tracing::debug!("a witness connection outlived its deadline: closed"),
    }
}

/// An HTTP answer: status, content type, body.
type Reply = (u16, &'static str, String);

fn text(status: u16, body: impl Into<String>) -> Reply {
    (status, "text/plain; charset=utf-8", body.into())
}

/// `reply` as hyper sends it.
fn response((status, kind, body): Reply) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    response.headers_mut().insert(CONTENT_TYPE, hyper::header::HeaderValue::from_static(kind));
    response
}

/// The answer to one request: its body read by `deadline`, then `add-checkpoint`.
async fn answer(witnessing: Arc<Witnessing>, request: Request<Incoming>, deadline: Instant) -> Reply {
    let body = match read_body(request, deadline).await {
        Ok(body) => body,
        Err(refusal) => return refusal,
    };
    // The state's lock and files are blocking I/O: off the task that serves the others.
    let cosigned = tokio::task::spawn_blocking(move || add_checkpoint(&witnessing, &body)).await;
    cosigned.unwrap_or_else(|e| {
        tracing::error!(error = %e, "cosigning stopped");
        text(500, "the witness could not answer\n")
    })
}

/// The body of a `POST /add-checkpoint`, or the answer that refuses the request.
async fn read_body(request: Request<Incoming>, deadline: Instant) -> Result<String, Reply> {
    if request.uri().path() != "/add-checkpoint" || request.uri().query().is_some() {
        return Err(text(404, "only /add-checkpoint\n"));
    }
    if request.method() != Method::POST {
        return Err(text(405, "POST only\n"));
    }
    if request.headers().contains_key(TRANSFER_ENCODING) {
        return Err(text(411, "a Content-Length body only\n"));
    }
    let length = request
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok())
        .ok_or_else(|| text(411, "a Content-Length is required\n"))?;
    if length > MAX_PROOF_BYTES as u64 {
        return Err(text(413, "the body is over 4 MiB\n"));
    }
    let collected =
        tokio::time::timeout_at(deadline, Limited::new(request.into_body(), MAX_PROOF_BYTES).collect());
    let bytes = match collected.await {
        Ok(Ok(collected)) => collected.to_bytes(),
        Ok(Err(_)) => return Err(text(400, "the body cannot be read\n")),
        Err(_) => return Err(text(408, "the request did not arrive within 10 s\n")),
    };
    String::from_utf8(bytes.to_vec()).map_err(|_| text(400, "the body is not UTF-8\n"))
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
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    /// The status line's code of what the witness at `at` answers to `raw` (0: closed unanswered).
    async fn status_of(at: SocketAddr, raw: &str) -> u16 {
        let mut stream = tokio::net::TcpStream::connect(at).await.unwrap();
        stream.write_all(raw.as_bytes()).await.unwrap();
        let mut answer = Vec::new();
        let read = tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut answer)).await;
        assert!(read.is_ok(), "no answer within 5 s to {raw:?}");
        String::from_utf8_lossy(&answer).get(9..12).map_or(0, |code| code.parse().unwrap())
    }

    /// What hyper and the route accept and what they refuse (A-39, A-46, as a table): only a
    /// bounded `POST /add-checkpoint` with a `Content-Length` reaches `add-checkpoint`.
    #[tokio::test]
    async fn only_a_bounded_post_to_add_checkpoint_is_read() {
        let state = tempfile::tempdir().unwrap();
        let cosigner = Cosigner::generate("witness.example/table").unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let at = listener.local_addr().unwrap();
        let witnessing = Witnessing { cosigner, logs: Vec::new(), state: state.path().to_owned() };
        tokio::spawn(accept(listener, Arc::new(witnessing)));
        let huge = format!("POST /add-checkpoint HTTP/1.1\r\nX: {}\r\n\r\n", "a".repeat(20_000));
        for (raw, status, why) in [
            (
                "POST /add-checkpoint HTTP/1.1\r\nHost: w\r\nContent-Length: 5\r\n\r\nold 0",
                400,
                "read whole, and refused by add-checkpoint: no checkpoint in it",
            ),
            ("GET /add-checkpoint HTTP/1.1\r\n\r\n", 405, "another method"),
            ("POST /other HTTP/1.1\r\nContent-Length: 1\r\n\r\nx", 404, "another path"),
            ("POST /add-checkpoint?x=1 HTTP/1.1\r\nContent-Length: 1\r\n\r\nx", 404, "a query"),
            ("POST /add-checkpoint HTTP/1.1\r\n\r\n", 411, "no length"),
            ("POST /add-checkpoint HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 411, "chunked"),
            ("POST /add-checkpoint HTTP/1.1\r\nContent-Length: 99999999\r\n\r\n", 413, "too large"),
            ("POST /add-checkpoint HTTP/1.1\r\nContent-Length: +5\r\n\r\nold 0", 400, "a signed length"),
            (
                "POST /add-checkpoint HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nold 0",
                400,
                "two lengths that disagree",
            ),
            ("POST /add-checkpoint\r\n\r\n", 400, "no version"),
            ("POST /add-checkpoint HTTP/1.1\r\nbroken\r\n\r\n", 400, "a header without a colon"),
            (huge.as_str(), 431, "headers over 16 KiB"),
        ] {
            assert_eq!(status_of(at, raw).await, status, "{why}");
        }
    }

    /// The per-peer cap counts an IPv6 /64 as one peer and a mapped IPv4 address as itself.
    #[test]
    fn a_peer_is_an_ipv4_address_or_an_ipv6_slash_64() {
        for (addr, peer) in [
            ("192.0.2.7:1", "192.0.2.7"),
            ("[::ffff:192.0.2.7]:1", "192.0.2.7"),
            ("[2001:db8:1:2:3:4:5:6]:1", "2001:db8:1:2::"),
            ("[2001:db8:1:2:ffff::1]:1", "2001:db8:1:2::"),
        ] {
            assert_eq!(peer_of(addr.parse().unwrap()).to_string(), peer, "{addr}");
        }
    }
}
