//! Codex CLI runs the harness conformance suite (issue 35): each situation said as Codex's hooks
//! say it (a `spawn_agent` call, `apply_patch` for a write, the shell's `cat` for a read,
//! `SubagentStart`, `SubagentStop`, `SessionStart`, the root's `Stop`), answered by the kernel, rendered as Codex reads it and read
//! back strictly (C-1).

use agentwarden::harness::Rendered;
use agentwarden::harness::conformance::{Agent, Scenarios, Spawn, Tool, ToolSpec, run_all};
use agentwarden::sessions::HookAnswer;
use serde_json::{Value, json};

use crate::wire::Codex;
use crate::wire::read_back;

/// The fields every Codex event carries, as 0.169.0 sends them.
fn event(session: &str, cwd: &str, name: &str) -> Value {
    json!({
        "session_id": session, "turn_id": "turn-1", "transcript_path": "/tmp/rollout.jsonl",
        "cwd": cwd, "hook_event_name": name, "model": "gpt-5.5", "permission_mode": "bypassPermissions",
    })
}

fn caller(event: &mut Value, agent: Option<Agent<'_>>) {
    if let (Some(agent), Some(object)) = (agent, event.as_object_mut()) {
        object.insert("agent_id".into(), agent.id.into());
        object.insert("agent_type".into(), agent.agent_type.into());
    }
}

fn with(mut event: Value, fields: Value) -> Value {
    if let (Some(object), Value::Object(fields)) = (event.as_object_mut(), fields) {
        object.extend(fields);
    }
    event
}

impl Scenarios for Codex {
    fn spawn(&self, spawn: &Spawn<'_>) -> String {
        let mut event = with(
            event(spawn.session, spawn.cwd, "PreToolUse"),
            json!({"tool_name": "spawn_agent", "tool_use_id": spawn.call_id,
                   "tool_input": {"message": spawn.prompt, "agent_type": spawn.subagent_type, "fork_context": false}}),
        );
        caller(&mut event, spawn.caller);
        event.to_string()
    }

    fn tool(&self, tool: &Tool<'_>) -> String {
        let (name, input) = match tool.spec {
            ToolSpec::Write { path } => (
                "apply_patch",
                json!({"command": format!("*** Begin Patch\n*** Add File: {path}\n+x\n*** End Patch\n")}),
            ),
            ToolSpec::Edit { path } => (
                "apply_patch",
                json!({"command": format!("*** Begin Patch\n*** Update File: {path}\n@@\n-a\n+b\n*** End Patch\n")}),
            ),
            ToolSpec::Read { path } => ("Bash", json!({"command": format!("cat {path}")})),
            ToolSpec::Search { root } => ("Bash", json!({"command": format!("ls {root}")})),
            ToolSpec::Shell { tool, command } => (tool, json!({"command": command})),
        };
        let mut event = with(
            event(tool.session, tool.cwd, "PreToolUse"),
            json!({"tool_name": name, "tool_use_id": tool.call_id, "tool_input": input}),
        );
        caller(&mut event, tool.caller);
        event.to_string()
    }

    fn start(&self, session: &str, agent: Agent<'_>, cwd: &str) -> Option<String> {
        let mut event = event(session, cwd, "SubagentStart");
        caller(&mut event, Some(agent));
        Some(event.to_string())
    }

    fn stop(&self, session: &str, agent: Agent<'_>, cwd: &str) -> String {
        let mut event = with(
            event(session, cwd, "SubagentStop"),
            json!({"agent_transcript_path": "/tmp/agent.jsonl", "stop_hook_active": false,
                   "last_assistant_message": "done"}),
        );
        caller(&mut event, Some(agent));
        event.to_string()
    }

    fn session_start(&self, session: &str, cwd: &str) -> String {
        with(event(session, cwd, "SessionStart"), json!({"source": "startup"})).to_string()
    }

    fn session_stop(&self, session: &str, cwd: &str, stop_hook_active: bool) -> String {
        with(
            event(session, cwd, "Stop"),
            json!({"stop_hook_active": stop_hook_active, "last_assistant_message": "done"}),
        )
        .to_string()
    }

    fn session_end(&self, session: &str, cwd: &str) -> Option<String> {
        Some(with(event(session, cwd, "SessionEnd"), json!({"reason": "other"})).to_string())
    }

    fn read_back(&self, rendered: &Rendered) -> Result<HookAnswer, Box<dyn std::error::Error + Send + Sync>> {
        read_back(rendered.exit_code, rendered.stdout.as_deref(), rendered.stderr.as_deref())
            .map_err(Into::into)
    }

    /// Codex reads files through its shell alone.
    /// A shell call runs under the launcher through the client's own input rewrite (C-20, M-29).
    fn confines_shell(&self) -> bool {
        true
    }

    fn reads_by_path(&self) -> bool {
        false
    }
}

#[tokio::test]
async fn codex_passes_the_harness_conformance_suite() {
    run_all(&Codex).await;
}
