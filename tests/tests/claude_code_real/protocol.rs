//! What the client sends and how it treats a hook's answers: the observations in
//! `docs/claude-code-protocol.md` that Warden depends on, re-checked against the pinned client
//! with plain logging hooks (no Warden).

use super::*;

/// A hook that appends `{env, input}` to `hooks.jsonl` in the project's temp dir.
fn logging_hooks(project: &Project) -> std::path::PathBuf {
    let log = project.dir().join("hooks.jsonl");
    let script = project.dir().join("log-hook.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nin=$(cat)\nprintf '{{\"CLAUDECODE\":\"%s\",\"CLAUDE_PROJECT_DIR\":\"%s\",\"pwd\":\"%s\",\"input\":%s}}\\n' \
             \"$CLAUDECODE\" \"$CLAUDE_PROJECT_DIR\" \"$PWD\" \"$in\" >> '{}'\n",
            log.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let hook = json!([{"matcher": "*", "hooks": [{"type": "command", "command": script}]}]);
    let plain = json!([{"hooks": [{"type": "command", "command": script}]}]);
    std::fs::create_dir_all(project.root.join(".claude")).unwrap();
    project.set_settings(&json!({"hooks": {
        "PreToolUse": hook, "SubagentStart": plain, "SubagentStop": plain
    }}));
    log
}

fn logged_hooks(log: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
#[ignore = "real Claude Code: run by `cargo xtask claude-code`"]
fn the_client_sends_the_hook_inputs_the_protocol_document_records() {
    let project = Project::example(&tools());
    let log = logging_hooks(&project);
    let api = start(
        Script::new()
            .agent("MAINTASK", vec![spawn("toolu_typed", Some("planner"), "PLANTASK plan it")])
            .agent("PLANTASK", vec![]),
    );
    let run = project.run(&api, "MAINTASK go", &RunOptions::kill_switch_unset());
    run.assert_finished();
    assert_loopback_only(&api);
    let hooks = logged_hooks(&log);
    let of = |event: &str| -> Vec<&Value> {
        hooks.iter().filter(|h| h["input"]["hook_event_name"] == json!(event)).collect()
    };
    let root = project.root.canonicalize().unwrap();
    let root = root.to_str().unwrap();
    let session = run.session_id().expect("an init event with the session id");

    let pre = of("PreToolUse");
    let spawn = pre
        .iter()
        .find(|h| h["input"]["tool_use_id"] == json!("toolu_typed"))
        .expect("PreToolUse of the spawn");
    let input = &spawn["input"];
    assert_eq!(input["tool_name"], json!("Agent"));
    assert_eq!(
        input["tool_input"],
        json!({"description": "delegated step", "prompt": "PLANTASK plan it", "subagent_type": "planner", "run_in_background": false})
    );
    assert_eq!(input["session_id"], json!(session));
    assert_eq!(input["cwd"], json!(root));
    assert!(input["prompt_id"].is_string() && input["permission_mode"] == json!("acceptEdits"), "{input}");
    assert!(input.get("agent_id").is_none(), "the main session's call names no agent: {input}");
    assert_eq!((spawn["CLAUDECODE"].as_str(), spawn["CLAUDE_PROJECT_DIR"].as_str()), (Some("1"), Some(root)));

    let start = of("SubagentStart");
    assert_eq!(start.len(), 1, "{start:?}");
    let start = &start[0]["input"];
    assert_eq!(start["agent_type"], json!("planner"));
    let agent_id = start["agent_id"].as_str().expect("agent_id");
    assert!(
        agent_id.len() == 17 && agent_id.starts_with('a'),
        "agent ids are `a` + 16 hex digits: {agent_id}"
    );
    assert!(start.get("tool_use_id").is_none(), "SubagentStart names no tool call: {start}");

    let stops = of("SubagentStop");
    assert_eq!(stops.len(), 1, "{stops:?}");
    let stop = &stops[0]["input"];
    assert_eq!(
        (stop["agent_id"].as_str(), stop["stop_hook_active"].as_bool()),
        (Some(agent_id), Some(false))
    );
    assert!(
        str_of(stop.get("agent_transcript_path")).ends_with(&format!("/subagents/agent-{agent_id}.jsonl")),
        "{stop}"
    );
    assert_eq!(stop["last_assistant_message"], json!("PLANTASK DONE"));
}

/// The paths by which agents start that the hook fixes rely on: a resume by `SendMessage`, an
/// `Agent` call without `subagent_type`, a worktree subagent, a `Workflow`'s agent.
#[test]
#[ignore = "real Claude Code: run by `cargo xtask claude-code`"]
fn the_client_starts_agents_the_ways_the_protocol_document_records() {
    let project = Project::example(&tools());
    let log = logging_hooks(&project);
    let workflow = "export const meta = { name: 'wf', description: 'one agent', phases: [] }\n\
                    const r = await agent('WFTASK report', {agentType: 'coder'})\nreturn r\n";
    let isolated = json!({"description": "isolated", "prompt": "ISOTASK work", "subagent_type": "coder",
                          "run_in_background": false, "isolation": "worktree"});
    let api = start(
        Script::new()
            .agent(
                "MAINTASK",
                vec![
                    spawn("toolu_coder", Some("coder"), "CODETASK first"),
                    Turn::one(Block::tool_with_id(
                        "toolu_resume",
                        "SendMessage",
                        json!({"to": "$AGENT_ID", "summary": "continue", "message": "go on"}),
                    )),
                    spawn("toolu_untyped", None, "GPTASK anything"),
                    Turn::one(Block::tool_with_id("toolu_iso", "Agent", isolated)),
                    Turn::one(Block::tool_with_id("toolu_wf", "Workflow", json!({"script": workflow}))),
                ],
            )
            .agent("CODETASK", vec![])
            .agent("GPTASK", vec![])
            .agent("ISOTASK", vec![])
            .agent("WFTASK", vec![]),
    );
    let run = project.run(&api, "MAINTASK go", &RunOptions::kill_switch_unset());
    run.assert_finished();
    assert_loopback_only(&api);
    let hooks = logged_hooks(&log);
    let inputs: Vec<&Value> = hooks.iter().map(|h| &h["input"]).collect();
    let pre = |tool: &str| -> Vec<&Value> {
        inputs
            .iter()
            .copied()
            .filter(|i| i["hook_event_name"] == json!("PreToolUse") && i["tool_name"] == json!(tool))
            .collect()
    };
    let starts: Vec<&Value> =
        inputs.iter().copied().filter(|i| i["hook_event_name"] == json!("SubagentStart")).collect();
    let root = project.root.canonicalize().unwrap();

    // SendMessage: the hook sees the agent id in `to` (normalised with `recipient`), and the
    // resumed agent starts again under the same id, with no PreToolUse of Agent.
    let send = pre("SendMessage");
    assert_eq!(send.len(), 1, "{send:?}");
    let coder_id = send[0]["tool_input"]["to"].as_str().unwrap().to_owned();
    assert_eq!(send[0]["tool_input"]["recipient_kind"], json!("agent"));
    assert_eq!(send[0]["tool_input"]["recipient"], json!(coder_id));
    let coder_starts = starts.iter().filter(|s| s["agent_id"] == json!(coder_id)).count();
    assert_eq!(coder_starts, 2, "a resume is a second SubagentStart of the same agent: {starts:?}");
    assert_eq!(api.calls_of("CODETASK"), 2, "SendMessage resumed the finished coder");

    // Agent without subagent_type: none in the hook input; it starts as general-purpose.
    let agent_calls = pre("Agent");
    let untyped = agent_calls.iter().find(|i| i["tool_use_id"] == json!("toolu_untyped")).unwrap();
    assert!(untyped["tool_input"].get("subagent_type").is_none(), "{untyped}");
    assert!(starts.iter().any(|s| s["agent_type"] == json!("general-purpose")), "{starts:?}");

    // A worktree subagent: its events' cwd is its worktree under .claude/worktrees/.
    let worktree_start = starts
        .iter()
        .find(|s| str_of(s.get("cwd")) != root.to_str().unwrap())
        .expect("a SubagentStart outside the project root");
    let expected =
        root.join(".claude/worktrees").join(format!("agent-{}", str_of(worktree_start.get("agent_id"))));
    assert_eq!(str_of(worktree_start.get("cwd")), expected.to_str().unwrap());

    // Workflow: its agent starts with no PreToolUse of Agent (three Agent calls, four agents
    // started plus the resume).
    assert_eq!(pre("Workflow").len(), 1);
    assert!(api.ran("WFTASK"), "the workflow's agent ran");
    assert_eq!(agent_calls.len(), 3, "{agent_calls:?}");
    assert_eq!(
        starts.len(),
        5,
        "coder, its resume, general-purpose, the worktree coder, the workflow's coder: {starts:?}"
    );
}

/// The fail-closed switch Claude Code 2.1.330 has for command hooks: `"onFailure": "block"` on
/// the hook object turns exit 127, any other failure and a timeout of a PreToolUse hook into a
/// block (without it each of them lets the call run).
#[test]
#[ignore = "real Claude Code: run by `cargo xtask claude-code`"]
fn the_client_blocks_a_failing_pre_tool_use_hook_marked_on_failure_block() {
    let project = Project::example(&tools());
    let missing = project.dir().join("no-such-warden");
    let cases = [
        (format!("'{}' hook", missing.display()), "failed; blocking because onFailure is \"block\""),
        ("sleep 5".to_owned(), "timed out; blocking because onFailure is \"block\""),
    ];
    for (command, expected) in cases {
        for on_failure in [true, false] {
            let mut hook = json!({"type": "command", "command": command, "timeout": 1});
            if on_failure {
                hook["onFailure"] = json!("block");
            }
            project.set_settings(&json!({"hooks": {"PreToolUse": [{"matcher": "Agent", "hooks": [hook]}]}}));
            let api = start(
                Script::new()
                    .agent("MAINTASK", vec![spawn("toolu_spawn", Some("planner"), "PLANTASK plan")])
                    .agent("PLANTASK", vec![]),
            );
            let run = project.run(&api, "MAINTASK go", &RunOptions::kill_switch_unset());
            run.assert_finished();
            assert_loopback_only(&api);
            let result = api.tool_result("toolu_spawn").expect("the spawn was answered");
            if on_failure {
                assert!(!api.ran("PLANTASK"), "`{command}` with onFailure block let the spawn run");
                assert!(result.is_error && result.text.contains(expected), "{result:?}");
            } else {
                assert!(api.ran("PLANTASK"), "`{command}` without onFailure blocked: the client changed");
            }
        }
    }
}
