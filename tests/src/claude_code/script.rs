//! What the fake model says: a [`Script`] of agents, each known by a marker in its first
//! message (the `-p` prompt for the main session, the spawn's `prompt` for a subagent), each a
//! list of turns. The turn an agent gets is the one at the index of how many assistant messages
//! its request already holds: turn 0 answers the prompt, turn 1 answers the first tool result
//! (or the first blocked stop's feedback), and so on. Past its last turn an agent ends with the
//! text `MARKER DONE`.
//!
//! ```
//! use agentwarden_tests::claude_code::{Block, Script, Turn};
//! use serde_json::json;
//!
//! let script = Script::new()
//!     // The main session: spawn the planner, then end.
//!     .agent("MAINTASK", vec![Turn::one(Block::tool_with_id("toolu_spawn", "Agent", json!({
//!         "description": "Plan", "prompt": "PLANTASK plan the change",
//!         "subagent_type": "planner", "run_in_background": false})))])
//!     // The planner: answer with text (no turns: `PLANTASK DONE`).
//!     .agent("PLANTASK", vec![]);
//! # let _ = script;
//! ```

use std::fmt;

use serde_json::Value;

use super::request::LoggedRequest;

/// One content block of a model turn.
#[derive(Debug, Clone)]
pub enum Block {
    /// A text block.
    Text(String),
    /// A tool call. `$AGENT_ID` in any string of `input` becomes the last agent id the
    /// conversation names (`agentId: …`), so a script can `SendMessage` to an agent it spawned.
    ToolUse {
        /// The `tool_use_id`; `None`: a fresh `toolu_fake_N`.
        id: Option<String>,
        /// The tool's name (`Agent`, `Write`, `Bash`, `SendMessage`, `Workflow`, …).
        name: String,
        /// The tool's input.
        input: Value,
    },
}

impl Block {
    /// A text block.
    pub fn text(text: &str) -> Self {
        Self::Text(text.to_owned())
    }

    /// A tool call with a fresh id.
    pub fn tool(name: &str, input: Value) -> Self {
        Self::ToolUse { id: None, name: name.to_owned(), input }
    }

    /// A tool call with a fixed id, so a test can find its result
    /// ([`super::FakeApi::tool_result`]).
    pub fn tool_with_id(id: &str, name: &str, input: Value) -> Self {
        Self::ToolUse { id: Some(id.to_owned()), name: name.to_owned(), input }
    }
}

/// One model turn: its blocks. A turn with a tool call ends with `stop_reason: "tool_use"`,
/// any other with `end_turn`.
#[derive(Debug, Clone)]
pub struct Turn(pub Vec<Block>);

impl Turn {
    /// A turn of one block.
    pub fn one(block: Block) -> Self {
        Self(vec![block])
    }

    /// A turn of text only.
    pub fn text(text: &str) -> Self {
        Self(vec![Block::text(text)])
    }
}

type Decide = Box<dyn Fn(&LoggedRequest, usize) -> Option<Turn> + Send + Sync>;

struct Agent {
    marker: String,
    decide: Decide,
}

/// The fake model's script. Agents are tried in the order they were added; the first whose
/// marker is in the request's first message answers. A request no agent claims (a side request)
/// gets the text `ok`.
#[derive(Default)]
pub struct Script {
    agents: Vec<Agent>,
}

impl fmt::Debug for Script {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.agents.iter().map(|a| &a.marker)).finish()
    }
}

impl Script {
    /// An empty script: every request gets `ok`.
    pub fn new() -> Self {
        Self::default()
    }

    /// The agent whose first message holds `marker` plays `turns`, then ends with `MARKER DONE`.
    pub fn agent(self, marker: &str, turns: Vec<Turn>) -> Self {
        self.agent_fn(marker, move |_, step| turns.get(step).cloned())
    }

    /// The agent whose first message holds `marker` answers with `decide(request, step)`
    /// (`step`: how many assistant messages the request holds); `None` ends it with
    /// `MARKER DONE`. For turns that depend on what the agent was shown.
    pub fn agent_fn(
        mut self,
        marker: &str,
        decide: impl Fn(&LoggedRequest, usize) -> Option<Turn> + Send + Sync + 'static,
    ) -> Self {
        self.agents.push(Agent { marker: marker.to_owned(), decide: Box::new(decide) });
        self
    }

    /// The turn for `request`.
    pub fn decide(&self, request: &LoggedRequest) -> Turn {
        let first = request.first_text();
        let step = request
            .messages()
            .iter()
            .filter(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
            .count();
        match self.agents.iter().find(|a| first.contains(&a.marker)) {
            Some(agent) => {
                (agent.decide)(request, step).unwrap_or_else(|| Turn::text(&format!("{} DONE", agent.marker)))
            }
            None => Turn::text("ok"),
        }
    }
}
