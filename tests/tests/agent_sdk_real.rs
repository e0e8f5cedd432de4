//! The example harnesses built on the Claude Agent SDK (`examples/agent-sdk/`, issue 51 item 3),
//! TypeScript and Python, run for real: each pinned SDK starts its own bundled Claude Code,
//! offline against the scripted fake Messages API, in a copy of `examples/claude-code` set up as
//! the guide says. Run by `cargo xtask agent-sdk` (which installs both SDKs) and by `cargo xtask
//! ci`; every test is `#[ignore]`d so a plain `cargo test` never runs (nor counts) it (H-40).
//!
//! What it establishes, for both SDKs and both ways of wiring Warden in (the hooks `warden init
//! claude-code` writes into the project's settings, or callbacks passed in code):
//! - a governed session: a spawn allowed under the approval, the specialist's shell step run, a
//!   spawn its manifest does not allow refused, a write to a protected path refused;
//! - what happens when Warden is missing, crashes or hangs: the call is refused in every case
//!   (H-73);
//! - which SDK option drops the settings' hooks without a word (`settingSources: []`), and that
//!   the managed form of the hooks holds whatever the harness passes (as root).

use std::path::{Path, PathBuf};
use std::time::Duration;

use agentwarden_tests::agent_sdk::{Sdk, Wiring};
use agentwarden_tests::claude_code::{APPROVAL_REF, Block, FakeApi, Project, Run, Script, Turn};
use serde_json::{Value, json};

fn warden() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_warden-under-test"))
}

fn start(script: Script) -> FakeApi {
    FakeApi::start(script).expect("start the fake Messages API")
}

/// A foreground `Agent` call with a fixed tool_use id.
fn spawn(id: &str, subagent_type: &str, prompt: &str) -> Turn {
    Turn::one(Block::tool_with_id(
        id,
        "Agent",
        json!({"description": "delegated step", "prompt": prompt, "subagent_type": subagent_type,
               "run_in_background": false}),
    ))
}

fn tool(id: &str, name: &str, input: Value) -> Turn {
    Turn::one(Block::tool_with_id(id, name, input))
}

/// The example set up for `wiring`, sealed and approved: the settings' hooks as `warden init
/// claude-code` writes them, or (for the code wiring) `init` without its hooks, so that only the
/// harness's callbacks run. `timeout` is the hooks' timeout in seconds.
fn project(sdk: Sdk, wiring: Wiring, timeout: u32) -> Project {
    let tools = sdk.tools(&warden()).unwrap_or_else(|e| panic!("{e}"));
    let project = Project::example(&tools);
    let warden = tools.warden.to_string_lossy().into_owned();
    project.warden_ok(&["init", "claude-code", "--warden", &warden, "--timeout", &timeout.to_string()]);
    if wiring == Wiring::Code {
        let mut settings = project.settings();
        if let Some(object) = settings.as_object_mut() {
            object.remove("hooks");
        }
        project.set_settings(&settings);
    }
    project.git(&["add", "-A"]);
    project.git(&["commit", "-q", "-m", "agent warden"]);
    project.warden_ok(&["seal", "--by", "alice"]);
    project.warden_ok(&["approve", "--ref", APPROVAL_REF, "--by", "alice"]);
    project
}

fn run(sdk: Sdk, project: &Project, api: &FakeApi, warden: &Path, wiring: Wiring, more: &[&str]) -> Run {
    let mut options = sdk.run_options(project, warden, wiring, "MAINTASK go", more);
    options.timeout = Duration::from_secs(120);
    let run = project.run(api, "MAINTASK go", &options);
    assert!(!run.timed_out, "{sdk:?} harness did not finish: {}", run.stderr);
    let foreign = api.foreign_requests();
    assert!(foreign.is_empty(), "the SDK tried to reach other hosts: {foreign:?}");
    run
}

/// A governed session: the manager spawns the planner (allowed under the approval), the planner
/// runs a shell step (its manifest grants `Bash`) and asks for a researcher (its manifest lets it
/// spawn only the coder: refused), then the manager tries to rewrite the protected OKRs
/// (refused, the file unchanged). Each decision is in the audit log.
fn governed_session(sdk: Sdk, wiring: Wiring) {
    let project = project(sdk, wiring, 30);
    let okrs = project.root.join("okrs/q4.md");
    let before = std::fs::read_to_string(&okrs).expect("the example's OKRs");
    let api = start(
        Script::new()
            .agent(
                "MAINTASK",
                vec![
                    spawn("toolu_planner", "planner", "PLANTASK plan the change"),
                    tool(
                        "toolu_okrs",
                        "Write",
                        json!({"file_path": okrs.to_string_lossy(), "content": "rewritten by the manager\n"}),
                    ),
                ],
            )
            .agent(
                "PLANTASK",
                vec![
                    tool(
                        "toolu_step",
                        "Bash",
                        json!({"command": "echo planned-step", "description": "a step"}),
                    ),
                    spawn("toolu_researcher", "researcher", "RESEARCHTASK look it up"),
                ],
            ),
    );
    let run = run(sdk, &project, &api, &warden(), wiring, &[]);
    assert_eq!(run.exit, Some(0), "{sdk:?} {wiring:?}: {}", run.stderr);

    assert!(api.ran("PLANTASK"), "{sdk:?} {wiring:?}: the planner was not spawned: {:?}", api.tool_results());
    let step = api.tool_result("toolu_step").expect("the planner's step was answered");
    assert!(!step.is_error && step.text.contains("planned-step"), "{sdk:?} {wiring:?}: {step:?}");
    let researcher = api.tool_result("toolu_researcher").expect("the researcher's spawn was answered");
    assert!(researcher.is_error, "{sdk:?} {wiring:?}: the planner spawned a researcher: {researcher:?}");
    assert!(!api.ran("RESEARCHTASK"), "{sdk:?} {wiring:?}: the researcher ran");
    let write = api.tool_result("toolu_okrs").expect("the OKRs' write was answered");
    assert!(write.is_error, "{sdk:?} {wiring:?}: the protected write ran: {write:?}");
    assert_eq!(std::fs::read_to_string(&okrs).unwrap(), before, "{sdk:?} {wiring:?}: the OKRs changed");

    let decisions: Vec<(String, String)> = project
        .audit_of("subagent_spawn_evaluated")
        .iter()
        .map(|e| {
            let field =
                |name: &str| e.pointer(&format!("/payload/{name}")).and_then(Value::as_str).unwrap_or("");
            (field("subagent_type").to_owned(), field("decision").to_owned())
        })
        .collect();
    assert_eq!(
        decisions,
        [("planner".to_owned(), "allow".to_owned()), ("researcher".to_owned(), "deny".to_owned())],
        "{sdk:?} {wiring:?}"
    );
    let authorized = project.audit_of("tool_call_authorized");
    let step_allowed = authorized.iter().any(|e| {
        e.pointer("/payload/agent/type").and_then(Value::as_str) == Some("planner")
            && e.pointer("/payload/authorization/decision").and_then(Value::as_str) == Some("allow")
    });
    assert!(step_allowed, "{sdk:?} {wiring:?}: the step's allow is not in the log: {authorized:?}");
}

/// What stands in for Warden in a failure scenario.
#[derive(Debug, Clone, Copy)]
enum Failure {
    /// No program at the path the hooks name (after `cargo clean`, a moved install).
    Missing,
    /// A program that dies of a signal.
    Crashing,
    /// A program that never answers.
    Hanging,
}

/// Warden missing, crashing or hanging: the manager's shell call is refused, never run (H-73).
fn fails_closed(sdk: Sdk, wiring: Wiring, failure: Failure) {
    // The shortest timeout `init` accepts, so that a hang costs seconds.
    let timeout = 8;
    let project = project(sdk, wiring, timeout);
    let fake = project.dir().join("fake-warden");
    match failure {
        Failure::Missing => {}
        Failure::Crashing => std::fs::write(&fake, "#!/bin/sh\nkill -SEGV $$\n").unwrap(),
        Failure::Hanging => std::fs::write(&fake, "#!/bin/sh\nexec sleep 600\n").unwrap(),
    }
    if fake.exists() {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    if wiring == Wiring::Settings {
        let path = project.root.join(".claude/settings.json");
        let text = std::fs::read_to_string(&path).unwrap();
        let named = warden().to_string_lossy().into_owned();
        assert!(text.contains(&named), "the hooks name {named}");
        std::fs::write(&path, text.replace(&named, &fake.to_string_lossy())).unwrap();
    }
    let ran = project.root.join("ran.txt");
    let api = start(Script::new().agent(
        "MAINTASK",
        vec![tool(
            "toolu_run",
            "Bash",
            json!({"command": format!("echo ran > '{}'", ran.display()),
                                              "description": "a step"}),
        )],
    ));
    let run = run(sdk, &project, &api, &fake, wiring, &["--hook-timeout", &timeout.to_string()]);
    let result = api.tool_result("toolu_run");
    assert!(
        !ran.exists(),
        "{sdk:?} {wiring:?} {failure:?}: the call ran with Warden failing: {result:?}; stderr: {}",
        run.stderr
    );
    assert!(
        result.as_ref().is_some_and(|r| r.is_error),
        "{sdk:?} {wiring:?} {failure:?}: the model was not told the call was refused: {result:?}"
    );
}

/// `settingSources: []` drops the project's hooks without a word: the protected write runs and
/// nothing is recorded (what the guide warns of, H-74).
fn no_setting_sources_drop_the_settings_hooks(sdk: Sdk) {
    let project = project(sdk, Wiring::Settings, 30);
    let okrs = project.root.join("okrs/q4.md");
    let api = start(Script::new().agent(
        "MAINTASK",
        vec![tool(
            "toolu_okrs",
            "Write",
            json!({"file_path": okrs.to_string_lossy(), "content": "dropped\n"}),
        )],
    ));
    let before = project.audit().len();
    run(sdk, &project, &api, &warden(), Wiring::Settings, &["--setting-sources", "none"]);
    assert_eq!(
        std::fs::read_to_string(&okrs).unwrap(),
        "dropped\n",
        "{sdk:?}: with settingSources [] the settings' hooks ran: the SDK changed, revise docs/agent-sdk.md"
    );
    assert_eq!(project.audit().len(), before, "{sdk:?}: Warden was asked");
}

/// The managed form of Warden's hooks holds whatever the harness passes: `settingSources: []`
/// and the project's settings emptied, the protected write is still refused (H-74).
fn managed_hooks_hold_without_setting_sources(sdk: Sdk) {
    let project = project(sdk, Wiring::Settings, 30);
    let managed = project.dir().join("managed");
    std::fs::create_dir_all(managed.join("managed-settings.d")).unwrap();
    let drop_in = json!({"allowManagedHooksOnly": true, "hooks": project.settings()["hooks"].clone()});
    std::fs::write(managed.join("managed-settings.d/50-agentwarden.json"), drop_in.to_string()).unwrap();
    project.set_settings(&json!({}));
    let okrs = project.root.join("okrs/q4.md");
    let before = std::fs::read_to_string(&okrs).unwrap();
    let api = start(Script::new().agent(
        "MAINTASK",
        vec![tool(
            "toolu_okrs",
            "Write",
            json!({"file_path": okrs.to_string_lossy(), "content": "dropped\n"}),
        )],
    ));
    let mut options =
        sdk.run_options(&project, &warden(), Wiring::Settings, "MAINTASK go", &["--setting-sources", "none"]);
    options.timeout = Duration::from_secs(120);
    options.managed_settings = Some(managed);
    let run = project.run(&api, "MAINTASK go", &options);
    assert!(!run.timed_out, "{sdk:?}: {}", run.stderr);
    let write = api.tool_result("toolu_okrs");
    assert!(write.as_ref().is_some_and(|w| w.is_error), "{sdk:?}: {write:?}; {}", run.stderr);
    assert_eq!(std::fs::read_to_string(&okrs).unwrap(), before, "{sdk:?}: the managed hook did not hold");
}

macro_rules! per_sdk {
    ($($name:ident => $body:expr;)*) => {
        mod typescript {
            use super::*;
            const SDK: Sdk = Sdk::TypeScript;
            $(
                #[test]
                #[ignore = "real Claude Agent SDK: run by `cargo xtask agent-sdk`"]
                fn $name() {
                    let body: fn(Sdk) = $body;
                    body(SDK);
                }
            )*
        }
        mod python {
            use super::*;
            const SDK: Sdk = Sdk::Python;
            $(
                #[test]
                #[ignore = "real Claude Agent SDK: run by `cargo xtask agent-sdk`"]
                fn $name() {
                    let body: fn(Sdk) = $body;
                    body(SDK);
                }
            )*
        }
    };
}

per_sdk! {
    a_session_wired_by_settings_is_governed => |sdk| governed_session(sdk, Wiring::Settings);
    a_session_wired_in_code_is_governed => |sdk| governed_session(sdk, Wiring::Code);
    settings_wiring_fails_closed_when_warden_is_missing => |sdk| fails_closed(sdk, Wiring::Settings, Failure::Missing);
    settings_wiring_fails_closed_when_warden_crashes => |sdk| fails_closed(sdk, Wiring::Settings, Failure::Crashing);
    settings_wiring_fails_closed_when_warden_hangs => |sdk| fails_closed(sdk, Wiring::Settings, Failure::Hanging);
    code_wiring_fails_closed_when_warden_is_missing => |sdk| fails_closed(sdk, Wiring::Code, Failure::Missing);
    code_wiring_fails_closed_when_warden_crashes => |sdk| fails_closed(sdk, Wiring::Code, Failure::Crashing);
    code_wiring_fails_closed_when_warden_hangs => |sdk| fails_closed(sdk, Wiring::Code, Failure::Hanging);
    no_setting_sources_drop_the_settings_hooks_silently => no_setting_sources_drop_the_settings_hooks;
    root_only_managed_hooks_hold_without_setting_sources => managed_hooks_hold_without_setting_sources;
}
