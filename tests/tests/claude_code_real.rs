//! The real-client suite: the real Claude Code CLI (the npm package pinned in
//! `tests/claude-code/`), in `-p` mode, against a scripted fake of the Messages API on
//! 127.0.0.1, in copies of `examples/claude-code` set up as README.md's "Guard Claude Code"
//! says. Run it with `cargo xtask claude-code` (it installs the CLI with `npm ci` when absent
//! and runs these tests with `--ignored`); `cargo xtask ci` runs it as a step of its own. The
//! hook is this crate's build of `warden` (`src/bin/warden-under-test.rs`: the binary's `main`).
//!
//! Ruling H-40: every test here that needs the CLI is `#[ignore]`d, so a plain `cargo test` or
//! `cargo nextest run` never runs it (nor counts it as passed); only the xtask step runs them,
//! with `--ignored --skip pending::`. The scenarios in `mod pending` describe behaviour the hook
//! does not have yet (issue 18): each is `#[ignore = "needs the hook fix: …"]` and fails on
//! today's code; when a fix lands, move its test out of `pending` (try it first with
//! `cargo test -p agentwarden-tests --test claude_code_real -- --ignored pending::NAME`).
//!
//! Every scenario also checks that the client reached nothing but the fake (the fake is the
//! proxy for every other host and refuses it).

use std::time::Duration;

use agentwarden_tests::claude_code::{
    APPROVAL_REF, Block, FakeApi, HELPER_TIMEOUT, PINNED_VERSION, Project, RunOptions, Script, Tools, Turn,
    output_within, workspace_root,
};
use serde_json::{Value, json};

fn tools() -> Tools {
    Tools::locate(env!("CARGO_BIN_EXE_warden-under-test")).unwrap_or_else(|e| panic!("{e}"))
}

fn start(script: Script) -> FakeApi {
    FakeApi::start(script).expect("start the fake Messages API")
}

/// The client talked to the fake only.
fn assert_loopback_only(api: &FakeApi) {
    let foreign = api.foreign_requests();
    assert!(foreign.is_empty(), "the client tried to reach other hosts: {foreign:?}");
}

/// A foreground `Agent` call with a fixed tool_use id.
fn spawn(id: &str, subagent_type: Option<&str>, prompt: &str) -> Turn {
    let mut input = json!({"description": "delegated step", "prompt": prompt, "run_in_background": false});
    if let Some(t) = subagent_type {
        input["subagent_type"] = json!(t);
    }
    Turn::one(Block::tool_with_id(id, "Agent", input))
}

fn payload<'a>(event: &'a Value, field: &str) -> Option<&'a Value> {
    event.get("payload").and_then(|p| p.get(field))
}

fn str_of(value: Option<&Value>) -> &str {
    value.and_then(Value::as_str).unwrap_or_default()
}

const ORIGINAL_Q4: &str = include_str!("../../examples/claude-code/okrs/q4.md");

// ----- the pinned client -------------------------------------------------------------------

/// Not ignored: needs no CLI. The harness's version, the manifest and the lock agree.
#[test]
fn the_pinned_version_is_exact_and_locked() {
    let dir = workspace_root().join("tests/claude-code");
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("package.json")).unwrap()).unwrap();
    assert_eq!(
        manifest["dependencies"]["@anthropic-ai/claude-code"],
        json!(PINNED_VERSION),
        "pin an exact version"
    );
    let lock: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("package-lock.json")).unwrap()).unwrap();
    assert_eq!(lock["packages"]["node_modules/@anthropic-ai/claude-code"]["version"], json!(PINNED_VERSION));
    assert_eq!(
        lock["packages"]["node_modules/@anthropic-ai/claude-code-linux-x64"]["version"],
        json!(PINNED_VERSION)
    );
}

#[test]
#[ignore = "real Claude Code: run by `cargo xtask claude-code`"]
fn the_installed_client_is_the_pinned_version() {
    let out = output_within(std::process::Command::new(tools().claude).arg("--version"), HELPER_TIMEOUT);
    let version = String::from_utf8_lossy(&out.stdout);
    assert!(version.starts_with(PINNED_VERSION), "installed {version:?}, pinned {PINNED_VERSION}");
}

// ----- what the client sends (docs/claude-code-protocol.md) --------------------------------

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

// ----- today's behaviour -------------------------------------------------------------------

#[test]
#[ignore = "real Claude Code: run by `cargo xtask claude-code`"]
fn an_allowed_spawn_with_seal_and_approval_runs_the_subagent() {
    let project = Project::readme_setup(&tools());
    let api = start(
        Script::new()
            .agent("MAINTASK", vec![spawn("toolu_spawn", Some("planner"), "PLANTASK plan the change")])
            .agent("PLANTASK", vec![]),
    );
    let run = project.run(&api, "MAINTASK go", &RunOptions::default());
    run.assert_finished();
    assert_loopback_only(&api);

    assert!(api.ran("PLANTASK"), "the planner made no model call");
    let result = api.tool_result("toolu_spawn").expect("the spawn's result reached the main session");
    assert!(!result.is_error && result.text.contains("PLANTASK DONE"), "{result:?}");

    let session = run.session_id().unwrap();
    let spawns = project.audit_of("subagent_spawn_evaluated");
    assert_eq!(spawns.len(), 1, "{spawns:?}");
    let spawn = &spawns[0];
    assert_eq!(str_of(spawn.get("session")), session);
    assert_eq!(
        (str_of(payload(spawn, "decision")), str_of(payload(spawn, "subagent_type"))),
        ("allow", "planner")
    );
    assert_eq!(str_of(payload(spawn, "tool_use_id")), "toolu_spawn");
    assert!(spawn.to_string().contains(APPROVAL_REF), "the allow names the approval it ran under: {spawn}");
    assert_eq!(project.audit_of("subagent_started").len(), 1);
}

#[test]
#[ignore = "real Claude Code: run by `cargo xtask claude-code`"]
fn with_the_kill_switch_unset_the_spawn_is_denied_and_the_model_is_told_why() {
    let project = Project::readme_setup(&tools());
    let api = start(
        Script::new()
            .agent("MAINTASK", vec![spawn("toolu_spawn", Some("planner"), "PLANTASK plan the change")])
            .agent("PLANTASK", vec![]),
    );
    let run = project.run(&api, "MAINTASK go", &RunOptions::kill_switch_unset());
    run.assert_finished();
    assert_loopback_only(&api);

    assert!(!api.ran("PLANTASK"), "the planner ran although the kill switch was unset");
    let result = api.tool_result("toolu_spawn").expect("the denial reached the model");
    assert!(result.text.contains("env_not_enabled"), "the reason names the failed gate: {result:?}");
    assert!(
        result.text.contains("AGENTWARDEN_ENABLE_SUBAGENTS"),
        "the reason names the variable: {result:?}"
    );

    let spawns = project.audit_of("subagent_spawn_evaluated");
    assert_eq!(spawns.len(), 1, "{spawns:?}");
    assert_eq!(str_of(payload(&spawns[0], "decision")), "deny");
    assert_eq!(str_of(spawns[0].get("session")), run.session_id().unwrap());
    assert!(spawns[0].to_string().contains("env_not_enabled"), "{}", spawns[0]);
    assert!(project.audit_of("subagent_started").is_empty());
}

#[test]
#[ignore = "real Claude Code: run by `cargo xtask claude-code`"]
fn a_nested_subagents_plain_write_to_okrs_is_reverted_at_its_stop() {
    let project = Project::readme_setup(&tools());
    let api = start(
        Script::new()
            .agent("MAINTASK", vec![spawn("toolu_planner", Some("planner"), "PLANTASK plan the change")])
            .agent("PLANTASK", vec![spawn("toolu_coder", Some("coder"), "CODETASK implement it")])
            .agent(
                "CODETASK",
                vec![Turn::one(Block::tool_with_id(
                    "toolu_write",
                    "Write",
                    json!({"file_path": "okrs/evil.md", "content": "the coder was here\n"}),
                ))],
            ),
    );
    let run = project.run(&api, "MAINTASK go", &RunOptions::default());
    run.assert_finished();
    assert_loopback_only(&api);

    // The write happened (nothing prevents it yet), then the stop hook reverted it.
    let write = api.tool_result("toolu_write").expect("the coder's write ran");
    assert!(!write.is_error, "{write:?}");
    assert_eq!(project.read("okrs/evil.md"), None, "the added protected file is still there");
    assert_eq!(project.read("okrs/q4.md").as_deref(), Some(ORIGINAL_Q4));
    assert_eq!(project.git(&["status", "--porcelain", "--", "okrs"]), "");

    // The coder was told, by its blocked stop, which file was reverted.
    let feedback = api.texts_seen_by("CODETASK").join("\n");
    assert!(
        feedback.contains("Stop hook feedback") && feedback.contains("okrs/evil.md"),
        "the coder was not told: {feedback}"
    );

    let violations = project.audit_of("guardrail_violation");
    assert_eq!(violations.len(), 1, "{violations:?}");
    assert!(violations[0].to_string().contains("okrs/evil.md"), "{}", violations[0]);
    // The blocked stop, then (stop_hook_active, the revert done) a stop that passes: the coder
    // is not held until Claude Code's block cap lets it go.
    let stopped = project.audit_of("subagent_stopped");
    let stops: Vec<&str> = stopped.iter().map(|e| str_of(payload(e, "decision"))).collect();
    assert_eq!(stops, ["deny", "allow", "allow"], "coder blocked once then passed, then the planner passed");
    let spawns = project.audit_of("subagent_spawn_evaluated");
    let types: Vec<&str> = spawns.iter().map(|e| str_of(payload(e, "subagent_type"))).collect();
    assert_eq!(types, ["planner", "coder"]);
    assert!(spawns.iter().all(|e| str_of(payload(e, "decision")) == "allow"));
}

#[test]
#[ignore = "real Claude Code: run by `cargo xtask claude-code`"]
fn a_built_in_type_and_the_main_persona_itself_are_denied_as_subagents() {
    let project = Project::readme_setup(&tools());
    // Claude Code offers its built-in types and every `.claude/agents/*.md`, `main.md` included.
    let api = start(
        Script::new()
            .agent(
                "MAINTASK",
                vec![
                    spawn("toolu_explore", Some("Explore"), "EXPLORETASK look around"),
                    spawn("toolu_main", Some("main"), "SELFTASK be the main persona"),
                ],
            )
            .agent("EXPLORETASK", vec![])
            .agent("SELFTASK", vec![]),
    );
    let run = project.run(&api, "MAINTASK go", &RunOptions::default());
    run.assert_finished();
    assert_loopback_only(&api);
    assert!(!api.ran("EXPLORETASK") && !api.ran("SELFTASK"), "a denied subagent ran");
    for id in ["toolu_explore", "toolu_main"] {
        let result = api.tool_result(id).expect("the denial reached the model");
        assert!(result.text.contains("Agent Warden denied"), "{result:?}");
    }
    let spawns = project.audit_of("subagent_spawn_evaluated");
    let seen: Vec<(&str, &str)> = spawns
        .iter()
        .map(|e| (str_of(payload(e, "subagent_type")), str_of(payload(e, "decision"))))
        .collect();
    assert_eq!(seen, [("Explore", "deny"), ("main", "deny")]);
}

/// Warden's hooks in a managed-settings drop-in (with `allowManagedHooksOnly`) survive the
/// agent's edit of the project's settings; in the project's settings alone they do not.
#[test]
#[ignore = "real Claude Code: run by `cargo xtask claude-code` (as root: a mount namespace)"]
fn root_only_hooks_in_managed_settings_survive_an_edit_of_the_projects_settings() {
    let project = Project::readme_setup(&tools());
    let managed = project.dir().join("managed");
    std::fs::create_dir_all(managed.join("managed-settings.d")).unwrap();
    let drop_in = json!({"allowManagedHooksOnly": true, "hooks": project.settings()["hooks"].clone()});
    std::fs::write(managed.join("managed-settings.d/50-agentwarden.json"), drop_in.to_string()).unwrap();
    // What an agent with Write can do to the project's settings.
    project.set_settings(&json!({"disableAllHooks": true}));
    for with_managed in [false, true] {
        let api = start(
            Script::new()
                .agent("MAINTASK", vec![spawn("toolu_spawn", Some("planner"), "PLANTASK plan")])
                .agent("PLANTASK", vec![]),
        );
        let options = RunOptions {
            managed_settings: with_managed.then(|| managed.clone()),
            ..RunOptions::kill_switch_unset()
        };
        let run = project.run(&api, "MAINTASK go", &options);
        run.assert_finished();
        assert_loopback_only(&api);
        if with_managed {
            assert!(!api.ran("PLANTASK"), "the managed hook did not deny the spawn");
            let result = api.tool_result("toolu_spawn").unwrap();
            assert!(result.text.contains("env_not_enabled"), "{result:?}");
        } else {
            assert!(
                api.ran("PLANTASK"),
                "disableAllHooks in the project did not switch its hooks off: the client changed"
            );
        }
    }
}

// ----- behaviour the hook does not have yet (issue 18) -------------------------------------

mod pending {
    use super::*;

    #[test]
    #[ignore = "needs the hook fix: Agent without subagent_type is evaluated (and recorded) as general-purpose"]
    fn an_agent_call_without_subagent_type_is_evaluated_as_general_purpose() {
        let project = Project::readme_setup(&tools());
        let api = start(
            Script::new().agent("MAINTASK", vec![spawn("toolu_untyped", None, "GPTASK do anything")]).agent(
                "GPTASK",
                vec![Turn::one(Block::tool("Write", json!({"file_path": "okrs/gp.md", "content": "x\n"})))],
            ),
        );
        let run = project.run(&api, "MAINTASK go", &RunOptions::default());
        run.assert_finished();
        assert_loopback_only(&api);
        assert!(!api.ran("GPTASK"), "general-purpose is not among main's subagents: it must not run");
        let result = api.tool_result("toolu_untyped").expect("the denial reached the model");
        assert!(result.text.contains("general-purpose"), "{result:?}");
        let spawns = project.audit_of("subagent_spawn_evaluated");
        assert_eq!(spawns.len(), 1, "the decision is recorded: {spawns:?}");
        assert_eq!(str_of(payload(&spawns[0], "subagent_type")), "general-purpose");
        assert_eq!(str_of(payload(&spawns[0], "decision")), "deny");
    }

    #[test]
    #[ignore = "needs the hook fix: SendMessage to an existing agent re-checks the approval it runs under"]
    fn send_message_to_an_agent_whose_approval_was_revoked_is_denied() {
        let project = Project::readme_setup(&tools());
        let (warden, root) = (project.tools.warden.clone(), project.root.clone());
        let api = start(
            Script::new()
                .agent_fn("MAINTASK", move |_, step| match step {
                    0 => Some(spawn("toolu_spawn", Some("planner"), "PLANTASK plan the change")),
                    1 => {
                        // A human revokes the approval while the session goes on.
                        let out = output_within(
                            std::process::Command::new(&warden)
                                .args(["revoke", "--ref", APPROVAL_REF, "--by", "alice"])
                                .current_dir(&root)
                                .env_remove("CLAUDECODE"),
                            HELPER_TIMEOUT,
                        );
                        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
                        Some(Turn::one(Block::tool_with_id(
                            "toolu_resume",
                            "SendMessage",
                            json!({"to": "$AGENT_ID", "summary": "continue", "message": "RESUMED go on"}),
                        )))
                    }
                    _ => None,
                })
                .agent("PLANTASK", vec![]),
        );
        let run = project.run(&api, "MAINTASK go", &RunOptions::default());
        run.assert_finished();
        assert_loopback_only(&api);
        assert_eq!(api.calls_of("PLANTASK"), 1, "the planner was resumed after its approval was revoked");
        let result = api.tool_result("toolu_resume").expect("the SendMessage result reached the model");
        assert!(result.text.contains("revoked"), "the reason names the revoked approval: {result:?}");
    }

    #[test]
    #[ignore = "needs the hook fix: Workflow (which starts agents with no PreToolUse of Agent) is denied"]
    fn a_workflow_that_starts_agents_is_denied() {
        let project = Project::readme_setup(&tools());
        let script = "export const meta = { name: 'wf', description: 'write okrs', phases: [] }\n\
                      const r = await agent('WFTASK write it', {agentType: 'coder'})\nreturn r\n";
        let api = start(
            Script::new()
                .agent(
                    "MAINTASK",
                    vec![Turn::one(Block::tool_with_id("toolu_wf", "Workflow", json!({"script": script})))],
                )
                .agent(
                    "WFTASK",
                    vec![Turn::one(Block::tool(
                        "Write",
                        json!({"file_path": "okrs/wf.md", "content": "x\n"}),
                    ))],
                ),
        );
        let run = project.run(&api, "MAINTASK go", &RunOptions::default());
        run.assert_finished();
        assert_loopback_only(&api);
        assert!(!api.ran("WFTASK"), "the workflow's agent ran");
        assert_eq!(project.read("okrs/wf.md"), None);
        let result = api.tool_result("toolu_wf").expect("the denial reached the model");
        assert!(result.text.contains("Workflow"), "{result:?}");
    }

    #[test]
    #[ignore = "needs the hook fix: an agent no allowed spawn accounts for is untracked, and every tool call it makes is denied"]
    fn an_untracked_agents_tool_calls_are_denied() {
        let project = Project::readme_setup(&tools());
        // A spawn the gate never saw (as a Workflow's, or one whose PreToolUse failed open): the
        // PreToolUse entries are narrowed so that `Agent` itself does not reach Warden.
        let mut settings = project.settings();
        for entry in settings["hooks"]["PreToolUse"].as_array_mut().unwrap() {
            entry["matcher"] = json!("Write|Edit|Bash|NotebookEdit");
        }
        project.set_settings(&settings);
        let api = start(
            Script::new()
                .agent("MAINTASK", vec![spawn("toolu_spawn", Some("coder"), "CODETASK write")])
                .agent(
                    "CODETASK",
                    vec![Turn::one(Block::tool_with_id(
                        "toolu_write",
                        "Write",
                        json!({"file_path": "notes/untracked.md", "content": "x\n"}),
                    ))],
                ),
        );
        let run = project.run(&api, "MAINTASK go", &RunOptions::default());
        run.assert_finished();
        assert_loopback_only(&api);
        assert_eq!(project.read("notes/untracked.md"), None, "the untracked agent's write ran");
        let result = api.tool_result("toolu_write").expect("the denial reached the agent");
        assert!(result.text.contains("untracked"), "{result:?}");
    }

    #[test]
    #[ignore = "needs the hook fix: protected paths restored from a content snapshot, so a commit launders nothing"]
    fn a_subagents_commit_to_okrs_is_reverted() {
        let project = Project::readme_setup(&tools());
        let commit = "printf 'rewritten\\n' > okrs/q4.md && git add okrs && \
                      git -c user.name=x -c user.email=x@example.com commit -qm evil";
        let api = start(
            Script::new()
                .agent("MAINTASK", vec![spawn("toolu_planner", Some("planner"), "PLANTASK plan")])
                .agent("PLANTASK", vec![spawn("toolu_coder", Some("coder"), "CODETASK implement")])
                .agent("CODETASK", vec![Turn::one(Block::tool("Bash", json!({"command": commit})))]),
        );
        let run = project.run(&api, "MAINTASK go", &RunOptions::default());
        run.assert_finished();
        assert_loopback_only(&api);
        assert_eq!(project.read("okrs/q4.md").as_deref(), Some(ORIGINAL_Q4), "the committed change stuck");
        assert_eq!(project.audit_of("guardrail_violation").len(), 1);
    }

    #[test]
    #[ignore = "needs the hook fix: Write/Edit/NotebookEdit to a protected path denied at PreToolUse, from any agent"]
    fn a_write_to_a_protected_path_is_denied_before_it_happens() {
        let project = Project::readme_setup(&tools());
        let api = start(Script::new().agent(
            "MAINTASK",
            vec![Turn::one(Block::tool_with_id(
                "toolu_write",
                "Write",
                json!({"file_path": "okrs/main.md", "content": "x\n"}),
            ))],
        ));
        let run = project.run(&api, "MAINTASK go", &RunOptions::default());
        run.assert_finished();
        assert_loopback_only(&api);
        assert_eq!(project.read("okrs/main.md"), None, "the write to a protected path ran");
        let result = api.tool_result("toolu_write").expect("the denial reached the model");
        assert!(result.text.contains("okrs"), "{result:?}");
    }

    #[test]
    #[ignore = "needs the hook fix: a worktree subagent is checked in its own worktree (the `cwd` of its events)"]
    fn a_worktree_subagents_write_to_okrs_is_reverted_in_its_worktree() {
        let project = Project::readme_setup(&tools());
        let coder = json!({"description": "isolated", "prompt": "CODETASK isolated",
                           "subagent_type": "coder", "run_in_background": false, "isolation": "worktree"});
        let api = start(
            Script::new()
                .agent("MAINTASK", vec![spawn("toolu_planner", Some("planner"), "PLANTASK plan")])
                .agent("PLANTASK", vec![Turn::one(Block::tool("Agent", coder))])
                .agent(
                    "CODETASK",
                    vec![Turn::one(Block::tool(
                        "Write",
                        json!({"file_path": "okrs/iso.md", "content": "x\n"}),
                    ))],
                ),
        );
        let run = project.run(&api, "MAINTASK go", &RunOptions::default());
        run.assert_finished();
        assert_loopback_only(&api);
        assert!(api.ran("CODETASK"));
        let worktrees = project.root.join(".claude/worktrees");
        for entry in std::fs::read_dir(&worktrees).into_iter().flatten().flatten() {
            assert!(
                !entry.path().join("okrs/iso.md").exists(),
                "the write stayed in `{}`",
                entry.path().display()
            );
        }
        let violations = project.audit_of("guardrail_violation");
        assert_eq!(violations.len(), 1, "{violations:?}");
        assert!(violations[0].to_string().contains("okrs/iso.md"));
    }

    #[test]
    #[ignore = "needs the hook fix: a missing result.json on a stop with stop_hook_active quarantines the session"]
    fn a_missing_result_json_quarantines_the_session() {
        let project = Project::readme_setup(&tools());
        let api = start(
            Script::new()
                .agent(
                    "MAINTASK",
                    vec![
                        spawn("toolu_planner", Some("planner"), "PLANTASK plan, then write out/result.json"),
                        Turn::one(Block::tool_with_id("toolu_after", "Bash", json!({"command": "true"}))),
                    ],
                )
                .agent("PLANTASK", vec![]),
        );
        let run = project.run(&api, "MAINTASK go", &RunOptions::default());
        run.assert_finished();
        assert_loopback_only(&api);
        let session = run.session_id().unwrap();
        let result = api.tool_result("toolu_after").expect("the main session's next call was answered");
        assert!(
            result.text.contains(&format!("warden release --session {session}")),
            "the session is not quarantined: {result:?}"
        );
        assert!(api.calls_of("PLANTASK") <= 2, "the planner was held until Claude Code's cap let it go");
    }

    #[test]
    #[ignore = "needs the hook fix: the installed command blocks (exit 2) when the warden binary is missing"]
    fn a_missing_warden_binary_blocks_the_spawn() {
        let tools = tools();
        let project = Project::example(&tools);
        let copy = project.dir().join("bin/warden");
        std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
        std::fs::copy(&tools.warden, &copy).unwrap();
        project.warden_ok(&["init", "claude-code", "--warden", copy.to_str().unwrap()]);
        project.warden_ok(&["seal", "--by", "alice"]);
        project.warden_ok(&["approve", "--ref", APPROVAL_REF, "--by", "alice"]);
        std::fs::remove_file(&copy).unwrap(); // e.g. `cargo clean`
        let doctor = project.warden(&["doctor"]);
        assert!(!doctor.status.success(), "doctor passes a settings file whose binary is gone");
        let api = start(
            Script::new()
                .agent("MAINTASK", vec![spawn("toolu_spawn", Some("planner"), "PLANTASK plan")])
                .agent("PLANTASK", vec![]),
        );
        let run = project.run(&api, "MAINTASK go", &RunOptions::kill_switch_unset());
        run.assert_finished();
        assert_loopback_only(&api);
        assert!(
            !api.ran("PLANTASK"),
            "the spawn ran with the hook's binary missing and the kill switch unset"
        );
    }

    #[test]
    #[ignore = "needs the hook fix: the hook answers before Claude Code's timeout, which init keeps above the lock wait"]
    fn a_busy_store_never_lets_a_spawn_through_a_hook_timeout() {
        let tools = tools();
        let project = Project::example(&tools);
        let warden = tools.warden.to_string_lossy().into_owned();
        let init = project.warden(&["init", "claude-code", "--warden", &warden, "--timeout", "2"]);
        if !init.status.success() {
            return; // refused: a 2 s timeout leaves no margin over the lock wait
        }
        project.warden_ok(&["seal", "--by", "alice"]);
        project.warden_ok(&["approve", "--ref", APPROVAL_REF, "--by", "alice"]);
        // A process group holds the store's lock for the whole run (at most 60 s).
        let mut holder = std::process::Command::new("flock");
        holder.args(["-x", ".agentwarden/audit/db", "sleep", "60"]).current_dir(&project.root);
        std::os::unix::process::CommandExt::process_group(&mut holder, 0);
        let mut holder = holder.spawn().unwrap();
        let holder_group = rustix::process::Pid::from_child(&holder);
        std::thread::sleep(Duration::from_millis(300));
        let api = start(
            Script::new()
                .agent("MAINTASK", vec![spawn("toolu_spawn", Some("planner"), "PLANTASK plan")])
                .agent("PLANTASK", vec![]),
        );
        let run = project.run(&api, "MAINTASK go", &RunOptions::default());
        let _ = rustix::process::kill_process_group(holder_group, rustix::process::Signal::KILL);
        let _ = holder.wait();
        run.assert_finished();
        assert_loopback_only(&api);
        assert!(!api.ran("PLANTASK"), "the spawn ran when the hook timed out");
    }

    #[test]
    #[ignore = "needs the hook fix: violations are recorded under their session (the timeline shows them)"]
    fn the_violation_is_in_the_sessions_timeline() {
        let project = Project::readme_setup(&tools());
        let api = start(
            Script::new()
                .agent("MAINTASK", vec![spawn("toolu_planner", Some("planner"), "PLANTASK plan")])
                .agent("PLANTASK", vec![spawn("toolu_coder", Some("coder"), "CODETASK implement")])
                .agent(
                    "CODETASK",
                    vec![Turn::one(Block::tool(
                        "Write",
                        json!({"file_path": "okrs/evil.md", "content": "x\n"}),
                    ))],
                ),
        );
        let run = project.run(&api, "MAINTASK go", &RunOptions::default());
        run.assert_finished();
        let session = run.session_id().unwrap();
        let violations = project.audit_of("guardrail_violation");
        assert_eq!(violations.len(), 1);
        assert_eq!(str_of(violations[0].get("session")), session, "{}", violations[0]);
        let timeline = project.warden_ok(&["audit", "timeline", "--session", &session, "--json"]);
        assert!(timeline.contains("guardrail_violation"), "{timeline}");
    }

    #[test]
    #[ignore = "needs the hook fix: `decisions` and `denials` count hook decisions; one spawn-tree node per agent"]
    fn the_investigation_views_agree_with_the_hooks_decisions() {
        let project = Project::readme_setup(&tools());
        let api = start(
            Script::new()
                .agent(
                    "MAINTASK",
                    vec![
                        spawn("toolu_planner", Some("planner"), "PLANTASK plan"),
                        spawn("toolu_explore", Some("Explore"), "EXPLORETASK look"),
                    ],
                )
                .agent("PLANTASK", vec![spawn("toolu_coder", Some("coder"), "CODETASK implement")])
                .agent("EXPLORETASK", vec![]),
        );
        let run = project.run(&api, "MAINTASK go", &RunOptions::default());
        run.assert_finished();
        assert_loopback_only(&api);
        let session = run.session_id().unwrap();
        let replay = |name: &str| -> Value {
            serde_json::from_str(&project.warden_ok(&["audit", "replay", "--projection", name, "--json"]))
                .unwrap()
        };
        // Two spawns allowed, one denied (stops may count as decisions too: at least these).
        let decisions = replay("decisions");
        let count = |d: &str| decisions["total"][d].as_u64().unwrap_or(0);
        assert!(count("allow") >= 2 && count("deny") >= 1, "{decisions}");
        let denials = replay("denials");
        assert!(denials["denials"].as_u64().unwrap_or(0) >= 1, "{denials}");
        let tree = replay("spawn-tree");
        let agents = tree["sessions"][&session]["agents"].as_object().expect("the session's spawn tree");
        let started: Vec<&String> = agents.keys().filter(|k| *k != "main").collect();
        assert_eq!(started.len(), 2, "one node per started agent (planner, coder): {agents:?}");
        assert!(
            started.iter().all(|k| !k.starts_with("toolu_")),
            "nodes are agents, not tool calls: {agents:?}"
        );
    }

    #[test]
    #[ignore = "needs the hook fix: a stop the store cannot serve quarantines the session, even with the store locked"]
    fn a_subagent_that_locks_the_store_gets_its_session_quarantined() {
        let project = Project::readme_setup(&tools());
        // The coder writes to okrs/, then holds the store's lock so that every stop hook fails.
        let lock = "(flock -x .agentwarden/audit/db sleep 40 >/dev/null 2>&1 &) ; sleep 1";
        let api = start(
            Script::new()
                .agent(
                    "MAINTASK",
                    vec![
                        spawn("toolu_planner", Some("planner"), "PLANTASK plan"),
                        Turn::one(Block::tool_with_id("toolu_after", "Bash", json!({"command": "true"}))),
                    ],
                )
                .agent("PLANTASK", vec![spawn("toolu_coder", Some("coder"), "CODETASK implement")])
                .agent(
                    "CODETASK",
                    vec![
                        Turn::one(Block::tool(
                            "Write",
                            json!({"file_path": "okrs/evil.md", "content": "x\n"}),
                        )),
                        Turn::one(Block::tool("Bash", json!({"command": lock}))),
                    ],
                ),
        );
        let options = RunOptions { timeout: Duration::from_secs(120), ..RunOptions::default() };
        let run = project.run(&api, "MAINTASK go", &options);
        run.assert_finished();
        assert_loopback_only(&api);
        let session = run.session_id().unwrap();
        let result = api.tool_result("toolu_after").expect("the main session's next call was answered");
        assert!(
            result.text.contains(&format!("warden release --session {session}")),
            "the session is not quarantined: {result:?}"
        );
    }

    #[test]
    #[ignore = "needs the hook fix: `init claude-code --managed FILE` writes a managed-settings drop-in (hooks + allowManagedHooksOnly)"]
    fn the_managed_drop_in_that_init_writes_keeps_the_guard_when_the_project_settings_are_edited() {
        let project = Project::readme_setup(&tools());
        let managed = project.dir().join("managed");
        let drop_in = managed.join("managed-settings.d/50-agentwarden.json");
        std::fs::create_dir_all(drop_in.parent().unwrap()).unwrap();
        let warden = project.tools.warden.to_string_lossy().into_owned();
        project.warden_ok(&[
            "init",
            "claude-code",
            "--warden",
            &warden,
            "--managed",
            drop_in.to_str().unwrap(),
        ]);
        project.set_settings(&json!({"disableAllHooks": true}));
        let api = start(
            Script::new()
                .agent("MAINTASK", vec![spawn("toolu_spawn", Some("planner"), "PLANTASK plan")])
                .agent("PLANTASK", vec![]),
        );
        let options = RunOptions { managed_settings: Some(managed), ..RunOptions::kill_switch_unset() };
        let run = project.run(&api, "MAINTASK go", &options);
        run.assert_finished();
        assert_loopback_only(&api);
        assert!(!api.ran("PLANTASK"), "the spawn ran: the drop-in did not keep Warden's hooks");
    }
}
