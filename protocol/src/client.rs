//! One exchange with a server, synchronous (the thin client needs no runtime, V-29).
//!
//! V-12: with a user named (`--server-uid`, `[server] uid`), the answer is read only from a
//! server running as that user: the connection's peer as the kernel reports it (`SO_PEERCRED`);
//! any other is `server_unavailable`.

use std::io::Write;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::{Answer, Request, decode, encode, read_frame_blocking};

/// The user the peer of `stream` runs as, as the kernel reports it.
pub fn peer_uid(stream: &UnixStream) -> Result<u32, String> {
    #[cfg(target_os = "linux")]
    {
        let peer = rustix::net::sockopt::socket_peercred(stream).map_err(|e| format!("SO_PEERCRED: {e}"))?;
        Ok(peer.uid.as_raw())
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = stream;
        Err("the peer's user cannot be read on this system".to_owned())
    }
}

/// V-12: the server must run as `uid` (when one is named), or the answer is not read.
fn check_peer(stream: &UnixStream, uid: Option<u32>) -> Result<(), String> {
    let Some(wanted) = uid else { return Ok(()) };
    let seen = peer_uid(stream)?;
    if seen == wanted {
        return Ok(());
    }
    Err(format!("it runs as uid {seen}, not uid {wanted} (`--server-uid`, `[server] uid`)"))
}

/// One request, one answer, within `budget`, from a server running as `uid` when given. The
/// error is one line, starting with its code: `server_unavailable` (not reached, closed, too
/// slow, not the named user) or `server_answer_invalid` (not an answer of this protocol).
pub fn exchange(
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
    let frame = encode(request).map_err(|e| unreachable(&e))?;
    stream.write_all(&frame).map_err(|e| unreachable(&e))?;
    let body = read_frame_blocking(&mut stream).map_err(|e| unreachable(&e))?;
    decode::<Answer>(&body).map_err(|e| {
        format!("server_answer_invalid: the server at `{}` answered nonsense: {e}", socket.display())
    })
}
