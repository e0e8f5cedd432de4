//! What the fake Messages API received, as a test reads it back: one logged request, the
//! text of a message's content, a tool result as the model saw it.

use serde_json::Value;

/// One request the fake received.
#[derive(Debug, Clone)]
pub struct LoggedRequest {
    /// `POST`, `GET`, `CONNECT`, …
    pub method: String,
    /// The request target as sent (`/v1/messages?beta=true`, or `host:443` for a `CONNECT`).
    pub target: String,
    /// The `Host` header.
    pub host: String,
    /// The body parsed as JSON, when it is JSON.
    pub body: Option<Value>,
    /// Addressed to some host other than this fake (refused with 403).
    pub foreign: bool,
}

impl LoggedRequest {
    /// The messages of a Messages API request (empty for any other request).
    pub fn messages(&self) -> &[Value] {
        self.body
            .as_ref()
            .and_then(|b| b.get("messages"))
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice)
    }

    /// The text of the first message: the `-p` prompt for the main session, the spawn's prompt
    /// for a subagent. A [`Script`](super::Script) tells agents apart by it.
    pub fn first_text(&self) -> String {
        self.messages().first().map(|m| text_of(m.get("content"))).unwrap_or_default()
    }

    /// True if this is a Messages API call made by the agent whose first message holds `marker`.
    pub fn is_agent(&self, marker: &str) -> bool {
        self.method == "POST" && self.target.starts_with("/v1/messages") && self.first_text().contains(marker)
    }
}

/// The text blocks of a message's `content` (a string or a list of blocks), joined by spaces.
pub fn text_of(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(" "),
        _ => String::new(),
    }
}

/// A tool result as the model saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolResult {
    /// The `tool_use_id` it answers.
    pub tool_use_id: String,
    /// Its text (the text blocks joined, or the string content).
    pub text: String,
    /// `is_error: true`.
    pub is_error: bool,
}
