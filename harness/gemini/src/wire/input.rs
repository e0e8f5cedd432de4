//! The hook's input: one JSON object on stdin, as Gemini CLI 0.61.0 sends it (`docs/gemini.md`
//! writes down what was seen), parsed into the kernel's [`HookInput`].
//!
//! Unknown fields are ignored. The fields Warden uses are strict, as for Claude Code and Codex
//! (H-1, H-25): a missing `session_id` or `hook_event_name`, a field of the wrong type, an id
//! that is not safe as a file name — each an [`InputError`], answered exit 2. Gemini's own
//! shapes:
//!
//! - no event names the agent it comes from: a subagent's calls carry its parent's
//!   `session_id` and no agent field, so every input is [`Attribution::InFlight`] and the kernel
//!   holds a call to the subagents running (M-2);
//! - a spawn is a `BeforeTool` of `invoke_agent` (`agent_name`, `prompt`); Gemini gives it no call
//!   id, so it is named by the digest of its session, agent and prompt ([`spawn_id`]), which the
//!   `AfterTool` that ends it names again: that end is the subagent's stop (M-2, M-4);
//! - the shell (`run_shell_command`) is the rule syntax's `Bash`; `write_file` and `replace`
//!   write the `file_path` they name (checked against the protected paths, read by the rules as
//!   `Edit`); the readers are `Read` of the paths they name, or not resolved (M-5);
//! - `complete_task`, a subagent's report of its end, is not governed (it runs nothing);
//! - `SessionStart` and `AfterAgent` (the end of each turn of the main session, with
//!   `stop_hook_active`) are the session's start and stop (H-45, H-46), `SessionEnd` its end
//!   (H-48);
//! - a `tool_input` that is not an object is refused for every tool Warden reads an input of;
//! - every `BeforeTool` names its call by the digest of its tool and `tool_input` (Gemini gives
//!   no call id), kept when Warden lets it proceed; every `AfterTool` names the call that ran the
//!   same way, checked against what was kept: another hook may have replaced the input (H-55).

use agentwarden_domain::lineage::{CallArgument, syntax};
use agentwarden_domain::sessions::{
    Attribution, CallInput, CallStage, CallingAgent, HarnessProfile, HarnessTerms, HookEvent, HookInput,
    InputError, RulesAs, ShellInput, SpawnRequest, ToolCall, ToolKind, input_digest,
};
use agentwarden_protocol::hook_json::{
    EventObject, event_object, optional_text, required_string as required, session_end_reason,
    stop_hook_active, tool_input as input_object, tool_input_string as input_string,
};
use serde_json::{Map, Value};

/// The tool that spawns a subagent.
pub const SPAWN_TOOL: &str = "invoke_agent";

/// The tool a subagent reports its end with.
pub const COMPLETE_TOOL: &str = "complete_task";

/// Gemini CLI's shell tool.
pub const SHELL_TOOL: &str = "run_shell_command";

/// Every tool of Gemini CLI's that runs a shell command line: what it writes is checked for
/// every agent (T-31).
pub const SHELL_TOOLS: [&str; 1] = [SHELL_TOOL];

/// The tools that write the one file their `file_path` names: the whole file, or a replacement
/// in it.
pub const WRITE_TOOLS: [&str; 2] = ["write_file", "replace"];

/// Gemini CLI's built-in subagents (0.61.0): they have no instruction file of the project's, so
/// a spawn of one is denied unless the configuration allows it (H-20).
pub const BUILTIN_AGENTS: [&str; 4] = ["codebase_investigator", "cli_help", "generalist", "browser_agent"];

/// Gemini CLI to the kernel: its words, and what its `[gemini]` section may list — its own
/// built-in subagents and no tool that starts agents past the gate (it has none) (U-17). Its
/// settings were read from `[claude_code]` before each harness had its own section (U-18).
pub const PROFILE: HarnessProfile = HarnessProfile {
    terms: HarnessTerms { harness: "Gemini CLI", section: "gemini" },
    builtin_agents: &BUILTIN_AGENTS,
    agent_tools: &[],
    formerly: Some("claude_code"),
};

/// The tools Warden knows without reading their input: the rules grant them by name.
pub const KNOWN_TOOLS: [&str; 17] = [
    "google_web_search",
    "write_todos",
    "activate_skill",
    "ask_user",
    "enter_plan_mode",
    "exit_plan_mode",
    "get_internal_docs",
    "update_topic",
    "list_mcp_resources",
    "read_mcp_resource",
    "tracker_add_dependency",
    "tracker_create_task",
    "tracker_get_task",
    "tracker_list_tasks",
    "tracker_update_task",
    "tracker_visualize",
    COMPLETE_TOOL,
];

/// The prefix of an MCP tool's name in Gemini CLI.
pub const MCP_PREFIX: &str = "mcp_";

/// The id Warden gives the agent a spawn of `agent_name` with `prompt` in `session` starts: the
/// spawn's call id and the agent's id both. Gemini names neither, and the `AfterTool` that ends
/// the spawn repeats its input, so the same input gives the same id; a second such spawn while
/// the first runs is denied (M-4).
pub fn spawn_id(session: &str, agent_name: &str, prompt: &str) -> String {
    let mut hasher = blake3::Hasher::new();
    for part in [session, agent_name, prompt] {
        hasher.update(&(part.len() as u64).to_le_bytes());
        hasher.update(part.as_bytes());
    }
    let hex = hasher.finalize().to_hex();
    format!("gemini-{}", &hex[..32])
}

/// The agent an `invoke_agent` call names, and the prompt it hands it.
fn invoked(object: &Map<String, Value>) -> Result<(String, String), InputError> {
    let input = input_object(object)?;
    let name = input_string(input, "agent_name", "tool_input.agent_name")?
        .ok_or(InputError::Missing("tool_input.agent_name"))?;
    let prompt = optional_text(input, "prompt", "tool_input.prompt")?;
    Ok((name, prompt))
}

fn spawn(object: &Map<String, Value>, session: &str, tool_name: String) -> Result<HookEvent, InputError> {
    let (subagent_type, prompt) = invoked(object)?;
    Ok(HookEvent::Spawn(SpawnRequest {
        tool_name,
        tool_use_id: spawn_id(session, &subagent_type, &prompt),
        builtin: BUILTIN_AGENTS.contains(&subagent_type.as_str()),
        subagent_type,
        prompt,
        caller: None,
    }))
}

/// The file a write tool names, or why it names none.
fn written(object: &Map<String, Value>) -> Result<String, InputError> {
    let input = input_object(object)?;
    input_string(input, "file_path", "tool_input.file_path")?
        .ok_or(InputError::Missing("tool_input.file_path"))
}

/// What makes a pattern's segment a wildcard rather than a name (any glob dialect's).
const WILDCARDS: [char; 9] = ['*', '?', '[', ']', '(', ')', '!', '+', '@'];

/// A reader's paths as written, or why the rules cannot compare them (M-5): `read_file` its
/// `file_path`, `list_directory` its `dir_path`; `glob` and `grep_search` the directory they
/// search (`dir_path`, else the working directory) and, under it, the directories their pattern
/// names before its first wildcard (so each is placed where it lands, T-17), when the pattern
/// stays inside it and spells no braces or escapes (M-26); `read_many_files` (globs) never.
fn read_paths(tool: &str, input: &Value) -> Option<CallArgument> {
    let text = |field: &str| input.get(field).and_then(Value::as_str).filter(|s| !s.trim().is_empty());
    let one = |field: &str| {
        Some(text(field).map_or_else(
            || CallArgument::Unresolved(format!("the call names no `{field}`")),
            |path| CallArgument::Paths(vec![path.to_owned()]),
        ))
    };
    match tool {
        "read_file" => one("file_path"),
        "list_directory" => one("dir_path"),
        "glob" | "grep_search" | "search_file_content" => {
            let pattern = text("pattern").unwrap_or_default();
            let escapes = |p: &str| p.starts_with('/') || p.split(['/', '\\']).any(|part| part == "..");
            let include = text("include").unwrap_or_default();
            if (tool == "glob" && escapes(pattern)) || escapes(include) {
                return Some(CallArgument::Unresolved(
                    "its pattern reaches outside the directory it searches".into(),
                ));
            }
            let root = text("dir_path").unwrap_or(".");
            let mut paths = vec![root.to_owned()];
            let globs = if tool == "glob" { [pattern, include] } else { [include, ""] };
            for glob in globs.into_iter().filter(|g| !g.is_empty()) {
                if glob.contains(['{', '}', '\\']) {
                    return Some(CallArgument::Unresolved("its pattern spells braces or escapes".into()));
                }
                let literal: Vec<&str> =
                    glob.split('/').take_while(|segment| !segment.contains(WILDCARDS)).collect();
                if !literal.is_empty() {
                    paths.push(format!("{root}/{}", literal.join("/")));
                }
            }
            Some(CallArgument::Paths(paths))
        }
        "read_many_files" => Some(CallArgument::Unresolved("it reads the files globs match".into())),
        _ => None,
    }
}

/// How the manifests' tool rules read Gemini's call of `tool` with `input` (T-16, M-5): its shell
/// as `Bash`, `write_file` and `replace` as `Edit` of their file, the readers as `Read` of what
/// they read, `web_fetch` as a `WebFetch` whose URLs (inside its prompt) are not resolved, the
/// tools Warden knows ([`KNOWN_TOOLS`], MCP tools) by their names alone, any other tool — a
/// spawn included, which the gate judges — as one no rule grants (C-6).
pub fn rules_as(tool: &str, input: &Value) -> RulesAs {
    let text = |field: &str| input.get(field).and_then(Value::as_str);
    if tool == SHELL_TOOL {
        let argument = text("command").map_or(CallArgument::None, |c| CallArgument::Command(c.to_owned()));
        RulesAs::Call { tool: syntax::SHELL.to_owned(), argument }
    } else if WRITE_TOOLS.contains(&tool) {
        let argument = text("file_path").map_or_else(
            || CallArgument::Unresolved("the call names no `file_path`".into()),
            |path| CallArgument::Paths(vec![path.to_owned()]),
        );
        RulesAs::Call { tool: syntax::EDIT.to_owned(), argument }
    } else if let Some(argument) = read_paths(tool, input) {
        RulesAs::Call { tool: syntax::READ.to_owned(), argument }
    } else if tool == "web_fetch" {
        let argument = CallArgument::Unresolved("its URLs are inside its prompt".into());
        RulesAs::Call { tool: syntax::WEB_FETCH.to_owned(), argument }
    } else if KNOWN_TOOLS.contains(&tool) || tool.starts_with(MCP_PREFIX) {
        RulesAs::named(tool)
    } else {
        RulesAs::Unknown
    }
}

/// What a tool call that spawns nothing asks for; the rules read it by [`rules_as`].
fn tool(object: &Map<String, Value>, tool_name: String) -> Result<HookEvent, InputError> {
    let kind = if SHELL_TOOLS.contains(&tool_name.as_str()) {
        let input = input_object(object)?;
        let command = input_string(input, "command", "tool_input.command")?
            .ok_or(InputError::Missing("tool_input.command"))?;
        // The directory the shell runs in, when the call names one: its targets land there.
        let dir = input_string(input, "dir_path", "tool_input.dir_path")?;
        ToolKind::shell_in(command, dir)
    } else if WRITE_TOOLS.contains(&tool_name.as_str()) {
        ToolKind::Write { path: written(object)? }
    } else {
        ToolKind::Other
    };
    // The shell's whole input, handed back with the command under the launcher (C-20, M-29);
    // whether the client's own rules let it be replaced is read from their files (C-22, M-30).
    let shell = if tool_name == SHELL_TOOL {
        ShellInput::new(
            object.get("tool_input").unwrap_or(&Value::Null),
            "command",
            super::client_rules::client_rules(),
        )
    } else {
        None
    };
    Ok(HookEvent::Tool(ToolCall {
        rules_as: rules_as(&tool_name, object.get("tool_input").unwrap_or(&Value::Null)),
        tool_name,
        tool_use_id: None,
        caller: None,
        kind,
        shell,
    }))
}

/// Parses the hook input (see the module's doc).
///
/// `BeforeTool` of a spawn and of any other tool, `AfterTool` of a spawn (its agent's stop),
/// `SessionStart` and `AfterAgent` are read as above; every other event is not governed. Every
/// `BeforeTool` names the call it asks for and every `AfterTool` the call that ran (H-55). Ids
/// are checked by [`is_safe_id`](agentwarden_domain::sessions::is_safe_id) (H-25).
pub fn parse_hook_input(text: &str) -> Result<HookInput, InputError> {
    let EventObject { object, session_id, name, cwd } = event_object(text)?;
    let mut call = None;
    let event = match name.as_str() {
        "BeforeTool" => {
            let tool_name = required(&object, "tool_name")?;
            call = Some(CallStage::Asked(call_input(&object, &tool_name)));
            if tool_name == SPAWN_TOOL {
                spawn(&object, &session_id, tool_name)?
            } else if tool_name == COMPLETE_TOOL {
                // A subagent's report of its end runs nothing: not governed.
                HookEvent::Other { name }
            } else {
                tool(&object, tool_name)?
            }
        }
        "AfterTool" => {
            let tool_name = required(&object, "tool_name")?;
            // What ran is checked against what Warden approved (H-55).
            call = Some(CallStage::Ran(call_input(&object, &tool_name)));
            if tool_name == SPAWN_TOOL {
                // The end of a spawn's call is its agent's stop (M-2).
                let (agent_type, prompt) = invoked(&object)?;
                let agent_id = spawn_id(&session_id, &agent_type, &prompt);
                HookEvent::SubagentStop {
                    agent: CallingAgent { agent_id, agent_type },
                    stop_hook_active: false,
                }
            } else {
                HookEvent::Other { name }
            }
        }
        // The main session's start and the end of each of its turns (H-45, H-46).
        "SessionStart" => HookEvent::SessionStart,
        "AfterAgent" => HookEvent::SessionStop { stop_hook_active: stop_hook_active(&object)? },
        // The session's end: put back, its snapshot kept: the end may be the agent's (H-48, H-53).
        "SessionEnd" => HookEvent::SessionEnd { reason: session_end_reason(&object) },
        _ => HookEvent::Other { name },
    };
    Ok(HookInput { session_id, cwd, event, attribution: Attribution::InFlight, call, harness: PROFILE })
}

/// A tool call as Gemini names it at `BeforeTool` and `AfterTool`: no call id, so by the digest
/// of its name and its `tool_input` as sent (the input that ran, at `AfterTool`: Gemini hands a
/// hook's replacement to the tool and then to `AfterTool`), H-55.
///
/// One field is left out: Gemini CLI 0.61's ripgrep search sets its own `context` (lines shown
/// around each match) while it runs when it finds one to three matches and none was asked, so the
/// `AfterTool` of a `grep_search` names a `context` its `BeforeTool` did not. It widens what the
/// same search shows, never what it searches (M-23).
fn call_input(object: &Map<String, Value>, tool_name: &str) -> CallInput {
    let input = object.get("tool_input").unwrap_or(&Value::Null);
    let digest = match input {
        Value::Object(fields) if SELF_SET.iter().any(|(tool, _)| *tool == tool_name) => {
            let mut kept = fields.clone();
            for (_, field) in SELF_SET.iter().filter(|(tool, _)| *tool == tool_name) {
                kept.remove(*field);
            }
            input_digest(tool_name, &Value::Object(kept))
        }
        _ => input_digest(tool_name, input),
    };
    CallInput { tool_name: tool_name.to_owned(), call_id: None, digest }
}

/// The fields of a tool's input Gemini CLI sets itself while the tool runs (see [`call_input`]).
const SELF_SET: [(&str, &str); 2] = [("grep_search", "context"), ("search_file_content", "context")];

#[cfg(test)]
mod tests;
