//! The hook's input: one JSON object on stdin, as Codex CLI 0.169.0 sends it (`docs/codex.md`
//! writes down what was seen), parsed into the kernel's [`HookInput`].
//!
//! Unknown fields are ignored. The fields Warden uses are strict, as for Claude Code (H-1,
//! H-25): a missing `session_id` or `hook_event_name`, a field of the wrong type, an id that is
//! not safe as a file name — each an [`InputError`], answered exit 2. Codex's own shapes:
//!
//! - a spawn is a `PreToolUse` of a tool whose name ends in `spawn_agent` (`spawn_agent` of
//!   multi-agent v1, `collaborationspawn_agent` of v2): its `agent_type` (v1) is the subagent
//!   type, `default` when it names none, and its `message` the prompt (C-3);
//! - the shell (`exec_command` to the model) is `Bash` with `{command}`, read as Claude Code's
//!   `Bash` is (the human verbs, the rules' `Bash(…)`);
//! - `apply_patch` is `{command: PATCH}`: the files its patch writes (C-5), checked against the
//!   protected paths and read by the rules as `Edit` of each;
//! - `send_input` and `resume_agent` (by the name's ending) resume the agent they `target`
//!   (H-21); `wait_agent`, `close_agent` and the other tools Codex offers are known by name;
//!   MCP tools (`mcp__…`) are read by name; any other tool is one Warden does not know (C-6);
//! - a `tool_input` that is not an object (Codex passes the model's arguments as a string when
//!   they do not parse) is refused for every tool Warden reads an input of (C-2).

use agentwarden_domain::lineage::{CallArgument, syntax};
use agentwarden_domain::sessions::{
    Attribution, CallInput, CallStage, HarnessProfile, HarnessTerms, HookEvent, HookInput, InputError,
    RulesAs, ShellInput, SpawnRequest, ToolCall, ToolKind, input_digest,
};
use agentwarden_protocol::hook_json::{
    EventObject, calling_agent as agent, event_object, optional_id as id, optional_text,
    required_string as required, session_end_reason, stop_hook_active, tool_input as input_object,
    tool_input_string as input_string,
};
use serde_json::{Map, Value};

use super::patch::patch_paths;

/// The ending of the name of every tool that spawns a subagent (`spawn_agent`,
/// `collaborationspawn_agent`, …).
pub const SPAWN_SUFFIX: &str = "spawn_agent";

/// The endings of the tools that send a message to (and so resume) an existing agent (H-21).
pub const RESUME_SUFFIXES: [&str; 3] = ["send_input", "resume_agent", "followup_task"];

/// The subagent type Codex runs when a spawn names none (C-3).
pub const DEFAULT_AGENT_TYPE: &str = "default";

/// Codex's built-in agent roles: they have no instruction file of the project's, so a spawn of
/// one is denied (C-3).
pub const BUILTIN_AGENT_TYPES: [&str; 4] = ["default", "explorer", "worker", "awaiter"];

/// Codex CLI to the kernel: its words, and what its `[codex]` section may list — its own
/// built-in roles and no tool that starts agents past the gate (it has none) (U-17). Its
/// settings were read from `[claude_code]` before each harness had its own section (U-18).
pub const PROFILE: HarnessProfile = HarnessProfile {
    terms: HarnessTerms { harness: "Codex CLI", section: "codex" },
    builtin_agents: &BUILTIN_AGENT_TYPES,
    agent_tools: &[],
    formerly: Some("claude_code"),
};

/// Codex's shell tool as its hooks name it.
pub const SHELL_TOOL: &str = "Bash";

/// Every tool of Codex's that runs a shell command line: what it writes is checked for every
/// agent (T-31).
pub const SHELL_TOOLS: [&str; 1] = [SHELL_TOOL];

/// Codex's patch tool as its hooks name it.
pub const PATCH_TOOL: &str = "apply_patch";

/// The rule syntax's file tool a patch is read as (C-5).
pub const PATCH_RULE_TOOL: &str = syntax::EDIT;

/// The tools (by the name's ending) Warden knows without reading their input: the rules grant
/// them by name (`Bash`-like or file rules never do).
pub const KNOWN_TOOLS: [&str; 12] = [
    "wait_agent",
    "close_agent",
    "list_agents",
    "write_stdin",
    "view_image",
    "update_plan",
    "request_user_input",
    "get_goal",
    "create_goal",
    "update_goal",
    "web_search",
    "tool_search",
];

/// The prefix of an MCP tool's name.
pub const MCP_PREFIX: &str = "mcp__";

fn spawn(object: &Map<String, Value>, tool_name: String) -> Result<HookEvent, InputError> {
    let tool_use_id = id(object, "tool_use_id")?.ok_or(InputError::Missing("tool_use_id"))?;
    let input = input_object(object)?;
    // No `agent_type` is Codex's `default` role (C-3).
    let subagent_type = input_string(input, "agent_type", "tool_input.agent_type")?
        .unwrap_or_else(|| DEFAULT_AGENT_TYPE.to_owned());
    let prompt = optional_text(input, "message", "tool_input.message")?;
    Ok(HookEvent::Spawn(SpawnRequest {
        tool_name,
        tool_use_id,
        builtin: BUILTIN_AGENT_TYPES.contains(&subagent_type.as_str()),
        subagent_type,
        prompt,
        caller: agent(object)?,
    }))
}

/// How the manifests' tool rules read Codex's call of `tool` with `input` (T-16): its shell as
/// the rule syntax's `Bash`, a patch as `Edit` of each file it writes (C-5), the tools Warden
/// knows (the resume tools, MCP tools and [`KNOWN_TOOLS`], by the name's ending) by their names
/// alone, any other tool — a spawn included, which the gate judges, not the rules — as one no
/// rule grants (C-6).
pub fn rules_as(tool: &str, input: &Value) -> RulesAs {
    let text = |field: &str| input.get(field).and_then(Value::as_str);
    let ends = |suffixes: &[&str]| suffixes.iter().any(|s| tool.ends_with(s));
    if tool == SHELL_TOOL {
        let argument = text("command").map_or(CallArgument::None, |c| CallArgument::Command(c.to_owned()));
        RulesAs::Call { tool: syntax::SHELL.to_owned(), argument }
    } else if tool == PATCH_TOOL {
        let argument = match text("command").map(patch_paths) {
            Some(Ok(paths)) => CallArgument::Paths(paths),
            Some(Err(e)) => CallArgument::Unresolved(format!("the patch cannot be read: {e}")),
            None => CallArgument::Unresolved("the call names no patch".to_owned()),
        };
        RulesAs::Call { tool: PATCH_RULE_TOOL.to_owned(), argument }
    } else if ends(&RESUME_SUFFIXES) || ends(&KNOWN_TOOLS) || tool.starts_with(MCP_PREFIX) {
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
        // The directory the command runs in, were the call to name one (`exec_command` takes a
        // `workdir`; 0.169.0's hook was seen to send `{command}` alone): its targets land there.
        let dir = input_string(input, "workdir", "tool_input.workdir")?;
        ToolKind::shell_in(command, dir)
    } else if tool_name == PATCH_TOOL {
        let input = input_object(object)?;
        let patch = input_string(input, "command", "tool_input.command")?
            .ok_or(InputError::Missing("tool_input.command"))?;
        // A patch Warden cannot read names files it cannot check: refused (C-5).
        let paths = patch_paths(&patch).map_err(|e| InputError::Invalid {
            field: "tool_input.command",
            seen: e.to_string(),
            expected: "a patch in Codex's `*** Begin Patch` format",
        })?;
        ToolKind::Writes { paths }
    } else if RESUME_SUFFIXES.iter().any(|s| tool_name.ends_with(s)) {
        let input = input_object(object)?;
        ToolKind::SendMessage { to: input_string(input, "target", "tool_input.target")? }
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
        tool_use_id: id(object, "tool_use_id")?,
        caller: agent(object)?,
        kind,
        shell,
    }))
}

/// A tool call as `PreToolUse` asks for it and `PostToolUse` says it ran: its `tool_use_id`
/// (required: Codex names every call) and the digest of its name and `tool_input` as sent. Codex
/// 0.169.0 hands `PostToolUse` the input that ran, another hook's `updatedInput` included, under
/// the call's id (C-17, H-55).
fn call_input(object: &Map<String, Value>, tool_name: &str) -> Result<CallInput, InputError> {
    let call_id = id(object, "tool_use_id")?.ok_or(InputError::Missing("tool_use_id"))?;
    let input = object.get("tool_input").unwrap_or(&Value::Null);
    Ok(CallInput {
        tool_name: tool_name.to_owned(),
        call_id: Some(call_id),
        digest: input_digest(tool_name, input),
    })
}

/// Parses the hook input (see the module's doc).
///
/// `PreToolUse` of a spawn, of the shell, of the patch tool and of a resume are read as above,
/// and name the call asked for (its input kept when it proceeds); `PostToolUse` names the call
/// that ran, checked against the input Warden approved (C-17, H-55); `SubagentStart` carries
/// `agent_id` and `agent_type`; `SubagentStop` adds `stop_hook_active`; `SessionStart` and the
/// root's `Stop` (with `stop_hook_active`) are the session's start and stop (C-12). Every other
/// event is not governed. Ids are checked by
/// [`is_safe_id`](agentwarden_domain::sessions::is_safe_id) (H-25).
pub fn parse_hook_input(text: &str) -> Result<HookInput, InputError> {
    let EventObject { object, session_id, name, cwd } = event_object(text)?;
    let mut call = None;
    let event = match name.as_str() {
        "PreToolUse" => {
            let tool_name = required(&object, "tool_name")?;
            call = Some(CallStage::Asked(call_input(&object, &tool_name)?));
            if tool_name.ends_with(SPAWN_SUFFIX) {
                spawn(&object, tool_name)?
            } else {
                tool(&object, tool_name)?
            }
        }
        // What ran is checked against what Warden approved (C-17, H-55).
        "PostToolUse" => {
            let tool_name = required(&object, "tool_name")?;
            call = Some(CallStage::Ran(call_input(&object, &tool_name)?));
            HookEvent::Other { name }
        }
        "SubagentStart" => HookEvent::SubagentStart(agent(&object)?.ok_or(InputError::Missing("agent_id"))?),
        "SubagentStop" => HookEvent::SubagentStop {
            agent: agent(&object)?.ok_or(InputError::Missing("agent_id"))?,
            stop_hook_active: stop_hook_active(&object)?,
        },
        // The main session's start and stop; only the root gets `Stop` (H-45, H-46, C-12).
        "SessionStart" => HookEvent::SessionStart,
        "Stop" => HookEvent::SessionStop { stop_hook_active: stop_hook_active(&object)? },
        // The session's end: checked and put back, never blocked; its snapshot kept (H-53, C-13).
        "SessionEnd" => HookEvent::SessionEnd { reason: session_end_reason(&object) },
        _ => HookEvent::Other { name },
    };
    Ok(HookInput { session_id, cwd, event, attribution: Attribution::Named, call, harness: PROFILE })
}

#[cfg(test)]
mod tests;
