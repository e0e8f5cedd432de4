//! One exchange with a server, synchronous (the thin client needs no runtime, V-29).
//!
//! V-12: with a user named (`--server-uid`, `[server] uid`), the answer is read only from a
//! server running as that user: the connection's peer as the kernel reports it (`SO_PEERCRED`);
//! any other is `server_unavailable`.
//!
//! a client's failure is a [`ClientError`], its code typed beside its reason, never a
//! string with the code spliced in; it renders as `CODE: reason`, the line the clients print.

use std::io::Write;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::{Duration, Instant};

use agentwarden_domain::code::Code;

use crate::{AbsolutePath, Answer, Outcome, Question, Request, decode, encode, read_frame_blocking};

/// Why a client of the server failed — its exchange, or a step before it (reading the
/// configuration that names the server's user, the event it sends): a code of the code table
/// (`docs/codes.md`) and a one-line reason. Displayed as `CODE: reason`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientError {
    /// The code: [`Code::ServerUnavailable`] or [`Code::ServerAnswerInvalid`] from
    /// [`exchange`]; the client's own before it (`config_invalid`, …).
    pub code: Code,
    /// Why, without the code.
    pub reason: String,
}

impl ClientError {
    /// A failure with `code` and `reason`.
    pub fn new(code: Code, reason: impl Into<String>) -> ClientError {
        ClientError { code, reason: reason.into() }
    }
}

impl std::fmt::Display for ClientError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.reason)
    }
}

impl std::error::Error for ClientError {}

/// Why the user a socket's peer runs as cannot be told, by cause.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PeerError {
    /// The kernel refused `SO_PEERCRED`.
    #[error("SO_PEERCRED: {0}")]
    Credentials(String),
    /// This system does not report a socket peer's user.
    #[error("the peer's user cannot be read on this system")]
    Unsupported,
}

/// The user the peer of `stream` runs as, as the kernel reports it.
pub fn peer_uid(stream: &UnixStream) -> Result<u32, PeerError> {
    #[cfg(target_os = "linux")]
    {
        let peer = rustix::net::sockopt::socket_peercred(stream)
            .map_err(|e| PeerError::Credentials(e.to_string()))?;
        Ok(peer.uid.as_raw())
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = stream;
        Err(PeerError::Unsupported)
    }
}

/// The server must run as `uid` (when one is named), or the answer is not read (V-12).
fn check_peer(stream: &UnixStream, uid: Option<u32>) -> Result<(), String> {
    let Some(wanted) = uid else { return Ok(()) };
    let seen = peer_uid(stream).map_err(|e| e.to_string())?;
    if seen == wanted {
        return Ok(());
    }
    Err(format!("it runs as uid {seen}, not uid {wanted} (`--server-uid`, `[server] uid`)"))
}

/// A decision command's question asked of the server (V-13): the `decide` request for the
/// project whose configuration is `config`, with `budget` as its deadline, and the outcome it
/// answers, which must answer this question; the server's refusal keeps its code.
pub fn decide(
    socket: &Path,
    uid: Option<u32>,
    config: AbsolutePath,
    question: &Question,
    budget: Duration,
) -> Result<Outcome, ClientError> {
    let request = Request::Decide {
        config,
        question: question.clone(),
        deadline_ms: Some(u64::try_from(budget.as_millis()).unwrap_or(u64::MAX)),
    };
    match exchange(socket, uid, &request, budget)? {
        Answer::Decided { outcome } if outcome.answers(question) => Ok(*outcome),
        Answer::Error { code, reason } => Err(ClientError::new(code, reason)),
        _ => Err(ClientError::new(
            Code::ServerAnswerInvalid,
            format!("the server at `{}` answered another kind of answer", socket.display()),
        )),
    }
}

/// What a server says of itself (`warden status`), its credentials masked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerStatus {
    /// The process id.
    pub pid: u32,
    /// The store, described.
    pub store: String,
    /// The log's head: sequence number.
    pub head_seq: u64,
    /// The log's head: hash.
    pub head_hash: String,
    /// Milliseconds since the server started.
    pub uptime_ms: u64,
    /// Requests answered so far.
    pub requests_served: u64,
    /// The OpenTelemetry export, when the server exports (V-61).
    pub export: Option<crate::SpanExport>,
    /// The witnesses, when the server submits to any.
    pub witnesses: Option<Vec<crate::WitnessReport>>,
}

/// The server's `status` answer within `budget`. A server masks credentials already; what a
/// client shows of it (the store, an endpoint, a witness's URL, their errors) is masked again,
/// whoever answered. Any other answer is `server_answer_invalid`.
pub fn status(socket: &Path, uid: Option<u32>, budget: Duration) -> Result<ServerStatus, ClientError> {
    let answer = exchange(socket, uid, &Request::Status {}, budget)?;
    let Answer::Status { pid, store, head_seq, head_hash, uptime_ms, requests_served, export, witnesses } =
        answer
    else {
        return Err(ClientError::new(Code::ServerAnswerInvalid, format!("not a status answer: {answer:?}")));
    };
    let shown = |text: &str| agentwarden_domain::redact::credentials(text);
    let export = export.map(|e| crate::SpanExport {
        endpoint: shown(&e.endpoint),
        last_error: e.last_error.as_deref().map(shown),
        ..e
    });
    let witnesses = witnesses.map(|all| {
        all.into_iter()
            .map(|w| crate::WitnessReport {
                url: shown(&w.url),
                last_error: w.last_error.as_deref().map(shown),
                ..w
            })
            .collect()
    });
    Ok(ServerStatus {
        pid,
        store: shown(&store),
        head_seq,
        head_hash,
        uptime_ms,
        requests_served,
        export,
        witnesses,
    })
}

/// One request, one answer, within `budget`, from a server running as `uid` when given. The
/// error's code is [`Code::ServerUnavailable`] (not reached, closed, too slow, not the named
/// user) or [`Code::ServerAnswerInvalid`] (not an answer of this protocol).
pub fn exchange(
    socket: &Path,
    uid: Option<u32>,
    request: &Request,
    budget: Duration,
) -> Result<Answer, ClientError> {
    let started = Instant::now();
    let unreachable = |e: &dyn std::fmt::Display| {
        ClientError::new(Code::ServerUnavailable, format!("the server at `{}`: {e}", socket.display()))
    };
    let mut stream = UnixStream::connect(socket).map_err(|e| unreachable(&e))?;
    check_peer(&stream, uid).map_err(|e| unreachable(&e))?;
    let left = budget.saturating_sub(started.elapsed()).max(Duration::from_millis(1));
    stream.set_write_timeout(Some(left)).map_err(|e| unreachable(&e))?;
    stream.set_read_timeout(Some(left)).map_err(|e| unreachable(&e))?;
    let frame = encode(request).map_err(|e| unreachable(&e))?;
    stream.write_all(&frame).map_err(|e| unreachable(&e))?;
    let body = read_frame_blocking(&mut stream).map_err(|e| unreachable(&e))?;
    decode::<Answer>(&body).map_err(|e| {
        ClientError::new(
            Code::ServerAnswerInvalid,
            format!("the server at `{}` answered nonsense: {e}", socket.display()),
        )
    })
}
