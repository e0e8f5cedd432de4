//! The hook's input: one JSON object on stdin, as Claude Code's hooks reference describes it,
//! parsed into the kernel's [`HookInput`].
//!
//! Unknown fields are ignored (new ones appear often). The fields Warden uses are strict: a
//! field of the wrong type, a missing `session_id` or `hook_event_name`, an id that is not safe
//! as a file name (H-25), a write tool without its path — each is an [`InputError`], which the
//! hook answers with exit code 2 (a deny for `PreToolUse`, a block for `SubagentStop`), never
//! with a guess (H-1). A subagent call without a `subagent_type` is `general-purpose` (H-20).

use agentwarden_domain::json::type_name;
use agentwarden_domain::sessions::{
    Attribution, CallInput, CallStage, HarnessProfile, HarnessTerms, HookEvent, HookInput, InputError,
    ShellInput, SpawnRequest, ToolCall, ToolKind, input_digest,
};
pub use agentwarden_domain::sessions::{HUMAN_VERBS, human_verb_in};
use agentwarden_protocol::hook_json::{
    EventObject, calling_agent as agent, event_object, optional_id as id, optional_string as string,
    optional_text, required_string as required, session_end_reason, stop_hook_active,
};
use serde_json::{Map, Value};

use super::rules::{DEFAULT_SUBAGENT_TYPE, SHELL_TOOLS, SUBAGENT_TOOLS, rules_as};

/// Claude Code's built-in agent types: they have no instruction file of the project's, so a
/// spawn of one is denied unless `[claude_code] builtin_agents` lists it (H-20).
pub const BUILTIN_AGENT_TYPES: [&str; 7] =
    ["general-purpose", "Explore", "Plan", "fork", "claude", "statusline-setup", "workflow-subagent"];

/// Tools other than `Agent`/`Task` and `SendMessage` that start agents: denied unless
/// `[claude_code] agent_tools` lists them (H-22). `Workflow` runs a scripted set of agents;
/// `TeamCreate` and `Teammate` start agent-team members.
pub const AGENT_STARTING_TOOLS: [&str; 3] = ["Workflow", "TeamCreate", "Teammate"];

/// Claude Code to the kernel: its words, and what its `[claude_code]` section may list — its own
/// built-in agent types and tools that start agents, and no other harness's (U-17).
pub const PROFILE: HarnessProfile = HarnessProfile {
    terms: HarnessTerms { harness: "Claude Code", section: "claude_code" },
    builtin_agents: &BUILTIN_AGENT_TYPES,
    agent_tools: &AGENT_STARTING_TOOLS,
    formerly: None,
};

/// The tool that sends a message to (and so resumes) an existing agent (H-21).
pub const SEND_MESSAGE_TOOL: &str = "SendMessage";

/// The tools that write a file, with the input field that names it (H-26).
pub const WRITE_TOOLS: [(&str, &str); 4] = [
    ("Write", "file_path"),
    ("Edit", "file_path"),
    ("MultiEdit", "file_path"),
    ("NotebookEdit", "notebook_path"),
];

fn spawn(object: &Map<String, Value>, tool_name: String) -> Result<HookEvent, InputError> {
    let tool_use_id = id(object, "tool_use_id")?.ok_or(InputError::Missing("tool_use_id"))?;
    let input = match object.get("tool_input") {
        Some(Value::Object(input)) => input,
        None | Some(Value::Null) => return Err(InputError::Missing("tool_input")),
        Some(other) => {
            return Err(InputError::Invalid {
                field: "tool_input",
                seen: type_name(other).to_owned(),
                expected: "an object",
            });
        }
    };
    let subagent_type = match string(input, "subagent_type") {
        Ok(Some(t)) => t,
        // Claude Code runs `general-purpose` when none is named; so is it evaluated (H-20).
        Ok(None) => DEFAULT_SUBAGENT_TYPE.to_owned(),
        Err(InputError::Invalid { seen, expected, .. }) => {
            return Err(InputError::Invalid { field: "tool_input.subagent_type", seen, expected });
        }
        Err(e) => return Err(e),
    };
    let prompt = optional_text(input, "prompt", "tool_input.prompt")?;
    Ok(HookEvent::Spawn(SpawnRequest {
        tool_name,
        tool_use_id,
        builtin: BUILTIN_AGENT_TYPES.contains(&subagent_type.as_str()),
        subagent_type,
        prompt,
        caller: agent(object)?,
    }))
}

fn tool(object: &Map<String, Value>, tool_name: String) -> Result<HookEvent, InputError> {
    let input = match object.get("tool_input") {
        Some(Value::Object(input)) => Some(input),
        _ => None,
    };
    let text = |field: &'static str, qualified: &'static str| match input.map(|i| string(i, field)) {
        None => Ok(None),
        Some(Err(InputError::Invalid { seen, expected, .. })) => {
            Err(InputError::Invalid { field: qualified, seen, expected })
        }
        Some(other) => other,
    };
    let kind = if let Some((_, field)) = WRITE_TOOLS.iter().find(|(name, _)| *name == tool_name) {
        let qualified =
            if *field == "file_path" { "tool_input.file_path" } else { "tool_input.notebook_path" };
        // A write whose target cannot be read cannot be checked: refused (H-1, H-26).
        let path = text(field, qualified)?.ok_or(InputError::Missing(qualified))?;
        ToolKind::Write { path }
    } else if tool_name == SEND_MESSAGE_TOOL {
        ToolKind::SendMessage { to: text("to", "tool_input.to")? }
    } else if AGENT_STARTING_TOOLS.contains(&tool_name.as_str()) {
        ToolKind::StartsAgents
    } else if SHELL_TOOLS.contains(&tool_name.as_str()) {
        // A shell call whose command line cannot be read cannot be checked: refused (T-31).
        let command =
            text("command", "tool_input.command")?.ok_or(InputError::Missing("tool_input.command"))?;
        ToolKind::shell(command)
    } else {
        ToolKind::Other
    };
    let whole = input.map_or(Value::Null, |i| Value::Object(i.clone()));
    // Claude Code judges its own permission rules against the input a hook hands back, and the
    // hook input names its permission mode: the application reads its settings (H-61).
    let shell = SHELL_TOOLS
        .contains(&tool_name.as_str())
        .then(|| {
            let permission_mode = object.get("permission_mode").and_then(Value::as_str).map(str::to_owned);
            ShellInput::new(&whole, "command", super::client_rules::client_rules(permission_mode))
        })
        .flatten();
    Ok(HookEvent::Tool(ToolCall {
        tool_use_id: id(object, "tool_use_id")?,
        caller: agent(object)?,
        kind,
        rules_as: rules_as(&tool_name, &whole),
        tool_name,
        shell,
    }))
}

/// Parses the hook input.
///
/// The inputs assumed (Claude Code 2.1.x): every event carries `session_id`,
/// `hook_event_name` and `cwd`; `PreToolUse` adds `tool_name`, `tool_input` and `tool_use_id`
/// (the call named by them, its input kept when it proceeds; `PostToolUse` and
/// `PostToolUseFailure`, with the same fields, name the call that ran, checked against it: H-55),
/// and inside a subagent `agent_id` and `agent_type`; `SubagentStart` carries `agent_id`,
/// `agent_type` and `cwd` (a worktree subagent's own worktree); `SubagentStop` adds
/// `stop_hook_active`; `SessionStart` and the main session's `Stop` (with `stop_hook_active`)
/// are the session's start and stop (H-45, H-46). Ids are checked by [`is_safe_id`](agentwarden_domain::sessions::is_safe_id) (H-25).
pub fn parse_hook_input(text: &str) -> Result<HookInput, InputError> {
    let EventObject { object, session_id, name, cwd } = event_object(text)?;
    let mut call = None;
    let event = match name.as_str() {
        "PreToolUse" => {
            let tool_name = required(&object, "tool_name")?;
            call = Some(CallStage::Asked(call_input(&object, &tool_name)?));
            if SUBAGENT_TOOLS.contains(&tool_name.as_str()) {
                spawn(&object, tool_name)?
            } else {
                tool(&object, tool_name)?
            }
        }
        // What ran is checked against what Warden approved (H-55), whether the tool succeeded
        // or failed: a rewrite that ends in an error must not escape the check.
        "PostToolUse" | "PostToolUseFailure" => {
            let tool_name = required(&object, "tool_name")?;
            call = Some(CallStage::Ran(call_input(&object, &tool_name)?));
            HookEvent::Other { name }
        }
        "SubagentStart" => HookEvent::SubagentStart(agent(&object)?.ok_or(InputError::Missing("agent_id"))?),
        "SubagentStop" => {
            let agent = agent(&object)?.ok_or(InputError::Missing("agent_id"))?;
            HookEvent::SubagentStop { agent, stop_hook_active: stop_hook_active(&object)? }
        }
        // The main session's start and stop (H-45, H-46).
        "SessionStart" => HookEvent::SessionStart,
        "Stop" => HookEvent::SessionStop { stop_hook_active: stop_hook_active(&object)? },
        // The session's end: checked and put back, never blocked; its snapshot kept (H-48, H-53).
        "SessionEnd" => HookEvent::SessionEnd { reason: session_end_reason(&object) },
        "ConfigChange" => HookEvent::ConfigChange {
            source: required(&object, "source")?,
            file_path: string(&object, "file_path")?,
        },
        _ => HookEvent::Other { name },
    };
    Ok(HookInput { session_id, cwd, event, attribution: Attribution::Named, call, harness: PROFILE })
}

/// A tool call as `PreToolUse` asks for it and `PostToolUse` says it ran: its `tool_use_id` and
/// the digest of its name and `tool_input` (H-55).
fn call_input(object: &Map<String, Value>, tool_name: &str) -> Result<CallInput, InputError> {
    let input = object.get("tool_input").unwrap_or(&Value::Null);
    Ok(CallInput {
        tool_name: tool_name.to_owned(),
        call_id: id(object, "tool_use_id")?,
        digest: input_digest(tool_name, input),
    })
}

#[cfg(test)]
mod tests {
    use agentwarden_domain::sessions::{MAX_HOOK_INPUT, MAX_ID_LEN};

    use super::*;

    fn parse(text: &str) -> Result<HookInput, InputError> {
        parse_hook_input(text)
    }

    #[test]
    fn task_and_agent_are_spawns_inside_or_outside_a_subagent() {
        for tool in SUBAGENT_TOOLS {
            let main = format!(
                r#"{{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"{tool}","tool_use_id":"t1",
                   "tool_input":{{"subagent_type":"planner","prompt":"plan","description":"d","model":"x"}},
                   "brand_new_field":{{"a":1}}}}"#
            );
            let HookEvent::Spawn(spawn) = parse(&main).unwrap().event else { panic!("not a spawn") };
            assert_eq!((spawn.tool_name.as_str(), spawn.subagent_type.as_str()), (tool, "planner"));
            assert_eq!(spawn.caller, None);
            let nested =
                main.replace(r#""brand_new_field""#, r#""agent_id":"a1","agent_type":"planner","x""#);
            let HookEvent::Spawn(spawn) = parse(&nested).unwrap().event else { panic!("not a spawn") };
            assert_eq!(spawn.caller.unwrap().agent_type, "planner");
        }
    }

    #[test]
    fn bad_inputs_are_errors_with_their_codes() {
        let spawn = |input: &str| {
            format!(
                r#"{{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Task","tool_use_id":"t","tool_input":{input}}}"#
            )
        };
        let stop = |ids: &str| format!(r#"{{"hook_event_name":"SubagentStop","agent_type":"coder",{ids}}}"#);
        let long = "a".repeat(MAX_ID_LEN + 1);
        let rows: [(&str, &str, &str); 19] = [
            ("", "hook_input_empty", "empty stdin"),
            ("   \n", "hook_input_empty", "only whitespace"),
            ("{not json", "hook_input_invalid", "invalid JSON"),
            ("[1]", "hook_input_invalid", "not an object"),
            (r#"{"hook_event_name":"PreToolUse"}"#, "hook_input_missing_field", "no session"),
            (&stop(r#""session_id":"../../..","agent_id":"a""#), "hook_input_unsafe_id", "session id `..`"),
            (&stop(r#""session_id":"s/t","agent_id":"a""#), "hook_input_unsafe_id", "a slash"),
            (&stop(r#""session_id":".hidden","agent_id":"a""#), "hook_input_unsafe_id", "a leading dot"),
            (&stop(r#""session_id":"s","agent_id":"..""#), "hook_input_unsafe_id", "agent id `..`"),
            (&stop(r#""session_id":"s","agent_id":"a b""#), "hook_input_unsafe_id", "a space"),
            (&stop(&format!(r#""session_id":"{long}","agent_id":"a""#)), "hook_input_unsafe_id", "too long"),
            (&stop(r#""session_id":"s\u0000","agent_id":"a""#), "hook_input_unsafe_id", "a NUL"),
            (&spawn("{}").replace(r#""t""#, r#""../t""#), "hook_input_unsafe_id", "tool_use_id"),
            (
                r#"{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{}}"#,
                "hook_input_missing_field",
                "a write without its file",
            ),
            (
                r#"{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{}}"#,
                "hook_input_missing_field",
                "a shell call without its command line (T-31)",
            ),
            (&spawn(r#"{"subagent_type":7}"#), "hook_input_wrong_type", "subagent_type a number"),
            (&spawn(r#"{"subagent_type":" "}"#), "hook_input_wrong_type", "subagent_type blank"),
            (&spawn(r#""x""#), "hook_input_wrong_type", "tool_input a string"),
            (
                r#"{"session_id":"s","session_id":"t","hook_event_name":"Stop"}"#,
                "hook_input_invalid",
                "duplicate key",
            ),
        ];
        for (input, code, why) in rows {
            assert_eq!(parse(input).map(|_| ()).unwrap_err().code(), code, "{why}");
        }
    }

    #[test]
    fn input_up_to_the_limit_is_read_and_one_byte_more_is_refused() {
        let start =
            r#"{"session_id":"s","hook_event_name":"SubagentStart","agent_id":"a1","agent_type":"planner"}"#;
        let HookEvent::SubagentStart(agent) = parse(start).unwrap().event else { panic!("not a start") };
        assert_eq!((agent.agent_id.as_str(), agent.agent_type.as_str()), ("a1", "planner"));
        let padded = format!("{start}{}", " ".repeat(MAX_HOOK_INPUT - start.len()));
        assert_eq!(padded.len(), 1024 * 1024);
        assert!(matches!(parse(&padded).unwrap().event, HookEvent::SubagentStart(_)));
        assert_eq!(parse(&format!("{padded} ")).unwrap_err().code(), "hook_input_too_large");
    }

    /// A `ConfigChange` names its source (required) and the file (optional); anything
    /// else is refused, never read as a change to let through (H-43).
    #[test]
    fn a_config_change_is_read_with_its_source_and_file() {
        let change = r#"{"session_id":"s","hook_event_name":"ConfigChange","source":"local_settings",
            "file_path":"/p/.claude/settings.local.json"}"#;
        let expected = HookEvent::ConfigChange {
            source: "local_settings".into(),
            file_path: Some("/p/.claude/settings.local.json".into()),
        };
        assert_eq!(parse(change).unwrap().event, expected);
        let skills = r#"{"session_id":"s","hook_event_name":"ConfigChange","source":"skills"}"#;
        assert_eq!(
            parse(skills).unwrap().event,
            HookEvent::ConfigChange { source: "skills".into(), file_path: None }
        );
        for (bad, code) in [
            (r#"{"session_id":"s","hook_event_name":"ConfigChange"}"#, "hook_input_missing_field"),
            (r#"{"session_id":"s","hook_event_name":"ConfigChange","source":7}"#, "hook_input_wrong_type"),
            (
                r#"{"session_id":"s","hook_event_name":"ConfigChange","source":"x","file_path":[]}"#,
                "hook_input_wrong_type",
            ),
        ] {
            assert_eq!(parse(bad).unwrap_err().code(), code, "{bad}");
        }
    }

    #[test]
    fn other_tools_and_events_are_not_governed_but_still_parsed() {
        let other = r#"{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}"#;
        let bash = HookEvent::Tool(ToolCall {
            tool_name: "Bash".into(),
            tool_use_id: None,
            caller: None,
            kind: ToolKind::Shell { command: "ls".into(), dir: None },
            rules_as: agentwarden_domain::lineage::RulesAs::Call {
                tool: "Bash".into(),
                argument: agentwarden_domain::lineage::CallArgument::Command("ls".into()),
            },
            shell: ShellInput::new(
                &serde_json::json!({"command": "ls"}),
                "command",
                super::super::client_rules::client_rules(None),
            ),
        });
        assert_eq!(parse(other).unwrap().event, bash);
        let stop = r#"{"session_id":"s","hook_event_name":"SubagentStop","agent_id":"a","agent_type":"coder",
                      "agent_transcript_path":"/t","stop_hook_active":true}"#;
        assert!(matches!(parse(stop).unwrap().event, HookEvent::SubagentStop { stop_hook_active: true, .. }));
        let stop_without_agent = r#"{"session_id":"s","hook_event_name":"SubagentStop"}"#;
        assert_eq!(parse(stop_without_agent).unwrap_err().code(), "hook_input_missing_field");
    }

    /// The main session's start and stop, as Claude Code 2.1.x sends them (H-45, H-46).
    #[test]
    fn the_sessions_start_and_stop_are_read() {
        let start = r#"{"session_id":"s","hook_event_name":"SessionStart","source":"startup","cwd":"/p",
                       "transcript_path":"/t","model":"m"}"#;
        assert_eq!(parse(start).unwrap().event, HookEvent::SessionStart);
        for active in [false, true] {
            let stop = format!(
                r#"{{"session_id":"s","hook_event_name":"Stop","stop_hook_active":{active},"cwd":"/p",
                    "transcript_path":"/t","last_assistant_message":"done"}}"#
            );
            assert_eq!(parse(&stop).unwrap().event, HookEvent::SessionStop { stop_hook_active: active });
        }
        let bad = r#"{"session_id":"s","hook_event_name":"Stop","stop_hook_active":"yes"}"#;
        assert_eq!(parse(bad).unwrap_err().code(), "hook_input_wrong_type");
        let reserved =
            r#"{"session_id":"s","hook_event_name":"SubagentStart","agent_id":"main","agent_type":"p"}"#;
        assert_eq!(parse(reserved).unwrap_err().code(), "hook_input_wrong_type", "the root's id");
    }

    /// The session's end, its `reason` read leniently: a reason absent, blank or not a string
    /// never refuses the end, whose check must run; a long one is cut (H-48).
    #[test]
    fn the_sessions_end_is_read_whatever_its_reason() {
        let end = |reason: &str| {
            format!(r#"{{"session_id":"s","hook_event_name":"SessionEnd","cwd":"/p"{reason}}}"#)
        };
        let long = "x".repeat(200);
        let rows: [(String, Option<String>); 5] = [
            (end(r#","reason":"prompt_input_exit""#), Some("prompt_input_exit".into())),
            (end(""), None),
            (end(r#","reason":7"#), None),
            (end(r#","reason":"  ""#), None),
            (end(&format!(r#","reason":"{long}""#)), Some("x".repeat(64))),
        ];
        for (text, reason) in rows {
            assert_eq!(parse(&text).unwrap().event, HookEvent::SessionEnd { reason }, "{text}");
        }
    }

    #[test]
    fn a_spawn_without_a_type_is_general_purpose_and_tools_are_told_apart() {
        let untyped = r#"{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Agent","tool_use_id":"t",
                          "tool_input":{"description":"d","prompt":"p"}}"#;
        let HookEvent::Spawn(spawn) = parse(untyped).unwrap().event else { panic!("not a spawn") };
        assert_eq!(spawn.subagent_type, DEFAULT_SUBAGENT_TYPE);
        let tool = |name: &str, input: &str| {
            let text = format!(
                r#"{{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"{name}","tool_use_id":"t",
                     "agent_id":"a1","agent_type":"coder","tool_input":{input}}}"#
            );
            match parse(&text).unwrap().event {
                HookEvent::Tool(call) => {
                    assert_eq!(call.caller.unwrap().agent_id, "a1");
                    call.kind
                }
                other => panic!("{other:?}"),
            }
        };
        let rows = [
            (
                ("Write", r#"{"file_path":"okrs/a.md","content":"x"}"#),
                ToolKind::Write { path: "okrs/a.md".into() },
            ),
            (("Edit", r#"{"file_path":"/p/okrs/a.md"}"#), ToolKind::Write { path: "/p/okrs/a.md".into() }),
            (("MultiEdit", r#"{"file_path":"a"}"#), ToolKind::Write { path: "a".into() }),
            (("NotebookEdit", r#"{"notebook_path":"n.ipynb"}"#), ToolKind::Write { path: "n.ipynb".into() }),
            (
                ("SendMessage", r#"{"to":"a2","message":"go on"}"#),
                ToolKind::SendMessage { to: Some("a2".into()) },
            ),
            (("SendMessage", r#"{"message":"go on"}"#), ToolKind::SendMessage { to: None }),
            (("Workflow", r#"{}"#), ToolKind::StartsAgents),
            (("TeamCreate", r#"{}"#), ToolKind::StartsAgents),
            (("Bash", r#"{"command":"ls"}"#), ToolKind::Shell { command: "ls".into(), dir: None }),
            (("Bash", r#"{"command":"warden approve --ref X"}"#), ToolKind::HumanVerb { verb: "approve" }),
            (
                ("Bash", r#"{"command":"env -u CLAUDECODE /usr/local/bin/warden seal"}"#),
                ToolKind::HumanVerb { verb: "seal" },
            ),
            (("Bash", r#"{"command":"cd x && \"ward\"en revoke"}"#), ToolKind::HumanVerb { verb: "revoke" }),
            (
                ("Bash", r#"{"command":"(warden release --session s)"}"#),
                ToolKind::HumanVerb { verb: "release" },
            ),
            (
                ("Bash", r#"{"command":"warden audit log --type approval_granted"}"#),
                ToolKind::Shell { command: "warden audit log --type approval_granted".into(), dir: None },
            ),
            (
                ("Bash", r#"{"command":"git approve"}"#),
                ToolKind::Shell { command: "git approve".into(), dir: None },
            ),
            (
                ("Bash", r#"{"command":"wardens approve"}"#),
                ToolKind::Shell { command: "wardens approve".into(), dir: None },
            ),
            (("Read", r#"{"command":"warden approve"}"#), ToolKind::Other),
            (("Read", r#"{"file_path":"okrs/a.md"}"#), ToolKind::Other),
        ];
        for ((name, input), kind) in rows {
            assert_eq!(tool(name, input), kind, "{name} {input}");
        }
    }
}
