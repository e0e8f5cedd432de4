//! Gemini CLI runs the harness conformance suite (issue 40): each situation said as Gemini's
//! hooks say it (an `invoke_agent` call, `write_file` for a write, `read_file` for a read, the
//! `AfterTool` of the spawn for its agent's stop, `SessionStart`, `AfterAgent`), answered by the
//! kernel, rendered as Gemini reads it and read back strictly (M-1). Gemini names no agent: a
//! caller is never said, the kernel holds each call to the subagent running (M-2), and there is
//! no start to say.

use agentwarden::harness::Rendered;
use agentwarden::harness::conformance::{Agent, Scenarios, Spawn, Tool, ToolSpec, run_all};
use agentwarden::sessions::HookAnswer;
use serde_json::{Value, json};

use crate::wire::Gemini;
use crate::wire::read_back;

/// The fields every Gemini event carries, as 0.61.0 sends them.
fn event(session: &str, cwd: &str, name: &str, fields: Value) -> String {
    let mut event = json!({
        "session_id": session, "transcript_path": "/tmp/gemini/chats/session.jsonl", "cwd": cwd,
        "hook_event_name": name, "timestamp": "2026-11-26T21:58:01.177Z",
    });
    if let (Some(object), Value::Object(fields)) = (event.as_object_mut(), fields) {
        object.extend(fields);
    }
    event.to_string()
}

impl Scenarios for Gemini {
    fn spawn(&self, spawn: &Spawn<'_>) -> String {
        let input = json!({"agent_name": spawn.subagent_type, "prompt": spawn.prompt});
        event(
            spawn.session,
            spawn.cwd,
            "BeforeTool",
            json!({"tool_name": "invoke_agent", "tool_input": input}),
        )
    }

    fn tool(&self, tool: &Tool<'_>) -> String {
        let (name, input) = match tool.spec {
            ToolSpec::Write { path } => ("write_file", json!({"file_path": path, "content": "x"})),
            ToolSpec::Edit { path } => {
                ("replace", json!({"file_path": path, "old_string": "a", "new_string": "b"}))
            }
            ToolSpec::Read { path } => ("read_file", json!({"file_path": path})),
            ToolSpec::Search { root } => ("glob", json!({"dir_path": root, "pattern": "*"})),
            ToolSpec::Shell { tool, command } => (tool, json!({"command": command})),
        };
        event(tool.session, tool.cwd, "BeforeTool", json!({"tool_name": name, "tool_input": input}))
    }

    fn start(&self, _session: &str, _agent: Agent<'_>, _cwd: &str) -> Option<String> {
        None
    }

    fn stop(&self, session: &str, agent: Agent<'_>, cwd: &str) -> String {
        let input = json!({"agent_name": agent.agent_type, "prompt": agent.prompt});
        let response = json!({"llmContent": "done", "returnDisplay": "done"});
        event(
            session,
            cwd,
            "AfterTool",
            json!({"tool_name": "invoke_agent", "tool_input": input, "tool_response": response}),
        )
    }

    fn session_start(&self, session: &str, cwd: &str) -> String {
        event(session, cwd, "SessionStart", json!({"source": "startup"}))
    }

    fn session_stop(&self, session: &str, cwd: &str, stop_hook_active: bool) -> String {
        event(
            session,
            cwd,
            "AfterAgent",
            json!({"prompt": "p", "prompt_response": "done", "stop_hook_active": stop_hook_active}),
        )
    }

    fn session_end(&self, session: &str, cwd: &str) -> Option<String> {
        Some(event(session, cwd, "SessionEnd", json!({"reason": "exit"})))
    }

    fn read_back(&self, rendered: &Rendered) -> Result<HookAnswer, Box<dyn std::error::Error + Send + Sync>> {
        read_back(rendered.exit_code, rendered.stdout.as_deref(), rendered.stderr.as_deref())
            .map_err(Into::into)
    }

    /// Gemini CLI 0.61 gives its subagents no `invoke_agent` (M-22).
    /// A shell call runs under the launcher through the client's own input rewrite (C-20, M-29).
    fn confines_shell(&self) -> bool {
        true
    }

    fn subagents_spawn(&self) -> bool {
        false
    }
}

#[tokio::test]
async fn gemini_passes_the_harness_conformance_suite() {
    run_all(&Gemini).await;
}
