//! The hook JSON the harnesses share, read strictly (H-1): the fields of a hook event's object
//! as every integration reads them — its strings and ids (H-25), the calling agent (`agent_id`
//! and `agent_type`, never the main session's reserved id, H-45), `stop_hook_active`, the
//! `tool_input` object and its fields, a `SessionEnd`'s `reason` (H-48). Each harness's own
//! shapes stay in its integration crate; the kernel's types they read into are the domain's.

use agentwarden_domain::json::{parse_strict, type_name};
use agentwarden_domain::sessions::{CallingAgent, InputError, MAX_HOOK_INPUT, ROOT_ID, is_safe_id};
use serde_json::{Map, Value};

/// A hook event's JSON object with the fields every harness's events carry.
#[derive(Debug)]
pub struct EventObject {
    /// The whole object, for the harness's own fields.
    pub object: Map<String, Value>,
    /// `session_id`, a safe id (H-25).
    pub session_id: String,
    /// `hook_event_name`.
    pub name: String,
    /// `cwd`, when given.
    pub cwd: Option<String>,
}

/// The text on a hook's stdin read as one event's object (H-1): at most [`MAX_HOOK_INPUT`]
/// bytes, not blank, strict JSON (no duplicate key), an object, with a safe `session_id` and a
/// `hook_event_name`; `cwd` a string when given. Anything else is its [`InputError`].
pub fn event_object(text: &str) -> Result<EventObject, InputError> {
    if text.len() > MAX_HOOK_INPUT {
        return Err(InputError::TooLarge);
    }
    if text.trim().is_empty() {
        return Err(InputError::Empty);
    }
    let value = parse_strict(text).map_err(|e| InputError::Json(e.to_string()))?;
    let Value::Object(object) = value else { return Err(InputError::NotAnObject(type_name(&value))) };
    let session_id = optional_id(&object, "session_id")?.ok_or(InputError::Missing("session_id"))?;
    let name = required_string(&object, "hook_event_name")?;
    let cwd = optional_string(&object, "cwd")?;
    Ok(EventObject { object, session_id, name, cwd })
}

/// A field of a hook event's JSON object that must be a non-empty string when present: absent or
/// `null` is `None`, anything else an [`InputError`] naming the field and what was seen (H-1).
/// Every integration's reader reads its fields through it.
pub fn optional_string(
    object: &Map<String, Value>,
    field: &'static str,
) -> Result<Option<String>, InputError> {
    match object.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(Some(s.clone())),
        Some(Value::String(_)) => {
            Err(InputError::Invalid { field, seen: "an empty string".into(), expected: "a non-empty string" })
        }
        Some(other) => Err(InputError::Invalid {
            field,
            seen: type_name(other).to_owned(),
            expected: "a non-empty string",
        }),
    }
}

/// [`optional_string`], and missing is an [`InputError::Missing`].
pub fn required_string(object: &Map<String, Value>, field: &'static str) -> Result<String, InputError> {
    optional_string(object, field)?.ok_or(InputError::Missing(field))
}

/// [`optional_string`] for an id, which names files: it must pass [`is_safe_id`] (H-25).
pub fn optional_id(object: &Map<String, Value>, field: &'static str) -> Result<Option<String>, InputError> {
    match optional_string(object, field)? {
        Some(id) if !is_safe_id(&id) => Err(InputError::UnsafeId { field }),
        other => Ok(other),
    }
}

/// The longest `reason` a session's end records, in characters.
const MAX_END_REASON: usize = 64;

/// A `SessionEnd`'s `reason`, read leniently: it only says why, so a reason absent, blank or
/// of another type is `None` rather than a refused input, which would leave the session's
/// protected paths unchecked at its end (H-48); cut at 64 characters.
pub fn session_end_reason(object: &Map<String, Value>) -> Option<String> {
    let reason = optional_string(object, "reason").ok().flatten()?;
    Some(reason.chars().take(MAX_END_REASON).collect())
}

/// A text field of a hook event's input that may be empty (a spawn's prompt): absent or `null`
/// is the empty text, a string itself, anything else an [`InputError`] naming `field` (H-1).
pub fn optional_text(
    object: &Map<String, Value>,
    key: &str,
    field: &'static str,
) -> Result<String, InputError> {
    match object.get(key) {
        Some(Value::String(text)) => Ok(text.clone()),
        None | Some(Value::Null) => Ok(String::new()),
        Some(other) => {
            Err(InputError::Invalid { field, seen: type_name(other).to_owned(), expected: "a string" })
        }
    }
}

/// The agent a hook event comes from: `agent_id` (a safe id, H-25) and `agent_type` together,
/// or neither (the main session); one without the other is an [`InputError`]. An `agent_id`
/// that is [`ROOT_ID`], the id the main session's snapshot is kept under, is refused (H-45).
pub fn calling_agent(object: &Map<String, Value>) -> Result<Option<CallingAgent>, InputError> {
    let agent_id = optional_id(object, "agent_id")?;
    if agent_id.as_deref() == Some(ROOT_ID) {
        return Err(InputError::Invalid {
            field: "agent_id",
            seen: format!("`{ROOT_ID}`"),
            expected: "an id other than the one Warden keeps for the main session",
        });
    }
    match (agent_id, optional_string(object, "agent_type")?) {
        (Some(agent_id), Some(agent_type)) => Ok(Some(CallingAgent { agent_id, agent_type })),
        (None, None) => Ok(None),
        (Some(_), None) => Err(InputError::Missing("agent_type")),
        (None, Some(_)) => Err(InputError::Missing("agent_id")),
    }
}

/// `stop_hook_active`: absent or `null` is false, a boolean itself, anything else an error (H-1).
pub fn stop_hook_active(object: &Map<String, Value>) -> Result<bool, InputError> {
    match object.get("stop_hook_active") {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(other) => Err(InputError::Invalid {
            field: "stop_hook_active",
            seen: type_name(other).to_owned(),
            expected: "a boolean",
        }),
    }
}

/// `tool_input` as an object, or why not: missing, or of another type (C-2).
pub fn tool_input(object: &Map<String, Value>) -> Result<&Map<String, Value>, InputError> {
    match object.get("tool_input") {
        Some(Value::Object(input)) => Ok(input),
        None | Some(Value::Null) => Err(InputError::Missing("tool_input")),
        Some(other) => Err(InputError::Invalid {
            field: "tool_input",
            seen: type_name(other).to_owned(),
            expected: "an object",
        }),
    }
}

/// [`optional_string`] of a field of `tool_input`, named in the reason by its path
/// (`qualified`, `tool_input.FIELD`).
pub fn tool_input_string(
    input: &Map<String, Value>,
    field: &'static str,
    qualified: &'static str,
) -> Result<Option<String>, InputError> {
    optional_string(input, field).map_err(|e| match e {
        InputError::Invalid { seen, expected, .. } => {
            InputError::Invalid { field: qualified, seen, expected }
        }
        other => other,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn object(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(object) => object,
            _ => Map::new(),
        }
    }

    #[test]
    fn the_shared_fields_are_read_strictly() {
        assert_eq!(stop_hook_active(&object(json!({}))), Ok(false));
        assert_eq!(stop_hook_active(&object(json!({"stop_hook_active": true}))), Ok(true));
        assert!(stop_hook_active(&object(json!({"stop_hook_active": "yes"}))).is_err());
        let reserved = object(json!({"agent_id": ROOT_ID, "agent_type": "p"}));
        assert!(calling_agent(&reserved).is_err(), "H-45: the main session's id");
        assert!(calling_agent(&object(json!({"agent_id": "a"}))).is_err(), "no type");
        assert!(tool_input(&object(json!({"tool_input": "x"}))).is_err());
        let input = object(json!({"file_path": 3}));
        let e = tool_input_string(&input, "file_path", "tool_input.file_path").unwrap_err();
        assert!(matches!(e, InputError::Invalid { field: "tool_input.file_path", .. }), "{e:?}");
        let long = object(json!({"reason": "x".repeat(100)}));
        assert_eq!(session_end_reason(&long).map(|r| r.len()), Some(64), "H-48: cut at 64");
        assert_eq!(session_end_reason(&object(json!({"reason": 7}))), None, "read leniently");
    }
}
