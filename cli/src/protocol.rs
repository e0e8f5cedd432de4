//! The resident service's wire protocol (`docs/server-protocol.md`): length-prefixed JSON frames
//! over a Unix domain socket.
//!
//! A frame is a 4-byte big-endian length followed by that many bytes of one JSON object, at most
//! [`MAX_FRAME`] bytes. Every object carries `"version": 1` and a `kind`. Requests: `hook` (one
//! Claude Code hook event, as the text `warden hook` read on stdin), `run` (a decision command's
//! arguments, V-13) and `status`. Answers: the request's kind, or `error` with a stable code and
//! a reason.
//!
//! V-2: the reader is strict. A frame longer than [`MAX_FRAME`], a body that is not one JSON
//! object of a known kind and version, an unknown field: an `error` answer (`frame_too_large`,
//! `frame_invalid`), and the connection is closed after a length it refused (it cannot find
//! the next frame). A client reads an answer the same way: anything it does not understand is
//! exit 2, never a pass (V-6). A key declared twice is refused (`request_invalid`) by the
//! strict reader every JSON input goes through (V-50).

use serde::{Deserialize, Serialize};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The protocol version this build speaks.
pub(crate) const VERSION: u64 = 1;
/// The largest frame body either side reads or writes: 1 MiB.
pub(crate) const MAX_FRAME: usize = 1024 * 1024;

/// Every code the server and the thin client name (listed in `docs/codes.md`).
#[cfg(test)]
pub(crate) const CODES: [&str; 11] = [
    "path_refused",
    "usage_invalid",
    "server_unavailable",
    "command_not_served",
    "request_invalid",
    "server_holds_store",
    "server_answer_invalid",
    "server_config_mismatch",
    "frame_invalid",
    "frame_too_large",
    "request_timeout",
];

/// A request, after its `version` was checked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub(crate) enum Request {
    /// Decide one hook event.
    Hook {
        /// The client's configuration file, canonical (`null`: none).
        config: Option<String>,
        /// The hook event: the text Claude Code wrote on the hook's stdin.
        input: String,
        /// The client's remaining deadline in milliseconds.
        deadline_ms: Option<u64>,
    },
    /// Say how the server is.
    Status {},
    /// Run one decision command (V-13): `warden ARGV…` as the client was given it.
    Run {
        /// The command's arguments after `warden` (the client's own options among them are
        /// ignored: the server's store is the one used).
        argv: Vec<String>,
        /// The client's working directory, absolute: relative paths resolve against it (V-15).
        cwd: String,
        /// The client's configuration file, canonical (`null`: none, which is refused).
        config: Option<String>,
        /// The client's remaining deadline in milliseconds.
        deadline_ms: Option<u64>,
    },
}

/// An answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub(crate) enum Answer {
    /// The hook's answer, as `warden hook` gives it in direct mode.
    Hook {
        /// 0, or 2.
        exit_code: u8,
        /// What the hook prints on stdout (a JSON object), if anything.
        stdout: Option<String>,
        /// The one-line reason of an exit 2.
        stderr: Option<String>,
    },
    /// The server's state.
    Status {
        /// The process id.
        pid: u32,
        /// The store, described (never a password).
        store: String,
        /// The log's head: sequence number.
        head_seq: u64,
        /// The log's head: hash.
        head_hash: String,
        /// Milliseconds since the server started.
        uptime_ms: u64,
        /// Requests answered so far (this one not counted).
        requests_served: u64,
    },
    /// A command's answer, as the command gives it in direct mode (V-13).
    Run {
        /// The command's exit code.
        exit_code: u8,
        /// Everything it printed on stdout.
        stdout: String,
        /// Its one-line reason, when it failed.
        stderr: Option<String>,
    },
    /// The request was refused or could not be answered.
    Error {
        /// A stable code (`docs/codes.md`).
        code: String,
        /// Why.
        reason: String,
    },
}

impl Answer {
    pub(crate) fn error(code: &str, reason: impl Into<String>) -> Answer {
        Answer::Error { code: code.to_owned(), reason: reason.into() }
    }
}

/// Why a frame could not be read.
#[derive(Debug)]
pub(crate) enum FrameError {
    /// The peer closed the connection before a frame started.
    Closed,
    /// The announced length is over [`MAX_FRAME`].
    TooLarge(u64),
    /// Reading failed, or the peer closed mid-frame.
    Io(std::io::Error),
}

impl std::fmt::Display for FrameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FrameError::Closed => write!(f, "the connection was closed"),
            FrameError::TooLarge(n) => write!(f, "a frame of {n} bytes is over the limit of {MAX_FRAME}"),
            FrameError::Io(e) => write!(f, "{e}"),
        }
    }
}

/// Encodes `value` with `"version"` added, as one frame.
pub(crate) fn encode<T: Serialize>(value: &T) -> Result<Vec<u8>, String> {
    let mut object = match serde_json::to_value(value).map_err(|e| e.to_string())? {
        serde_json::Value::Object(object) => object,
        _ => return Err("not an object".into()),
    };
    object.insert("version".into(), VERSION.into());
    let body = serde_json::to_vec(&object).map_err(|e| e.to_string())?;
    if body.len() > MAX_FRAME {
        return Err(format!("a frame of {} bytes is over the limit of {MAX_FRAME}", body.len()));
    }
    let length = u32::try_from(body.len()).map_err(|e| e.to_string())?;
    let mut frame = length.to_be_bytes().to_vec();
    frame.extend_from_slice(&body);
    Ok(frame)
}

/// Why a frame's body was refused: the `error` answer's code and reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Refused {
    /// `request_invalid` for a duplicated key (V-50), `frame_invalid` for anything else (V-2).
    pub(crate) code: &'static str,
    pub(crate) reason: String,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.reason)
    }
}

/// Decodes one frame's body: one JSON object with `"version": 1` and a known `kind`, read by
/// the strict reader every other JSON input goes through: a key declared twice in any object,
/// at any depth, refuses the frame (`request_invalid`, naming its pointer), never "the last one
/// wins" (V-50, G-5); so does nesting deeper than the strict reader admits.
pub(crate) fn decode<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, Refused> {
    let invalid = |reason: String| Refused { code: "frame_invalid", reason };
    let text = std::str::from_utf8(body).map_err(|e| invalid(format!("the frame is not UTF-8: {e}")))?;
    let mut object = match agentwarden_domain::json::parse_strict(text) {
        Ok(serde_json::Value::Object(object)) => object,
        Ok(_) => return Err(invalid("the frame is not a JSON object".into())),
        Err(e @ agentwarden_domain::json::StrictJsonError::DuplicateKey { .. }) => {
            return Err(Refused { code: "request_invalid", reason: format!("the frame has a {e}") });
        }
        Err(e) => return Err(invalid(format!("the frame is not JSON: {e}"))),
    };
    match object.remove("version") {
        Some(v) if v.as_u64() == Some(VERSION) => {}
        Some(v) => return Err(invalid(format!("protocol version `{v}` is not {VERSION}"))),
        None => return Err(invalid("the frame has no `version`".into())),
    }
    serde_json::from_value(serde_json::Value::Object(object))
        .map_err(|e| invalid(format!("the frame is not understood: {e}")))
}

/// The length of a frame whose header is `header`, or why it is refused.
fn length(header: [u8; 4]) -> Result<usize, FrameError> {
    let n = u32::from_be_bytes(header);
    match usize::try_from(n) {
        Ok(n) if n <= MAX_FRAME => Ok(n),
        _ => Err(FrameError::TooLarge(u64::from(n))),
    }
}

/// Reads the rest of a frame whose first byte was `first`.
pub(crate) async fn read_frame_after<R: AsyncReadExt + Unpin>(
    first: u8,
    reader: &mut R,
) -> Result<Vec<u8>, FrameError> {
    let mut header = [first, 0, 0, 0];
    let rest = header.get_mut(1..).unwrap_or_default();
    reader.read_exact(rest).await.map_err(FrameError::Io)?;
    let mut body = vec![0_u8; length(header)?];
    reader.read_exact(&mut body).await.map_err(FrameError::Io)?;
    Ok(body)
}

/// Writes one frame.
pub(crate) async fn write_frame<W: AsyncWriteExt + Unpin>(
    writer: &mut W,
    frame: &[u8],
) -> std::io::Result<()> {
    writer.write_all(frame).await?;
    writer.flush().await
}

/// Reads one frame's body, blocking (the thin client).
pub(crate) fn read_frame_blocking(reader: &mut impl std::io::Read) -> Result<Vec<u8>, FrameError> {
    let mut header = [0_u8; 4];
    reader.read_exact(&mut header).map_err(|e| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => FrameError::Closed,
        _ => FrameError::Io(e),
    })?;
    let mut body = vec![0_u8; length(header)?];
    reader.read_exact(&mut body).map_err(FrameError::Io)?;
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_is_documented() {
        let doc = include_str!("../../docs/codes.md");
        for code in CODES {
            assert!(doc.contains(&format!("| `{code}` |")), "`{code}` is not listed in docs/codes.md");
        }
    }

    /// V-50: a key declared twice, at any depth of the frame, refuses it (`request_invalid`,
    /// naming where), in a request and in an answer alike; the same keys once each are read.
    #[test]
    fn a_frame_with_a_duplicated_key_is_refused_at_any_depth() {
        let once =
            br#"{"version":1,"kind":"run","argv":["gate"],"cwd":"/p","config":"/p/a.toml","deadline_ms":1}"#;
        assert!(decode::<Request>(once).is_ok());
        for (body, pointer) in [
            (&br#"{"version":1,"kind":"status","kind":"status"}"#[..], "/kind"),
            (br#"{"version":1,"version":1,"kind":"status"}"#, "/version"),
            (br#"{"version":1,"kind":"hook","input":"{}","config":"/a.toml","config":"/b.toml","deadline_ms":1}"#, "/config"),
            (br#"{"version":1,"kind":"run","argv":["gate"],"cwd":"/p","config":"/p/a.toml","deadline_ms":1,"deadline_ms":9}"#, "/deadline_ms"),
            (br#"{"version":1,"kind":"status","x":{"y":[{"z":1,"z":2}]}}"#, "/x/y/0/z"),
        ] {
            let refused = decode::<Request>(body).unwrap_err();
            assert_eq!(refused.code, "request_invalid", "{}", String::from_utf8_lossy(body));
            assert!(refused.reason.contains(&format!("`{pointer}`")), "{refused}");
        }
        let answer = br#"{"version":1,"kind":"hook","exit_code":2,"exit_code":0,"stdout":null,"stderr":"x"}"#;
        assert_eq!(
            decode::<Answer>(answer).unwrap_err().code,
            "request_invalid",
            "the client refuses it too"
        );
    }

    #[test]
    fn frames_round_trip_and_anything_else_is_refused() {
        let request = Request::Hook { config: None, input: "{}".into(), deadline_ms: Some(5) };
        let frame = encode(&request).unwrap();
        let body = read_frame_blocking(&mut frame.as_slice()).unwrap();
        assert_eq!(decode::<Request>(&body).unwrap(), request);
        assert_eq!(decode::<Request>(br#"{"version":1,"kind":"status"}"#).unwrap(), Request::Status {});
        for bad in [
            &br#"{"kind":"status"}"#[..],
            br#"{"version":2,"kind":"status"}"#,
            br#"{"version":"1","kind":"status"}"#,
            br#"{"version":1,"kind":"reboot"}"#,
            br#"{"version":1,"kind":"status","extra":1}"#,
            br#"{"version":1,"kind":"hook","input":"{}","config":null,"deadline_ms":1,"x":0}"#,
            br#"{"version":1,"kind":"hook"}"#,
            br#"[1]"#,
            b"\xff\xfe",
        ] {
            let refused = decode::<Request>(bad).unwrap_err();
            assert_eq!(refused.code, "frame_invalid", "{}", String::from_utf8_lossy(bad));
        }
        let too_long = (u32::try_from(MAX_FRAME).unwrap() + 1).to_be_bytes();
        assert!(matches!(read_frame_blocking(&mut too_long.as_slice()), Err(FrameError::TooLarge(_))));
        assert!(matches!(read_frame_blocking(&mut &[][..]), Err(FrameError::Closed)));
        let short = [0, 0, 0, 9, b'{'];
        assert!(matches!(read_frame_blocking(&mut short.as_slice()), Err(FrameError::Io(_))));
    }
}
