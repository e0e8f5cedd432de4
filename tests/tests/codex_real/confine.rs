//! Issue 50 item 5 for Codex: what a rule grants, the kernel enforces. The planner holds
//! `Bash(python3:*)`, `Edit(src/**)` and `Read(src/**)`; its `python3 -c` calls are allowed by
//! their text, and run under `warden-confine` (Codex's `updatedInput` with `allow`, C-20): the
//! kernel refuses what its manifest does not grant, inside the command, before any stop runs.
//! The main session, with `[confine] main_session` on, cannot write a protected path from its
//! shell.

use super::*;

/// The planner's manifest in this scenario.
const PLANNER: &str =
    "tools = [\"Bash(python3:*)\", \"Edit(src/**)\", \"Read(src/**)\", \"multi_agent_v1wait_agent\"]";

/// `examples/codex` with the planner held to [`PLANNER`] and `[confine]` as `confine` says,
/// sealed again.
fn confined_project(confine: &str) -> CodexProject {
    let project = CodexProject::setup(&tools());
    let manifests = project
        .read("manifests.toml")
        .expect("the manifests")
        .replace("tools = [\"Bash(echo:*)\", \"Edit(src/**)\", \"multi_agent_v1wait_agent\"]", PLANNER);
    assert!(manifests.contains(PLANNER), "the planner's rules were replaced");
    std::fs::write(project.root.join("manifests.toml"), manifests).expect("write the manifests");
    let config = project.read("agentwarden.toml").expect("the configuration");
    std::fs::write(project.root.join("agentwarden.toml"), format!("{config}\n[confine]\n{confine}\n"))
        .expect("write the configuration");
    // A protected path that does not exist is carved read-only at its nearest ancestor (E-4): the
    // protected files `init` names are made, so that the project's root stays writable.
    for name in ["AGENTS.md", ".env"] {
        std::fs::write(project.root.join(name), "kept\n").expect("write a protected file");
    }
    project.git(&["add", "-A"]);
    project.git(&["commit", "-qam", "confined"]);
    project.warden_ok(&["seal", "--by", "alice"]);
    project
}

/// The planner's calls, each one `python3 -c` its rule grants by its text (no character a
/// pattern rule refuses, T-24): append to the protected `okrs/q4.md`; write `src/new.txt`; read
/// `agentwarden.toml`, outside its `Read(src/**)`; connect to `port` on 127.0.0.1 (a listener of
/// the test's); start a writer in a session of its own, its output closed so that the call
/// returns at once, which after 2 s writes `src/late.txt` and then appends to `okrs/q4.md`; wait
/// for it.
pub(super) fn python_calls(port: &str) -> [(&'static str, String); 6] {
    let late = "__import__(\"time\").sleep(2) or open(\"src/late.txt\",\"w\").write(\"after\") and open(\"okrs/q4.md\",\"a\").write(\"late\")";
    [
        ("call_q4", "python3 -c \"open('okrs/q4.md','a').write('confined')\"".to_owned()),
        ("call_new", "python3 -c \"open('src/new.txt','w').write('new')\"".to_owned()),
        ("call_read", "python3 -c \"print(open('agentwarden.toml').read())\"".to_owned()),
        (
            "call_net",
            format!("python3 -c \"print(__import__('socket').create_connection(('127.0.0.1', {port}), 5))\""),
        ),
        (
            "call_late",
            format!(
                "python3 -c '__import__(\"subprocess\").Popen((\"python3\", \"-c\", \"\"\"{late}\"\"\"), start_new_session=True, stdin=-3, stdout=-3, stderr=-3)'"
            ),
        ),
        ("call_wait", "python3 -c \"__import__('time').sleep(4)\"".to_owned()),
    ]
}

fn calls(port: &str) -> Vec<Item> {
    python_calls(port).iter().map(|(id, command)| Item::shell(id, command)).collect()
}

fn subagent_confined(route: HookRoute) {
    let project = confined_project("mode = \"required\"");
    let mut server = match &route {
        HookRoute::Server(_) => Some(serve(&project)),
        _ => None,
    };
    let route = server.as_ref().map_or(route, |(_, socket)| HookRoute::Server(socket.clone()));
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a socket to refuse");
    let port = listener.local_addr().expect("its port").port().to_string();
    let api = start(through_the_planner(calls(&port)));
    let run = project.run(&api, "MAINTASK go", &CodexRun { route, ..CodexRun::default() });
    if let Some((child, _)) = server.as_mut() {
        let _ = child.kill();
        let _ = child.wait();
    }
    finished(&run);
    shown(&api, "call_q4", &["PermissionError", "okrs/q4.md"]);
    shown(&api, "call_read", &["Permission denied"]);
    let net = shown(&api, "call_net", &["Error"]);
    assert!(!net.contains("laddr"), "the socket was refused: {net}");
    drop(listener);
    assert_eq!(project.read("src/new.txt").as_deref(), Some("new"), "the granted write ran");
    assert_eq!(
        project.read("src/late.txt").as_deref(),
        Some("after"),
        "the background writer ran after the call returned, and was held"
    );
    assert_eq!(project.read("okrs/q4.md").as_deref(), Some(ORIGINAL_Q4), "okrs/ untouched");
    // The file was unchanged before any stop: the planner's stop found nothing to put back.
    assert_eq!(decisions(&project, "subagent_stopped"), ["allow"], "nothing to put back");
    assert!(project.audit_of("guardrail_violation").is_empty());
    assert!(project.audit_of("session_quarantined").is_empty(), "each call ran as approved (H-55)");
}

#[test]
#[ignore = "real Codex: run by `cargo xtask codex`"]
fn a_subagents_python_is_held_by_the_kernel_to_its_manifest() {
    subagent_confined(HookRoute::Direct);
}

#[test]
#[ignore = "real Codex: run by `cargo xtask codex`"]
fn a_subagents_python_is_held_by_the_kernel_to_its_manifest_through_the_service() {
    subagent_confined(HookRoute::Server(std::path::PathBuf::new()));
}

/// The main session's write into `okrs/` by python's own logic, the name built from pieces: the
/// line's reading (T-31) does not see it, so what refuses it is the kernel.
const MAIN_WRITE: &str = "python3 -c \"open('ok'+'rs/q4.md','a').write('x')\"; echo main-done > main.txt";

/// With `[confine] main_session = true` the main agent's shell cannot write `okrs/`: refused by
/// the kernel, not put back at the stop (E-15).
#[test]
#[ignore = "real Codex: run by `cargo xtask codex`"]
fn the_main_sessions_shell_cannot_write_a_protected_path() {
    let project = confined_project("main_session = true");
    let api = start(Script::new().agent("MAINTASK", vec![Item::shell("call_main_write", MAIN_WRITE)]));
    let run = project.run(&api, "MAINTASK go", &CodexRun::default());
    finished(&run);
    shown(&api, "call_main_write", &["Read-only file system"]);
    assert_eq!(
        project.read("main.txt").as_deref(),
        Some("main-done\n"),
        "the rest of the project is writable"
    );
    assert_eq!(project.read("okrs/q4.md").as_deref(), Some(ORIGINAL_Q4));
    assert_eq!(decisions(&project, "session_stopped"), ["allow"], "nothing to put back at the stop");
    assert!(project.audit_of("guardrail_violation").is_empty());
}

/// Codex judges its exec policy on the launcher's line (C-22): while a rules file of the user's
/// holds a `forbidden` rule, the planner's call is not rewritten — under `required` it is denied
/// naming the file, so Codex's rule is never hidden behind the launcher.
#[test]
#[ignore = "real Codex: run by `cargo xtask codex`"]
fn a_refusing_exec_policy_file_stops_the_rewrite() {
    let project = confined_project("mode = \"required\"");
    let api = start(through_the_planner(vec![Item::shell(
        "call_new",
        "python3 -c \"open('src/new.txt','w').write('new')\"",
    )]));
    let rules = "prefix_rule(pattern = [\"rm\"], decision = \"forbidden\")\n".to_owned();
    let run = project.run(&api, "MAINTASK go", &CodexRun { rules, ..CodexRun::default() });
    finished(&run);
    shown(&api, "call_new", &["confinement_unavailable", "default.rules", "forbidden"]);
    assert_eq!(project.read("src/new.txt"), None, "denied, not run");
}

/// The agent's own `PreToolUse` hook (`$CODEX_HOME/hooks.json`) answers `updatedInput` for a call
/// Warden confines: two rewrites of one call. Seen with 0.169.0: Codex runs Warden's (the
/// confined original, its `PostToolUse` the input Warden approved), the agent's never runs. Had
/// it run instead, the what-ran check would quarantine (C-17); either way it never runs unseen.
#[test]
#[ignore = "real Codex: run by `cargo xtask codex`"]
fn another_hooks_rewrite_of_a_confined_call_does_not_run_unseen() {
    let project = confined_project("mode = \"required\"");
    let answer = project.scratch().join("agents-answer.json");
    let touch = project.root.join("m_rewritten").display().to_string();
    std::fs::write(
        &answer,
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                      "updatedInput": {"command": format!("touch '{touch}'")}}})
        .to_string(),
    )
    .expect("write the answer");
    let hook = script(
        &project,
        "agents.sh",
        &format!(
            "#!/bin/sh\ninput=$(cat)\ncase \"$input\" in\n  *'innocent'*) cat '{}' ;;\nesac\nexit 0\n",
            answer.display()
        ),
    );
    let api = start(through_the_planner(vec![
        Item::shell("call_innocent", "python3 -c \"print('innocent')\""),
        Item::shell("call_next", "python3 -c \"print('next')\""),
    ]));
    let run = project.run(
        &api,
        "MAINTASK go",
        &CodexRun { user_hooks: vec![("PreToolUse".into(), hook)], ..CodexRun::default() },
    );
    finished(&run);
    let ran = project.root.join("m_rewritten").exists();
    let quarantined = project.audit_of("session_quarantined");
    println!("agent's rewrite ran: {ran}; quarantined: {quarantined:?}");
    println!("innocent: {:?}", api.output_of("call_innocent"));
    println!("next: {:?}", api.output_of("call_next"));
    assert!(!ran || quarantined.len() == 1, "the agent's rewrite ran unseen");
    assert!(!ran && quarantined.is_empty(), "Codex ran Warden's rewrite, not the agent's");
    shown(&api, "call_innocent", &["innocent"]);
    shown(&api, "call_next", &["next"]);
}
