//! Lineage and tool-call requests, parsed strictly: duplicate keys, unknown fields, negative or
//! fractional depths, and invalid type names are refused (`request_invalid`, `duplicate_key`).

use serde::Deserialize;

use super::model::AgentIdentifier;
use super::pipeline::ToolCall;
use super::real_path::ResolvePath;
use super::tool_use::{RulesAs, ToolUse};
use crate::verdict::{Code, Failed, strict_request};

/// `warden lineage check --lineage FILE`: a JSON array of agents (root first), or
/// `{"lineage": [...], "session"?: "…"}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineageRequest {
    /// Root → newest.
    pub lineage: Vec<AgentIdentifier>,
    /// Harness session id.
    pub session: Option<String>,
}

/// `warden authorize --request FILE`: `{"agent", "lineage", "tool", "input"?, "cwd"?,
/// "session"?}`; `input` is the tool's input as the harness sends it, which the manifest's rule
/// specifiers are compared with (T-2), read by the integration's reading of that harness's
/// calls, as its hook reads them: every path it names, each resolved or not at all (T-8,
/// T-13, T-14, T-16); `cwd` is where a relative path in it starts (default: the project root).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolCallRequest {
    /// The call.
    pub call: ToolCall,
    /// Harness session id.
    pub session: Option<String>,
}

/// The longest tool name accepted.
pub const MAX_TOOL_LEN: usize = 128;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LineageObject {
    lineage: Vec<AgentIdentifier>,
    session: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolCallObject {
    agent: AgentIdentifier,
    #[serde(default)]
    lineage: Vec<AgentIdentifier>,
    tool: String,
    input: Option<serde_json::Map<String, serde_json::Value>>,
    cwd: Option<String>,
    session: Option<String>,
}

fn invalid(e: &serde_json::Error) -> Failed {
    Failed::new(Code::RequestInvalid, format!("request does not have the expected shape: {e}"))
}

impl LineageRequest {
    /// A lineage request read from its JSON text, strictly; why it cannot be one is the
    /// decision's reason (a deny).
    pub fn from_json(text: &str) -> Result<LineageRequest, Failed> {
        let value = strict_request(text)?;
        if value.is_array() {
            let lineage = serde_json::from_value(value).map_err(|e| invalid(&e))?;
            return Ok(LineageRequest { lineage, session: None });
        }
        let LineageObject { lineage, session } = serde_json::from_value(value).map_err(|e| invalid(&e))?;
        Ok(LineageRequest { lineage, session })
    }
}

impl ToolCallRequest {
    /// A tool-call request read from its JSON text, strictly; `root` is the project root
    /// (absolute), against which paths in the input are read (T-8), each placed where it lands
    /// by `resolve`, as the hook places it (T-17); `read` is the integration's reading of a
    /// tool's name and input (T-16); a tool it does not know is refused (`request_invalid`), as
    /// no rule grants it in the hook (C-6).
    pub fn from_json(
        text: &str,
        root: &str,
        read: impl FnOnce(&str, &serde_json::Value) -> RulesAs,
        resolve: &dyn ResolvePath,
    ) -> Result<ToolCallRequest, Failed> {
        parse_tool_call(text, root, read, resolve)
    }
}

fn parse_tool_call(
    text: &str,
    root: &str,
    read: impl FnOnce(&str, &serde_json::Value) -> RulesAs,
    resolve: &dyn ResolvePath,
) -> Result<ToolCallRequest, Failed> {
    let ToolCallObject { agent, lineage, tool, input, cwd, session } =
        serde_json::from_value(strict_request(text)?).map_err(|e| invalid(&e))?;
    if tool.trim().is_empty() || tool.chars().count() > MAX_TOOL_LEN || tool.chars().any(char::is_control) {
        return Err(Failed::new(
            Code::RequestInvalid,
            format!("tool must be 1 to {MAX_TOOL_LEN} characters without control characters"),
        ));
    }
    let tool = match input.map(|input| read(&tool, &serde_json::Value::Object(input))) {
        None => ToolUse::named(tool),
        Some(RulesAs::Call { tool, argument }) => {
            ToolUse::resolve(&tool, &argument, cwd.as_deref().unwrap_or(root), root, resolve)
        }
        // A tool the integration does not know is granted by no rule (C-6).
        Some(RulesAs::Unknown) => {
            return Err(Failed::new(
                Code::RequestInvalid,
                format!(
                    "{} is a tool the harness's integration does not know: no rule grants it",
                    crate::governance::show(&tool)
                ),
            ));
        }
    };
    Ok(ToolCallRequest { call: ToolCall { agent, lineage, tool }, session })
}
