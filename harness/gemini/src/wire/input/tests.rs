//! The hook input as Gemini CLI 0.61.0 sent it (fields captured from a real run, `docs/gemini.md`),
//! then the adversarial ones.

use agentwarden_domain::sessions::{Attribution, CallArgument, HookEvent, InputError, RulesAs, ToolKind};
use proptest::prelude::*;
use serde_json::{Value, json};

use super::{parse_hook_input, rules_as, spawn_id};

const SESSION: &str = "a97001c8-6b14-4e7f-b81b-b1414baa6496";

/// A captured event's fields, with `fields` added or replaced.
fn event(name: &str, fields: Value) -> String {
    let mut event = json!({
        "session_id": SESSION,
        "transcript_path": "/tmp/gem/home/.gemini/tmp/proj/chats/session-2026-11-26T21-58-a97001c8.jsonl",
        "cwd": "/tmp/gem/proj", "hook_event_name": name, "timestamp": "2026-11-26T21:58:01.177Z",
    });
    if let (Some(object), Value::Object(fields)) = (event.as_object_mut(), fields) {
        object.extend(fields);
    }
    event.to_string()
}

fn before(tool: &str, input: Value) -> String {
    event("BeforeTool", json!({"tool_name": tool, "tool_input": input}))
}

#[test]
fn every_input_is_unattributed() {
    for text in [
        before("run_shell_command", json!({"command": "ls"})),
        event("SessionStart", json!({"source": "startup"})),
        // A field Gemini does not send names no agent either: the kernel attributes (M-2).
        event(
            "BeforeTool",
            json!({"tool_name": "read_file", "tool_input": {"file_path": "a"}, "agent_id": "x"}),
        ),
    ] {
        let input = parse_hook_input(&text).unwrap();
        assert_eq!(input.attribution, Attribution::InFlight, "{text}");
        if let HookEvent::Tool(call) = input.event {
            assert_eq!(call.caller, None);
        }
    }
}

/// A spawn is named by its input, and the `AfterTool` that ends it names the same agent (M-4).
#[test]
fn a_spawn_and_its_end_name_the_same_agent() {
    let input = json!({"agent_name": "worker", "prompt": "write sub.txt"});
    let HookEvent::Spawn(spawn) = parse_hook_input(&before("invoke_agent", input.clone())).unwrap().event
    else {
        panic!("not a spawn")
    };
    assert_eq!(
        (spawn.tool_name.as_str(), spawn.subagent_type.as_str(), spawn.prompt.as_str(), spawn.builtin),
        ("invoke_agent", "worker", "write sub.txt", false)
    );
    assert_eq!(spawn.tool_use_id, spawn_id(SESSION, "worker", "write sub.txt"));
    let after = event(
        "AfterTool",
        json!({"tool_name": "invoke_agent", "tool_input": input, "tool_response": {"llmContent": "done"}}),
    );
    let HookEvent::SubagentStop { agent, stop_hook_active } = parse_hook_input(&after).unwrap().event else {
        panic!("not a stop")
    };
    assert_eq!(
        (agent.agent_id, agent.agent_type, stop_hook_active),
        (spawn.tool_use_id, "worker".into(), false)
    );
    let builtin = before("invoke_agent", json!({"agent_name": "generalist", "prompt": "p"}));
    let HookEvent::Spawn(spawn) = parse_hook_input(&builtin).unwrap().event else { panic!() };
    assert!(spawn.builtin, "H-20: a built-in agent");
}

#[test]
fn spawn_ids_are_safe_and_tell_sessions_agents_and_prompts_apart() {
    let id = spawn_id("s", "worker", "p");
    assert!(agentwarden_domain::sessions::is_safe_id(&id), "{id}");
    assert_ne!(id, spawn_id("t", "worker", "p"));
    assert_ne!(id, spawn_id("s", "planner", "p"));
    assert_ne!(id, spawn_id("s", "worker", "q"));
    // The parts are length-prefixed: moving a boundary names another agent.
    assert_ne!(spawn_id("s", "ab", "c"), spawn_id("s", "a", "bc"));
}

#[test]
fn each_tool_is_read_as_the_kernel_needs_it() {
    let rows: [(String, ToolKind); 6] = [
        (
            before("run_shell_command", json!({"command": "echo hi > out.txt"})),
            ToolKind::Shell { command: "echo hi > out.txt".into(), dir: None },
        ),
        (
            before("run_shell_command", json!({"command": "echo x > hooks/pre-commit", "dir_path": ".git"})),
            ToolKind::Shell { command: "echo x > hooks/pre-commit".into(), dir: Some(".git".into()) },
        ),
        (
            before("run_shell_command", json!({"command": "warden approve --ref X"})),
            ToolKind::HumanVerb { verb: "approve" },
        ),
        (
            before("write_file", json!({"file_path": "okrs/q4.md", "content": "x"})),
            ToolKind::Write { path: "okrs/q4.md".into() },
        ),
        (
            before("replace", json!({"file_path": "/p/okrs/q4.md", "old_string": "a", "new_string": "b"})),
            ToolKind::Write { path: "/p/okrs/q4.md".into() },
        ),
        (before("read_file", json!({"file_path": "notes.md"})), ToolKind::Other),
    ];
    for (text, kind) in rows {
        let HookEvent::Tool(call) = parse_hook_input(&text).unwrap().event else { panic!("{text}") };
        assert_eq!(call.kind, kind, "{text}");
        assert_eq!(call.tool_use_id, None);
    }
    assert_eq!(
        parse_hook_input(&event("SessionEnd", json!({"reason": "exit"}))).unwrap().event,
        HookEvent::SessionEnd { reason: Some("exit".into()) },
        "H-48"
    );
    for name in ["AfterTool", "BeforeAgent", "BeforeModel", "Notification", "PreCompress"] {
        let text = event(name, json!({"tool_name": "run_shell_command", "tool_input": {"command": "ls"}}));
        assert!(matches!(parse_hook_input(&text).unwrap().event, HookEvent::Other { .. }), "{name}");
    }
    let done = before("complete_task", json!({"result": "wrote it"}));
    assert!(matches!(parse_hook_input(&done).unwrap().event, HookEvent::Other { .. }), "not governed");
    assert_eq!(
        parse_hook_input(&event(
            "AfterAgent",
            json!({"prompt": "p", "prompt_response": "r", "stop_hook_active": true})
        ))
        .unwrap()
        .event,
        HookEvent::SessionStop { stop_hook_active: true }
    );
    assert_eq!(
        parse_hook_input(&event("SessionStart", json!({"source": "startup"}))).unwrap().event,
        HookEvent::SessionStart
    );
}

/// What Warden reads can be wrong in a way it cannot decide on: refused, never guessed (H-1).
#[test]
fn inputs_it_cannot_use_are_refused() {
    /// The input, and whether an error is the one expected.
    type Row = (String, fn(&InputError) -> bool);
    let rows: [Row; 9] = [
        (before("invoke_agent", json!({"prompt": "p"})), |e| {
            matches!(e, InputError::Missing("tool_input.agent_name"))
        }),
        (before("invoke_agent", json!({"agent_name": 7})), |e| matches!(e, InputError::Invalid { .. })),
        (before("invoke_agent", json!("worker")), |e| {
            matches!(e, InputError::Invalid { field: "tool_input", .. })
        }),
        (before("write_file", json!({"content": "x"})), |e| {
            matches!(e, InputError::Missing("tool_input.file_path"))
        }),
        (before("run_shell_command", json!({})), |e| matches!(e, InputError::Missing("tool_input.command"))),
        (event("AfterTool", json!({"tool_name": "invoke_agent", "tool_input": "x"})), |e| {
            matches!(e, InputError::Invalid { field: "tool_input", .. })
        }),
        (event("AfterAgent", json!({"stop_hook_active": "yes"})), |e| {
            matches!(e, InputError::Invalid { .. })
        }),
        (json!({"hook_event_name": "BeforeTool"}).to_string(), |e| {
            matches!(e, InputError::Missing("session_id"))
        }),
        (json!({"session_id": "../x", "hook_event_name": "BeforeTool"}).to_string(), |e| {
            matches!(e, InputError::UnsafeId { .. })
        }),
    ];
    for (text, expected) in rows {
        let error = parse_hook_input(&text).expect_err(&text);
        assert!(expected(&error), "{text}: {error:?}");
    }
}

#[test]
fn the_rules_read_each_call_as_the_syntax_says() {
    let call = |tool: &str, argument: CallArgument| RulesAs::Call { tool: tool.into(), argument };
    let paths = |p: &str| CallArgument::Paths(vec![p.into()]);
    let several = |p: &[&str]| CallArgument::Paths(p.iter().map(|p| (*p).to_owned()).collect());
    let rows: [(&str, Value, RulesAs); 13] = [
        ("run_shell_command", json!({"command": "ls"}), call("Bash", CallArgument::Command("ls".into()))),
        ("write_file", json!({"file_path": "a.md"}), call("Edit", paths("a.md"))),
        ("replace", json!({"file_path": "/p/a.md"}), call("Edit", paths("/p/a.md"))),
        ("read_file", json!({"file_path": "a.md"}), call("Read", paths("a.md"))),
        ("list_directory", json!({"dir_path": "src"}), call("Read", paths("src"))),
        ("glob", json!({"pattern": "**/*.rs"}), call("Read", paths("."))),
        ("grep_search", json!({"pattern": "fn", "dir_path": "src"}), call("Read", paths("src"))),
        // The directories a pattern names before its first wildcard are read too, so a link
        // among them is placed where it lands (T-17).
        (
            "glob",
            json!({"pattern": "up/*.txt", "dir_path": "src"}),
            call("Read", several(&["src", "src/up"])),
        ),
        ("glob", json!({"pattern": "a/b.txt"}), call("Read", several(&[".", "./a/b.txt"]))),
        ("grep_search", json!({"pattern": "x", "include": "lnk/**"}), call("Read", several(&[".", "./lnk"]))),
        ("google_web_search", json!({"query": "q"}), RulesAs::named("google_web_search")),
        ("mcp_github_list", json!({}), RulesAs::named("mcp_github_list")),
        ("invoke_agent", json!({"agent_name": "w"}), RulesAs::Unknown),
    ];
    for (tool, input, expected) in rows {
        assert_eq!(rules_as(tool, &input), expected, "{tool}");
    }
    // What the rules cannot compare with a path is not resolved: only the bare tool grants it (M-5).
    for (tool, input) in [
        ("glob", json!({"pattern": "../../etc/*"})),
        ("glob", json!({"pattern": "/etc/*"})),
        ("grep_search", json!({"pattern": "x", "include": "../secret/*"})),
        ("read_many_files", json!({"include": ["src/**"]})),
        ("glob", json!({"pattern": "{up,down}/*"})),
        ("read_file", json!({})),
        ("write_file", json!({"file_path": 3})),
        ("web_fetch", json!({"prompt": "summarise https://example.com"})),
    ] {
        let RulesAs::Call { argument, .. } = rules_as(tool, &input) else { panic!("{tool}") };
        assert!(matches!(argument, CallArgument::Unresolved(_)), "{tool} {input}: {argument:?}");
    }
    assert_eq!(rules_as("some_new_tool", &json!({})), RulesAs::Unknown, "C-6");
}

proptest! {
    /// Whatever the bytes, the parser answers (an input or an error), never panics.
    #[test]
    fn any_text_is_parsed_or_refused(text in "(?s).{0,256}") {
        let _ = parse_hook_input(&text);
    }

    /// Any tool input of any shape is read or refused, never guessed into an allow.
    #[test]
    fn any_tool_input_is_read_or_refused(tool in "[a-z_]{1,20}", input in any_json()) {
        let text = before(&tool, input);
        if let Ok(parsed) = parse_hook_input(&text) {
            prop_assert_eq!(parsed.attribution, Attribution::InFlight);
        }
    }
}

fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        ".{0,16}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_]{1,10}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Table: a `BeforeTool` and an `AfterTool` name the same call exactly when the input that ran is
/// the input asked for; the one field Gemini sets itself (a search's `context`) aside (H-55, M-23).
#[test]
fn a_call_is_named_the_same_before_and_after_only_with_the_same_input() {
    use agentwarden_domain::sessions::CallStage;
    let after = |tool: &str, input: Value| {
        event(
            "AfterTool",
            json!({"tool_name": tool, "tool_input": input, "tool_response": {"llmContent": "ok"}}),
        )
    };
    let digest = |text: &str| match parse_hook_input(text).unwrap().call {
        Some(CallStage::Asked(call) | CallStage::Ran(call)) => {
            assert_eq!(call.call_id, None, "Gemini gives no call id");
            call.digest
        }
        None => panic!("no call named: {text}"),
    };
    let rows: [(&str, Value, Value, bool, &str); 6] = [
        (
            "run_shell_command",
            json!({"command": "echo innocent"}),
            json!({"command": "echo innocent"}),
            true,
            "as asked",
        ),
        (
            "run_shell_command",
            json!({"command": "echo innocent"}),
            json!({"command": "touch m_rewritten"}),
            false,
            "rewritten",
        ),
        (
            "write_file",
            json!({"file_path": "notes.txt", "content": "x"}),
            json!({"file_path": "okrs/q4.md", "content": "x"}),
            false,
            "another file",
        ),
        (
            "invoke_agent",
            json!({"agent_name": "planner", "prompt": "p"}),
            json!({"agent_name": "coder", "prompt": "p"}),
            false,
            "another agent",
        ),
        (
            "grep_search",
            json!({"pattern": "a"}),
            json!({"pattern": "a", "context": 50}),
            true,
            "Gemini's own context",
        ),
        (
            "grep_search",
            json!({"pattern": "a"}),
            json!({"pattern": "b", "context": 50}),
            false,
            "another pattern",
        ),
    ];
    for (tool, asked, ran, same, why) in rows {
        let (b, a) = (digest(&before(tool, asked)), digest(&after(tool, ran)));
        assert_eq!(b == a, same, "{why}");
    }
    let text = before("run_shell_command", json!({"command": "ls"}));
    assert!(matches!(parse_hook_input(&text).unwrap().call, Some(CallStage::Asked(_))));
    let text = after("read_file", json!({"file_path": "a"}));
    let parsed = parse_hook_input(&text).unwrap();
    assert!(
        matches!(parsed.call, Some(CallStage::Ran(_))) && matches!(parsed.event, HookEvent::Other { .. })
    );
    assert_eq!(parse_hook_input(&event("SessionStart", json!({"source": "startup"}))).unwrap().call, None);
}
