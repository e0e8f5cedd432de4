//! Issue 50 against the pinned client: an allowed shell call of a subagent held to a manifest
//! runs under `warden-confine`, and the kernel refuses what the manifest does not grant inside
//! the command, before any stop; the main session's shell too with `[confine] main_session`.
//!
//! The client decides by its own settings here (`--tools`, the project trusted, `permissions.allow`
//! naming the calls), since Warden rewrites only where those rules would run the call as sent
//! (H-61). The launcher is the `warden-confine` beside the suite's `warden` (H-63): build it with
//! `cargo build -p agentwarden-confine`.

use super::*;

/// The example with a coder held to `Bash(python3:*)`, `Edit(src/**)` and `Read(src/**)`,
/// `[confine] mode = "required"` (and `main_session` when asked), a `.env` outside its reads,
/// set up as the README says, the client's settings allowing the calls.
fn confined_project(main_session: bool, server: Option<&str>) -> Project {
    let project = Project::example(&tools());
    let launcher = project.tools.warden.parent().unwrap().join("warden-confine");
    assert!(
        launcher.is_file(),
        "no launcher at {}: run `cargo build -p agentwarden-confine`",
        launcher.display()
    );
    let edit = |relative: &str, from: &str, to: &str| {
        let path = project.root.join(relative);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(from), "{relative} holds `{from}`");
        std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
    };
    edit(
        "manifests.toml",
        r#"tools = ["Read", "Grep", "WebSearch", "Edit(src/**)", "Bash"]"#,
        r#"tools = ["Read(src/**)", "Edit(src/**)", "Bash(python3:*)"]"#,
    );
    let mut config = std::fs::read_to_string(project.root.join("agentwarden.toml")).unwrap();
    config.push_str(&format!("\n[confine]\nmode = \"required\"\nmain_session = {main_session}\n"));
    std::fs::write(project.root.join("agentwarden.toml"), config).unwrap();
    std::fs::create_dir_all(project.root.join("src")).unwrap();
    std::fs::write(project.root.join("src/lib.txt"), "in src\n").unwrap();
    std::fs::write(project.root.join(".env"), "SECRET=1\n").unwrap();
    // No `.mcp.json`: a missing protected path refuses only creation on its way (E-34), and
    // the main session's shell still writes `src/`.
    project.git(&["add", "-A"]);
    project.git(&["commit", "-q", "-m", "a coder held to python3 and src/"]);
    let warden = project.tools.warden.to_string_lossy().into_owned();
    match server {
        None => project.warden_ok(&["init", "claude-code", "--warden", &warden]),
        Some(at) => project.warden_ok(&["init", "claude-code", "--warden", &warden, "--server", at]),
    };
    let mut settings = project.settings();
    settings["permissions"]["allow"] = json!(["Agent", "Bash(python3:*)", "Read", "Edit", "Write"]);
    project.set_settings(&settings);
    project.trust();
    project.warden_ok(&["seal", "--by", "alice"]);
    project.warden_ok(&["approve", "--ref", APPROVAL_REF, "--by", "alice"]);
    project
}

/// Starts a shell in a new session that, after the call has returned, writes `src/bg.txt` and
/// tries `okrs/q4.md`, its errors in `src/bg.err`.
const BACKGROUND_WRITER: &str = "import subprocess\n\
    subprocess.Popen(['sh', '-c', 'exec 2>src/bg.err; sleep 1; echo bg >> src/bg.txt; echo bg >> okrs/q4.md'], \
    start_new_session=True)\n";

fn python(id: &str, code: &str) -> Turn {
    Turn::one(Block::tool_with_id(
        id,
        "Bash",
        json!({"command": format!("python3 -c \"{code}\""), "description": "a step", "timeout": 30000}),
    ))
}

fn settings_decide() -> RunOptions {
    RunOptions { settings_decide: Some("Agent,Bash,Read,Edit,Write".into()), ..RunOptions::default() }
}

/// The kernel's refusal, as the command printed it.
fn refused_by_the_kernel(text: &str) -> bool {
    ["Read-only file system", "Permission denied", "Operation not permitted", "Network is unreachable"]
        .iter()
        .any(|e| text.contains(e))
}

#[test]
#[ignore = "real Claude Code: run by `cargo xtask claude-code`"]
fn a_subagents_shell_call_runs_confined_to_its_manifest() {
    let project = confined_project(false, None);
    let api = run_the_coder(&project);
    the_coder_was_held(&project, &api);
}

/// The same through the resident service: the server decides, with the launcher beside its own
/// executable (H-63).
#[test]
#[ignore = "real Claude Code: run by `cargo xtask claude-code`"]
fn through_the_resident_service_a_subagents_shell_call_runs_confined() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("warden.sock");
    let at = socket.to_string_lossy().into_owned();
    let project = confined_project(false, Some(&at));
    let mut server = std::process::Command::new(&project.tools.warden)
        .args(["serve", "--socket", &at])
        .current_dir(&project.root)
        .env_remove("CLAUDECODE")
        .env("AGENTWARDEN_ENABLE_SUBAGENTS", "true")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(project.dir().join("serve.stderr.txt")).unwrap())
        .spawn()
        .expect("start warden serve");
    let started = std::time::Instant::now();
    while std::os::unix::net::UnixStream::connect(&socket).is_err() {
        assert!(started.elapsed() < HELPER_TIMEOUT, "warden serve did not answer");
        assert!(server.try_wait().unwrap().is_none(), "warden serve exited");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_the_coder(&project)));
    rustix::process::kill_process(rustix::process::Pid::from_child(&server), rustix::process::Signal::TERM)
        .expect("SIGTERM the server");
    let status = server.wait().expect("the server exits");
    let api = ran.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    assert!(status.success(), "SIGTERM drains and exits 0: {status}");
    the_coder_was_held(&project, &api);
    let authorized = project.audit_of("tool_call_authorized");
    assert!(
        authorized.iter().all(|e| str_of(e.get("actor")).starts_with("warden-serve peer uid=")),
        "the server decided: {authorized:?}"
    );
}

/// The coder's six calls, run.
fn run_the_coder(project: &Project) -> FakeApi {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::mem::forget(listener);
        port
    };
    let api = start(through_the_coder(vec![
        python("toolu_q4", "open('okrs/q4.md','a').write('changed')"),
        python("toolu_src", "open('src/new.txt','w').write('made')"),
        python("toolu_env", "print(open('.env').read())"),
        python("toolu_net", &format!("__import__('socket').create_connection(('127.0.0.1',{port}),2)")),
        // A writer that outlives the call, in a session of its own.
        Turn::one(Block::tool_with_id(
            "toolu_write_bg",
            "Write",
            json!({"file_path": project.root.join("src/bg.py"), "content": BACKGROUND_WRITER}),
        )),
        Turn::one(Block::tool_with_id("toolu_bg", "Bash", json!({"command": "python3 src/bg.py"}))),
        python("toolu_wait", "__import__('time').sleep(2) or print(open('src/bg.txt').read())"),
    ]));
    let run = project.run(&api, "MAINTASK go", &settings_decide());
    run.assert_finished();
    assert_loopback_only(&api);
    assert!(api.ran("CODETASK"), "the coder ran");
    api
}

/// What the kernel did with each of the coder's calls, and what was recorded.
fn the_coder_was_held(project: &Project, api: &FakeApi) {
    let result = |id: &str| api.tool_result(id).unwrap_or_else(|| panic!("no result for {id}"));
    let q4 = result("toolu_q4");
    assert!(q4.is_error && refused_by_the_kernel(&q4.text), "the kernel refused the write: {q4:?}");
    let src = result("toolu_src");
    assert!(!src.is_error, "{src:?}");
    assert_eq!(project.read("src/new.txt").as_deref(), Some("made"));
    let env = result("toolu_env");
    assert!(env.is_error && !env.text.contains("SECRET") && refused_by_the_kernel(&env.text), "{env:?}");
    let net = result("toolu_net");
    assert!(net.is_error && refused_by_the_kernel(&net.text), "{net:?}");
    let bg = result("toolu_bg");
    assert!(!bg.is_error, "{bg:?}");
    let wait = result("toolu_wait");
    assert!(!wait.is_error && wait.text.contains("bg"), "the background writer ran: {wait:?}");
    let bg_err = project.read("src/bg.err").unwrap_or_default();
    assert!(refused_by_the_kernel(&bg_err), "the background write was refused after the call: {bg_err:?}");
    // Nothing was put back: the kernel refused each write before any stop.
    assert_eq!(project.read("okrs/q4.md").as_deref(), Some(ORIGINAL_Q4));
    assert!(project.audit_of("guardrail_violation").is_empty());
    let stopped = project.audit_of("subagent_stopped");
    assert!(stopped.iter().all(|e| !e.to_string().contains("okrs/q4.md")), "{stopped:?}");
    // Each allow records what the kernel enforced (E-14).
    let authorized = project.audit_of("tool_call_authorized");
    let confined: Vec<&Value> = authorized
        .iter()
        .filter(|e| payload(e, "confinement").is_some_and(|c| c["outcome"] == "confined"))
        .collect();
    assert_eq!(confined.len(), 6, "each Bash call: {authorized:?}");
    // `warden audit explain` says it in words, with the digest of what the launcher read.
    let seq = confined[0].get("seq").map(ToString::to_string).unwrap_or_default();
    let explained = project.warden_ok(&["audit", "explain", &seq]);
    assert!(
        explained.contains("confinement: confined (required)") && explained.contains("confinement_digest"),
        "{explained}"
    );
}

#[test]
#[ignore = "real Claude Code: run by `cargo xtask claude-code`"]
fn the_main_sessions_shell_cannot_write_a_protected_path_with_the_option_on() {
    let project = confined_project(true, None);
    let api = start(Script::new().agent(
        "MAINTASK",
        vec![
            python("toolu_q4", "open('okrs/q4.md','a').write('changed')"),
            python("toolu_src", "open('src/main.txt','w').write('main')"),
        ],
    ));
    let run = project.run(&api, "MAINTASK go", &settings_decide());
    run.assert_finished();
    assert_loopback_only(&api);
    let q4 = api.tool_result("toolu_q4").unwrap();
    assert!(q4.is_error && refused_by_the_kernel(&q4.text), "{q4:?}");
    let src = api.tool_result("toolu_src").unwrap();
    assert!(!src.is_error, "{src:?}");
    assert_eq!(project.read("src/main.txt").as_deref(), Some("main"));
    assert_eq!(project.read("okrs/q4.md").as_deref(), Some(ORIGINAL_Q4), "refused, not put back");
    assert!(project.audit_of("guardrail_violation").is_empty(), "nothing to put back at the stop");
}
