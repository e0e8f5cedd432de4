//! `warden serve`: the resident service. One process holds the store open and answers `warden
//! hook`, the served decision commands ([`super::served`], V-13) and `warden status` over a Unix
//! domain socket, in the frames of [`super::protocol`].
//!
//! V-1: a hook request is decided by exactly what the direct `warden hook` calls —
//! [`agentwarden::before_store_parsed`], then [`Warden::hook_parsed`] — on the store the server holds, so the
//! same events are recorded. The configuration is read again for every request (as every direct
//! hook process reads it), from the server's own `--config`; V-36: parsed again only when its
//! bytes changed.
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
//! ([`admission`]). Refusals and evictions are logged with both peers.
//!
//! V-8: the peer's uid and pid (`SO_PEERCRED`) are logged (tracing, `info`) with each request,
//! and recorded in every event the request records, as its actor (V-18, [`super::served`]):
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

use std::io::Write;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rustix::fs::{Mode, OFlags};

use tokio::io::AsyncReadExt;
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::{mpsc, oneshot, watch};

use agentwarden_domain::audit::Actor;

use super::protocol::{self, Answer, FrameError, Request};
use admission::{Admission, Peer, Slot};

mod admission;
use super::{EXIT_OK, Failure};
use agentwarden::{Config, HookAnswer, HookStorage, StoreLocation, Warden};
use agentwarden_claude_code::wire::Rendering;

/// `warden serve`.
#[derive(Debug, clap::Args)]
pub(super) struct ServeArgs {
    /// The socket to listen on [default: `[server] socket` in the configuration].
    #[arg(long, value_name = "PATH")]
    socket: Option<PathBuf>,
    /// The configuration the server decides with (default: `agentwarden.toml` in the working
    /// directory, if present); read again for every request.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// The longest a request may take, from its first byte to its answer.
    #[arg(long, default_value_t = 10_000, value_name = "MS")]
    request_timeout_ms: u64,
    /// How long a connection may take to send a complete request, from its accept or from its
    /// previous answer; past it the server answers `request_timeout` and closes it (V-51).
    #[arg(long, default_value_t = 1_000, value_name = "MS")]
    read_timeout_ms: u64,
    /// How many connections are open at once; when all are, a newcomer takes the place of one
    /// waiting on its client, and is refused only when all are working on a request (V-51).
    #[arg(long, default_value_t = 64, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    max_connections: u32,
    /// How many connections one peer (uid, pid) may hold at once; one more is refused (V-51).
    #[arg(long, default_value_t = 8, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    max_connections_per_peer: u32,
    /// The socket's permission bits, in octal (V-11): 600 lets only the server's own user
    /// connect; for a server running as its own user, 666 in a directory whose permissions
    /// admit the agent's user (or its group).
    #[arg(long, default_value = "600", value_name = "OCTAL", value_parser = parse_mode)]
    socket_mode: u32,
    /// How long SIGTERM waits for the requests in flight.
    #[arg(long, default_value_t = 10_000, value_name = "MS")]
    drain_timeout_ms: u64,
}

/// What every connection shares.
struct Server {
    /// The Warden on the store the server holds, with the configuration read at start.
    warden: Warden,
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
}

/// The canonical path of the configuration `path` names (or the project's, found from the
/// working directory upward as every command finds it, N-1), `None` for the defaults.
pub(super) fn config_file(path: Option<&Path>) -> Result<Option<PathBuf>, String> {
    let found;
    let path = match path {
        Some(path) => path,
        None => match agentwarden::config::discover().map_err(|e| format!("config_invalid: {e}"))? {
            Some(discovered) => {
                found = discovered;
                found.as_path()
            }
            None => return Ok(None),
        },
    };
    std::fs::canonicalize(path).map(Some).map_err(|e| format!("config_invalid: `{}`: {e}", path.display()))
}

/// Runs the server until SIGTERM or SIGINT.
pub(super) async fn serve(
    args: ServeArgs,
    stores: &super::stores::Stores,
    out: &mut dyn Write,
) -> Result<u8, Failure> {
    // V-4: the server's environment is the kill switch; an agent must not start one from its
    // shell tool (as H-5 for the approval commands).
    if std::env::var_os(super::hook::CLAUDE_CODE_ENV).is_some() {
        return Err(Failure::usage(format!(
            "refused: `{}` is set, so this runs inside a Claude Code session; start the server from \
             your own terminal or a service manager",
            super::hook::CLAUDE_CODE_ENV
        )));
    }
    let config_path = config_file(args.config.as_deref()).map_err(Failure::usage)?;
    let config = Config::load(config_path.as_deref()).map_err(|e| Failure::usage(e.to_string()))?;
    let socket = args.socket.clone().or_else(|| config.server.clone()).ok_or_else(|| {
        Failure::usage("no socket: give --socket PATH or `[server] socket` in agentwarden.toml")
    })?;
    // V-15: every path the server holds is absolute before it serves (the decider enters each
    // client's working directory for a served command).
    let home = std::env::current_dir().map_err(|e| Failure::usage(format!("no working directory: {e}")))?;
    let socket = home.join(socket);
    let _lock = lock_socket(&socket)?;
    let mut stores = match stores.location(Some(&config))? {
        StoreLocation::Embedded(dir) if dir.is_relative() => {
            let dir = home.join(dir);
            let dir =
                dir.to_str().ok_or_else(|| Failure::usage(format!("`{}` is not UTF-8", dir.display())))?;
            super::stores::Stores { explicit: Some(dir.to_owned()), sled: stores.sled.clone() }
        }
        _ => stores.clone(),
    };
    // S-13: the server moves older events into segments on a thread of the store's own: no
    // answer waits for a move.
    stores.sled = stores.sled.archiving(agentwarden::Archiving::Background);
    let stores = &stores;
    let location = stores.location(Some(&config))?;
    let warden = stores.open(config, true).map_err(|e| {
        Failure::usage(format!(
            "cannot open the store `{}`: {e} (is another `warden serve` or `warden` process using it?)",
            location.describe()
        ))
    })?;
    // K-15: a resident Warden folds its records from the log itself, never from the saved
    // projection (which a process that can write the state store could have forged). V-33:
    // done (and saved) before the socket is bound, so that the first request does not fold
    // the whole log within its own deadline. A failure here is met again, as a deny, by the
    // decisions that need the records.
    let warden = warden.folding_from_log();
    if let Err(e) = warden.records().await {
        tracing::warn!(error = %e, "the records cannot be folded from the log; every decision that needs them fails");
    }
    let listener = bind(&socket, args.socket_mode)?;
    let mut guarded: Vec<PathBuf> =
        socket.parent().and_then(|d| std::fs::canonicalize(d).ok()).into_iter().collect();
    if let StoreLocation::Embedded(dir) = &location {
        guarded.extend(std::fs::canonicalize(dir).ok());
    }
    let host = super::served::Host { warden: warden.clone(), config: config_path.clone(), home, guarded };
    let decide = decider(Decider {
        warden: warden.deferring(),
        location: location.clone(),
        config: config_path.clone(),
        configs: agentwarden::ConfigCache::default(),
        host,
    })?;
    let (stopping, stop) = watch::channel(false);
    let server = Arc::new(Server {
        warden,
        location,
        decide,
        stop,
        started: Instant::now(),
        served: AtomicU64::new(0),
        timeout: Duration::from_millis(args.request_timeout_ms),
        read_timeout: Duration::from_millis(args.read_timeout_ms),
    });
    tracing::info!(socket = %socket.display(), store = %server.location.describe(), "serving");
    writeln!(out, "serving on {}", socket.display())?;
    out.flush()?;
    let admission = Admission::new(
        usize::try_from(args.max_connections).unwrap_or(64),
        usize::try_from(args.max_connections_per_peer).unwrap_or(8),
    );
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .map_err(|e| Failure::usage(format!("cannot handle SIGTERM: {e}")))?;
    let mut int = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())
        .map_err(|e| Failure::usage(format!("cannot handle SIGINT: {e}")))?;
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
    let drained =
        tokio::time::timeout(Duration::from_millis(args.drain_timeout_ms), admission.drained()).await;
    if drained.is_err() {
        tracing::warn!("the drain timeout passed with requests still in flight");
    }
    save_records(&server.warden).await;
    tracing::info!(served = server.served.load(Ordering::Relaxed), "stopped");
    Ok(EXIT_OK)
}

/// `--socket-mode`: octal permission bits, at most 777.
fn parse_mode(text: &str) -> Result<u32, String> {
    u32::from_str_radix(text.trim_start_matches("0o"), 8)
        .ok()
        .filter(|mode| *mode <= 0o777)
        .ok_or_else(|| format!("`{text}` is not octal permission bits like `600` or `660`"))
}

/// Takes `PATH.lock` (V-9): one server per socket.
fn lock_socket(socket: &Path) -> Result<std::fs::File, Failure> {
    let mut name = socket.as_os_str().to_owned();
    name.push(".lock");
    let path = PathBuf::from(name);
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| Failure::usage(format!("cannot create `{}`: {e}", dir.display())))?;
    }
    // Mode 0600, also when it was there before: `flock` works on a descriptor opened for
    // reading, so a lock file others can read is one they can hold to keep the server down.
    // Opened `O_NOFOLLOW` and checked on the descriptor (U-1): a link or a FIFO planted at the
    // name is refused, and the mode is set on what was opened (`fchmod`), never on a link's target.
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let file = rustix::fs::open(&path, flags, Mode::from_raw_mode(0o600))
        .map_err(std::io::Error::from)
        .and_then(|fd| {
            let file = std::fs::File::from(fd);
            if !file.metadata()?.is_file() {
                return Err(std::io::Error::other("not a regular file"));
            }
            rustix::fs::fchmod(&file, Mode::from_raw_mode(0o600))?;
            Ok(file)
        })
        .map_err(|e| Failure::usage(format!("cannot open `{}`: {e}", path.display())))?;
    rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive).map_err(|_| {
        Failure::usage(format!(
            "refused: another `warden serve` holds `{}`; stop it first (`warden status --server {}`)",
            path.display(),
            socket.display()
        ))
    })?;
    Ok(file)
}

/// Binds the socket (V-9): a live one is refused, a stale one replaced, anything else refused.
fn bind(socket: &Path, mode: u32) -> Result<UnixListener, Failure> {
    match std::fs::symlink_metadata(socket) {
        Ok(meta) if meta.file_type().is_socket() => match std::os::unix::net::UnixStream::connect(socket) {
            Ok(_) => {
                return Err(Failure::usage(format!(
                    "refused: a server already answers at `{}`; stop it first",
                    socket.display()
                )));
            }
            Err(_) => {
                tracing::info!(socket = %socket.display(), "replacing a stale socket");
                std::fs::remove_file(socket).map_err(|e| {
                    Failure::usage(format!("cannot remove the stale socket `{}`: {e}", socket.display()))
                })?;
            }
        },
        Ok(_) => {
            return Err(Failure::usage(format!(
                "refused: `{}` exists and is not a socket; remove it or choose another --socket",
                socket.display()
            )));
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(Failure::usage(format!("cannot check `{}`: {e}", socket.display()))),
    }
    let listener = std::os::unix::net::UnixListener::bind(socket)
        .and_then(|l| l.set_nonblocking(true).map(|()| l))
        .map_err(|e| Failure::usage(format!("cannot listen on `{}`: {e}", socket.display())))?;
    std::fs::set_permissions(socket, std::fs::Permissions::from_mode(mode))
        .map_err(|e| Failure::usage(format!("cannot set the mode of `{}`: {e}", socket.display())))?;
    UnixListener::from_std(listener)
        .map_err(|e| Failure::usage(format!("cannot listen on `{}`: {e}", socket.display())))
}

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
            protocol::read_frame_after(first[0], &mut stream).await
        });
        let read = tokio::select! {
            biased;
            _ = &mut slot.evicted => return,
            read = read => read,
        };
        let (answer, close) = match read {
            Err(_) => (
                Answer::error(
                    "request_timeout",
                    format!(
                        "no complete request within the read timeout ({} ms)",
                        server.read_timeout.as_millis()
                    ),
                ),
                true,
            ),
            Ok(Err(FrameError::Closed)) => return,
            Ok(Err(e @ FrameError::TooLarge(_))) => (Answer::error("frame_too_large", e.to_string()), true),
            Ok(Err(e)) => {
                tracing::debug!(error = %e, "a connection failed mid-frame");
                return;
            }
            Ok(Ok(body)) => match protocol::decode::<Request>(&body).inspect(|_| slot.working()) {
                Err(refused) => (Answer::error(refused.code, refused.reason), false),
                Ok(request) => {
                    let kind = match &request {
                        Request::Hook { .. } => "hook",
                        Request::Run { .. } => "run",
                        Request::Status {} => "status",
                    };
                    tracing::info!(peer_uid = ?uid, peer_pid = ?pid, kind, "request");
                    let answered = match super::served::peer_actor(uid, pid) {
                        Ok(peer) => answer(server, request, peer).await,
                        Err(why) => Answer::error("request_invalid", why),
                    };
                    (answered, false)
                }
            },
        };
        server.served.fetch_add(1, Ordering::Relaxed);
        let frame = match protocol::encode(&answer) {
            Ok(frame) => frame,
            Err(e) => match protocol::encode(&Answer::error("internal_error", e)) {
                Ok(frame) => frame,
                Err(_) => return,
            },
        };
        slot.waiting();
        let written = tokio::select! {
            biased;
            _ = &mut slot.evicted => return,
            written = tokio::time::timeout(server.timeout, protocol::write_frame(&mut stream, &frame)) => written,
        };
        if close || !matches!(written, Ok(Ok(()))) {
            return;
        }
    }
}

async fn answer(server: &Server, request: Request, peer: Actor) -> Answer {
    match request {
        Request::Status {} => status(server).await,
        Request::Run { argv, cwd, config, deadline_ms } => {
            let limit =
                deadline_ms.map_or(server.timeout, |ms| server.timeout.min(Duration::from_millis(ms)));
            let (reply, answered) = oneshot::channel();
            let job = RunJob { request: super::served::RunRequest { argv, cwd, config, peer }, reply };
            let asked = async {
                server.decide.send(Job::Run(job)).await.map_err(|_| ())?;
                answered.await.map_err(|_| ())
            };
            match tokio::time::timeout(limit, asked).await {
                Ok(Ok(answer)) => answer,
                Ok(Err(())) => Answer::error("internal_error", "the decider is gone"),
                Err(_) => Answer::error(
                    "request_timeout",
                    format!("the server did not answer within {} ms", limit.as_millis()),
                ),
            }
        }
        Request::Hook { config, input, deadline_ms } => {
            let limit =
                deadline_ms.map_or(server.timeout, |ms| server.timeout.min(Duration::from_millis(ms)));
            let (reply, answered) = oneshot::channel();
            let asked = async {
                server
                    .decide
                    .send(Job::Hook(HookJob { config, input, peer, reply }))
                    .await
                    .map_err(|_| ())?;
                answered.await.map_err(|_| ())
            };
            match tokio::time::timeout(limit, asked).await {
                Ok(Ok(answer)) => hook_frame(answer),
                Ok(Err(())) => Answer::error("internal_error", "the decider is gone"),
                Err(_) => hook_frame(HookAnswer::failed(format!(
                    "deadline_passed: the server did not decide within {} ms",
                    limit.as_millis()
                ))),
            }
        }
    }
}

/// A hook answer as the protocol's `hook` frame: its rendering, the bytes and exit code direct
/// `warden hook` gives (the client reads it back, X-40).
pub(super) fn hook_frame(answer: HookAnswer) -> Answer {
    Answer::Hook {
        exit_code: answer.exit_code(),
        stdout: answer.stdout(),
        stderr: answer.stderr().map(str::to_owned),
    }
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
        },
        Err(e) => Answer::error(e.code().as_str(), format!("the store cannot be read: {e}")),
    }
}

/// A request for the decider.
enum Job {
    Hook(HookJob),
    /// A served command (V-13).
    Run(RunJob),
}

/// One served command for the decider, and where its answer goes.
struct RunJob {
    request: super::served::RunRequest,
    reply: oneshot::Sender<Answer>,
}

/// One hook request for the decider, and where its answer goes.
struct HookJob {
    config: Option<String>,
    input: String,
    /// Who asks (V-18).
    peer: Actor,
    reply: oneshot::Sender<HookAnswer>,
}

/// What the decider needs.
struct Decider {
    warden: Warden,
    location: StoreLocation,
    config: Option<PathBuf>,
    /// The configuration last parsed, by its bytes' digest (V-36).
    configs: agentwarden::ConfigCache,
    /// What `run` requests are served with (V-13).
    host: super::served::Host,
}

/// Starts the decider (V-7): one thread that takes the hook requests in the order they came,
/// as direct mode takes them one process at a time under the store's lock.
///
/// V-26 (group commit): it takes every request already waiting (at most [`QUEUE`]), decides
/// them one after another with its events appended deferred ([`Warden::deferring`]), makes
/// them all durable with one [`agentwarden_ports::EventStore::sync`], and only then sends
/// the answers — an answer never leaves before its event is durable, and one flush serves the
/// whole group. An answer that recorded nothing waits for the same sync when it may rest on
/// the group's earlier events (the session index they rewrote); V-35: one decided before any
/// of its group was stored leaves at once.
///
/// V-28: a failed sync leaves it unknown what reached the disk: every answer of the group, and
/// every later one, is exit 2 (`store_unavailable`) until the server is restarted and the store
/// reopened and verified; nothing is decided from records that may not be on the log.
fn decider(decider: Decider) -> Result<mpsc::Sender<Job>, Failure> {
    let (send, jobs) = mpsc::channel::<Job>(QUEUE);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::usage(format!("cannot start the decider: {e}")))?;
    std::thread::Builder::new()
        .name("decider".into())
        .spawn(move || runtime.block_on(decide(&decider, jobs)))
        .map_err(|e| Failure::usage(format!("cannot start the decider: {e}")))?;
    Ok(send)
}

/// An answer decided in the current group, sent once the group is durable (V-26).
enum Decided {
    Hook(oneshot::Sender<HookAnswer>, HookAnswer),
    Run(oneshot::Sender<Answer>, Answer),
}

/// The decider's loop (V-26, V-28): until every sender is gone. A served command (V-13) is
/// decided in its place in the group like a hook event; its events are appended by a Warden
/// that does not defer, and its answer, too, leaves only after the group's sync.
///
/// V-45: a group's sync and answers are left to a task of their own ([`complete`]), and the
/// decider goes on to the next group while that sync runs: the flush (a blocking thread, the
/// store's I/O) no longer holds up the decisions behind it. The groups' tasks are chained: each
/// waits for the one before it, so answers leave in group order, each after its own group's
/// sync and every earlier group's. An answer that would leave at once (V-35) waits, too, while
/// an earlier group's answers have not all left: it may rest on that group's index rewrites.
async fn decide(decider: &Decider, mut jobs: mpsc::Receiver<Job>) {
    let mut group = Vec::with_capacity(QUEUE);
    let broken = Broken::default();
    // The task completing the last group decided, while its answers have not all left.
    let mut before: Option<tokio::task::JoinHandle<()>> = None;
    let mut saved = Instant::now();
    while jobs.recv_many(&mut group, QUEUE).await > 0 {
        let mut answers = Vec::with_capacity(group.len());
        let mut stored = false;
        for job in group.drain(..) {
            let pending = before.as_ref().is_some_and(|task| !task.is_finished());
            match job {
                Job::Hook(job) if job.reply.is_closed() => {}
                Job::Run(job) if job.reply.is_closed() => {}
                Job::Hook(job) => {
                    let (answer, asked) = match broken.why() {
                        Some(why) => (HookAnswer::failed(why), false),
                        None => hook(decider, job.config.as_deref(), &job.input, job.peer).await,
                    };
                    // V-35: an answer that asked no store and comes before anything of its
                    // group was stored rests only on what earlier groups made durable: it
                    // leaves at once, without waiting for this group's sync — once every
                    // earlier group's answers have left (V-45).
                    if !asked && !stored && !pending {
                        let _ = job.reply.send(answer);
                        continue;
                    }
                    stored |= asked;
                    answers.push(Decided::Hook(job.reply, answer));
                }
                Job::Run(job) => {
                    let answer = match broken.why() {
                        Some(why) => Answer::error("store_unavailable", why),
                        None => {
                            stored = true;
                            super::served::decide(&decider.host, job.request).await
                        }
                    };
                    answers.push(Decided::Run(job.reply, answer));
                }
            }
            if pending {
                // The earlier group's task sends its answers as soon as its sync ends.
                tokio::task::yield_now().await;
            }
        }
        if answers.is_empty() {
            continue;
        }
        let store = Arc::clone(decider.warden.event_store());
        before = Some(tokio::spawn(complete(before.take(), stored, store, answers, broken.clone())));
        // The group's task starts its sync before the next group is decided.
        tokio::task::yield_now().await;
        if stored && saved.elapsed() >= SAVE_RECORDS_EVERY {
            // V-27: saved once every answer decided so far has left, never on their way, and
            // never with events a sync has not made durable.
            if let Some(task) = before.take() {
                let _ = task.await;
            }
            if broken.why().is_none() {
                save_records(&decider.warden).await;
            }
            saved = Instant::now();
        }
    }
    if let Some(task) = before.take() {
        let _ = task.await;
    }
}

/// V-28: why every decision fails once a sync failed; shared by the decider and the groups'
/// tasks. A lock poisoned by a panic fails closed, too.
#[derive(Clone, Default)]
struct Broken(Arc<std::sync::Mutex<Option<String>>>);

impl Broken {
    fn why(&self) -> Option<String> {
        match self.0.lock() {
            Ok(why) => why.clone(),
            Err(_) => {
                Some("store_unavailable: the server's decider failed; restart `warden serve`".to_owned())
            }
        }
    }

    fn set(&self, why: String) {
        if let Ok(mut broken) = self.0.lock() {
            broken.get_or_insert(why);
        }
    }
}

/// Completes one group (V-26, V-45): after the group before it has completed, makes the
/// group's events durable with one sync (when it stored any) and only then sends its answers.
/// A failed sync — this group's or an earlier one's — fails every answer of the group (V-28).
async fn complete(
    before: Option<tokio::task::JoinHandle<()>>,
    stored: bool,
    store: Arc<dyn agentwarden_ports::EventStore>,
    answers: Vec<Decided>,
    broken: Broken,
) {
    let started = Instant::now();
    if let Some(before) = before
        && let Err(e) = before.await
    {
        broken.set(format!(
            "store_unavailable: the server lost a group of answers ({e}); restart `warden serve`"
        ));
    }
    let waited = started.elapsed();
    if stored
        && broken.why().is_none()
        && let Err(e) = store.sync().await
    {
        tracing::error!(error = %e, "the group's events could not be made durable");
        broken.set(format!(
            "store_unavailable: the server could not make its log durable ({e}); restart `warden serve`"
        ));
    }
    // `RUST_LOG=warden::groups=debug`: each group's size and its waits, alone.
    tracing::debug!(
        target: "warden::groups",
        answers = answers.len(),
        stored,
        before_us = waited.as_micros(),
        sync_us = (started.elapsed() - waited).as_micros(),
        "group completed"
    );
    let broken = broken.why();
    for decided in answers {
        match (decided, &broken) {
            (Decided::Hook(reply, _), Some(why)) => {
                let _ = reply.send(HookAnswer::failed(why.clone()));
            }
            (Decided::Hook(reply, answer), None) => {
                let _ = reply.send(answer);
            }
            (Decided::Run(reply, _), Some(why)) => {
                let _ = reply.send(Answer::error("store_unavailable", why.clone()));
            }
            (Decided::Run(reply, answer), None) => {
                let _ = reply.send(answer);
            }
        }
    }
}

/// How many hook requests may wait for the decider, and the largest group it commits at once.
const QUEUE: usize = 256;

/// V-27: how often, at most, the decider saves the records (a cache of a fold over the log,
/// rebuilt from the log when lost): a restarted server folds at most this much of the log
/// again. Saved after the group's answers are sent, never on their way.
const SAVE_RECORDS_EVERY: Duration = Duration::from_secs(1);

/// Saves the records as they stand (best effort; V-27).
async fn save_records(warden: &Warden) {
    match warden.records().await {
        Ok(state) => warden.save_records_now(&state).await,
        Err(e) => tracing::warn!(error = %e, "the records could not be saved"),
    }
}

/// Decides one hook event (V-1, V-3), and says whether the store was asked. V-30: what
/// `before_store` decides (a tool call nothing governs, in a session whose index covers it) is
/// answered from the hook's own files and the configuration alone: the event store is never
/// called for it, not even for the group's sync.
async fn hook(server: &Decider, config: Option<&str>, input: &str, peer: Actor) -> (HookAnswer, bool) {
    let theirs = config.map(PathBuf::from);
    if theirs != server.config {
        let name = |p: &Option<PathBuf>| {
            p.as_ref().map_or_else(|| "none".to_owned(), |p| format!("`{}`", p.display()))
        };
        let why = format!(
            "server_config_mismatch: the hook's configuration is {} but this server decides with {}; \
             point the hook at the server of its project",
            name(&theirs),
            name(&server.config)
        );
        return (HookAnswer::failed(why), false);
    }
    let config = match Config::load_with(server.config.as_deref(), Some(&server.configs)) {
        Ok(config) => config,
        Err(e) => return (HookAnswer::failed(format!("config_invalid: {e}")), false),
    };
    let storage = HookStorage::for_store(Some(&server.location), &config.root);
    // Parsed once: what `before_store` leaves to the store is decided on the same parse.
    let parsed = agentwarden_claude_code::wire::parse_hook_input(input);
    match agentwarden::before_store_parsed(&config, &storage, &parsed) {
        agentwarden::Pre::Done(done) => (done, false),
        agentwarden::Pre::Store { .. } => {
            let warden = super::served::as_peer(&server.warden, config, &peer);
            (warden.hook_parsed(input, parsed, &storage).await, true)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::sync::atomic::AtomicUsize;

    use agentwarden_domain::audit::{EventDraft, Head, StoredRecord};
    use agentwarden_ports::{Appended, EventStore, Expected, StoreError};

    /// A store that fails every call, and counts them.
    #[derive(Default)]
    struct Refusing {
        calls: AtomicUsize,
    }

    impl Refusing {
        fn refuse<T>(&self) -> Result<T, StoreError> {
            self.calls.fetch_add(1, Ordering::SeqCst);
            Err(StoreError::Unavailable { reason: "the test's store refuses every call".into() })
        }
    }

    #[async_trait::async_trait]
    impl EventStore for Refusing {
        async fn append(&self, _: Expected, _: Vec<EventDraft>) -> Result<Appended, StoreError> {
            self.refuse()
        }
        async fn append_deferred(&self, _: Expected, _: Vec<EventDraft>) -> Result<Appended, StoreError> {
            self.refuse()
        }
        async fn sync(&self) -> Result<(), StoreError> {
            self.refuse()
        }
        async fn read(&self, _: u64, _: usize) -> Result<Vec<StoredRecord>, StoreError> {
            self.refuse()
        }
        async fn head(&self) -> Result<Head, StoreError> {
            self.refuse()
        }
    }

    /// The decider of a server on `warden`'s store deciding with `config`.
    fn test_decider(warden: &Warden, location: StoreLocation, config: &Path) -> Decider {
        let host = crate::served::Host {
            warden: warden.clone(),
            config: Some(config.to_path_buf()),
            home: std::env::current_dir().unwrap(),
            guarded: Vec::new(),
        };
        Decider {
            warden: warden.deferring(),
            location,
            config: Some(config.to_path_buf()),
            configs: agentwarden::ConfigCache::default(),
            host,
        }
    }

    /// A hook request for the decider.
    fn hook_job(config: &Path, input: &serde_json::Value, reply: oneshot::Sender<HookAnswer>) -> Job {
        let peer = Actor::new("warden-serve peer uid=0 pid=1").unwrap();
        Job::Hook(HookJob {
            config: Some(config.display().to_string()),
            input: input.to_string(),
            peer,
            reply,
        })
    }

    /// A project with a configuration and nothing else, and its store's location.
    fn bare_project(dir: &Path) -> (PathBuf, StoreLocation) {
        let config = dir.join("agentwarden.toml");
        std::fs::write(&config, "[claude_code]\nmain_persona = \"main\"\n").unwrap();
        (std::fs::canonicalize(config).unwrap(), StoreLocation::Embedded(dir.join("audit")))
    }

    /// A [`bare_project`] whose session `covered` has an index: its calls nothing governs are
    /// answered from it (H-24).
    fn covered_project(dir: &Path) -> (PathBuf, StoreLocation) {
        let (config, location) = bare_project(dir);
        let storage = HookStorage::for_store(Some(&location), dir);
        let index =
            agentwarden::SessionIndex { session: "covered".into(), ..agentwarden::SessionIndex::default() };
        storage.write_index(&index).unwrap();
        (config, location)
    }

    /// V-26: the requests waiting when the decider looks are decided in order, their events
    /// appended deferred, made durable by one sync, and answered only after it.
    #[test]
    fn waiting_requests_share_one_sync_and_are_answered_after_it() {
        let dir = tempfile::tempdir().unwrap();
        let (config, location) = bare_project(dir.path());
        let store = Arc::new(Held::slow());
        let warden = Warden::builder().event_store(store.clone()).without_state().build().unwrap();
        let decider = test_decider(&warden, location, &config);
        let (send, jobs) = mpsc::channel::<Job>(QUEUE);
        let answers: Vec<_> = (0..10)
            .map(|n| {
                let input = serde_json::json!({
                    "session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Task",
                    "tool_use_id": format!("toolu_{n}"), "tool_input": {"subagent_type": "planner"},
                });
                let (reply, answer) = oneshot::channel();
                let job = hook_job(&config, &input, reply);
                send.try_send(job).unwrap();
                answer
            })
            .collect();
        drop(send);
        let synced = Arc::clone(&store);
        let loop_ = std::thread::spawn(move || {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap()
                .block_on(decide(&decider, jobs));
        });
        for answer in answers {
            let answer = answer.blocking_recv().unwrap();
            assert_eq!(synced.ended.load(Ordering::SeqCst), 1, "no answer before the sync");
            assert!(answer.stdout().unwrap().contains("deny"), "no persona files: a recorded deny");
        }
        loop_.join().unwrap();
        assert_eq!(store.ended.load(Ordering::SeqCst), 1, "one sync for the group");
        assert_eq!(store.deferred.load(Ordering::SeqCst), 10, "every decision appended deferred");
        let records = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(store.inner.read(1, 100))
            .unwrap();
        let ids: Vec<String> = records
            .iter()
            .map(|r| agentwarden_domain::audit::Envelope::parse(r).unwrap().payload.get().to_owned())
            .map(|p| {
                serde_json::from_str::<serde_json::Value>(&p).unwrap()["tool_use_id"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect();
        assert_eq!(ids, (0..10).map(|n| format!("toolu_{n}")).collect::<Vec<_>>(), "in arrival order");
    }

    /// V-35: a call nothing governs that comes first in its group leaves before the group's
    /// sync; one that comes after a recorded decision of the group waits for it.
    #[test]
    fn a_call_nothing_governs_waits_for_no_sync_unless_it_follows_a_recorded_one() {
        let dir = tempfile::tempdir().unwrap();
        let (config, location) = covered_project(dir.path());
        let store = Arc::new(Held::slow());
        let warden = Warden::builder().event_store(store.clone()).without_state().build().unwrap();
        let decider = test_decider(&warden, location, &config);
        let (send, jobs) = mpsc::channel::<Job>(QUEUE);
        let bash = serde_json::json!({
            "session_id": "covered", "hook_event_name": "PreToolUse", "cwd": dir.path(),
            "tool_name": "Bash", "tool_use_id": "toolu_b", "tool_input": {"command": "ls"},
        });
        let spawn = serde_json::json!({
            "session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Task",
            "tool_use_id": "toolu_s", "tool_input": {"subagent_type": "planner"},
        });
        let mut answers = Vec::new();
        for input in [&bash, &spawn, &bash] {
            let (reply, answer) = oneshot::channel();
            send.try_send(hook_job(&config, input, reply)).unwrap();
            answers.push(answer);
        }
        drop(send);
        let loop_ = std::thread::spawn(move || {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap()
                .block_on(decide(&decider, jobs));
        });
        let mut answers = answers.into_iter();
        let first = answers.next().unwrap().blocking_recv().unwrap();
        assert_eq!(first, HookAnswer::silent());
        assert_eq!(
            store.ended.load(Ordering::SeqCst),
            0,
            "the first call nothing governs left before the sync"
        );
        for answer in answers {
            answer.blocking_recv().unwrap();
            assert_eq!(store.ended.load(Ordering::SeqCst), 1, "after a recorded decision: after the sync");
        }
        loop_.join().unwrap();
    }

    /// A memory store that counts its deferred appends and its syncs, each sync held: for a
    /// while, or until the test lets it end (and failing, when told).
    struct Held {
        inner: agentwarden::MemoryEventStore,
        deferred: AtomicUsize,
        begun: AtomicUsize,
        ended: AtomicUsize,
        hold: Hold,
        fail: std::sync::atomic::AtomicBool,
    }

    /// How long a [`Held`] store's sync takes.
    enum Hold {
        For(Duration),
        /// Until the test adds a permit ([`Held::release`]).
        Gate(tokio::sync::Semaphore),
    }

    impl Held {
        fn new(hold: Hold) -> Self {
            Held {
                inner: agentwarden::MemoryEventStore::default(),
                deferred: AtomicUsize::new(0),
                begun: AtomicUsize::new(0),
                ended: AtomicUsize::new(0),
                hold,
                fail: std::sync::atomic::AtomicBool::new(false),
            }
        }

        /// Each sync takes 50 ms.
        fn slow() -> Self {
            Held::new(Hold::For(Duration::from_millis(50)))
        }

        /// Each sync waits for [`Held::release`].
        fn gated() -> Self {
            Held::new(Hold::Gate(tokio::sync::Semaphore::new(0)))
        }

        /// Lets one held sync end.
        fn release(&self) {
            if let Hold::Gate(gate) = &self.hold {
                gate.add_permits(1);
            }
        }
    }

    #[async_trait::async_trait]
    impl EventStore for Held {
        async fn append(&self, e: Expected, b: Vec<EventDraft>) -> Result<Appended, StoreError> {
            self.inner.append(e, b).await
        }
        async fn append_deferred(&self, e: Expected, b: Vec<EventDraft>) -> Result<Appended, StoreError> {
            self.deferred.fetch_add(1, Ordering::SeqCst);
            self.inner.append(e, b).await
        }
        async fn sync(&self) -> Result<(), StoreError> {
            self.begun.fetch_add(1, Ordering::SeqCst);
            match &self.hold {
                Hold::For(wait) => tokio::time::sleep(*wait).await,
                Hold::Gate(gate) => gate.acquire().await.unwrap().forget(),
            }
            self.ended.fetch_add(1, Ordering::SeqCst);
            if self.fail.load(Ordering::SeqCst) {
                return Err(StoreError::Unavailable { reason: "the test's disk failed".into() });
            }
            Ok(())
        }
        async fn read(&self, from: u64, limit: usize) -> Result<Vec<StoredRecord>, StoreError> {
            self.inner.read(from, limit).await
        }
        async fn head(&self) -> Result<Head, StoreError> {
            self.inner.head().await
        }
    }

    /// Waits (at most 10 s) until `count` reaches `n`.
    fn wait_for(count: &AtomicUsize, n: usize, what: &str) {
        let started = Instant::now();
        while count.load(Ordering::SeqCst) < n {
            assert!(started.elapsed() < Duration::from_secs(10), "{what}: never reached {n}");
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// A decider on a gated [`Held`] store in a covered session's project, and the inputs the tests
    /// send it: a spawn (recorded) and a `Bash` call nothing governs (answered from the index).
    fn gated_decider(dir: &Path) -> (Arc<Held>, mpsc::Sender<Job>, PathBuf, [serde_json::Value; 3]) {
        let (config, location) = covered_project(dir);
        let store = Arc::new(Held::gated());
        let warden = Warden::builder().event_store(store.clone()).without_state().build().unwrap();
        let decide =
            decider(test_decider(&warden, location, &config)).unwrap_or_else(|f| panic!("{}", f.reason));
        let spawn = |n: u32| {
            serde_json::json!({
                "session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Task",
                "tool_use_id": format!("toolu_{n}"), "tool_input": {"subagent_type": "planner"},
            })
        };
        let bash = serde_json::json!({
            "session_id": "covered", "hook_event_name": "PreToolUse", "cwd": dir,
            "tool_name": "Bash", "tool_use_id": "toolu_b", "tool_input": {"command": "ls"},
        });
        (store, decide, config, [spawn(1), spawn(2), bash])
    }

    fn ask(
        decide: &mpsc::Sender<Job>,
        config: &Path,
        input: &serde_json::Value,
    ) -> oneshot::Receiver<HookAnswer> {
        let (reply, answer) = oneshot::channel();
        decide.blocking_send(hook_job(config, input, reply)).unwrap();
        answer
    }

    /// V-45: the next group is decided while the one before it syncs; its answers, and an
    /// answer from the index that would otherwise leave at once (V-35), wait for the earlier
    /// group's sync and then for their own, in order.
    #[test]
    fn a_group_is_decided_while_the_one_before_syncs_and_answered_after_it() {
        let dir = tempfile::tempdir().unwrap();
        let (store, decide, config, [first, second, bash]) = gated_decider(dir.path());
        let mut a = ask(&decide, &config, &first);
        wait_for(&store.begun, 1, "the first group's sync");
        let mut c = ask(&decide, &config, &bash);
        let mut b = ask(&decide, &config, &second);
        wait_for(&store.deferred, 2, "the second spawn decided while the first sync runs");
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(store.ended.load(Ordering::SeqCst), 0);
        for answer in [&mut a, &mut b, &mut c] {
            assert!(answer.try_recv().is_err(), "no answer before the first sync ends");
        }
        store.release();
        let a = a.blocking_recv().unwrap();
        assert!(a.stdout().unwrap().contains("deny"), "{a:?}");
        wait_for(&store.begun, 2, "the second group's sync");
        std::thread::sleep(Duration::from_millis(50));
        assert!(b.try_recv().is_err(), "the second spawn waits for its own group's sync");
        store.release();
        assert!(b.blocking_recv().unwrap().stdout().unwrap().contains("deny"));
        assert_eq!(c.blocking_recv().unwrap(), HookAnswer::Proceed);
        assert_eq!(store.ended.load(Ordering::SeqCst), 2);
        // With nothing in flight, a call nothing governs leaves at once again (V-35).
        assert_eq!(ask(&decide, &config, &bash).blocking_recv().unwrap(), HookAnswer::Proceed);
        assert_eq!(store.begun.load(Ordering::SeqCst), 2, "and asks for no sync");
    }

    /// V-45, V-28: when a sync fails, the group decided behind it while it ran fails too, and
    /// so does every later request.
    #[test]
    fn a_failed_sync_fails_the_group_decided_behind_it() {
        let dir = tempfile::tempdir().unwrap();
        let (store, decide, config, [first, second, bash]) = gated_decider(dir.path());
        store.fail.store(true, Ordering::SeqCst);
        let a = ask(&decide, &config, &first);
        wait_for(&store.begun, 1, "the first group's sync");
        let b = ask(&decide, &config, &second);
        let c = ask(&decide, &config, &bash);
        wait_for(&store.deferred, 2, "the second spawn decided while the first sync runs");
        store.release();
        for answer in [a, b, c] {
            let answer = answer.blocking_recv().unwrap();
            assert_eq!(answer.exit_code(), agentwarden_claude_code::wire::HOOK_FAILED, "{answer:?}");
            assert!(answer.stderr().unwrap().contains("store_unavailable"), "{answer:?}");
        }
        let later = ask(&decide, &config, &bash).blocking_recv().unwrap();
        assert_eq!(later.exit_code(), agentwarden_claude_code::wire::HOOK_FAILED, "{later:?}");
        assert_eq!(store.begun.load(Ordering::SeqCst), 1, "no sync after the failed one");
    }

    /// Item 6, V-30: through the decider (the group loop included), a tool call nothing governs
    /// in a session its index covers is answered without one call to the event store; the same
    /// call in a session without an index goes to the store (here: exit 2).
    #[test]
    fn a_tool_call_nothing_governs_is_answered_without_the_store() {
        let dir = tempfile::tempdir().unwrap();
        let (config, location) = covered_project(dir.path());
        let store = Arc::new(Refusing::default());
        let warden = Warden::builder().event_store(store.clone()).without_state().build().unwrap();
        let decide =
            decider(test_decider(&warden, location, &config)).unwrap_or_else(|f| panic!("{}", f.reason));
        let ask = |session: &str| {
            let input = serde_json::json!({
                "session_id": session, "hook_event_name": "PreToolUse", "cwd": dir.path(),
                "tool_name": "Bash", "tool_use_id": "toolu_1", "tool_input": {"command": "ls"},
            });
            let (reply, answer) = oneshot::channel();
            let job = hook_job(&config, &input, reply);
            decide.blocking_send(job).unwrap();
            answer.blocking_recv().unwrap()
        };
        for _ in 0..3 {
            assert_eq!(ask("covered"), HookAnswer::Proceed);
        }
        assert_eq!(store.calls.load(Ordering::SeqCst), 0, "the store was never called");
        let uncovered = ask("uncovered");
        assert_eq!(uncovered.exit_code(), agentwarden_claude_code::wire::HOOK_FAILED, "{uncovered:?}");
        assert!(store.calls.load(Ordering::SeqCst) > 0, "without an index the store decides");
    }

    #[test]
    fn a_link_or_a_fifo_planted_at_the_lock_is_refused_and_its_target_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "keep").unwrap();
        std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o644)).unwrap();
        let socket = dir.path().join("warden.sock");
        std::os::unix::fs::symlink(&victim, dir.path().join("warden.sock.lock")).unwrap();
        assert!(lock_socket(&socket).is_err(), "a link at the lock's name is not followed");
        let mode = std::fs::metadata(&victim).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o644, "the link's target keeps its mode");

        let fifo_socket = dir.path().join("other.sock");
        let made = std::process::Command::new("mkfifo").arg(dir.path().join("other.sock.lock")).status();
        assert!(made.unwrap().success());
        assert!(lock_socket(&fifo_socket).is_err(), "a FIFO at the lock's name is refused, never waited on");

        let good = dir.path().join("good.sock");
        let held = lock_socket(&good).unwrap();
        assert_eq!(held.metadata().unwrap().permissions().mode() & 0o777, 0o600);
    }
}
