//! The hook's input: one JSON object on stdin, as Claude Code's hooks reference describes it.
//!
//! Unknown fields are ignored (new ones appear often). The fields Warden uses are strict: a
//! field of the wrong type, a missing `session_id` or `hook_event_name`, a subagent call
//! without a `subagent_type` — each is an [`InputError`], which the hook answers with exit
//! code 2 (a deny for `PreToolUse`, a block for `SubagentStop`), never with a guess (H-1).

use serde_json::{Map, Value};

use crate::json::{parse_strict, type_name};

/// The tool names of the subagent tool: `Task` in older Claude Code versions, `Agent` in newer.
pub const SUBAGENT_TOOLS: [&str; 2] = ["Task", "Agent"];

/// Hook input larger than this is refused.
pub const MAX_HOOK_INPUT: usize = 1024 * 1024;

/// The calling subagent, when a tool call comes from inside one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallingAgent {
    /// Claude Code's id of the subagent.
    pub agent_id: String,
    /// Its type (the subagent definition's name).
    pub agent_type: String,
}

/// A call of the subagent tool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpawnRequest {
    /// `Task` or `Agent`.
    pub tool_name: String,
    /// The tool call's id.
    pub tool_use_id: String,
    /// The subagent type asked for.
    pub subagent_type: String,
    /// The prompt handed to the subagent (searched for a `result.json` it is asked to write).
    pub prompt: String,
    /// Who asks: a subagent, or the main session (`None`).
    pub caller: Option<CallingAgent>,
}

/// One hook event, as far as Warden governs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HookEvent {
    /// `PreToolUse` of `Task`/`Agent`: may this subagent be spawned?
    Spawn(SpawnRequest),
    /// `PreToolUse` of any other tool: not governed here.
    OtherTool {
        /// The tool's name.
        tool_name: String,
    },
    /// `SubagentStart`: a subagent began.
    SubagentStart(CallingAgent),
    /// `SubagentStop`: a subagent wants to stop.
    SubagentStop {
        /// The subagent.
        agent: CallingAgent,
        /// True when it is already going on because a stop hook blocked it before.
        stop_hook_active: bool,
    },
    /// Any other hook event: not governed here.
    Other {
        /// `hook_event_name`.
        name: String,
    },
}

/// A parsed hook input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HookInput {
    /// The Claude Code session.
    pub session_id: String,
    /// The session's working directory, when given.
    pub cwd: Option<String>,
    /// The event.
    pub event: HookEvent,
}

/// Why a hook input cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    /// Nothing on stdin.
    #[error("the hook input is empty")]
    Empty,
    /// Too large.
    #[error("the hook input is larger than {MAX_HOOK_INPUT} bytes")]
    TooLarge,
    /// Not JSON, or JSON with a duplicate key.
    #[error("the hook input is not valid JSON: {0}")]
    Json(String),
    /// Not an object.
    #[error("the hook input is {0}, not an object")]
    NotAnObject(&'static str),
    /// A field Warden needs is missing.
    #[error("the hook input has no `{0}`")]
    Missing(&'static str),
    /// A field has the wrong type or an empty value.
    #[error("`{field}` is {seen}, expected {expected}")]
    Invalid {
        /// The field (a path like `tool_input.subagent_type`).
        field: &'static str,
        /// What was seen.
        seen: String,
        /// What is expected.
        expected: &'static str,
    },
}

impl InputError {
    /// The stable code (X-1).
    pub fn code(&self) -> &'static str {
        match self {
            InputError::Empty => "hook_input_empty",
            InputError::TooLarge => "hook_input_too_large",
            InputError::Json(_) | InputError::NotAnObject(_) => "hook_input_invalid",
            InputError::Missing(_) => "hook_input_missing_field",
            InputError::Invalid { .. } => "hook_input_wrong_type",
        }
    }
}

fn string(object: &Map<String, Value>, field: &'static str) -> Result<Option<String>, InputError> {
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

fn required(object: &Map<String, Value>, field: &'static str) -> Result<String, InputError> {
    string(object, field)?.ok_or(InputError::Missing(field))
}

fn agent(object: &Map<String, Value>) -> Result<Option<CallingAgent>, InputError> {
    match (string(object, "agent_id")?, string(object, "agent_type")?) {
        (Some(agent_id), Some(agent_type)) => Ok(Some(CallingAgent { agent_id, agent_type })),
        (None, None) => Ok(None),
        (Some(_), None) => Err(InputError::Missing("agent_type")),
        (None, Some(_)) => Err(InputError::Missing("agent_id")),
    }
}

fn spawn(object: &Map<String, Value>, tool_name: String) -> Result<HookEvent, InputError> {
    let tool_use_id = required(object, "tool_use_id")?;
    let input = match object.get("tool_input") {
        Some(Value::Object(input)) => input,
        None | Some(Value::Null) => return Err(InputError::Missing("tool_input")),
        Some(other) => {
            return Err(InputError::Invalid {
                field: "tool_input",
                seen: type_name(other).to_owned(),
                expected: "an object",
            });
        }
    };
    let subagent_type = match string(input, "subagent_type") {
        Ok(Some(t)) => t,
        Ok(None) => return Err(InputError::Missing("tool_input.subagent_type")),
        Err(InputError::Invalid { seen, expected, .. }) => {
            return Err(InputError::Invalid { field: "tool_input.subagent_type", seen, expected });
        }
        Err(e) => return Err(e),
    };
    let prompt = match input.get("prompt") {
        Some(Value::String(p)) => p.clone(),
        None | Some(Value::Null) => String::new(),
        Some(other) => {
            return Err(InputError::Invalid {
                field: "tool_input.prompt",
                seen: type_name(other).to_owned(),
                expected: "a string",
            });
        }
    };
    Ok(HookEvent::Spawn(SpawnRequest {
        tool_name,
        tool_use_id,
        subagent_type,
        prompt,
        caller: agent(object)?,
    }))
}

/// Parses the hook input.
pub fn parse_hook_input(text: &str) -> Result<HookInput, InputError> {
    if text.len() > MAX_HOOK_INPUT {
        return Err(InputError::TooLarge);
    }
    if text.trim().is_empty() {
        return Err(InputError::Empty);
    }
    let value = parse_strict(text).map_err(|e| InputError::Json(e.to_string()))?;
    let Value::Object(object) = value else { return Err(InputError::NotAnObject(type_name(&value))) };
    let session_id = required(&object, "session_id")?;
    let name = required(&object, "hook_event_name")?;
    let cwd = string(&object, "cwd")?;
    let event = match name.as_str() {
        "PreToolUse" => {
            let tool_name = required(&object, "tool_name")?;
            if SUBAGENT_TOOLS.contains(&tool_name.as_str()) {
                spawn(&object, tool_name)?
            } else {
                HookEvent::OtherTool { tool_name }
            }
        }
        "SubagentStart" => HookEvent::SubagentStart(agent(&object)?.ok_or(InputError::Missing("agent_id"))?),
        "SubagentStop" => {
            let agent = agent(&object)?.ok_or(InputError::Missing("agent_id"))?;
            let stop_hook_active = match object.get("stop_hook_active") {
                None | Some(Value::Null) => false,
                Some(Value::Bool(b)) => *b,
                Some(other) => {
                    return Err(InputError::Invalid {
                        field: "stop_hook_active",
                        seen: type_name(other).to_owned(),
                        expected: "a boolean",
                    });
                }
            };
            HookEvent::SubagentStop { agent, stop_hook_active }
        }
        _ => HookEvent::Other { name },
    };
    Ok(HookInput { session_id, cwd, event })
}

/// The `result.json` a spawn's prompt asks for: the first whitespace-separated word that, with
/// surrounding quotes, backticks and punctuation removed, is a relative path ending in
/// `result.json` without `..` segments (H-4). `None` when the prompt names none.
pub fn requested_result_path(prompt: &str) -> Option<String> {
    prompt.split_whitespace().find_map(|word| {
        let quote = |c: char| matches!(c, '`' | '"' | '\'' | '(' | ')' | ',' | ';' | ':' | '<' | '>');
        let path = word.trim_start_matches(quote).trim_end_matches(|c| quote(c) || c == '.');
        let named = path == "result.json" || path.ends_with("/result.json");
        let inside = !path.starts_with('/') && !path.split(['/', '\\']).any(|p| p == "..");
        (named && inside).then(|| path.to_owned())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<HookInput, InputError> {
        parse_hook_input(text)
    }

    #[test]
    fn task_and_agent_are_spawns_inside_or_outside_a_subagent() {
        for tool in SUBAGENT_TOOLS {
            let main = format!(
                r#"{{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"{tool}","tool_use_id":"t1",
                   "tool_input":{{"subagent_type":"planner","prompt":"plan","description":"d","model":"x"}},
                   "brand_new_field":{{"a":1}}}}"#
            );
            let HookEvent::Spawn(spawn) = parse(&main).unwrap().event else { panic!("not a spawn") };
            assert_eq!((spawn.tool_name.as_str(), spawn.subagent_type.as_str()), (tool, "planner"));
            assert_eq!(spawn.caller, None);
            let nested =
                main.replace(r#""brand_new_field""#, r#""agent_id":"a1","agent_type":"planner","x""#);
            let HookEvent::Spawn(spawn) = parse(&nested).unwrap().event else { panic!("not a spawn") };
            assert_eq!(spawn.caller.unwrap().agent_type, "planner");
        }
    }

    #[test]
    fn bad_inputs_are_errors_with_their_codes() {
        let spawn = |input: &str| {
            format!(
                r#"{{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Task","tool_use_id":"t","tool_input":{input}}}"#
            )
        };
        let rows: [(&str, &str, &str); 10] = [
            ("", "hook_input_empty", "empty stdin"),
            ("   \n", "hook_input_empty", "only whitespace"),
            ("{not json", "hook_input_invalid", "invalid JSON"),
            ("[1]", "hook_input_invalid", "not an object"),
            (r#"{"hook_event_name":"PreToolUse"}"#, "hook_input_missing_field", "no session"),
            (&spawn("{}"), "hook_input_missing_field", "no subagent_type"),
            (&spawn(r#"{"subagent_type":7}"#), "hook_input_wrong_type", "subagent_type a number"),
            (&spawn(r#"{"subagent_type":" "}"#), "hook_input_wrong_type", "subagent_type blank"),
            (&spawn(r#""x""#), "hook_input_wrong_type", "tool_input a string"),
            (
                r#"{"session_id":"s","session_id":"t","hook_event_name":"Stop"}"#,
                "hook_input_invalid",
                "duplicate key",
            ),
        ];
        for (input, code, why) in rows {
            assert_eq!(parse(input).map(|_| ()).unwrap_err().code(), code, "{why}");
        }
    }

    #[test]
    fn input_up_to_the_limit_is_read_and_one_byte_more_is_refused() {
        let start =
            r#"{"session_id":"s","hook_event_name":"SubagentStart","agent_id":"a1","agent_type":"planner"}"#;
        let HookEvent::SubagentStart(agent) = parse(start).unwrap().event else { panic!("not a start") };
        assert_eq!((agent.agent_id.as_str(), agent.agent_type.as_str()), ("a1", "planner"));
        let padded = format!("{start}{}", " ".repeat(MAX_HOOK_INPUT - start.len()));
        assert_eq!(padded.len(), 1024 * 1024);
        assert!(matches!(parse(&padded).unwrap().event, HookEvent::SubagentStart(_)));
        assert_eq!(parse(&format!("{padded} ")).unwrap_err().code(), "hook_input_too_large");
    }

    #[test]
    fn other_tools_and_events_are_not_governed_but_still_parsed() {
        let other = r#"{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}"#;
        assert_eq!(parse(other).unwrap().event, HookEvent::OtherTool { tool_name: "Bash".into() });
        let stop = r#"{"session_id":"s","hook_event_name":"SubagentStop","agent_id":"a","agent_type":"coder",
                      "agent_transcript_path":"/t","stop_hook_active":true}"#;
        assert!(matches!(parse(stop).unwrap().event, HookEvent::SubagentStop { stop_hook_active: true, .. }));
        let stop_without_agent = r#"{"session_id":"s","hook_event_name":"SubagentStop"}"#;
        assert_eq!(parse(stop_without_agent).unwrap_err().code(), "hook_input_missing_field");
    }

    #[test]
    fn the_result_path_is_the_first_relative_result_json_named_in_the_prompt() {
        let rows = [
            ("write `runs/7/result.json` when done.", Some("runs/7/result.json")),
            ("write your report to `out/result.json`.", Some("out/result.json")),
            ("report to result.json", Some("result.json")),
            ("write /tmp/result.json", None),
            ("write ../result.json", None),
            ("no result asked", None),
            ("write out/my-result.json", None),
        ];
        for (prompt, expected) in rows {
            assert_eq!(requested_result_path(prompt).as_deref(), expected, "{prompt}");
        }
    }
}
