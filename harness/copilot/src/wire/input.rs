//! The hook's input: one JSON object on stdin, as GitHub Copilot CLI 1.0.102 sends it to a hook
//! installed in its Claude-style form (`docs/copilot.md` writes down what was seen), parsed into
//! the kernel's [`HookInput`].
//!
//! Warden installs Copilot's Claude-style hooks (`PreToolUse`, `PostToolUse`, `Stop`,
//! `SubagentStop`, `SubagentStart`, `SessionStart`, `SessionEnd`), not its camelCase ones: a
//! camelCase payload does not name its event, so one installed line could not tell a
//! `preToolUse` from a `postToolUse` but by guessing from its fields; the Claude-style payload
//! names it in `hook_event_name` (H-65). Its tool names are Claude Code's where Copilot maps
//! them (`Agent` for `task`, `Bash`, `Write` for `create`, `Edit`, `Read` for `view`, `Grep`,
//! `Glob`) and Copilot's own for the rest (`read_bash`, `write_agent`, `sql`, …).
//!
//! Unknown fields are ignored. The fields Warden uses are strict, as for the other harnesses
//! (H-1, H-25): a missing `session_id` or `hook_event_name`, a field of the wrong type, an id
//! that is not safe as a file name — each an [`InputError`], answered with a deny. Copilot's own
//! shapes:
//!
//! - a subagent's event carries its own id as `session_id`, and `agent_id`, `agent_type` and
//!   `parent_agent_id`: it is the agent `agent_id` of type `agent_type` (the agent's own id is
//!   its session id), in the session `parent_agent_id` names. Copilot names only the direct
//!   parent, so a subagent's subagent is held to a session Warden never saw start, where no
//!   spawn accounts for it: each of its calls is denied as an untracked agent's (H-66);
//! - `SubagentStart` is the one event Copilot 1.0.102 sends without `hook_event_name` (and with
//!   `sessionId` in camelCase): an object without `hook_event_name` is read as a start only with
//!   `agentName`, `agent_id`, `agent_type` and `parent_agent_id` all present (H-66);
//! - a spawn is a `PreToolUse` of `Agent` (`agent_type`, `name`, `prompt`); Copilot gives it no
//!   call id, so it is named by the digest of its session, caller, type, name and prompt
//!   ([`spawn_id`], H-67);
//! - `Stop` without an agent is the end of the main session's turn (H-46); a subagent's own
//!   `Stop` is followed by its `SubagentStop`, which is its stop: the first is not governed;
//! - every `PreToolUse` names its call by the digest of its tool and `tool_input` (Copilot gives
//!   no call id), kept when Warden lets it proceed; every `PostToolUse` names the call that ran
//!   the same way, checked against what was kept: another hook may have replaced the input
//!   (H-55, H-68).

use agentwarden_domain::json::parse_strict;
use agentwarden_domain::lineage::{CallArgument, syntax};
use agentwarden_domain::sessions::{
    Attribution, CallInput, CallStage, HarnessProfile, HarnessTerms, HookEvent, HookInput, InputError,
    RulesAs, SpawnRequest, ToolCall, ToolKind, input_digest,
};
use agentwarden_protocol::hook_json::{
    EventObject, calling_agent, event_object, optional_id, optional_string, optional_text,
    required_string as required, session_end_reason, stop_hook_active, tool_input as input_object,
    tool_input_string as input_string,
};
use serde_json::{Map, Value};

/// The tool that spawns a subagent, as Copilot's Claude-style hooks name its `task`.
pub const SPAWN_TOOL: &str = "Agent";

/// Copilot CLI's shell tool, as its Claude-style hooks name its `bash`.
pub const SHELL_TOOL: &str = "Bash";

/// Every tool of Copilot CLI's that runs a shell command line: what it writes is checked for
/// every agent (T-31).
pub const SHELL_TOOLS: [&str; 1] = [SHELL_TOOL];

/// The tools that write the one file their `path` names (`create` and `edit`).
pub const WRITE_TOOLS: [&str; 2] = ["Write", "Edit"];

/// The tool that sends a message to a running agent (H-21).
pub const SEND_MESSAGE_TOOL: &str = "write_agent";

/// Copilot CLI's built-in agent types (1.0.102: the `agent_type`s its `task` offers, and
/// `rubber-duck`, which it accepts unoffered): they have no instruction file of the project's,
/// so a spawn of one is denied unless the configuration allows it (H-20). A custom agent
/// (`~/.copilot/agents/NAME.agent.md`, the project's `.github/agents/`) is spawned by its name.
pub const BUILTIN_AGENTS: [&str; 7] =
    ["explore", "task", "general-purpose", "rubber-duck", "code-review", "research", "security-review"];

/// Copilot CLI to the kernel: its words, and what its `[copilot]` section may list — its own
/// built-in agents and no tool that starts agents past the gate (it has none) (U-17).
pub const PROFILE: HarnessProfile = HarnessProfile {
    terms: HarnessTerms { harness: "Copilot CLI", section: "copilot" },
    builtin_agents: &BUILTIN_AGENTS,
    agent_tools: &[],
    formerly: None,
};

/// The tools Warden knows without reading their input: the rules grant them by name. The
/// shell's sessions (`read_bash`, `stop_bash`, `list_bash`) only read or end what a `Bash` call
/// started.
pub const KNOWN_TOOLS: [&str; 10] = [
    "read_bash",
    "stop_bash",
    "list_bash",
    "fetch_copilot_cli_documentation",
    "skill",
    "sql",
    "session_store_sql",
    "read_agent",
    "list_agents",
    "report_intent",
];

/// The id Warden gives the agent a spawn of `agent_type` named `name` with `prompt` asks for,
/// by `caller` (empty: the main session) in `session`: the spawn's call id. Copilot names no
/// call, so the same input gives the same id (H-67).
pub fn spawn_id(session: &str, caller: &str, agent_type: &str, name: &str, prompt: &str) -> String {
    let mut hasher = blake3::Hasher::new();
    for part in [session, caller, agent_type, name, prompt] {
        hasher.update(&(part.len() as u64).to_le_bytes());
        hasher.update(part.as_bytes());
    }
    let hex = hasher.finalize().to_hex();
    format!("copilot-{}", &hex[..32])
}

fn spawn(object: &Map<String, Value>, session: &str, tool_name: String) -> Result<HookEvent, InputError> {
    let input = input_object(object)?;
    let subagent_type = input_string(input, "agent_type", "tool_input.agent_type")?
        .ok_or(InputError::Missing("tool_input.agent_type"))?;
    let name = optional_text(input, "name", "tool_input.name")?;
    let prompt = optional_text(input, "prompt", "tool_input.prompt")?;
    let caller = calling_agent(object)?;
    let by = caller.as_ref().map(|c| c.agent_id.as_str()).unwrap_or_default();
    Ok(HookEvent::Spawn(SpawnRequest {
        tool_name,
        tool_use_id: spawn_id(session, by, &subagent_type, &name, &prompt),
        builtin: BUILTIN_AGENTS.contains(&subagent_type.as_str()),
        subagent_type,
        prompt,
        caller,
    }))
}

/// What makes a pattern's segment a wildcard rather than a name (any glob dialect's).
const WILDCARDS: [char; 9] = ['*', '?', '[', ']', '(', ')', '!', '+', '@'];

/// A reader's paths as written, or why the rules cannot compare them (M-5): `Read` its `path`;
/// `Grep` and `Glob` the paths they search (`paths`, one or a list; else the working directory)
/// and, for `Glob`, under each the directories its pattern names before its first wildcard,
/// when the pattern stays inside and spells no braces or escapes (M-26).
fn read_paths(tool: &str, input: &Value) -> Option<CallArgument> {
    let text = |field: &str| input.get(field).and_then(Value::as_str).filter(|s| !s.trim().is_empty());
    match tool {
        "Read" => Some(text("path").map_or_else(
            || CallArgument::Unresolved("the call names no `path`".into()),
            |path| CallArgument::Paths(vec![path.to_owned()]),
        )),
        "Grep" | "Glob" => {
            let roots: Vec<String> = match input.get("paths") {
                None | Some(Value::Null) => vec![".".to_owned()],
                Some(Value::String(path)) if !path.trim().is_empty() => vec![path.clone()],
                Some(Value::Array(list)) if !list.is_empty() => {
                    let mut roots = Vec::new();
                    for path in list {
                        match path.as_str().filter(|p| !p.trim().is_empty()) {
                            Some(path) => roots.push(path.to_owned()),
                            None => {
                                return Some(CallArgument::Unresolved("a path it names is not text".into()));
                            }
                        }
                    }
                    roots
                }
                Some(_) => return Some(CallArgument::Unresolved("its `paths` is not a path".into())),
            };
            let mut paths = roots.clone();
            for key in ["pattern", "glob"] {
                // `Grep`'s pattern is a regular expression, not a path.
                if tool == "Grep" && key == "pattern" {
                    continue;
                }
                let Some(glob) = text(key) else { continue };
                let escapes = glob.starts_with('/') || glob.split(['/', '\\']).any(|part| part == "..");
                if escapes {
                    return Some(CallArgument::Unresolved(
                        "its pattern reaches outside the directory it searches".into(),
                    ));
                }
                if glob.contains(['{', '}', '\\']) {
                    return Some(CallArgument::Unresolved("its pattern spells braces or escapes".into()));
                }
                let literal: Vec<&str> =
                    glob.split('/').take_while(|segment| !segment.contains(WILDCARDS)).collect();
                if !literal.is_empty() {
                    for root in &roots {
                        paths.push(format!("{root}/{}", literal.join("/")));
                    }
                }
            }
            Some(CallArgument::Paths(paths))
        }
        _ => None,
    }
}

/// How the manifests' tool rules read Copilot's call of `tool` with `input` (T-16, M-5): its
/// shell as `Bash`, `Write` and `Edit` as `Edit` of their `path`, the readers as `Read` of what
/// they read, the tools Warden knows ([`KNOWN_TOOLS`]) by their names alone, any other tool —
/// a spawn and `write_agent` included, which the gate and the kernel judge — as one no rule
/// grants (C-6).
pub fn rules_as(tool: &str, input: &Value) -> RulesAs {
    let text = |field: &str| input.get(field).and_then(Value::as_str);
    if tool == SHELL_TOOL {
        let argument = text("command").map_or(CallArgument::None, |c| CallArgument::Command(c.to_owned()));
        RulesAs::Call { tool: syntax::SHELL.to_owned(), argument }
    } else if WRITE_TOOLS.contains(&tool) {
        let argument = text("path").map_or_else(
            || CallArgument::Unresolved("the call names no `path`".into()),
            |path| CallArgument::Paths(vec![path.to_owned()]),
        );
        RulesAs::Call { tool: syntax::EDIT.to_owned(), argument }
    } else if let Some(argument) = read_paths(tool, input) {
        RulesAs::Call { tool: syntax::READ.to_owned(), argument }
    } else if KNOWN_TOOLS.contains(&tool) {
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
        ToolKind::shell_in(command, None)
    } else if WRITE_TOOLS.contains(&tool_name.as_str()) {
        let input = input_object(object)?;
        // A write whose target cannot be read cannot be checked: refused (H-1, H-26).
        let path =
            input_string(input, "path", "tool_input.path")?.ok_or(InputError::Missing("tool_input.path"))?;
        ToolKind::Write { path }
    } else if tool_name == SEND_MESSAGE_TOOL {
        let input = input_object(object)?;
        ToolKind::SendMessage { to: input_string(input, "agent_id", "tool_input.agent_id")? }
    } else {
        ToolKind::Other
    };
    Ok(HookEvent::Tool(ToolCall {
        rules_as: rules_as(&tool_name, object.get("tool_input").unwrap_or(&Value::Null)),
        tool_name,
        tool_use_id: None,
        caller: calling_agent(object)?,
        kind,
        // Copilot's answer is not asked to replace a shell call's input: no call runs under the
        // launcher, and `[confine] mode = "required"` denies each (H-68, X-79).
        shell: None,
    }))
}

/// The session an event belongs to (H-66): `parent_agent_id` for a subagent's event (its
/// `session_id` is its own id), else `session_id`.
fn session_of(object: &Map<String, Value>, session_id: String) -> Result<String, InputError> {
    Ok(optional_id(object, "parent_agent_id")?.unwrap_or(session_id))
}

/// `SubagentStart` as Copilot 1.0.102 sends it: no `hook_event_name`, `agentName`, `agent_id`,
/// `agent_type` and `parent_agent_id` (H-66); `None` when the object is not that shape.
fn subagent_start(text: &str) -> Result<Option<HookInput>, InputError> {
    let Ok(Value::Object(object)) = parse_strict(text) else { return Ok(None) };
    let shaped =
        ["agentName", "agent_id", "agent_type", "parent_agent_id"].iter().all(|f| object.contains_key(*f));
    if object.contains_key("hook_event_name") || !shaped {
        return Ok(None);
    }
    let session_id =
        optional_id(&object, "parent_agent_id")?.ok_or(InputError::Missing("parent_agent_id"))?;
    let agent = calling_agent(&object)?.ok_or(InputError::Missing("agent_id"))?;
    Ok(Some(HookInput {
        session_id,
        cwd: optional_string(&object, "cwd")?,
        event: HookEvent::SubagentStart(agent),
        attribution: Attribution::Named,
        call: None,
        harness: PROFILE,
    }))
}

/// Parses the hook input (see the module's doc).
///
/// `PreToolUse` of a spawn and of any other tool, `PostToolUse` (what ran), `SubagentStart`,
/// `SubagentStop`, `Stop` of the main session, `SessionStart` and `SessionEnd` are read as
/// above; every other event is not governed. Ids are checked by
/// [`is_safe_id`](agentwarden_domain::sessions::is_safe_id) (H-25).
pub fn parse_hook_input(text: &str) -> Result<HookInput, InputError> {
    if text.len() <= agentwarden_domain::sessions::MAX_HOOK_INPUT
        && let Some(start) = subagent_start(text)?
    {
        return Ok(start);
    }
    let EventObject { object, session_id, name, cwd } = event_object(text)?;
    let session_id = session_of(&object, session_id)?;
    let mut call = None;
    let event = match name.as_str() {
        "PreToolUse" => {
            let tool_name = required(&object, "tool_name")?;
            call = Some(CallStage::Asked(call_input(&object, &tool_name)));
            if tool_name == SPAWN_TOOL {
                spawn(&object, &session_id, tool_name)?
            } else {
                tool(&object, tool_name)?
            }
        }
        "PostToolUse" => {
            let tool_name = required(&object, "tool_name")?;
            // What ran is checked against what Warden approved (H-55).
            call = Some(CallStage::Ran(call_input(&object, &tool_name)));
            HookEvent::Other { name }
        }
        "SubagentStart" => {
            HookEvent::SubagentStart(calling_agent(&object)?.ok_or(InputError::Missing("agent_id"))?)
        }
        "SubagentStop" => HookEvent::SubagentStop {
            agent: calling_agent(&object)?.ok_or(InputError::Missing("agent_id"))?,
            stop_hook_active: stop_hook_active(&object)?,
        },
        // A subagent's own turn ends before its `SubagentStop`, which is its stop.
        "Stop" if calling_agent(&object)?.is_some() => HookEvent::Other { name },
        "Stop" => HookEvent::SessionStop { stop_hook_active: stop_hook_active(&object)? },
        "SessionStart" => HookEvent::SessionStart,
        // The session's end: put back, its snapshot kept: the end may be the agent's (H-48, H-53).
        "SessionEnd" => HookEvent::SessionEnd { reason: session_end_reason(&object) },
        _ => HookEvent::Other { name },
    };
    Ok(HookInput { session_id, cwd, event, attribution: Attribution::Named, call, harness: PROFILE })
}

/// A tool call as Copilot names it at `PreToolUse` and `PostToolUse`: no call id, so by the
/// digest of its name and its `tool_input` as sent (H-55).
fn call_input(object: &Map<String, Value>, tool_name: &str) -> CallInput {
    let input = object.get("tool_input").unwrap_or(&Value::Null);
    CallInput { tool_name: tool_name.to_owned(), call_id: None, digest: input_digest(tool_name, input) }
}

#[cfg(test)]
mod tests;
