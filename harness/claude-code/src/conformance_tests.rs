//! Claude Code runs the harness conformance suite (issue 35): each situation said as Claude
//! Code's hooks say it (its `PreToolUse`, `SubagentStart`, `SubagentStop`, `SessionStart` and
//! `Stop` inputs), answered by the kernel, rendered as Claude Code reads it and read back
//! strictly.

use crate::wire::ClaudeCode;
use crate::wire::Rendering;
use agentwarden::harness::Rendered;
use agentwarden::harness::conformance::{Agent, Scenarios, Spawn, Tool, ToolSpec, run_all};
use agentwarden::sessions::HookAnswer;
use serde_json::{Value, json};

fn caller(event: &mut Value, agent: Option<Agent<'_>>) {
    if let (Some(agent), Some(object)) = (agent, event.as_object_mut()) {
        object.insert("agent_id".into(), agent.id.into());
        object.insert("agent_type".into(), agent.agent_type.into());
    }
}

impl Scenarios for ClaudeCode {
    fn spawn(&self, spawn: &Spawn<'_>) -> String {
        let mut event = json!({
            "session_id": spawn.session, "cwd": spawn.cwd, "hook_event_name": "PreToolUse",
            "tool_name": "Agent", "tool_use_id": spawn.call_id,
            "tool_input": {"subagent_type": spawn.subagent_type, "prompt": spawn.prompt, "description": "d"},
        });
        caller(&mut event, spawn.caller);
        event.to_string()
    }

    fn tool(&self, tool: &Tool<'_>) -> String {
        let (name, input) = match tool.spec {
            ToolSpec::Write { path } => ("Write", json!({"file_path": path, "content": "x"})),
            ToolSpec::Edit { path } => (
                "Edit",
                json!({"file_path": path, "old_string": "a", "new_string": "b", "replace_all": false}),
            ),
            ToolSpec::Read { path } => ("Read", json!({"file_path": path})),
            ToolSpec::Search { root } => ("Glob", json!({"path": root, "pattern": "*"})),
            ToolSpec::Shell { tool, command } => (
                tool,
                json!({"command": command, "description": "d", "timeout": 60000, "run_in_background": false}),
            ),
        };
        let mut event = json!({
            "session_id": tool.session, "cwd": tool.cwd, "hook_event_name": "PreToolUse",
            "tool_name": name, "tool_use_id": tool.call_id, "tool_input": input,
        });
        caller(&mut event, tool.caller);
        event.to_string()
    }

    fn start(&self, session: &str, agent: Agent<'_>, cwd: &str) -> Option<String> {
        let mut event = json!({"session_id": session, "cwd": cwd, "hook_event_name": "SubagentStart"});
        caller(&mut event, Some(agent));
        Some(event.to_string())
    }

    fn stop(&self, session: &str, agent: Agent<'_>, cwd: &str) -> String {
        let mut event = json!({
            "session_id": session, "cwd": cwd, "hook_event_name": "SubagentStop", "stop_hook_active": false,
        });
        caller(&mut event, Some(agent));
        event.to_string()
    }

    fn session_start(&self, session: &str, cwd: &str) -> String {
        json!({"session_id": session, "cwd": cwd, "hook_event_name": "SessionStart", "source": "startup",
               "transcript_path": "/tmp/t.jsonl"})
        .to_string()
    }

    fn session_stop(&self, session: &str, cwd: &str, stop_hook_active: bool) -> String {
        json!({"session_id": session, "cwd": cwd, "hook_event_name": "Stop",
               "stop_hook_active": stop_hook_active, "transcript_path": "/tmp/t.jsonl"})
        .to_string()
    }

    fn session_end(&self, session: &str, cwd: &str) -> Option<String> {
        let end = json!({"session_id": session, "cwd": cwd, "hook_event_name": "SessionEnd", "reason": "other",
                         "transcript_path": "/tmp/t.jsonl"});
        Some(end.to_string())
    }

    fn read_back(&self, rendered: &Rendered) -> Result<HookAnswer, Box<dyn std::error::Error + Send + Sync>> {
        HookAnswer::from_rendering(rendered.exit_code, rendered.stdout.as_deref(), rendered.stderr.as_deref())
            .map_err(Into::into)
    }

    fn confines_shell(&self) -> bool {
        true
    }

    fn allow_shell(&self, root: &std::path::Path, rule: &str) {
        let settings = json!({"permissions": {"allow": [rule]}});
        std::fs::create_dir_all(root.join(".claude")).unwrap();
        std::fs::write(root.join(".claude/settings.json"), settings.to_string()).unwrap();
    }
}

#[tokio::test]
async fn claude_code_passes_the_harness_conformance_suite() {
    run_all(&ClaudeCode).await;
}
