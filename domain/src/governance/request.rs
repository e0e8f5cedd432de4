//! The gate request: `{"persona", "subagents"?, "opts": {"subagentGovernance"}, "session"?,
//! "turn"?}`, parsed strictly (duplicate keys anywhere: the request is ambiguous, G-5).
//!
//! A request that cannot be read is not an error to the caller: it is denied, with the
//! problem reported at every gate that needed the missing part (`request_invalid`).

use serde_json::Value;

use super::metadata::{Metadata, describe};
use super::names::show;
use super::report::{Code, Verdict};
use crate::verdict::Failed;
use crate::verdict::strict_request;

/// The request's top-level fields; any other is a warning.
pub const REQUEST_FIELDS: [&str; 5] = ["persona", "subagents", "opts", "session", "turn"];

/// A request as the gate sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// The persona's raw name, or why there is none.
    pub persona: Result<String, Verdict>,
    /// The subagents named (`None`: all the persona declares), or why the list is unusable.
    pub requested: Result<Option<Vec<String>>, Verdict>,
    /// `opts.subagentGovernance`.
    pub metadata: Metadata,
    /// BLAKE3 of the metadata's compact JSON (keys sorted), when present: the event records
    /// exactly what was seen without repeating it (G-10).
    pub metadata_digest: Option<String>,
    /// Harness session id, if given as a string.
    pub session: Option<String>,
    /// Turn id, if given as a string.
    pub turn: Option<String>,
    /// Non-blocking findings.
    pub warnings: Vec<String>,
}

impl Request {
    /// A request whose file could not be read (`request_unreadable`).
    pub fn unreadable_file(reason: impl Into<String>) -> Request {
        Request::unreadable(Failed::new(Code::RequestUnreadable, reason.into()))
    }

    /// The request read from its JSON text, strictly (G-5): whatever cannot be read is carried
    /// as the failing part's verdict, for the gates to report, never dropped.
    pub fn from_json(text: &str) -> Request {
        parse_request(text)
    }

    /// A request that could not be read at all: every part is missing for `failed`'s reason.
    pub fn unreadable(failed: Failed) -> Request {
        let metadata = Metadata::Unreadable { code: failed.code.clone(), reason: failed.reason.to_string() };
        let verdict = Verdict::from(failed);
        Request {
            persona: Err(verdict.clone()),
            requested: Err(verdict),
            metadata,
            metadata_digest: None,
            session: None,
            turn: None,
            warnings: Vec::new(),
        }
    }

    /// A request built from typed parts (a harness hook's spawn, issue 22): what
    /// [`Request::from_json`] returns for `{"persona", "subagents", "opts": {"subagentGovernance":
    /// metadata}, "session"}`, without writing that JSON and reading it back. The metadata's
    /// strict types are still checked where every request's are, by the gate.
    pub fn from_parts(persona: &str, subagents: &[&str], metadata: Value, session: Option<&str>) -> Request {
        let metadata = Metadata::Present(metadata);
        Request {
            persona: Ok(persona.to_owned()),
            requested: Ok(Some(subagents.iter().map(|name| (*name).to_owned()).collect())),
            metadata_digest: digest_of(&metadata),
            metadata,
            session: session.map(str::to_owned),
            turn: None,
            warnings: Vec::new(),
        }
    }
}

/// BLAKE3 of the metadata's compact JSON (keys sorted), when it is present (G-10).
fn digest_of(metadata: &Metadata) -> Option<String> {
    match metadata {
        Metadata::Present(value) => {
            serde_json::to_vec(value).ok().map(|bytes| blake3::hash(&bytes).to_hex().to_string())
        }
        Metadata::Absent | Metadata::Unreadable { .. } => None,
    }
}

fn invalid(reason: impl Into<std::borrow::Cow<'static, str>>) -> Verdict {
    Verdict::fail(Code::RequestInvalid, reason)
}

/// Parses a request's text.
fn parse_request(text: &str) -> Request {
    let value = match strict_request(text) {
        Ok(value) => value,
        Err(failed) => return Request::unreadable(failed),
    };
    let Value::Object(mut fields) = value else {
        let why = format!("request is {}, expected an object", describe(&value));
        return Request::unreadable(Failed::new(Code::RequestInvalid, why));
    };
    let mut warnings: Vec<String> = fields
        .keys()
        .filter(|k| !REQUEST_FIELDS.contains(&k.as_str()))
        .map(|k| format!("unknown request field {} (ignored)", show(k)))
        .collect();
    let persona = match fields.remove("persona") {
        Some(Value::String(name)) => Ok(name),
        None => Err(invalid("request has no persona")),
        Some(other) => Err(invalid(format!("persona is {}, expected a string", describe(&other)))),
    };
    let requested = match fields.remove("subagents") {
        None => Ok(None),
        Some(Value::Array(items)) => items
            .into_iter()
            .map(|item| match item {
                Value::String(name) => Ok(name),
                other => Err(invalid(format!("subagents holds {}, expected names", describe(&other)))),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(other) => Err(invalid(format!("subagents is {}, expected an array of names", describe(&other)))),
    };
    let metadata = match fields.remove("opts") {
        None => Metadata::Absent,
        Some(Value::Object(mut opts)) => match opts.remove("subagentGovernance") {
            None => Metadata::Absent,
            Some(value) => Metadata::Present(value),
        },
        Some(other) => Metadata::Unreadable {
            code: Code::RequestInvalid,
            reason: format!("opts is {}, expected an object", describe(&other)),
        },
    };
    let mut id = |field: &str| match fields.remove(field) {
        None => None,
        Some(Value::String(id)) => Some(id),
        Some(other) => {
            warnings.push(format!("{field} is {}, expected a string (ignored)", describe(&other)));
            None
        }
    };
    let (session, turn) = (id("session"), id("turn"));
    let metadata_digest = digest_of(&metadata);
    Request { persona, requested, metadata, metadata_digest, session, turn, warnings }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_from_typed_parts_is_the_request_its_json_would_be() {
        let metadata = serde_json::json!({
            "contextSealed": true,
            "pipelineRunApproved": false,
            "approvalRef": "R-1",
            "approvedBy": "human",
        });
        let json = serde_json::json!({
            "persona": "planner",
            "subagents": ["researcher"],
            "opts": {"subagentGovernance": metadata},
            "session": "s-1",
        });
        let typed = Request::from_parts("planner", &["researcher"], metadata, Some("s-1"));
        assert_eq!(typed, parse_request(&json.to_string()));
        assert!(typed.metadata_digest.is_some(), "the event records what the gate saw (G-10)");
    }

    #[test]
    fn typed_parts_still_carry_metadata_of_the_wrong_type_to_the_gate() {
        let metadata = serde_json::json!({"contextSealed": "true"});
        let typed = Request::from_parts("p", &["a"], metadata.clone(), None);
        assert_eq!(typed.metadata, Metadata::Present(metadata));
    }
}
