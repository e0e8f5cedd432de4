//! The payloads Copilot CLI 1.0.102 was seen to send (`docs/copilot.md`), read.

use agentwarden_domain::sessions::{CallStage, HookEvent, InputError, ToolKind};

use super::*;

const ROOT: &str = "3ef1e9e0-cfc2-4483-a771-dfc5b087a2a1";
const CHILD: &str = "68003ea3-c33f-410b-be5f-41528033f162";

/// The main session's spawn through `Agent`: its caller none, named by its digest (H-67).
#[test]
fn a_spawn_from_the_main_session() {
    let text = r#"{"hook_event_name":"PreToolUse","session_id":"3ef1e9e0-cfc2-4483-a771-dfc5b087a2a1","timestamp":"2026-11-28T21:43:57.203Z","cwd":"/tmp/p","tool_name":"Agent","tool_input":{"name":"helper1","description":"sub","prompt":"SUBMARK do it","agent_type":"general-purpose"}}"#;
    let input = parse_hook_input(text).unwrap();
    assert_eq!(input.session_id, ROOT);
    let HookEvent::Spawn(spawn) = input.event else { panic!("not a spawn") };
    assert_eq!((spawn.subagent_type.as_str(), spawn.builtin, spawn.caller), ("general-purpose", true, None));
    assert_eq!(spawn.tool_use_id, spawn_id(ROOT, "", "general-purpose", "helper1", "SUBMARK do it"));
    assert!(matches!(input.call, Some(CallStage::Asked(_))));
}

/// A subagent's call: its own id as `session_id`, held to the session its parent names (H-66).
#[test]
fn a_subagents_call_is_its_own_in_its_parents_session() {
    let text = r#"{"hook_event_name":"PreToolUse","session_id":"68003ea3-c33f-410b-be5f-41528033f162","timestamp":"2026-11-28T21:43:57.272Z","cwd":"/tmp/p","agent_id":"68003ea3-c33f-410b-be5f-41528033f162","agent_type":"general-purpose","parent_agent_id":"3ef1e9e0-cfc2-4483-a771-dfc5b087a2a1","tool_name":"Bash","tool_input":{"command":"echo sub","description":"d"}}"#;
    let input = parse_hook_input(text).unwrap();
    assert_eq!(input.session_id, ROOT);
    let HookEvent::Tool(call) = input.event else { panic!("not a tool call") };
    assert_eq!(call.caller.map(|c| c.agent_id), Some(CHILD.to_owned()));
    assert!(matches!(call.kind, ToolKind::Shell { .. }));
    assert!(call.shell.is_none(), "no call is handed to the launcher (H-68)");
}

/// `SubagentStart` as 1.0.102 sends it, without an event name; the same shape missing one of
/// its fields is refused, not guessed (H-66).
#[test]
fn a_start_is_read_by_its_shape_and_nothing_looser() {
    let text = r#"{"sessionId":"3ef1e9e0-cfc2-4483-a771-dfc5b087a2a1","timestamp":1795902237232,"cwd":"/tmp/p","transcriptPath":"/x/events.jsonl","agentName":"general-purpose","agent_id":"68003ea3-c33f-410b-be5f-41528033f162","agent_type":"general-purpose","parent_agent_id":"3ef1e9e0-cfc2-4483-a771-dfc5b087a2a1"}"#;
    let input = parse_hook_input(text).unwrap();
    assert_eq!(input.session_id, ROOT);
    let HookEvent::SubagentStart(agent) = input.event else { panic!("not a start") };
    assert_eq!(agent.agent_id, CHILD);
    let without = text.replace(r#""agentName":"general-purpose","#, "");
    assert!(parse_hook_input(&without).is_err(), "no event name and not a start's shape");
    let unsafe_parent = text.replace(
        r#""parent_agent_id":"3ef1e9e0-cfc2-4483-a771-dfc5b087a2a1""#,
        r#""parent_agent_id":"../x""#,
    );
    assert!(matches!(parse_hook_input(&unsafe_parent), Err(InputError::UnsafeId { .. })));
}

/// The main session's `Stop` is its turn's end; a subagent's own `Stop` is not governed, its
/// `SubagentStop` is its stop.
#[test]
fn stops() {
    let main = r#"{"hook_event_name":"Stop","session_id":"3ef1e9e0-cfc2-4483-a771-dfc5b087a2a1","cwd":"/tmp/p","stop_reason":"end_turn","stop_hook_active":true}"#;
    assert!(matches!(
        parse_hook_input(main).unwrap().event,
        HookEvent::SessionStop { stop_hook_active: true }
    ));
    let own = r#"{"hook_event_name":"Stop","session_id":"68003ea3-c33f-410b-be5f-41528033f162","cwd":"/tmp/p","agent_id":"68003ea3-c33f-410b-be5f-41528033f162","agent_type":"general-purpose","parent_agent_id":"3ef1e9e0-cfc2-4483-a771-dfc5b087a2a1","stop_reason":"end_turn","stop_hook_active":false}"#;
    assert!(matches!(parse_hook_input(own).unwrap().event, HookEvent::Other { .. }));
    let sub = r#"{"hook_event_name":"SubagentStop","session_id":"3ef1e9e0-cfc2-4483-a771-dfc5b087a2a1","cwd":"/tmp/p","agent_id":"68003ea3-c33f-410b-be5f-41528033f162","agent_type":"general-purpose","parent_agent_id":"3ef1e9e0-cfc2-4483-a771-dfc5b087a2a1","agent_name":"general-purpose","stop_reason":"end_turn","stop_hook_active":false}"#;
    let input = parse_hook_input(sub).unwrap();
    assert_eq!(input.session_id, ROOT);
    assert!(
        matches!(input.event, HookEvent::SubagentStop { agent, stop_hook_active: false } if agent.agent_id == CHILD)
    );
}

/// A write names its `path`; one without it is refused (H-26); `PostToolUse` names what ran.
#[test]
fn writes_and_what_ran() {
    let write = r#"{"hook_event_name":"PreToolUse","session_id":"s1","cwd":"/p","tool_name":"Write","tool_input":{"path":"/p/new.txt","file_text":"x"}}"#;
    let HookEvent::Tool(call) = parse_hook_input(write).unwrap().event else { panic!("not a tool call") };
    assert_eq!(call.kind, ToolKind::Write { path: "/p/new.txt".into() });
    let pathless = write.replace(r#""path":"/p/new.txt","#, "");
    assert!(matches!(parse_hook_input(&pathless), Err(InputError::Missing("tool_input.path"))));
    let ran = r#"{"hook_event_name":"PostToolUse","session_id":"s1","cwd":"/p","tool_name":"Write","tool_input":{"path":"/p/new.txt","file_text":"x"},"tool_result":{"result_type":"success"}}"#;
    let (Some(CallStage::Asked(asked)), Some(CallStage::Ran(done))) =
        (parse_hook_input(write).unwrap().call, parse_hook_input(ran).unwrap().call)
    else {
        panic!("no call named")
    };
    assert_eq!(asked.digest, done.digest);
}

/// The rules read Copilot's tools by what they do; a tool Warden does not know, none (C-6).
#[test]
fn the_rules_read_copilots_tools() {
    use serde_json::json;
    assert!(
        matches!(rules_as("Read", &json!({"path": "a"})), RulesAs::Call { tool, .. } if tool == syntax::READ)
    );
    assert!(
        matches!(rules_as("Edit", &json!({"path": "a"})), RulesAs::Call { tool, .. } if tool == syntax::EDIT)
    );
    let glob = rules_as("Glob", &json!({"pattern": "src/*.rs", "paths": "."}));
    assert_eq!(
        glob,
        RulesAs::Call {
            tool: syntax::READ.into(),
            argument: CallArgument::Paths(vec![".".into(), "./src".into()])
        }
    );
    assert!(matches!(
        rules_as("Glob", &json!({"pattern": "../*"})),
        RulesAs::Call { argument: CallArgument::Unresolved(_), .. }
    ));
    assert_eq!(rules_as("write_agent", &json!({})), RulesAs::Unknown);
    assert_eq!(rules_as("Agent", &json!({})), RulesAs::Unknown);
    assert_eq!(rules_as("read_bash", &json!({})), RulesAs::named("read_bash"));
}
