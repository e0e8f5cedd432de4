//! Frames (V-2): the reader is strict. A frame longer than [`MAX_FRAME`], a body that is not one
//! JSON object of a known kind and version, an unknown field: refused (`frame_too_large`,
//! `frame_invalid`), and the connection is closed after a length it refused (it cannot find
//! the next frame). A client reads an answer the same way: anything it does not understand is
//! exit 2, never a pass (V-6). A key declared twice is refused (`request_invalid`) by the
//! strict reader every JSON input goes through (V-50).

use agentwarden_domain::code::Code;
use serde::Serialize;

/// The protocol version this build speaks: 2 since a hook's answer is its decision and reason
/// (V-52); a frame of any other version is refused (`frame_invalid`).
pub const VERSION: u64 = 2;
/// The largest frame body either side reads or writes: 1 MiB.
pub const MAX_FRAME: usize = 1024 * 1024;

/// Why a frame could not be read.
#[derive(Debug)]
pub enum FrameError {
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

impl std::error::Error for FrameError {}

/// Why a value cannot be sent as a frame (X-95).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EncodeError {
    /// The value does not serialize as JSON.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// The value serializes as something other than a JSON object.
    #[error("not an object")]
    NotAnObject,
    /// The frame would be longer than [`MAX_FRAME`].
    #[error("a frame of {0} bytes is over the limit of {MAX_FRAME}")]
    TooLarge(usize),
}

/// Encodes `value` with `"version"` added, as one frame.
pub fn encode<T: Serialize>(value: &T) -> Result<Vec<u8>, EncodeError> {
    let serde_json::Value::Object(mut object) = serde_json::to_value(value)? else {
        return Err(EncodeError::NotAnObject);
    };
    object.insert("version".into(), VERSION.into());
    let body = serde_json::to_vec(&object)?;
    let length = u32::try_from(body.len())
        .ok()
        .filter(|_| body.len() <= MAX_FRAME)
        .ok_or(EncodeError::TooLarge(body.len()))?;
    let mut frame = length.to_be_bytes().to_vec();
    frame.extend_from_slice(&body);
    Ok(frame)
}

/// Why a frame's body was refused: the `error` answer's code and reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    /// [`Code::RequestInvalid`] for a duplicated key (V-50), [`Code::FrameInvalid`] for anything
    /// else (V-2).
    pub code: Code,
    /// Why.
    pub reason: String,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.reason)
    }
}

impl std::error::Error for Refused {}

/// Decodes one frame's body: one JSON object with `"version"` [`VERSION`] and a known `kind`,
/// read by the strict reader every other JSON input goes through: a key declared twice in any
/// object, at any depth, refuses the frame (`request_invalid`, naming its pointer), never "the
/// last one wins" (V-50, G-5); so does nesting deeper than the strict reader admits.
pub fn decode<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, Refused> {
    let invalid = |reason: String| Refused { code: Code::FrameInvalid, reason };
    let text = std::str::from_utf8(body).map_err(|e| invalid(format!("the frame is not UTF-8: {e}")))?;
    let mut object = match agentwarden_domain::json::parse_strict(text) {
        Ok(serde_json::Value::Object(object)) => object,
        Ok(_) => return Err(invalid("the frame is not a JSON object".into())),
        Err(e @ agentwarden_domain::json::StrictJsonError::DuplicateKey { .. }) => {
            return Err(Refused { code: Code::RequestInvalid, reason: format!("the frame has a {e}") });
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
pub fn length(header: [u8; 4]) -> Result<usize, FrameError> {
    let n = u32::from_be_bytes(header);
    match usize::try_from(n) {
        Ok(n) if n <= MAX_FRAME => Ok(n),
        _ => Err(FrameError::TooLarge(u64::from(n))),
    }
}

/// Reads one frame's body, blocking (the thin client).
pub fn read_frame_blocking(reader: &mut impl std::io::Read) -> Result<Vec<u8>, FrameError> {
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
    use crate::{Answer, HookDecision, Request};

    /// Every code the protocol names is a row of the resident service's table in
    /// `docs/codes.md` (the file `cargo xtask codes` renders), not only a variant of the enum (X-75).
    #[test]
    fn every_protocol_code_is_a_row_of_the_server_table() {
        let doc = agentwarden_domain::code::render_markdown();
        let server = doc
            .split("\n## ")
            .find(|section| section.starts_with("Resident service"))
            .expect("docs/codes.md has the resident service's section");
        for code in crate::CODES {
            let listed = code.usages().iter().any(|u| u.table == agentwarden_domain::code::Table::Server);
            assert!(listed, "`{code}` has no usage in the server table (domain/src/code/table.rs)");
            assert!(server.contains(&format!("| `{code}` | ")), "`{code}` is not a row of the server table");
        }
    }

    /// A key declared twice, at any depth of the frame, refuses it (`request_invalid`,
    /// naming where), in a request and in an answer alike; the same keys once each are read (V-50).
    #[test]
    fn a_frame_with_a_duplicated_key_is_refused_at_any_depth() {
        let once =
            br#"{"version":2,"kind":"decide","question":{"command":"gate","request":"/p/r.json"},"config":"/p/a.toml","deadline_ms":1}"#;
        assert!(decode::<Request>(once).is_ok());
        for (body, pointer) in [
            (&br#"{"version":2,"kind":"status","kind":"status"}"#[..], "/kind"),
            (br#"{"version":2,"version":2,"kind":"status"}"#, "/version"),
            (br#"{"version":2,"kind":"hook","input":"{}","config":"/a.toml","config":"/b.toml","deadline_ms":1}"#, "/config"),
            (br#"{"version":2,"kind":"decide","question":{"command":"gate","request":"/p/r.json"},"config":"/p/a.toml","deadline_ms":1,"deadline_ms":9}"#, "/deadline_ms"),
            (br#"{"version":2,"kind":"decide","question":{"command":"gate","request":"/p/r.json","request":"/etc/x"},"config":"/p/a.toml","deadline_ms":1}"#, "/question/request"),
            (br#"{"version":2,"kind":"status","x":{"y":[{"z":1,"z":2}]}}"#, "/x/y/0/z"),
        ] {
            let refused = decode::<Request>(body).unwrap_err();
            assert_eq!(refused.code, Code::RequestInvalid, "{}", String::from_utf8_lossy(body));
            assert!(refused.reason.contains(&format!("`{pointer}`")), "{refused}");
        }
        let answer = br#"{"version":2,"kind":"hook","decision":"failed","decision":"proceed","reason":"x"}"#;
        assert_eq!(
            decode::<Answer>(answer).unwrap_err().code,
            Code::RequestInvalid,
            "the client refuses it too"
        );
    }

    /// A hook request for the default harness is the bytes an older client sent (so an
    /// older server reads it); one that names a harness round-trips, and a harness that is not
    /// a string refuses the frame (C-7).
    #[test]
    fn a_hook_request_names_its_harness_only_when_not_the_default() {
        let default = Request::Hook { config: None, input: "{}".into(), deadline_ms: Some(5), harness: None };
        let body = read_frame_blocking(&mut encode(&default).unwrap().as_slice()).unwrap();
        assert_eq!(
            String::from_utf8(body).unwrap(),
            r#"{"config":null,"deadline_ms":5,"input":"{}","kind":"hook","version":2}"#
        );
        let codex = Request::Hook {
            config: None,
            input: "{}".into(),
            deadline_ms: Some(5),
            harness: Some("codex".into()),
        };
        let body = read_frame_blocking(&mut encode(&codex).unwrap().as_slice()).unwrap();
        assert!(String::from_utf8_lossy(&body).contains(r#""harness":"codex""#));
        assert_eq!(decode::<Request>(&body).unwrap(), codex);
        let bad = br#"{"version":2,"kind":"hook","input":"{}","config":null,"deadline_ms":1,"harness":7}"#;
        assert_eq!(decode::<Request>(bad).unwrap_err().code, Code::FrameInvalid);
    }

    #[test]
    fn frames_round_trip_and_anything_else_is_refused() {
        let request = Request::Hook { config: None, input: "{}".into(), deadline_ms: Some(5), harness: None };
        let frame = encode(&request).unwrap();
        let body = read_frame_blocking(&mut frame.as_slice()).unwrap();
        assert_eq!(decode::<Request>(&body).unwrap(), request);
        assert_eq!(decode::<Request>(br#"{"version":2,"kind":"status"}"#).unwrap(), Request::Status {});
        for bad in [
            &br#"{"kind":"status"}"#[..],
            br#"{"version":1,"kind":"status"}"#,
            br#"{"version":3,"kind":"status"}"#,
            br#"{"version":"2","kind":"status"}"#,
            br#"{"version":2,"kind":"reboot"}"#,
            br#"{"version":2,"kind":"status","extra":1}"#,
            br#"{"version":2,"kind":"hook","input":"{}","config":null,"deadline_ms":1,"x":0}"#,
            br#"{"version":2,"kind":"hook"}"#,
            br#"{"version":2,"kind":"run","argv":["gate"],"cwd":"/p","config":"/p/a.toml","deadline_ms":1}"#,
            br#"{"version":2,"kind":"decide","question":{"command":"gate","request":"r.json"},"config":"/a.toml","deadline_ms":1}"#,
            br#"{"version":2,"kind":"decide","question":{"command":"audit_log"},"config":"/a.toml","deadline_ms":1}"#,
            br#"{"version":2,"kind":"decide","question":{"command":"gate","request":"/r.json"},"config":"a.toml","deadline_ms":1}"#,
            br#"[1]"#,
            b"\xff\xfe",
        ] {
            let refused = decode::<Request>(bad).unwrap_err();
            assert_eq!(refused.code, Code::FrameInvalid, "{}", String::from_utf8_lossy(bad));
        }
        let too_long = (u32::try_from(MAX_FRAME).unwrap() + 1).to_be_bytes();
        assert!(matches!(read_frame_blocking(&mut too_long.as_slice()), Err(FrameError::TooLarge(_))));
        assert!(matches!(read_frame_blocking(&mut &[][..]), Err(FrameError::Closed)));
        let short = [0, 0, 0, 9, b'{'];
        assert!(matches!(read_frame_blocking(&mut short.as_slice()), Err(FrameError::Io(_))));
    }

    /// A hook answer is its decision and reason on the wire; an unknown decision or a
    /// key more is not an answer (V-52).
    #[test]
    fn a_hook_answer_is_a_decision_and_its_reason() {
        let answer = Answer::Hook {
            code: None,
            decision: HookDecision::Deny,
            reason: Some("no \"seal\"\n".into()),
            tool_input: None,
        };
        let frame = encode(&answer).unwrap();
        let body = frame.get(4..).unwrap();
        assert_eq!(
            serde_json::from_slice::<serde_json::Value>(body).unwrap(),
            serde_json::json!({"version": 2, "kind": "hook", "decision": "deny", "reason": "no \"seal\"\n"})
        );
        assert_eq!(decode::<Answer>(body).unwrap(), answer);
        for bad in [
            &br#"{"version":2,"kind":"hook","decision":"allow","reason":null}"#[..],
            br#"{"version":2,"kind":"hook","decision":"deny","reason":"r","exit_code":0}"#,
            br#"{"version":2,"kind":"hook","exit_code":0,"stdout":null,"stderr":null}"#,
        ] {
            assert_eq!(decode::<Answer>(bad).unwrap_err().code, Code::FrameInvalid);
        }
        let error = decode::<Answer>(br#"{"version":2,"kind":"error","code":"frame_invalid","reason":"r"}"#);
        assert_eq!(error.unwrap(), Answer::Error { code: Code::FrameInvalid, reason: "r".into() });
    }

    /// A failure carries its code as a field beside its reason, never in it (X-93).
    #[test]
    fn a_failure_carries_its_code_as_a_field() {
        let answer = Answer::Hook {
            code: Some(Code::StoreCorrupt),
            decision: HookDecision::Failed,
            reason: Some("x".into()),
            tool_input: None,
        };
        let frame = encode(&answer).unwrap();
        let body = frame.get(4..).unwrap();
        assert_eq!(
            serde_json::from_slice::<serde_json::Value>(body).unwrap(),
            serde_json::json!({"version": 2, "kind": "hook", "decision": "failed", "code": "store_corrupt", "reason": "x"})
        );
        assert_eq!(decode::<Answer>(body).unwrap(), answer);
    }

    /// A rewrite carries the whole input the call runs with; every other answer's frame is the one
    /// an older client reads, without the field (H-62).
    #[test]
    fn a_rewrite_carries_its_input_and_no_other_answer_does() {
        let input = serde_json::json!({"command": "'/w' 'v1' 'ls'", "timeout": 5});
        let answer = Answer::Hook {
            code: None,
            decision: HookDecision::Rewrite,
            reason: Some("confined".into()),
            tool_input: input.as_object().cloned(),
        };
        let frame = encode(&answer).unwrap();
        let body = frame.get(4..).unwrap();
        assert_eq!(
            serde_json::from_slice::<serde_json::Value>(body).unwrap(),
            serde_json::json!({"version": 2, "kind": "hook", "decision": "rewrite", "reason": "confined", "tool_input": input})
        );
        assert_eq!(decode::<Answer>(body).unwrap(), answer);
        let proceed =
            Answer::Hook { decision: HookDecision::Proceed, code: None, reason: None, tool_input: None };
        let frame = encode(&proceed).unwrap();
        assert!(!String::from_utf8_lossy(frame.get(4..).unwrap()).contains("tool_input"));
        let bad = br#"{"version":2,"kind":"hook","decision":"rewrite","reason":"r","tool_input":[]}"#;
        assert_eq!(
            decode::<Answer>(bad).unwrap_err().code,
            Code::FrameInvalid,
            "an input that is not an object"
        );
    }
}
