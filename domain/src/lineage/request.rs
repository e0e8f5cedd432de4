//! Lineage and tool-call requests, parsed strictly: duplicate keys, unknown fields, negative or
//! fractional depths, and invalid type names are refused (`request_invalid`, `duplicate_key`).

use serde::Deserialize;
use serde_json::Value;

use super::model::AgentIdentifier;
use super::pipeline::ToolCall;
use crate::json::{StrictJsonError, parse_strict};
use crate::verdict::Verdict;

/// `warden lineage check --lineage FILE`: a JSON array of agents (root first), or
/// `{"lineage": [...], "session"?: "…"}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineageRequest {
    /// Root → newest.
    pub lineage: Vec<AgentIdentifier>,
    /// Harness session id.
    pub session: Option<String>,
}

/// `warden authorize --request FILE`: `{"agent", "lineage", "tool", "session"?}`.
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
    session: Option<String>,
}

fn strict(text: &str) -> Result<Value, Verdict> {
    parse_strict(text).map_err(|e| match e {
        StrictJsonError::DuplicateKey { .. } => {
            Verdict::fail("duplicate_key", format!("request is ambiguous: {e}"))
        }
        _ => Verdict::fail("request_invalid", format!("request is not valid JSON: {e}")),
    })
}

fn invalid(e: &serde_json::Error) -> Verdict {
    Verdict::fail("request_invalid", format!("request does not have the expected shape: {e}"))
}

/// Parses a lineage request.
pub fn parse_lineage_request(text: &str) -> Result<LineageRequest, Verdict> {
    let value = strict(text)?;
    if value.is_array() {
        let lineage = serde_json::from_value(value).map_err(|e| invalid(&e))?;
        return Ok(LineageRequest { lineage, session: None });
    }
    let LineageObject { lineage, session } = serde_json::from_value(value).map_err(|e| invalid(&e))?;
    Ok(LineageRequest { lineage, session })
}

/// Parses a tool-call request.
pub fn parse_tool_call(text: &str) -> Result<ToolCallRequest, Verdict> {
    let ToolCallObject { agent, lineage, tool, session } =
        serde_json::from_value(strict(text)?).map_err(|e| invalid(&e))?;
    if tool.trim().is_empty() || tool.chars().count() > MAX_TOOL_LEN || tool.chars().any(char::is_control) {
        return Err(Verdict::fail(
            "request_invalid",
            format!("tool must be 1 to {MAX_TOOL_LEN} characters without control characters"),
        ));
    }
    Ok(ToolCallRequest { call: ToolCall { agent, lineage, tool }, session })
}
