//! Copilot CLI runs the harness conformance suite (issue 51): each situation said as Copilot's
//! Claude-style hooks say it (an `Agent` call for a spawn, `Write` for a write, `Edit` for an
//! edit, `Read` and `Glob` for a read and a search, `SubagentStart` in its shape without an
//! event name, `SubagentStop` for an agent's stop, `SessionStart`, `Stop`, `SessionEnd`), answered
//! by the kernel, rendered as Copilot reads it and read back strictly. A subagent's event is its
//! own session id with `agent_id`, `agent_type` and `parent_agent_id` (H-66).

use agentwarden::harness::Rendered;
use agentwarden::harness::conformance::{Agent, Scenarios, Spawn, Tool, ToolSpec, run_all};
use agentwarden::sessions::HookAnswer;
use serde_json::{Value, json};

use crate::wire::{Copilot, read_back};

/// An event as Copilot 1.0.102 sends it: from the main session (`caller` `None`), or from a
/// subagent, whose `session_id` is its own id and whose parent is the main session.
fn event(session: &str, caller: Option<Agent<'_>>, cwd: &str, name: &str, fields: Value) -> String {
    let mut event = json!({
        "hook_event_name": name, "session_id": session,
        "timestamp": "2026-11-28T21:43:57.203Z", "cwd": cwd,
    });
    if let Some(object) = event.as_object_mut() {
        if let Some(agent) = caller {
            object.insert("session_id".into(), json!(agent.id));
            object.insert("agent_id".into(), json!(agent.id));
            object.insert("agent_type".into(), json!(agent.agent_type));
            object.insert("parent_agent_id".into(), json!(session));
        }
        if let Value::Object(fields) = fields {
            object.extend(fields);
        }
    }
    event.to_string()
}

impl Scenarios for Copilot {
    fn spawn(&self, spawn: &Spawn<'_>) -> String {
        let input = json!({
            "name": "helper", "description": "d", "prompt": spawn.prompt, "agent_type": spawn.subagent_type,
        });
        event(
            spawn.session,
            spawn.caller,
            spawn.cwd,
            "PreToolUse",
            json!({"tool_name": "Agent", "tool_input": input}),
        )
    }

    fn tool(&self, tool: &Tool<'_>) -> String {
        let (name, input) = match tool.spec {
            ToolSpec::Write { path } => ("Write", json!({"path": path, "file_text": "x"})),
            ToolSpec::Edit { path } => ("Edit", json!({"path": path, "old_str": "a", "new_str": "b"})),
            ToolSpec::Read { path } => ("Read", json!({"path": path})),
            ToolSpec::Search { root } => ("Glob", json!({"pattern": "*", "paths": root})),
            ToolSpec::Shell { tool, command } => (tool, json!({"command": command, "description": "d"})),
        };
        event(
            tool.session,
            tool.caller,
            tool.cwd,
            "PreToolUse",
            json!({"tool_name": name, "tool_input": input}),
        )
    }

    fn start(&self, session: &str, agent: Agent<'_>, cwd: &str) -> Option<String> {
        // Copilot 1.0.102's `SubagentStart`: no event name, `sessionId` in camelCase (H-66).
        Some(
            json!({
                "sessionId": session, "timestamp": 1_795_902_237_232_u64, "cwd": cwd,
                "transcriptPath": format!("/home/u/.copilot/session-state/{session}/events.jsonl"),
                "agentName": agent.agent_type, "agent_id": agent.id, "agent_type": agent.agent_type,
                "parent_agent_id": session,
            })
            .to_string(),
        )
    }

    fn stop(&self, session: &str, agent: Agent<'_>, cwd: &str) -> String {
        let fields = json!({
            "session_id": session, "agent_name": agent.agent_type, "stop_reason": "end_turn",
            "stop_hook_active": false,
        });
        // `SubagentStop` carries the parent's id as its `session_id` (the field given wins).
        event(session, Some(agent), cwd, "SubagentStop", fields)
    }

    fn session_start(&self, session: &str, cwd: &str) -> String {
        event(session, None, cwd, "SessionStart", json!({"source": "new", "initial_prompt": "p"}))
    }

    fn session_stop(&self, session: &str, cwd: &str, stop_hook_active: bool) -> String {
        event(
            session,
            None,
            cwd,
            "Stop",
            json!({"stop_reason": "end_turn", "stop_hook_active": stop_hook_active}),
        )
    }

    fn session_end(&self, session: &str, cwd: &str) -> Option<String> {
        Some(event(session, None, cwd, "SessionEnd", json!({"reason": "complete"})))
    }

    fn read_back(&self, rendered: &Rendered) -> Result<HookAnswer, Box<dyn std::error::Error + Send + Sync>> {
        read_back(rendered.exit_code, rendered.stdout.as_deref(), rendered.stderr.as_deref())
            .map_err(Into::into)
    }

    /// Copilot's subagents get `task` too (seen with 1.0.102).
    fn subagents_spawn(&self) -> bool {
        true
    }

    /// No shell call runs under the launcher: Copilot is not handed a replaced input (H-68).
    fn confines_shell(&self) -> bool {
        false
    }
}

#[tokio::test]
async fn copilot_passes_the_harness_conformance_suite() {
    run_all(&Copilot).await;
}
