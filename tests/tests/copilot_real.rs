//! The Copilot CLI real-client suite (issue 51): the real GitHub Copilot CLI (the npm package
//! pinned in `tests/copilot/`), `copilot -p` against a scripted fake of an OpenAI-compatible
//! chat-completions API on 127.0.0.1, in a project governed for Copilot (`warden init copilot`,
//! the project's `.github/hooks`, the folder trusted). Run it with `cargo xtask copilot` (it
//! installs the CLI with `npm ci` when absent and runs these tests with `--ignored`); `cargo
//! xtask ci` runs it as a step of its own.
//!
//! As the other suites (H-40): every test that needs the CLI is `#[ignore]`d, so a plain
//! `cargo test` never runs it nor counts it as passed. Each scenario is first run with no hook
//! (or where it says, a wrong one), to show that what it checks is Warden's doing.

use agentwarden_tests::copilot::{
    CopilotOutcome, CopilotProject, CopilotRun, CopilotTools, FakeCopilotApi, HookRoute, PINNED_VERSION,
    Script, Turn,
};

fn tools() -> CopilotTools {
    CopilotTools::locate(env!("CARGO_BIN_EXE_warden-under-test")).unwrap_or_else(|e| panic!("{e}"))
}

fn start(script: Script) -> FakeCopilotApi {
    FakeCopilotApi::start(script).expect("start the fake chat-completions API")
}

fn run(project: &CopilotProject, api: &FakeCopilotApi, prompt: &str, route: HookRoute) -> CopilotOutcome {
    let run = project.run(api, prompt, &CopilotRun { route, ..CopilotRun::default() });
    println!(
        "run: exit {:?} in {:?}, foreign requests {:?}\nstdout:\n{}\nstderr:\n{}",
        run.exit,
        run.elapsed,
        api.foreign_targets(),
        run.stdout,
        run.stderr
    );
    assert_eq!(run.exit, Some(0), "copilot -p did not finish cleanly");
    run
}

/// The tool results that say Copilot refused the call on a hook's word.
fn refused(api: &FakeCopilotApi) -> Vec<String> {
    api.tool_results().into_iter().filter(|r| r.starts_with("Denied by preToolUse hook")).collect()
}

/// The pinned client is the one that runs.
#[test]
#[ignore = "real Copilot CLI: run with `cargo xtask copilot`"]
fn the_pinned_client_runs() {
    let tools = tools();
    let out = std::process::Command::new(&tools.copilot)
        .arg("--version")
        .env("HOME", tempfile::tempdir().expect("temp dir").path())
        .env("XDG_CACHE_HOME", agentwarden_tests::copilot::install_dir().join("cache"))
        .output()
        .expect("run copilot --version");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains(&format!("{PINNED_VERSION}.")), "{said}");
}

/// The main session spawns a planner through `task`, which the gate and the lineage allow: the
/// planner runs, and its own `echo` (its manifest's `Bash(echo:*)`) runs too.
#[test]
#[ignore = "real Copilot CLI: run with `cargo xtask copilot`"]
fn a_spawn_through_task_is_allowed() {
    let project = CopilotProject::setup(&tools());
    let script = Script::new()
        .agent("MAINMARK", vec![Turn::task("planner", "PLANMARK plan the change")])
        .agent("PLANMARK", vec![Turn::shell("echo planned-by-planner")]);
    let api = start(script);
    run(&project, &api, "MAINMARK go", HookRoute::Direct);
    assert!(api.ran("PLANMARK"), "the planner ran");
    assert!(refused(&api).is_empty(), "nothing refused: {:?}", api.tool_results());
    assert!(api.tool_results().iter().any(|r| r.contains("planned-by-planner")), "{:?}", api.tool_results());
    let spawns = project.audit_of("subagent_spawn_evaluated");
    assert_eq!(spawns.len(), 1, "the spawn was evaluated and recorded: {spawns:?}");
    for event in
        ["subagent_started", "subagent_stopped", "session_started", "session_stopped", "session_ended"]
    {
        assert!(!project.audit_of(event).is_empty(), "`{event}` recorded (H-66, H-45, H-46, H-48)");
    }
    let quarantined = project.audit_of("session_quarantined");
    assert!(quarantined.is_empty(), "what ran is what was approved (H-55): {quarantined:?}");
}

/// The main session spawns a researcher, which its manifest does not list: denied before it
/// starts. Without Warden's hook the same script does start it.
#[test]
#[ignore = "real Copilot CLI: run with `cargo xtask copilot`"]
fn a_spawn_through_task_is_denied() {
    let project = CopilotProject::setup(&tools());
    let script = || Script::new().agent("MAINMARK", vec![Turn::task("researcher", "RESEARCHMARK look")]);
    let unguarded = start(script());
    run(&project, &unguarded, "MAINMARK go", HookRoute::None);
    assert!(unguarded.ran("RESEARCHMARK"), "without Warden the researcher starts");
    let api = start(script());
    run(&project, &api, "MAINMARK go", HookRoute::Direct);
    assert!(!api.ran("RESEARCHMARK"), "the researcher never started");
    let refused = refused(&api);
    assert!(refused.iter().any(|r| r.contains("Agent Warden") || r.contains("spawn")), "{refused:?}");
}

/// A subagent's call its manifest does not grant is denied: the planner may only `echo`.
#[test]
#[ignore = "real Copilot CLI: run with `cargo xtask copilot`"]
fn a_subagents_call_is_held_to_its_manifest() {
    let project = CopilotProject::setup(&tools());
    let script = || {
        Script::new()
            .agent("MAINMARK", vec![Turn::task("planner", "PLANMARK plan")])
            .agent("PLANMARK", vec![Turn::shell("touch planner-touched")])
    };
    let unguarded = start(script());
    run(&project, &unguarded, "MAINMARK go", HookRoute::None);
    assert!(project.root.join("planner-touched").exists(), "without Warden the planner's call runs");
    std::fs::remove_file(project.root.join("planner-touched")).expect("remove the file");
    let api = start(script());
    run(&project, &api, "MAINMARK go", HookRoute::Direct);
    assert!(api.ran("PLANMARK"), "the planner ran");
    assert!(!project.root.join("planner-touched").exists(), "its call was denied");
    assert_eq!(refused(&api).len(), 1, "{:?}", api.tool_results());
}

/// The main session's `edit` of the protected `okrs/q4.md`.
fn edit_protected(project: &CopilotProject) -> Script {
    let target = project.root.join("okrs/q4.md").display().to_string();
    let edit = serde_json::json!({"path": target, "old_str": "Q4", "new_str": "Q4 rewritten"});
    Script::new().agent("MAINMARK", vec![Turn::call("edit", edit)])
}

/// A write into a protected path is denied before it happens, from the main session.
#[test]
#[ignore = "real Copilot CLI: run with `cargo xtask copilot`"]
fn a_protected_write_is_denied() {
    let project = CopilotProject::setup(&tools());
    let before = project.read("okrs/q4.md");
    let script = || edit_protected(&project);
    let api = start(script());
    run(&project, &api, "MAINMARK go", HookRoute::Direct);
    assert_eq!(project.read("okrs/q4.md"), before, "the protected file is unchanged");
    let refused = refused(&api);
    assert!(refused.iter().any(|r| r.contains("protected")), "{refused:?}");
    let unguarded = start(script());
    run(&project, &unguarded, "MAINMARK go", HookRoute::None);
    assert_ne!(project.read("okrs/q4.md"), before, "without Warden the write happens");
}

/// An ordinary call of the main session runs: a new file under `src/`.
#[test]
#[ignore = "real Copilot CLI: run with `cargo xtask copilot`"]
fn an_ordinary_call_is_allowed() {
    let project = CopilotProject::setup(&tools());
    let path = project.root.join("src/new.rs").display().to_string();
    let api = start(Script::new().agent("MAINMARK", vec![Turn::create(&path, "pub fn new() {}\n")]));
    run(&project, &api, "MAINMARK go", HookRoute::Direct);
    assert_eq!(project.read("src/new.rs").as_deref(), Some("pub fn new() {}\n"));
    assert!(refused(&api).is_empty(), "{:?}", api.tool_results());
}

/// A Warden that cannot answer — its binary gone, or one that prints garbage and fails — blocks
/// the call through the installed line's own tail; an ordinary call that Warden allows is
/// refused then, since nothing said yes.
#[test]
#[ignore = "real Copilot CLI: run with `cargo xtask copilot`"]
fn a_failing_warden_blocks_the_call() {
    let project = CopilotProject::setup(&tools());
    let garbage = project.scratch().join("garbage.sh");
    std::fs::write(&garbage, "#!/bin/sh\necho 'not json {'\necho oops >&2\nexit 1\n")
        .expect("write the script");
    let chmod = std::process::Command::new("chmod").arg("+x").arg(&garbage).status().expect("chmod");
    assert!(chmod.success());
    let programs = ["/nonexistent/agentwarden/warden".to_owned(), garbage.display().to_string()];
    for (n, program) in programs.iter().enumerate() {
        let name = format!("src/failing-{n}.rs");
        let path = project.root.join(&name).display().to_string();
        let api = start(Script::new().agent("MAINMARK", vec![Turn::create(&path, "x\n")]));
        run(&project, &api, "MAINMARK go", HookRoute::Binary(program.clone()));
        assert_eq!(project.read(&name), None, "{program}: the call was blocked");
        assert_eq!(refused(&api).len(), 1, "{program}: {:?}", api.tool_results());
    }
    // The same script with the garbage printed and exit 0 instead: Copilot runs the call, the
    // reason Warden's line never exits 0 without its own JSON (H-69).
    let lenient = project.scratch().join("lenient.sh");
    std::fs::write(&lenient, "#!/bin/sh\necho 'not json {'\nexit 0\n").expect("write the script");
    let chmod = std::process::Command::new("chmod").arg("+x").arg(&lenient).status().expect("chmod");
    assert!(chmod.success());
    let path = project.root.join("src/lenient.rs").display().to_string();
    let api = start(Script::new().agent("MAINMARK", vec![Turn::create(&path, "x\n")]));
    run(&project, &api, "MAINMARK go", HookRoute::Command(lenient.display().to_string()));
    assert!(project.read("src/lenient.rs").is_some(), "exit 0 with garbage lets the call run");
}

/// A Warden that cannot answer in time answers no at its own deadline, before Copilot's
/// timeout (H-69): the store held locked by another process, and a line whose lock wait (60 s)
/// outlasts Copilot's `timeoutSec` (30 s) but whose `--deadline-ms` (4 s) does not. Were the
/// deadline not kept, Copilot would kill the hook at 30 s and run the call. The same line with
/// the store free lets the call run (the line itself is sound); a hook that outlasts its
/// `timeoutSec` is killed and the call runs — what the deadline is there to prevent.
#[test]
#[ignore = "real Copilot CLI: run with `cargo xtask copilot`"]
fn a_warden_past_its_deadline_blocks_the_call() {
    let project = CopilotProject::setup(&tools());
    let line = project.installed_line();
    let (Some(lock), Some(deadline)) = (line.find("--lock-timeout-ms "), line.find("--deadline-ms ")) else {
        panic!("the line names its lock wait and deadline: {line}")
    };
    let number_end = |at: usize, flag: &str| {
        let start = at + flag.len();
        start + line[start..].find(' ').unwrap_or(line.len() - start)
    };
    let (lock_end, deadline_end) =
        (number_end(lock, "--lock-timeout-ms "), number_end(deadline, "--deadline-ms "));
    let slow = format!(
        "{}--lock-timeout-ms 60000{}--deadline-ms 4000{}",
        &line[..lock],
        &line[lock_end..deadline],
        &line[deadline_end..]
    );
    let create = |name: &str| {
        let path = project.root.join(name).display().to_string();
        start(Script::new().agent("MAINMARK", vec![Turn::create(&path, "x\n")]))
    };
    // The store free: the slow line allows an ordinary call.
    let api = create("src/free.rs");
    run(&project, &api, "MAINMARK go", HookRoute::Command(slow.clone()));
    assert!(
        project.read("src/free.rs").is_some(),
        "the line allows when the store is free: {:?}",
        api.tool_results()
    );
    // The store locked by another process for longer than Copilot waits.
    let mut holder = std::process::Command::new("flock")
        .args(["-x", ".agentwarden/audit/db", "sleep", "300"])
        .current_dir(&project.root)
        .spawn()
        .expect("start flock");
    std::thread::sleep(std::time::Duration::from_millis(500));
    let api = create("src/locked.rs");
    let outcome = run(&project, &api, "MAINMARK go", HookRoute::Command(slow));
    let _ = holder.kill();
    let _ = holder.wait();
    assert_eq!(project.read("src/locked.rs"), None, "refused within the deadline, in {:?}", outcome.elapsed);
    assert_eq!(refused(&api).len(), 1, "{:?}", api.tool_results());
    // A hook that outlasts its `timeoutSec`: Copilot kills it and runs the call.
    let api = create("src/overstayed.rs");
    run(&project, &api, "MAINMARK go", HookRoute::Timed("sleep 20; exit 2".into(), 2));
    assert!(project.read("src/overstayed.rs").is_some(), "Copilot ran the call past the hook's timeout");
}

/// The managed form (H-75): `warden init copilot --managed DIR`, and DIR as
/// `/etc/github-copilot` for the run only (a mount namespace; root), with no Warden hook in the
/// project nor the user's home: a protected write is refused, and still when the user's
/// settings say `disableAllHooks: true`. With `allowManagedHooksOnly: true` added to the
/// managed settings Copilot runs no hook at all, the managed plugin's included, and the write
/// happens (H-76): what `init` refuses to write and doctor fails.
#[test]
#[ignore = "real Copilot CLI: run with `cargo xtask copilot`"]
fn root_only_the_managed_plugin_governs_the_session() {
    let project = CopilotProject::setup(&tools());
    let managed = project.scratch().join("managed");
    let (warden, root) = (project.tools.warden.display().to_string(), project.root.display().to_string());
    project.warden_ok(&[
        "init",
        "copilot",
        "--managed",
        &managed.display().to_string(),
        "--project",
        &root,
        "--warden",
        &warden,
    ]);
    let before = project.read("okrs/q4.md");
    let script = || edit_protected(&project);
    let options =
        CopilotRun { route: HookRoute::None, managed: Some(managed.clone()), ..CopilotRun::default() };
    let governed = |why: &str| {
        let api = start(script());
        let outcome = project.run(&api, "MAINMARK go", &options);
        println!("{why}: exit {:?}\nstdout:\n{}\nstderr:\n{}", outcome.exit, outcome.stdout, outcome.stderr);
        assert_eq!(outcome.exit, Some(0), "{why}: copilot -p did not finish cleanly");
        assert_eq!(project.read("okrs/q4.md"), before, "{why}: the protected file is unchanged");
        assert!(refused(&api).iter().any(|r| r.contains("protected")), "{why}: {:?}", api.tool_results());
    };
    governed("the managed plugin alone");
    let user_settings = project.home().join(".copilot/settings.json");
    std::fs::write(&user_settings, r#"{"disableAllHooks": true}"#).expect("write the user's settings");
    governed("the user's settings switching hooks off");
    std::fs::remove_file(&user_settings).expect("remove the user's settings");
    let settings = managed.join("managed-settings.json");
    let text = std::fs::read_to_string(&settings).expect("read the managed settings");
    std::fs::write(&settings, text.replacen('{', r#"{"allowManagedHooksOnly": true,"#, 1)).expect("write");
    let api = start(script());
    let outcome = project.run(&api, "MAINMARK go", &options);
    assert_eq!(outcome.exit, Some(0), "{}", outcome.stderr);
    assert_ne!(
        project.read("okrs/q4.md"),
        before,
        "allowManagedHooksOnly switches Warden's managed hooks off"
    );
}
