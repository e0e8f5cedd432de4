//! Issue 47, item 6 (ruling H-57), with the real client: a Warden that cannot run stops the
//! session; it never loops it. With the hook's binary missing, or the configuration unreadable,
//! every stop used to be blocked (exit 2, fail closed) and Claude Code prompted the model again
//! at once, stop after stop. The stops' lines now halt: `{"continue":false,"stopReason":…}`,
//! from the line's own shell tail when the binary cannot run, from the binary when it can. The
//! session ends within a few model requests, the reason shown to the human.

use super::*;

/// At most this many model requests from the main agent: its turn, and a little slack for a
/// client that asks once more (before H-57 the stop was blocked without end).
const BOUNDED: usize = 3;

/// A prompt the main agent answers at once, so that its first stop is the session's.
fn ends_at_once() -> Script {
    Script::new().agent("MAINTASK", vec![])
}

/// Warden's lines, as installed, with the binary's path replaced by one that does not exist:
/// what `cargo clean`, an uninstall or a moved binary leaves.
fn remove_the_binary(project: &Project) {
    let warden = project.tools.warden.to_string_lossy().into_owned();
    let text = serde_json::to_string(&project.settings()).expect("settings");
    assert!(text.contains(&warden), "the lines name {warden}");
    let gone = text.replace(&warden, "/nonexistent/agentwarden/warden");
    project.set_settings(&serde_json::from_str(&gone).expect("settings"));
}

/// The run ended by itself within [`BOUNDED`] requests of the main agent, and said `words`
/// (the halt's reason) to the human.
fn halted(project: &Project, api: &FakeApi, run: &Run, words: &str) {
    let calls = api.calls_of("MAINTASK");
    let said = format!(
        "{}\n{}\n{}",
        serde_json::to_string(&run.events).unwrap_or_default(),
        run.stderr,
        transcripts(project)
    );
    println!("{calls} request(s) in {:?}; exit {:?}", run.elapsed, run.exit);
    assert!(!run.timed_out, "the session never ended ({calls} requests); stderr:\n{}", run.stderr);
    assert!((1..=BOUNDED).contains(&calls), "{calls} model requests: the stop looped\n{said}");
    assert!(said.contains("Agent Warden stopped the session: "), "the reason is not shown:\n{said}");
    assert!(said.contains(words), "the reason does not say `{words}`:\n{said}");
    assert_loopback_only(api);
}

/// Every session transcript Claude Code wrote in the run's home: what its UI shows the human.
fn transcripts(project: &Project) -> String {
    let mut text = String::new();
    let mut dirs = vec![project.dir().join("home/.claude/projects")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "jsonl") {
                text.push_str(&std::fs::read_to_string(&path).unwrap_or_default());
            }
        }
    }
    text
}

#[test]
#[ignore = "real Claude Code: run by `cargo xtask claude-code`"]
fn with_the_hooks_binary_missing_the_session_halts_instead_of_looping() {
    let project = Project::readme_setup(&tools());
    remove_the_binary(&project);
    let api = start(ends_at_once());
    let run = project.run(&api, "MAINTASK go", &RunOptions::default());
    halted(&project, &api, &run, "its hook exited 127");
}

#[test]
#[ignore = "real Claude Code: run by `cargo xtask claude-code`"]
fn with_the_configuration_unreadable_the_session_halts_instead_of_looping() {
    let project = Project::readme_setup(&tools());
    std::fs::write(project.root.join("agentwarden.toml"), "[guardrails\n").expect("break the configuration");
    let api = start(ends_at_once());
    let run = project.run(&api, "MAINTASK go", &RunOptions::default());
    halted(&project, &api, &run, "config_invalid");
}
