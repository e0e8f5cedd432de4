//! The hook input as Codex CLI 0.169.0 sent it (lines captured from a real run, `docs/codex.md`),
//! then the adversarial ones.

use agentwarden_domain::sessions::{CallArgument, CallingAgent, HookEvent, InputError, RulesAs, ToolKind};
use serde_json::{Value, json};

use super::parse_hook_input;

/// A captured event's fields, with `fields` added or replaced.
fn event(name: &str, fields: Value) -> String {
    let mut event = json!({
        "session_id": "01a217bc-d254-7c03-b141-068c1a6ccd5e", "turn_id": "01a217bc-d2ed-7521-a18f-3838fdb9736f",
        "transcript_path": "/tmp/codexlab/home/sessions/rollout.jsonl", "cwd": "/tmp/codexlab/proj",
        "hook_event_name": name, "model": "gpt-5.5", "permission_mode": "bypassPermissions",
    });
    if let (Some(object), Value::Object(fields)) = (event.as_object_mut(), fields) {
        object.extend(fields);
    }
    event.to_string()
}

fn pre(tool: &str, input: Value) -> String {
    event("PreToolUse", json!({"tool_name": tool, "tool_input": input, "tool_use_id": "call_1"}))
}

fn child() -> Value {
    json!({"agent_id": "01a217bc-d2ea-7602-b68f-c32936defeae", "agent_type": "planner"})
}

fn with_child(text: &str) -> String {
    let mut value: Value = serde_json::from_str(text).unwrap();
    if let (Some(object), Value::Object(fields)) = (value.as_object_mut(), child()) {
        object.extend(fields);
    }
    value.to_string()
}

#[test]
fn a_spawn_is_any_tool_whose_name_ends_in_spawn_agent() {
    let v1 = pre(
        "spawn_agent",
        json!({"message": "PLANTASK plan it", "agent_type": "planner", "fork_context": false}),
    );
    let v2 = pre("collaborationspawn_agent", json!({"task_name": "t", "message": "m", "fork_turns": 0}));
    let HookEvent::Spawn(spawn) = parse_hook_input(&v1).unwrap().event else { panic!("not a spawn") };
    assert_eq!(
        (spawn.tool_name.as_str(), spawn.subagent_type.as_str(), spawn.prompt.as_str(), spawn.builtin),
        ("spawn_agent", "planner", "PLANTASK plan it", false)
    );
    assert_eq!(spawn.caller, None);
    let HookEvent::Spawn(spawn) = parse_hook_input(&v2).unwrap().event else { panic!("not a spawn") };
    assert_eq!((spawn.subagent_type.as_str(), spawn.builtin), ("default", true), "C-3: no type is `default`");
    let HookEvent::Spawn(nested) = parse_hook_input(&with_child(&v1)).unwrap().event else { panic!() };
    assert_eq!(nested.caller.map(|c| c.agent_type), Some("planner".to_owned()));
}

#[test]
fn each_tool_is_read_as_the_kernel_needs_it() {
    let patch = "*** Begin Patch\n*** Add File: added.txt\n+hi\n*** Update File: okrs/q4.md\n@@\n-a\n+b\n*** End Patch\n";
    let paths = vec!["added.txt".to_owned(), "okrs/q4.md".to_owned()];
    let named = |tool: &str| RulesAs::named(tool);
    let shell =
        |line: &str| RulesAs::Call { tool: "Bash".into(), argument: CallArgument::Command(line.into()) };
    /// The tool, its input, the kind read, how the rules read it.
    type Row = (&'static str, Value, ToolKind, RulesAs);
    let rows: Vec<Row> = vec![
        (
            "Bash",
            json!({"command": "echo child"}),
            ToolKind::Shell { command: "echo child".into(), dir: None },
            shell("echo child"),
        ),
        (
            "Bash",
            json!({"command": "warden approve --ref X"}),
            ToolKind::HumanVerb { verb: "approve" },
            shell("warden approve --ref X"),
        ),
        (
            "apply_patch",
            json!({"command": patch}),
            ToolKind::Writes { paths: paths.clone() },
            RulesAs::Call { tool: "Edit".into(), argument: CallArgument::Paths(paths) },
        ),
        (
            "multi_agent_v1send_input",
            json!({"target": "01a2", "message": "more"}),
            ToolKind::SendMessage { to: Some("01a2".into()) },
            named("multi_agent_v1send_input"),
        ),
        ("resume_agent", json!({}), ToolKind::SendMessage { to: None }, named("resume_agent")),
        (
            "multi_agent_v1wait_agent",
            json!({"targets": ["x"]}),
            ToolKind::Other,
            named("multi_agent_v1wait_agent"),
        ),
        (
            "multi_agent_v1close_agent",
            json!({"target": "x"}),
            ToolKind::Other,
            named("multi_agent_v1close_agent"),
        ),
        ("view_image", json!({"path": "a.png"}), ToolKind::Other, named("view_image")),
        ("mcp__github__create_issue", json!({}), ToolKind::Other, named("mcp__github__create_issue")),
        ("brand_new_tool", json!({"x": 1}), ToolKind::Other, RulesAs::Unknown),
        ("Read", json!({"file_path": "a"}), ToolKind::Other, RulesAs::Unknown),
        ("brand_new_tool", json!("raw arguments"), ToolKind::Other, RulesAs::Unknown),
    ];
    for (tool, input, kind, rules_as) in rows {
        let HookEvent::Tool(call) = parse_hook_input(&pre(tool, input.clone())).unwrap().event else {
            panic!("{tool}: not a tool call")
        };
        assert_eq!((&call.kind, &call.rules_as), (&kind, &rules_as), "{tool}");
        assert_eq!(call.tool_use_id.as_deref(), Some("call_1"));
    }
}

#[test]
fn the_lifecycle_events_are_read_and_the_rest_not_governed() {
    let start = event("SubagentStart", child());
    let agent = CallingAgent {
        agent_id: "01a217bc-d2ea-7602-b68f-c32936defeae".into(),
        agent_type: "planner".into(),
    };
    assert_eq!(parse_hook_input(&start).unwrap().event, HookEvent::SubagentStart(agent.clone()));
    let mut stop = child();
    if let Some(o) = stop.as_object_mut() {
        o.insert("stop_hook_active".into(), true.into());
        o.insert("agent_transcript_path".into(), "/t".into());
        o.insert("last_assistant_message".into(), "planned".into());
    }
    let stop = event("SubagentStop", stop);
    assert_eq!(
        parse_hook_input(&stop).unwrap().event,
        HookEvent::SubagentStop { agent, stop_hook_active: true }
    );
    // The session's start and the root's stop are governed (C-12).
    let root_start = event("SessionStart", json!({"source": "startup", "model": "gpt-5"}));
    assert_eq!(parse_hook_input(&root_start).unwrap().event, HookEvent::SessionStart);
    for active in [false, true] {
        let root_stop = event("Stop", json!({"stop_hook_active": active, "last_assistant_message": "done"}));
        assert_eq!(
            parse_hook_input(&root_stop).unwrap().event,
            HookEvent::SessionStop { stop_hook_active: active }
        );
    }
    // The session's end is governed, its reason read leniently: a bad one never refuses it (H-48, C-13).
    let end = event("SessionEnd", json!({"reason": "other"}));
    assert_eq!(parse_hook_input(&end).unwrap().event, HookEvent::SessionEnd { reason: Some("other".into()) });
    for odd in [json!({}), json!({"reason": 7}), json!({"reason": " "})] {
        let end = event("SessionEnd", odd);
        assert_eq!(parse_hook_input(&end).unwrap().event, HookEvent::SessionEnd { reason: None });
    }
    for name in ["UserPromptSubmit", "PermissionRequest"] {
        let text = event(name, json!({"stop_hook_active": false, "tool_name": "Bash", "tool_input": "x"}));
        assert_eq!(parse_hook_input(&text).unwrap().event, HookEvent::Other { name: name.into() }, "{name}");
    }
}

#[test]
fn bad_inputs_are_errors_with_their_codes() {
    let long = "a".repeat(200);
    let rows: Vec<(String, &str, &str)> = vec![
        (String::new(), "hook_input_empty", "empty"),
        ("{not json".into(), "hook_input_invalid", "garbage"),
        ("[1]".into(), "hook_input_invalid", "not an object"),
        (r#"{"hook_event_name":"PreToolUse"}"#.into(), "hook_input_missing_field", "no session"),
        (
            event("SubagentStart", json!({"agent_id": "../x", "agent_type": "p"})),
            "hook_input_unsafe_id",
            "agent id",
        ),
        (event("SubagentStart", json!({"session_id": long})), "hook_input_unsafe_id", "a long session"),
        (
            event("SubagentStart", json!({"agent_type": "p"})),
            "hook_input_missing_field",
            "a start with no id",
        ),
        (
            event("SubagentStart", json!({"agent_id": "main", "agent_type": "p"})),
            "hook_input_wrong_type",
            "H-45: the id the main session's snapshot is kept under",
        ),
        (
            event("SubagentStop", json!({"agent_id": "a", "agent_type": "p", "stop_hook_active": "yes"})),
            "hook_input_wrong_type",
            "stop_hook_active",
        ),
        (
            event("Stop", json!({"stop_hook_active": 1})),
            "hook_input_wrong_type",
            "C-12: the root's stop, malformed",
        ),
        (pre("spawn_agent", json!("raw arguments")), "hook_input_wrong_type", "C-2: a spawn's raw string"),
        (pre("spawn_agent", json!({"agent_type": 7})), "hook_input_wrong_type", "agent_type a number"),
        (pre("spawn_agent", json!({"message": ["m"]})), "hook_input_wrong_type", "message a list"),
        (pre("Bash", json!("ls")), "hook_input_wrong_type", "C-2: the shell's raw string"),
        (pre("Bash", json!({"cmd": "ls"})), "hook_input_missing_field", "the shell without its command"),
        (pre("apply_patch", json!("*** Begin Patch")), "hook_input_wrong_type", "C-2: a patch's raw string"),
        (pre("apply_patch", json!({"command": "rm -rf okrs"})), "hook_input_wrong_type", "C-5: not a patch"),
        (pre("send_input", json!("x")), "hook_input_wrong_type", "C-2: a resume's raw string"),
        (pre("send_input", json!({"target": 3})), "hook_input_wrong_type", "a resume's target a number"),
        (
            event("PreToolUse", json!({"tool_name": "Bash", "tool_input": {"command": "ls"}})),
            "hook_input_missing_field",
            "C-17: a call without its id cannot be told from another when it has run",
        ),
        (
            event("PostToolUse", json!({"tool_name": "Bash", "tool_input": {"command": "ls"}})),
            "hook_input_missing_field",
            "C-17: a run without the id of the call it ran",
        ),
        (
            event("PostToolUse", json!({"tool_name": "Bash", "tool_input": {}, "tool_use_id": "../x"})),
            "hook_input_unsafe_id",
            "C-17: a run's id not safe as a file name",
        ),
        (
            event("PostToolUse", json!({"tool_use_id": "call_1"})),
            "hook_input_missing_field",
            "a run of no tool",
        ),
    ];
    for (input, code, why) in rows {
        let error: InputError = parse_hook_input(&input).map(|_| ()).unwrap_err();
        assert_eq!(error.code(), code, "{why}: {error}");
    }
}

/// Table (C-17, H-55): each `PreToolUse` names the call it asks for and each `PostToolUse` the
/// call that ran — by its `tool_use_id` and the digest of its name and input — for the shell, the
/// patch tool, a spawn and a subagent's call alike; a `PostToolUse` that names another input than
/// its `PreToolUse` (another hook's `updatedInput`, as 0.169.0 hands it on) has another digest.
#[test]
fn tool_events_name_the_call_asked_for_and_the_call_that_ran() {
    use agentwarden_domain::sessions::{CallInput, CallStage};
    let call = |text: &str| match parse_hook_input(text).unwrap().call {
        Some(CallStage::Asked(call)) => ("asked", call),
        Some(CallStage::Ran(call)) => ("ran", call),
        None => panic!("no call named: {text}"),
    };
    let shell = json!({"command": "echo innocent"});
    let patch = json!({"command": "*** Begin Patch\n*** Add File: a.txt\n+a\n*** End Patch\n"});
    let spawn = json!({"agent_type": "planner", "message": "m", "fork_context": false});
    for (tool, input) in [("Bash", &shell), ("apply_patch", &patch), ("spawn_agent", &spawn)] {
        let fields =
            json!({"tool_name": tool, "tool_input": input, "tool_use_id": "call_1", "tool_response": "ok"});
        let (asked_stage, asked) = call(&event("PreToolUse", fields.clone()));
        let (ran_stage, ran) = call(&event("PostToolUse", fields.clone()));
        let (_, in_child) = call(&with_child(&event("PostToolUse", fields)));
        assert_eq!((asked_stage, ran_stage), ("asked", "ran"), "{tool}");
        assert_eq!(asked, ran, "{tool}: the same call, the same input");
        assert_eq!(ran, in_child, "{tool}: a subagent's run is named the same way");
        assert_eq!(asked.call_id.as_deref(), Some("call_1"), "{tool}");
    }
    let rewritten = event(
        "PostToolUse",
        json!({"tool_name": "Bash", "tool_input": {"command": "touch m_rewritten"}, "tool_use_id": "call_1"}),
    );
    let asked =
        event("PreToolUse", json!({"tool_name": "Bash", "tool_input": shell, "tool_use_id": "call_1"}));
    let (_, ran): (_, CallInput) = call(&rewritten);
    assert_ne!(call(&asked).1.digest, ran.digest, "a rewritten input is another digest");
    // Every tool Warden lets run is kept, read or not: an unknown tool's too.
    let other =
        event("PostToolUse", json!({"tool_name": "mcp__x__y", "tool_input": "raw", "tool_use_id": "c9"}));
    assert_eq!(call(&other).0, "ran", "a raw string input is named by its digest too");
}
