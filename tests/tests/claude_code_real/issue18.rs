//! Behaviour the hook does not have yet (issue 18): each scenario fails on the code it
//! describes and is `#[ignore = "real Claude Code: run by `cargo xtask claude-code`"]`; `cargo xtask claude-code` skips this
//! module (`--skip pending::`). When a fix lands, move its test up into the suite (ruling H-40).

use std::time::Duration;

use super::*;

#[test]
#[ignore = "real Claude Code: run by `cargo xtask claude-code`"]
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
#[ignore = "real Claude Code: run by `cargo xtask claude-code`"]
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
#[ignore = "real Claude Code: run by `cargo xtask claude-code`"]
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
                vec![Turn::one(Block::tool("Write", json!({"file_path": "okrs/wf.md", "content": "x\n"})))],
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
#[ignore = "real Claude Code: run by `cargo xtask claude-code`"]
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
        Script::new().agent("MAINTASK", vec![spawn("toolu_spawn", Some("coder"), "CODETASK write")]).agent(
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
#[ignore = "real Claude Code: run by `cargo xtask claude-code`"]
fn a_subagents_commit_to_okrs_is_reverted() {
    let project = Project::readme_setup(&tools());
    // Written by awk's own logic, the name built from pieces: what the line's reading does not
    // see (T-31, T-32); the stop is what this tests.
    let commit = "awk 'BEGIN { print \"rewritten\" > (\"ok\" \"rs/q4.md\") }' && git add -A && \
                  git -c user.name=x -c user.email=x@example.com commit -qm evil";
    let api = start(through_the_coder(vec![Turn::one(Block::tool("Bash", json!({"command": commit})))]));
    let run = project.run(&api, "MAINTASK go", &RunOptions::default());
    run.assert_finished();
    assert_loopback_only(&api);
    assert_eq!(project.read("okrs/q4.md").as_deref(), Some(ORIGINAL_Q4), "the committed change stuck");
    assert_eq!(project.audit_of("guardrail_violation").len(), 1);
}

#[test]
#[ignore = "real Claude Code: run by `cargo xtask claude-code`"]
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
#[ignore = "real Claude Code: run by `cargo xtask claude-code`"]
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
                // A shell write: a Write into a protected path is denied before it happens (H-26).
                vec![Turn::one(Block::tool(
                    "Bash",
                    json!({"command": "awk 'BEGIN { print \"x\" > \"okrs/iso.md\" }'"}),
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
    assert!(violations[0].to_string().contains("okrs/iso.md"), "{violations:?}");
}

#[test]
#[ignore = "real Claude Code: run by `cargo xtask claude-code`"]
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
#[ignore = "real Claude Code: run by `cargo xtask claude-code`"]
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
    assert!(!api.ran("PLANTASK"), "the spawn ran with the hook's binary missing and the kill switch unset");
}

#[test]
#[ignore = "real Claude Code: run by `cargo xtask claude-code`"]
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
#[ignore = "real Claude Code: run by `cargo xtask claude-code`"]
fn the_violation_is_in_the_sessions_timeline() {
    let project = Project::readme_setup(&tools());
    let api = start(through_the_coder(
        // A shell write: a Write into a protected path is denied before it happens (H-26).
        vec![Turn::one(Block::tool(
            "Bash",
            json!({"command": "awk 'BEGIN { print \"x\" > \"okrs/evil.md\" }'"}),
        ))],
    ));
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
#[ignore = "real Claude Code: run by `cargo xtask claude-code`"]
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
    // An agent that started is one node, under its agent id; a denied spawn never became
    // an agent and stays the node of its tool call, counted as denied (H-31).
    let started: Vec<&String> =
        agents.iter().filter(|(k, a)| *k != "main" && a["denied"] == 0).map(|(k, _)| k).collect();
    assert_eq!(started.len(), 2, "one node per started agent (planner, coder): {agents:?}");
    assert!(started.iter().all(|k| !k.starts_with("toolu_")), "nodes are agents, not tool calls: {agents:?}");
    assert_eq!(agents["toolu_explore"]["denied"], 1, "the denied Explore spawn: {agents:?}");
    assert_eq!(agents.len(), 4, "main, planner, coder and the denied attempt: {agents:?}");
}

#[test]
#[ignore = "real Claude Code: run by `cargo xtask claude-code`"]
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
                    Turn::one(Block::tool("Write", json!({"file_path": "okrs/evil.md", "content": "x\n"}))),
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
#[ignore = "real Claude Code: run by `cargo xtask claude-code`"]
fn the_managed_drop_in_that_init_writes_keeps_the_guard_when_the_project_settings_are_edited() {
    let project = Project::readme_setup(&tools());
    let managed = project.dir().join("managed");
    let drop_in = managed.join("managed-settings.d/50-agentwarden.json");
    std::fs::create_dir_all(drop_in.parent().unwrap()).unwrap();
    let warden = project.tools.warden.to_string_lossy().into_owned();
    project.warden_ok(&["init", "claude-code", "--warden", &warden, "--managed", drop_in.to_str().unwrap()]);
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
