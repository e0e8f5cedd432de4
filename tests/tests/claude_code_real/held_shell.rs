//! Issue 48's residual (T-31): the main session's shell writing a git hook. The pinned client
//! refuses these lines itself under a bare `Bash` rule (read from its own permission decisions,
//! no Warden installed); with Warden's hooks installed as the README says, Warden denies each
//! first, `protected_path_write` naming `.git`, and records it. Neither run writes a hook.

use agentwarden_tests::claude_code::client_decisions;

use super::*;

/// The lines, by their tool_use ids, and the client's own decision: it refuses the first two;
/// the third it accepts (it does not place `.GIT/..` before it compares), and Warden, which
/// places every target where it lands, is stricter there (T-31).
const LINES: [(&str, &str, &str); 3] = [
    ("toolu_held_0", "echo x > .git/hooks/pre-commit", "reject"),
    ("toolu_held_1", "touch .git/hooks/post-merge", "reject"),
    ("toolu_held_2", "echo x >> .GIT/../.git/hooks/post-checkout", "accept"),
];

const HOOKS: [&str; 3] = [".git/hooks/pre-commit", ".git/hooks/post-merge", ".git/hooks/post-checkout"];

fn script() -> Script {
    let blocks = LINES
        .iter()
        .map(|(id, command, _)| Block::tool_with_id(id, "Bash", json!({ "command": command })))
        .collect();
    Script::new().agent("MAINTASK", vec![Turn(blocks)])
}

#[test]
#[ignore = "real Claude Code: run by `cargo xtask claude-code`"]
fn the_main_sessions_shell_writing_a_git_hook_is_refused_by_the_client_and_by_warden() {
    // The client alone: the bare `Bash` granted, its own decision read.
    let project = Project::example(&tools());
    project.set_settings(&json!({ "permissions": { "allow": ["Bash"], "defaultMode": "dontAsk" } }));
    project.trust();
    let api = start(script());
    let options = RunOptions { settings_decide: Some("Bash".to_owned()), ..RunOptions::default() };
    let run = project.run(&api, "MAINTASK go", &options);
    run.assert_finished();
    assert_loopback_only(&api);
    let decided = client_decisions(&run);
    for (id, command, client) in LINES {
        assert_eq!(decided.get(id).map(String::as_str), Some(client), "the client on `{command}`");
    }
    // The accepted line fails in the shell: `.GIT` does not exist on this file system.
    for hook in HOOKS {
        assert!(!project.root.join(hook).exists(), "the client wrote {hook}");
    }

    // Warden installed: it denies each line before the client decides, and records it.
    let project = Project::readme_setup(&tools());
    let api = start(script());
    let run = project.run(&api, "MAINTASK go", &RunOptions::default());
    run.assert_finished();
    assert_loopback_only(&api);
    for (id, command, _) in LINES {
        let result = api.tool_result(id).unwrap_or_else(|| panic!("no result for `{command}`"));
        assert!(
            result.is_error && result.text.contains("protected_path_write") && result.text.contains(".git"),
            "`{command}`: {result:?}"
        );
    }
    let denied = project
        .audit_of("hook_tool_evaluated")
        .into_iter()
        .filter(|e| str_of(payload(e, "decision")) == "deny")
        .count();
    assert_eq!(denied, LINES.len(), "each deny recorded");
    for hook in HOOKS {
        assert!(!project.root.join(hook).exists(), "{hook} was written under Warden");
    }
}
