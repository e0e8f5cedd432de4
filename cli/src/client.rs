//! The thin client of the resident service: `warden hook` with a server configured, and
//! `warden status`.
//!
//! V-5: which server. `--server PATH`, else `AGENTWARDEN_SERVER`, else `[server] socket` in the
//! configuration. With one of them set, `warden hook` never decides by itself and never opens
//! the store: it sends the event to the server and prints its answer.
//!
//! V-12: with `[server] uid` set, the client reads an answer only from a server running as that
//! user (the connection's peer, `SO_PEERCRED`); any other is `server_unavailable`. In the
//! isolated deployment it keeps a process of the agent's user from answering in the server's
//! place, should the socket's path ever be one it can bind.
//!
//! V-6: never unguarded. A server that is configured but cannot be reached, closes the
//! connection, does not answer within the hook's deadline, or answers anything but a hook
//! answer of this protocol makes the hook exit 2 with the reason (`server_unavailable`,
//! `server_answer_invalid`). X-40: a hook answer is exactly the rendering of one of the four
//! the hook gives — exit 0 with nothing, exit 0 with a deny's or a block's line as Warden
//! writes it, exit 2 with a reason — read back into the typed `HookAnswer`.

use std::io::Write;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::protocol::{self, Answer, Request};
use super::{EXIT_OK, Failure};
use agentwarden::HookAnswer;
use agentwarden_claude_code::wire::Rendering;

/// The variable naming the server's socket (V-5).
pub(crate) const SERVER_ENV: &str = "AGENTWARDEN_SERVER";

/// `--server`, else [`SERVER_ENV`] (an empty value is an error: fail closed).
pub(super) fn explicit_server(flag: Option<&Path>) -> Result<Option<PathBuf>, String> {
    if let Some(flag) = flag {
        return Ok(Some(flag.to_path_buf()));
    }
    match std::env::var_os(SERVER_ENV) {
        Some(value) if value.is_empty() => {
            Err(format!("server_unavailable: `{SERVER_ENV}` is set but empty; unset it or name the socket"))
        }
        Some(value) => Ok(Some(PathBuf::from(value))),
        None => Ok(None),
    }
}

/// V-12: the server must run as `uid` (when one is configured): the peer of the connection,
/// as the kernel reports it, or the answer is not read.
fn check_peer(stream: &UnixStream, uid: Option<u32>) -> Result<(), String> {
    let Some(wanted) = uid else { return Ok(()) };
    #[cfg(target_os = "linux")]
    {
        let peer = rustix::net::sockopt::socket_peercred(stream).map_err(|e| format!("SO_PEERCRED: {e}"))?;
        let seen = peer.uid.as_raw();
        if seen == wanted {
            return Ok(());
        }
        Err(format!("it runs as uid {seen}, not uid {wanted} (`--server-uid`, `[server] uid`)"))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (stream, wanted);
        Err("`[server] uid` cannot be checked on this system".to_owned())
    }
}

/// One request, one answer, within `budget`, from a server running as `uid` when given.
pub(super) fn exchange(
    socket: &Path,
    uid: Option<u32>,
    request: &Request,
    budget: Duration,
) -> Result<Answer, String> {
    let started = Instant::now();
    let unreachable =
        |e: &dyn std::fmt::Display| format!("server_unavailable: the server at `{}`: {e}", socket.display());
    let mut stream = UnixStream::connect(socket).map_err(|e| unreachable(&e))?;
    check_peer(&stream, uid).map_err(|e| unreachable(&e))?;
    let left = budget.saturating_sub(started.elapsed()).max(Duration::from_millis(1));
    stream.set_write_timeout(Some(left)).map_err(|e| unreachable(&e))?;
    stream.set_read_timeout(Some(left)).map_err(|e| unreachable(&e))?;
    let frame = protocol::encode(request).map_err(|e| unreachable(&e))?;
    stream.write_all(&frame).map_err(|e| unreachable(&e))?;
    let body = protocol::read_frame_blocking(&mut stream).map_err(|e| unreachable(&e))?;
    protocol::decode::<Answer>(&body).map_err(|e| {
        format!("server_answer_invalid: the server at `{}` answered nonsense: {e}", socket.display())
    })
}

/// `warden hook` through the server (V-6): the answer, or exit 2 with why.
pub(super) fn hook(
    socket: &Path,
    uid: Option<u32>,
    config: Option<String>,
    input: String,
    deadline_ms: u64,
) -> HookAnswer {
    let request = Request::Hook { config, input, deadline_ms: Some(deadline_ms) };
    match exchange(socket, uid, &request, Duration::from_millis(deadline_ms)) {
        Ok(answer) => checked(answer),
        Err(why) => HookAnswer::failed(why),
    }
}

/// A hook answer the client may print, or exit 2 (`server_answer_invalid`): X-40, a `hook`
/// frame is read back only when it is exactly the rendering of one of the four answers
/// (`HookAnswer::from_rendering`).
fn checked(answer: Answer) -> HookAnswer {
    let invalid = |why: &str| HookAnswer::failed(format!("server_answer_invalid: {why}"));
    match answer {
        Answer::Hook { exit_code, stdout, stderr } => {
            HookAnswer::from_rendering(exit_code, stdout.as_deref(), stderr.as_deref())
                .unwrap_or_else(|e| invalid(&e.to_string()))
        }
        Answer::Error { code, reason } => HookAnswer::failed(format!("{code}: {reason}")),
        Answer::Status { .. } | Answer::Run { .. } => invalid("another kind of answer to a hook request"),
    }
}

/// `warden status`.
#[derive(Debug, clap::Args)]
pub(super) struct StatusArgs {
    /// The server's socket [default: `AGENTWARDEN_SERVER`, else `[server] socket` in the
    /// configuration].
    #[arg(long, value_name = "PATH")]
    server: Option<PathBuf>,
    /// The configuration naming the socket (default: `agentwarden.toml` in the working
    /// directory, if present).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// How long to wait for the answer.
    #[arg(long, default_value_t = 5_000, value_name = "MS")]
    timeout_ms: u64,
    /// One JSON object.
    #[arg(long)]
    json: bool,
}

/// `warden status`: exit 0 when the server answers, 1 when it does not.
pub(super) fn status(args: StatusArgs, out: &mut dyn Write) -> Result<u8, Failure> {
    let (socket, uid) = match explicit_server(args.server.as_deref()).map_err(Failure::usage)? {
        Some(socket) => (socket, None),
        None => {
            let config = agentwarden::Config::load(args.config.as_deref())
                .map_err(|e| Failure::usage(e.to_string()))?;
            let socket = config.server.ok_or_else(|| {
                Failure::usage("no server: give --server PATH, `AGENTWARDEN_SERVER` or `[server] socket`")
            })?;
            (socket, config.server_uid)
        }
    };
    let answer = exchange(&socket, uid, &Request::Status {}, Duration::from_millis(args.timeout_ms))
        .map_err(Failure::no)?;
    let Answer::Status { pid, store, head_seq, head_hash, uptime_ms, requests_served } = answer else {
        return Err(Failure::no(format!("server_answer_invalid: not a status answer: {answer:?}")));
    };
    if args.json {
        let object = serde_json::json!({
            "answering": true, "socket": socket, "pid": pid, "store": store,
            "head": {"seq": head_seq, "hash": head_hash}, "uptime_ms": uptime_ms,
            "requests_served": requests_served,
        });
        writeln!(out, "{object}")?;
    } else {
        writeln!(out, "server at {} answers (pid {pid})", socket.display())?;
        writeln!(out, "store: {store}, head seq {head_seq} ({head_hash})")?;
        writeln!(out, "uptime: {} s, requests served: {requests_served}", uptime_ms / 1000)?;
    }
    Ok(EXIT_OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hook(exit_code: u8, stdout: Option<&str>, stderr: Option<&str>) -> Answer {
        Answer::Hook { exit_code, stdout: stdout.map(str::to_owned), stderr: stderr.map(str::to_owned) }
    }

    const DENY: &str = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"r"}}"#;

    /// X-40: a frame the server sends is printed only when it is exactly one answer's rendering.
    #[test]
    fn only_a_well_formed_hook_answer_is_printed() {
        let block = r#"{"decision":"block","reason":"r"}"#;
        let accepted = [
            (hook(0, None, None), HookAnswer::Proceed),
            (hook(0, Some(DENY), None), HookAnswer::deny("r")),
            (hook(0, Some(block), None), HookAnswer::block("r")),
            (hook(2, None, Some("store_corrupt: x")), HookAnswer::failed("store_corrupt: x")),
            (Answer::error("request_invalid", "r"), HookAnswer::failed("request_invalid: r")),
        ];
        for (frame, answer) in accepted {
            assert_eq!(checked(frame), answer);
        }
        // The frame, why it is refused.
        let refused: [(Answer, &str); 17] = [
            (hook(1, None, None), "exit 1 would let the call run"),
            (hook(3, None, Some("r")), "exit 3"),
            (hook(2, None, None), "exit 2 without a reason"),
            (hook(2, None, Some("")), "an empty reason"),
            (hook(2, Some(DENY), Some("r")), "exit 2 with a deny beside it"),
            (hook(0, None, Some("r")), "exit 0 with a reason"),
            (hook(0, Some("allow"), None), "stdout not JSON"),
            (hook(0, Some("[1]"), None), "stdout not an object"),
            (hook(0, Some("{}"), None), "an object that decides nothing"),
            (hook(0, Some("{}\n{}"), None), "two lines"),
            (
                hook(0, Some(r#"{"hookSpecificOutput":{"permissionDecision":"deny"}}"#), None),
                "a deny cut short",
            ),
            (
                hook(
                    0,
                    Some(
                        r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"r"}}"#,
                    ),
                    None,
                ),
                "an allow in a deny's shape",
            ),
            (hook(0, Some(r#"{"decision":"approve","reason":"r"}"#), None), "a block's shape that approves"),
            (hook(0, Some(r#"{"decision":"block","reason":"r","continue":true}"#), None), "a key more"),
            (hook(0, Some(r#"{"reason":"r","decision":"block"}"#), None), "not as Warden writes it"),
            (hook(0, Some(r#"{"continue":false}"#), None), "another JSON object of the protocol"),
            (
                Answer::Status {
                    pid: 1,
                    store: String::new(),
                    head_seq: 0,
                    head_hash: String::new(),
                    uptime_ms: 0,
                    requests_served: 0,
                },
                "a status",
            ),
        ];
        for (frame, why) in refused {
            let answer = checked(frame);
            assert_eq!(answer.exit_code(), agentwarden_claude_code::wire::HOOK_FAILED, "{why}");
            assert!(
                answer.stderr().is_some_and(|r| r.starts_with("server_answer_invalid: ")),
                "{why}: {answer:?}"
            );
        }
    }

    /// X-40 over the wire: what `warden serve` sends for an answer (`serve::frame`), encoded
    /// and decoded as a frame, reads back as that answer.
    #[test]
    fn an_answer_sent_by_the_server_reads_back_as_itself() {
        for answer in [
            HookAnswer::Proceed,
            HookAnswer::deny("a \"quoted\" reason\nof two lines"),
            HookAnswer::block("r1\nr2"),
            HookAnswer::failed("store_unavailable: é"),
        ] {
            let frame = protocol::encode(&super::super::serve::hook_frame(answer.clone())).unwrap();
            let body = frame.get(4..).unwrap();
            let decoded = protocol::decode::<Answer>(body).unwrap();
            assert_eq!(checked(decoded), answer);
        }
    }
}
