//! Issue 50 item 5 for Gemini CLI: what a rule grants, the kernel enforces. The planner holds
//! `Bash(python3:*)`, `Edit(src/**)` and `Read(src/**)`; while it runs, its `python3 -c` calls
//! are allowed by their text and run under `warden-confine` (Gemini's merged `tool_input`,
//! M-29): the kernel refuses what its manifest does not grant, inside the command, before the
//! planner's end puts anything back. The main session, with `[confine] main_session` on, cannot
//! write a protected path from its shell.

use super::*;

/// The planner's manifest in this scenario.
const PLANNER: &str = "tools = [\"Bash(python3:*)\", \"Edit(src/**)\", \"Read(src/**)\"]";

/// `examples/gemini` with the planner held to [`PLANNER`] and `[confine]` as `confine` says,
/// sealed again.
fn confined_project(confine: &str) -> GeminiProject {
    let project = GeminiProject::setup(&tools());
    let manifests = project
        .read("manifests.toml")
        .expect("the manifests")
        .replace("tools = [\"Bash(echo:*)\", \"Edit(src/**)\", \"Read\"]", PLANNER);
    assert!(manifests.contains(PLANNER), "the planner's rules were replaced");
    std::fs::write(project.root.join("manifests.toml"), manifests).expect("write the manifests");
    let config = project.read("agentwarden.toml").expect("the configuration");
    std::fs::write(project.root.join("agentwarden.toml"), format!("{config}\n[confine]\n{confine}\n"))
        .expect("write the configuration");
    // A protected path that does not exist is carved read-only at its nearest ancestor (E-4): the
    // protected files `init` names are made, so that the project's root stays writable.
    for name in ["GEMINI.md", ".env"] {
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
fn python_calls(port: &str) -> [(&'static str, String); 6] {
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

fn subagent_confined(served: bool) {
    let project = confined_project("mode = \"required\"");
    let original = project.read("okrs/q4.md");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a socket to refuse");
    let port = listener.local_addr().expect("its port").port().to_string();
    let mut server = None;
    let route = if served {
        let socket = project.scratch().join("warden.sock");
        let child = std::process::Command::new(&project.tools.warden)
            .args(["serve", "--socket"])
            .arg(&socket)
            .current_dir(&project.root)
            .env("AGENTWARDEN_ENABLE_SUBAGENTS", "true")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start warden serve");
        let ready = std::time::Instant::now();
        while !socket.exists() && ready.elapsed() < Duration::from_secs(30) {
            std::thread::sleep(Duration::from_millis(50));
        }
        server = Some(child);
        HookRoute::Server(socket)
    } else {
        HookRoute::Direct
    };
    let calls: Vec<Part> = python_calls(&port).iter().map(|(_, command)| Part::shell(command)).collect();
    let api = start(
        Script::new()
            .agent("MAINTASK", vec![Part::invoke("planner", "PLANTASK plan it")])
            .agent("PLANTASK", calls),
    );
    let run = project.run(&api, "MAINTASK go", &GeminiRun { route, ..GeminiRun::default() });
    if let Some(mut child) = server {
        let _ = child.kill();
        let _ = child.wait();
    }
    finished(&run);
    let shown: Vec<String> = api.responses_to("run_shell_command").iter().map(Value::to_string).collect();
    println!("the shell was shown {shown:#?}");
    assert_eq!(shown.len(), 6, "each call ran: {shown:?}");
    assert!(shown[0].contains("PermissionError"), "the protected append was refused: {}", shown[0]);
    assert!(
        shown[2].contains("Permission denied"),
        "the read outside Read(src/**) was refused: {}",
        shown[2]
    );
    assert!(
        shown[3].contains("Error") && !shown[3].contains("laddr"),
        "the socket was refused: {}",
        shown[3]
    );
    drop(listener);
    assert_eq!(project.read("src/new.txt").as_deref(), Some("new"), "the granted write ran");
    assert_eq!(
        project.read("src/late.txt").as_deref(),
        Some("after"),
        "the background writer ran after the call returned"
    );
    assert_eq!(project.read("okrs/q4.md"), original, "okrs/ untouched");
    // The file was unchanged before the planner's end: nothing was found to put back.
    assert!(project.audit_of("guardrail_violation").is_empty(), "nothing to put back");
    assert!(project.audit_of("session_quarantined").is_empty(), "each call ran as approved (H-55)");
}

#[test]
#[ignore = "needs the real Gemini CLI: cargo xtask gemini"]
fn a_subagents_python_is_held_by_the_kernel_to_its_manifest() {
    subagent_confined(false);
}

#[test]
#[ignore = "needs the real Gemini CLI: cargo xtask gemini"]
fn a_subagents_python_is_held_by_the_kernel_to_its_manifest_through_the_service() {
    subagent_confined(true);
}

/// With `[confine] main_session = true` the main agent's shell cannot write `okrs/`: refused by
/// the kernel, not put back afterwards (E-15).
#[test]
#[ignore = "needs the real Gemini CLI: cargo xtask gemini"]
fn the_main_sessions_shell_cannot_write_a_protected_path() {
    let project = confined_project("main_session = true");
    let original = project.read("okrs/q4.md");
    let api = start(Script::new().agent(
        "MAINTASK",
        vec![Part::shell("python3 -c \"open('ok'+'rs/q4.md','a').write('x')\"; echo main-done > main.txt")],
    ));
    let run = project.run(&api, "MAINTASK go", &GeminiRun::default());
    finished(&run);
    let shown: Vec<String> = api.responses_to("run_shell_command").iter().map(Value::to_string).collect();
    assert!(shown.iter().any(|s| s.contains("Read-only file system")), "refused by the kernel: {shown:?}");
    assert_eq!(
        project.read("main.txt").as_deref(),
        Some("main-done\n"),
        "the rest of the project is writable"
    );
    assert_eq!(project.read("okrs/q4.md"), original);
    assert!(project.audit_of("guardrail_violation").is_empty(), "nothing to put back");
}

/// Gemini judges its policy on the launcher's line (M-30): while a policy file of the user's
/// holds a `deny` rule, the planner's call is not rewritten — under `required` it is denied
/// naming the file, so Gemini's rule is never hidden behind the launcher.
#[test]
#[ignore = "needs the real Gemini CLI: cargo xtask gemini"]
fn a_refusing_policy_file_stops_the_rewrite() {
    let project = confined_project("mode = \"required\"");
    let api = start(
        Script::new()
            .agent("MAINTASK", vec![Part::invoke("planner", "PLANTASK plan it")])
            .agent("PLANTASK", vec![Part::shell("python3 -c \"open('src/new.txt','w').write('new')\"")]),
    );
    let policy = "[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = \"rm\"\ndecision = \"deny\"\npriority = 100\n";
    let run = project.run(&api, "MAINTASK go", &GeminiRun { policy: policy.into(), ..GeminiRun::default() });
    finished(&run);
    let shown: Vec<String> = api.responses_to("run_shell_command").iter().map(Value::to_string).collect();
    assert!(
        shown.iter().any(|s| s.contains("confinement_unavailable") && s.contains("user.toml")),
        "denied, naming the file: {shown:?}"
    );
    assert_eq!(project.read("src/new.txt"), None, "denied, not run");
}
