//! The resident service (`warden serve`): one process holds the store open and answers hook
//! requests, the decision commands' typed questions ([`agentwarden::questions::decide`], V-13,
//! V-54) and `status` over a Unix domain socket, in the frames of `agentwarden-protocol`. The
//! command line gives [`run`] its [`ServeOptions`], the harness and a way to open the store;
//! everything else is here.
//!
//! V-1: a hook request is decided by exactly what the direct `warden hook` calls — the hook's
//! one entry, [`agentwarden::answer_hook`], from `decider::hook` — on the store the
//! server holds, so the same events are recorded. The configuration is read again for every
//! request (as every direct hook process reads it), from the server's own `--config`; V-36:
//! parsed again only when its bytes changed.
//!
//! V-3: one server serves one configuration. A hook request names the client's configuration
//! file; when it is not the server's (compared as canonical paths), the answer is exit 2
//! (`server_config_mismatch`): a project is never decided by another project's rules.
//!
//! V-4: what the gate reads from the environment (the kill switch, G-2) is the server's
//! environment, never the client's: the client sends none. The kill switch is set where the
//! server is started. `warden serve` refuses to start where `CLAUDECODE` is set (as H-5). In a
//! same-user deployment the agent can still stop the server and start its own with its own
//! environment (unsetting `CLAUDECODE`); run the server as its own user and pin it with
//! `[server] uid` (V-11, V-12) to close that.
//!
//! V-7: decisions are taken one at a time, in order, by one decider thread, as direct mode takes
//! them one process at a time under the store's lock; frames are read and written by other
//! tasks, so a slow or silent client holds up nobody. Each connection reads its request within the
//! read timeout, each decision finishes within the request's deadline (or the server's
//! timeout, the smaller), or the answer is an error.
//!
//! V-51: nor can silent connections keep anyone out: a connection keeps its place against a
//! newcomer only while its request is decided; a peer (uid, pid) holds at most its share
//! (`admission`). Refusals and evictions are logged with both peers.
//!
//! V-8: the peer's uid and pid (`SO_PEERCRED`) are logged (tracing, `info`) with each request,
//! and recorded in every event the request records, as its actor (V-18, `commands::as_peer`):
//! `warden-serve peer uid=1000 pid=4242`. A request whose peer's uid cannot be read is refused.
//!
//! V-11: the socket's mode is `--socket-mode` (default 600: the server's own user only), set
//! right after it is bound; who may connect is then the socket's mode and its directory's.
//!
//! V-9: lifecycle. A lock file beside the socket (`PATH.lock`, `flock`) admits one server per
//! socket; the store's own lock admits one server per embedded store. A live socket at the path
//! (a connect succeeds) is refused; a socket file nobody answers on is stale and replaced; any
//! other file at the path is refused, never removed. SIGTERM or SIGINT: no new connection is
//! accepted, the requests in flight are answered (within the drain timeout), idle connections
//! are closed, the socket is removed, exit 0.
//!
//! V-60 … V-64 (feature `otel`): when the server's environment names an OTLP endpoint, every
//! decision it records is exported as an OpenTelemetry span, from the event once it is durable,
//! without ever delaying or changing the decision (`telemetry`); `status` counts what was sent
//! and dropped.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::io::AsyncReadExt;
use tokio::net::UnixStream;
use tokio::sync::{mpsc, oneshot, watch};

use agentwarden::Code;
use agentwarden::requests::Actor;
use agentwarden_protocol::{Answer, ClientError, FrameError, HookDecision, Request};

use admission::{Admission, Peer, Slot};

mod admission;
mod commands;
mod decider;
mod frames;
mod harnesses;
mod socket;
#[cfg(feature = "otel")]
mod telemetry;
mod tlog;
mod witnesses;

use agentwarden::{Config, HookAnswer, StoreLocation, Warden};
use commands::{DecideRequest, Host, peer_actor};
use decider::{DecideJob, Decider, HookJob, Job};
pub use harnesses::{Harnesses, UnknownHarness};

/// What `warden serve`'s command line sets.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// The socket to listen on (default: `[server] socket` in the configuration).
    pub socket: Option<PathBuf>,
    /// The configuration the server decides with (default: the project's, found from the
    /// working directory); read again for every request.
    pub config: Option<PathBuf>,
    /// The longest a request may take, from its first byte to its answer.
    pub request_timeout: Duration,
    /// How long a connection may take to send a complete request, from its accept or from its
    /// previous answer; past it the server answers `request_timeout` and closes it (V-51).
    pub read_timeout: Duration,
    /// How many connections are open at once (V-51).
    pub max_connections: usize,
    /// How many connections one peer (uid, pid) may hold at once (V-51).
    pub max_connections_per_peer: usize,
    /// The socket's permission bits (V-11).
    pub socket_mode: u32,
    /// How long SIGTERM waits for the requests in flight.
    pub drain_timeout: Duration,
    /// The key the server signs its checkpoints with; `None`: `[server] log_key`, else
    /// none.
    pub log_key: Option<PathBuf>,
}

/// What every connection shares.
struct Server {
    /// The Warden on the store the server holds, with the configuration read at start.
    warden: Warden,
    /// The decider's: its records are saved when the server stops.
    deferring: agentwarden::Deferring,
    location: StoreLocation,
    /// The decider's queue (V-7).
    decide: mpsc::Sender<Job>,
    /// Set when the server stops: idle connections close (V-9).
    stop: watch::Receiver<bool>,
    started: Instant,
    served: AtomicU64,
    timeout: Duration,
    /// How long a connection may take to send a complete request (V-51).
    read_timeout: Duration,
    /// The OpenTelemetry export, when the environment asks for it (V-60).
    #[cfg(feature = "otel")]
    telemetry: Option<telemetry::Telemetry>,
    /// The log's tree, served (V-65) and signed.
    tlog: Arc<tlog::Tlog>,
    /// What the witnesses answered last.
    witnesses: witnesses::Reports,
    /// The server's own user: a peer of it may read an event's body (V-66).
    uid: u32,
}

/// The canonical path of the configuration `path` names (or the project's, found from the
/// working directory upward as every command finds it, N-1), `None` for the defaults. The
/// error's code is [`Code::ConfigInvalid`].
pub fn config_file(path: Option<&Path>) -> Result<Option<PathBuf>, ClientError> {
    let invalid = |why: String| ClientError::new(Code::ConfigInvalid, why);
    let found;
    let path = match path {
        Some(path) => path,
        None => match agentwarden::config::discover().map_err(|e| invalid(e.to_string()))? {
            Some(discovered) => {
                found = discovered;
                found.as_path()
            }
            None => return Ok(None),
        },
    };
    std::fs::canonicalize(path).map(Some).map_err(|e| invalid(format!("`{}`: {e}", path.display())))
}

/// Runs the server until SIGTERM or SIGINT: the configuration, the socket's lock, the store
/// (`open_store`: the configuration, and the server's working directory to make a relative
/// embedded store absolute), the records folded, the socket bound; then it serves the hook and
/// the decision commands until a signal, drains and returns. Errors are the command line's (`E`): a
/// reason from here, or what `open_store` failed with.
pub async fn run<E>(
    options: ServeOptions,
    harnesses: impl Into<Harnesses>,
    open_store: impl FnOnce(Config, &Path) -> Result<(Warden, StoreLocation), E>,
    out: &mut dyn Write,
) -> Result<(), E>
where
    E: From<String> + From<std::io::Error> + From<ClientError>,
{
    // The server's environment is the kill switch; an agent must not start one from its
    // shell tool (as H-5 for the approval commands) (V-4).
    if let Some((env, harness)) = agentwarden::human::agent_session(|var| std::env::var_os(var).is_some()) {
        return Err(E::from(format!(
            "refused: `{env}` is set, so this runs inside a {harness} session; start the server from \
             your own terminal or a service manager"
        )));
    }
    let config_path = config_file(options.config.as_deref())?;
    let config = Config::load(config_path.as_deref()).map_err(|e| E::from(e.to_string()))?;
    let socket = options.socket.clone().or_else(|| config.server.clone()).ok_or_else(|| {
        E::from("no socket: give --socket PATH or `[server] socket` in agentwarden.toml".to_owned())
    })?;
    // Every path the server holds is absolute before it serves (V-15).
    let home = std::env::current_dir().map_err(|e| E::from(format!("no working directory: {e}")))?;
    let socket = home.join(socket);
    let _lock = socket::lock(&socket)?;
    // The key the configuration names, read (and refused) before the store opens;
    // a key that cannot be used refuses the start, never a server that silently signs nothing.
    let signer = options
        .log_key
        .as_deref()
        .or(config.server_log_key.as_deref())
        .map(|key| agentwarden::tlog::LogSigner::read(key).map(|signer| (signer, key.to_path_buf())))
        .transpose()
        .map_err(|e| E::from(format!("cannot sign checkpoints: {}: {}", e.code(), e.reason())))?;
    let witnessed = config.server_witnesses.clone();
    // A witness configured with no key to sign is never fed: a silent gap, so no start.
    if signer.is_none() && !witnessed.is_empty() {
        return Err(E::from(unfed_witnesses(witnessed.len())));
    }
    let (warden, location) = open_store(config, &home)?;
    // With export asked for, every Warden below records through the tap (V-62, V-60).
    #[cfg(feature = "otel")]
    let (warden, telemetry) = telemetry::start(warden, &location.describe())?;
    // A resident Warden folds its records from the log itself, never from the saved
    // projection (which a process that can write the state store could have forged). V-33:
    // done (and saved) before the socket is bound, so that the first request does not fold
    // the whole log within its own deadline. A failure here is met again, as a deny, by the
    // decisions that need the records (K-15).
    let warden = warden.folding_from_log();
    if let Err(e) = warden.records().await {
        tracing::warn!(error = %e, "the records cannot be folded from the log; every decision that needs them fails");
    }
    let tlog = Arc::new(tlog::Tlog::start(warden.clone(), signer).await.map_err(E::from)?);
    // The signer signs each new durable head from a task of its own, never an answer's.
    tlog::Tlog::spawn_signer(&tlog);
    // The witnesses get each new note from a task of their own, never on an answer's path.
    let witness_reports = witnesses::start(Arc::clone(&tlog), &witnessed);
    let listener = socket::bind(&socket, options.socket_mode)?;
    let mut guarded: Vec<PathBuf> =
        socket.parent().and_then(|d| std::fs::canonicalize(d).ok()).into_iter().collect();
    if let StoreLocation::Embedded(dir) = &location {
        guarded.extend(std::fs::canonicalize(dir).ok());
    }
    let host = Host { warden: warden.clone(), config: config_path.clone(), guarded };
    let deferring = warden.deferring();
    let decide = decider::start(Decider {
        warden: deferring.clone(),
        location: location.clone(),
        config: config_path.clone(),
        configs: agentwarden::ConfigCache::default(),
        host,
        harnesses: harnesses.into(),
        tlog: Arc::clone(&tlog),
    })?;
    let (stopping, stop) = watch::channel(false);
    let server = Arc::new(Server {
        warden,
        deferring,
        location,
        decide,
        stop,
        started: Instant::now(),
        served: AtomicU64::new(0),
        timeout: options.request_timeout,
        read_timeout: options.read_timeout,
        #[cfg(feature = "otel")]
        telemetry,
        tlog,
        witnesses: witness_reports,
        uid: rustix::process::geteuid().as_raw(),
    });
    tracing::info!(socket = %socket.display(), store = %server.location.describe(), "serving");
    writeln!(out, "serving on {}", socket.display())?;
    out.flush()?;
    let admission = Admission::new(options.max_connections, options.max_connections_per_peer);
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .map_err(|e| E::from(format!("cannot handle SIGTERM: {e}")))?;
    let mut int = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())
        .map_err(|e| E::from(format!("cannot handle SIGINT: {e}")))?;
    loop {
        tokio::select! {
            _ = term.recv() => break,
            _ = int.recv() => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    let peer = match stream.peer_cred() {
                        Ok(cred) => Peer { uid: Some(cred.uid()), pid: cred.pid() },
                        Err(_) => Peer { uid: None, pid: None },
                    };
                    match admission.admit(peer) {
                        Ok((slot, evicted)) => {
                            if let Some(old) = evicted {
                                tracing::warn!(
                                    peer_uid = ?old.uid, peer_pid = ?old.pid, for_uid = ?peer.uid, for_pid = ?peer.pid,
                                    "every connection open: one waiting on its client closed unanswered for a new one"
                                );
                            }
                            let server = Arc::clone(&server);
                            tokio::spawn(async move { connection(&server, stream, peer, slot).await });
                            // The new connection reads what its client already sent before the
                            // next one is accepted (and may evict it, V-51).
                            tokio::task::yield_now().await;
                        }
                        Err(why) => tracing::warn!(
                            peer_uid = ?peer.uid, peer_pid = ?peer.pid, "a connection refused unanswered: {why}"
                        ),
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
            },
        }
    }
    drop(listener);
    let _ = std::fs::remove_file(&socket);
    let _ = stopping.send(true);
    tracing::info!("stopping: draining the requests in flight");
    let drained = tokio::time::timeout(options.drain_timeout, admission.drained()).await;
    if drained.is_err() {
        tracing::warn!("the drain timeout passed with requests still in flight");
    }
    decider::save_records(&server.deferring).await;
    #[cfg(feature = "otel")]
    if let Some(telemetry) = &server.telemetry {
        // The spans still queued get one export, bounded as the drain is (V-61).
        let last = telemetry.stop(options.drain_timeout.min(EXPORT_AT_STOP));
        tracing::info!(exported = last.exported, dropped = last.dropped, "the span export stopped");
    }
    tracing::info!(served = server.served.load(Ordering::Relaxed), "stopped");
    Ok(())
}

/// The longest the stop waits for the spans still queued (V-61).
#[cfg(feature = "otel")]
const EXPORT_AT_STOP: Duration = Duration::from_secs(5);

/// Serves one connection: requests one after another until the client closes it, or a frame
/// cannot be read (an error answer first when there is someone to answer).
///
/// V-51: while the server waits on the client — for its request, or for it to take its answer
/// — the connection's place is `waiting` and an eviction closes it; it is `working` only while
/// its request is decided. A request must be complete within the read timeout.
async fn connection(server: &Server, mut stream: UnixStream, peer: Peer, mut slot: Slot) {
    let Peer { uid, pid } = peer;
    loop {
        slot.waiting();
        // Between requests, stopping closes the connection; a request begun is read and answered.
        let mut stop = server.stop.clone();
        let read = tokio::time::timeout(server.read_timeout, async {
            let mut first = [0_u8; 1];
            // `read` is cancel-safe: when the stop wins, no byte was taken.
            tokio::select! {
                biased;
                read = stream.read(&mut first) => match read {
                    Ok(0) => return Err(FrameError::Closed),
                    Ok(_) => {}
                    Err(e) => return Err(FrameError::Io(e)),
                },
                _ = stop.wait_for(|stopping| *stopping) => return Err(FrameError::Closed),
            }
            frames::read_after(first[0], &mut stream).await
        });
        let read = tokio::select! {
            biased;
            _ = &mut slot.evicted => return,
            read = read => read,
        };
        let (answer, close) = match read {
            Err(_) => (
                Answer::error(
                    Code::RequestTimeout,
                    format!(
                        "no complete request within the read timeout ({} ms)",
                        server.read_timeout.as_millis()
                    ),
                ),
                true,
            ),
            Ok(Err(FrameError::Closed)) => return,
            Ok(Err(e @ FrameError::TooLarge(_))) => (Answer::error(Code::FrameTooLarge, e.to_string()), true),
            Ok(Err(e)) => {
                tracing::debug!(error = %e, "a connection failed mid-frame");
                return;
            }
            Ok(Ok(body)) => {
                match agentwarden_protocol::decode::<Request>(&body).inspect(|_| slot.working()) {
                    Err(refused) => (Answer::error(refused.code, refused.reason), false),
                    Ok(request) => {
                        let kind = match &request {
                            Request::Hook { .. } => "hook",
                            Request::Decide { .. } => "decide",
                            Request::Status {} => "status",
                            Request::Checkpoint {} => "checkpoint",
                            Request::InclusionProof { .. } => "inclusion_proof",
                            Request::ConsistencyProof { .. } => "consistency_proof",
                        };
                        tracing::info!(peer_uid = ?uid, peer_pid = ?pid, kind, "request");
                        let answered = match peer_actor(uid, pid) {
                            Ok(peer) => answer(server, request, peer, uid).await,
                            Err(why) => Answer::error(Code::RequestInvalid, why),
                        };
                        (answered, false)
                    }
                }
            }
        };
        server.served.fetch_add(1, Ordering::Relaxed);
        let frame = match agentwarden_protocol::encode(&answer) {
            Ok(frame) => frame,
            Err(e) => {
                match agentwarden_protocol::encode(&Answer::error(Code::InternalError, e.to_string())) {
                    Ok(frame) => frame,
                    Err(_) => return,
                }
            }
        };
        slot.waiting();
        let written = tokio::select! {
            biased;
            _ = &mut slot.evicted => return,
            written = tokio::time::timeout(server.timeout, frames::write(&mut stream, &frame)) => written,
        };
        if close || !matches!(written, Ok(Ok(()))) {
            return;
        }
    }
}

async fn answer(server: &Server, request: Request, peer: Actor, uid: Option<u32>) -> Answer {
    match request {
        Request::Status {} => status(server).await,
        // Read from the kept tree on the connection's task, never queued behind
        // the decisions; any admitted peer may ask (V-65, V-66).
        Request::Checkpoint {} => server.tlog.checkpoint().await,
        Request::InclusionProof { seq, size } => {
            server.tlog.inclusion(seq, size, tlog::reveals_events(uid, server.uid)).await
        }
        Request::ConsistencyProof { old, size } => server.tlog.consistency(old, size).await,
        Request::Decide { config, question, deadline_ms } => {
            let limit =
                deadline_ms.map_or(server.timeout, |ms| server.timeout.min(Duration::from_millis(ms)));
            let (reply, answered) = oneshot::channel();
            let job = DecideJob { request: DecideRequest { config, question, peer }, reply };
            let asked = async {
                server.decide.send(Job::Decide(job)).await.map_err(|_| ())?;
                answered.await.map_err(|_| ())
            };
            match tokio::time::timeout(limit, asked).await {
                Ok(Ok(answer)) => answer,
                Ok(Err(())) => Answer::error(Code::InternalError, "the decider is gone"),
                Err(_) => Answer::error(
                    Code::RequestTimeout,
                    format!("the server did not answer within {} ms", limit.as_millis()),
                ),
            }
        }
        Request::Hook { config, input, deadline_ms, harness } => {
            let limit =
                deadline_ms.map_or(server.timeout, |ms| server.timeout.min(Duration::from_millis(ms)));
            let (reply, answered) = oneshot::channel();
            let asked = async {
                server
                    .decide
                    .send(Job::Hook(HookJob { config, input, harness, peer, reply }))
                    .await
                    .map_err(|_| ())?;
                answered.await.map_err(|_| ())
            };
            match tokio::time::timeout(limit, asked).await {
                Ok(Ok(answer)) => hook_frame(answer),
                Ok(Err(())) => Answer::error(Code::InternalError, "the decider is gone"),
                Err(_) => hook_frame(HookAnswer::failed(
                    Code::DeadlinePassed,
                    format!("the server did not decide within {} ms", limit.as_millis()),
                )),
            }
        }
    }
}

/// A hook answer as the protocol's `hook` frame (V-52): its decision and reason, a failure's
/// code beside them as a field; the client renders it.
pub fn hook_frame(answer: HookAnswer) -> Answer {
    let (decision, reason, tool_input) = match answer {
        HookAnswer::Proceed => (HookDecision::Proceed, None, None),
        HookAnswer::Deny { reason } => (HookDecision::Deny, Some(reason), None),
        HookAnswer::Block { reason } => (HookDecision::Block, Some(reason), None),
        HookAnswer::Failed { code, reason } => {
            return Answer::Hook {
                decision: HookDecision::Failed,
                code: Some(code),
                reason: Some(reason.as_str().to_owned()),
                tool_input: None,
            };
        }
        HookAnswer::Rewrite { input, reason } => (HookDecision::Rewrite, Some(reason), Some(input)),
    };
    Answer::Hook { decision, code: None, reason: reason.map(|r| r.as_str().to_owned()), tool_input }
}

async fn status(server: &Server) -> Answer {
    match server.warden.event_store().head().await {
        Ok(head) => Answer::Status {
            pid: std::process::id(),
            store: server.location.describe(),
            head_seq: head.seq,
            head_hash: head.hash.to_string(),
            uptime_ms: u64::try_from(server.started.elapsed().as_millis()).unwrap_or(u64::MAX),
            requests_served: server.served.load(Ordering::Relaxed),
            export: export_status(server),
            witnesses: server
                .witnesses
                .lock()
                .ok()
                .map(|reports| reports.clone())
                .filter(|reports| !reports.is_empty()),
        },
        Err(e) => Answer::error(e.code(), format!("the store cannot be read: {e}")),
    }
}

/// The export's counts for `warden status` (V-61); `None` when the server does not export.
fn export_status(server: &Server) -> Option<agentwarden_protocol::SpanExport> {
    #[cfg(feature = "otel")]
    return server.telemetry.as_ref().map(telemetry::Telemetry::status);
    #[cfg(not(feature = "otel"))]
    {
        let _ = server;
        None
    }
}

/// Why a server with `[server] witnesses` and no log key does not start; `warden doctor`
/// says the same.
pub fn unfed_witnesses(count: usize) -> String {
    format!(
        "`[server] witnesses` names {count} witness(es), and no log key is given (`[server] log_key` or \
         --log-key): nothing would be signed, nothing submitted; give a key or remove the witnesses"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the server sends for an answer, encoded and decoded as a
    /// frame, reads back in the client as that answer (X-40, V-52, over the wire).
    #[test]
    fn an_answer_sent_by_the_server_reads_back_as_itself() {
        for answer in [
            HookAnswer::Proceed,
            HookAnswer::deny("a \"quoted\" reason\nof two lines"),
            HookAnswer::block("r1\nr2"),
            HookAnswer::failed(Code::StoreUnavailable, "é"),
        ] {
            let frame = agentwarden_protocol::encode(&hook_frame(answer.clone())).unwrap();
            let body = frame.get(4..).unwrap();
            let decoded = agentwarden_protocol::decode::<Answer>(body).unwrap();
            assert_eq!(agentwarden_hook_client::answer::checked(decoded), Ok(answer));
        }
    }
}
