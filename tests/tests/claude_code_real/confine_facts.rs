//! Issue 50, measured before relying on it (H-61): what the pinned client does with a
//! `PreToolUse` answer that replaces a `Bash` call's input, next to its own permission rules. A
//! hook (not Warden) answers every `Bash` call with `allow` or `ask` and an input that runs
//! `echo REWRITTEN-…` instead; each row says what the client then did. Should a new version
//! judge its rules on the input as sent, or stop skipping its asking, this fails, and H-61 can
//! be relaxed.

use super::*;

/// A hook that answers every `Bash` call with `DECISION` and an `updatedInput` that runs
/// `echo REWRITTEN-<the original>` instead, keeping the other fields.
fn rewriting_hook(project: &Project, decision: &str) -> String {
    let hook = project.dir().join(format!("rewrite-{decision}.py"));
    let body = format!(
        "#!/usr/bin/env python3\nimport json,sys\nevent=json.load(sys.stdin)\n\
         open('{log}','a').write(json.dumps(event)+'\\n')\n\
         if event.get('tool_name')=='Bash':\n    inp=dict(event['tool_input'])\n    \
         inp['command']='echo REWRITTEN-'+inp['command'].replace(' ','_')\n    \
         print(json.dumps({{'hookSpecificOutput':{{'hookEventName':'PreToolUse','permissionDecision':'{decision}','permissionDecisionReason':'confined','updatedInput':inp}}}}))\n",
        log = project.dir().join("hook.log").display()
    );
    std::fs::write(&hook, body).unwrap();
    assert!(std::process::Command::new("chmod").arg("+x").arg(&hook).status().unwrap().success());
    hook.display().to_string()
}

fn settings(hook: &str, permissions: Value) -> Value {
    json!({"permissions": permissions, "hooks": {"PreToolUse": [{"matcher": "*", "hooks": [
        {"type": "command", "command": hook}]}]}})
}

/// What the client did with the call `id`: `rewritten` (the replaced input ran), `refused`
/// (by its own rule, or asking in `-p`), or what it showed.
fn outcome(api: &FakeApi, id: &str) -> String {
    match api.tool_result(id) {
        Some(r) if !r.is_error && r.text.contains("REWRITTEN-") => "rewritten".to_owned(),
        Some(r) if r.is_error => "refused".to_owned(),
        other => format!("{other:?}"),
    }
}

#[test]
#[ignore = "real Claude Code: run by `cargo xtask claude-code`"]
fn a_hooks_allow_with_a_replaced_input_is_judged_on_the_replaced_input_only() {
    for decision in ["allow", "ask"] {
        // 1. --allowedTools Bash, acceptEdits: rewrite in the main session and in a subagent.
        let project = Project::example(&tools());
        let hook = rewriting_hook(&project, decision);
        project.set_settings(&settings(&hook, json!({})));
        let api = start(
            Script::new()
                .agent(
                    "MAINTASK",
                    vec![
                        Turn::one(Block::tool_with_id(
                            "toolu_main",
                            "Bash",
                            json!({"command": "echo main", "description": "d", "timeout": 5000}),
                        )),
                        spawn("toolu_spawn", Some("coder"), "CODETASK go"),
                    ],
                )
                .agent(
                    "CODETASK",
                    vec![Turn::one(Block::tool_with_id("toolu_sub", "Bash", json!({"command": "echo sub"})))],
                ),
        );
        project.run(&api, "MAINTASK go", &RunOptions::default());
        let expected = if decision == "allow" { "rewritten" } else { "refused" };
        for id in ["toolu_main", "toolu_sub"] {
            assert_eq!(outcome(&api, id), expected, "{decision}, `--allowedTools Bash`: {id}");
        }

        // 2. The client's own rules decide (`--tools`, trusted project): a deny rule, an ask
        // rule, no rule under dontAsk, no rule under default mode, an allow rule.
        // (label, the client's permissions, what it does with `touch x` answered `allow`).
        let rows = [
            (
                "a deny rule on the original only",
                json!({"deny": ["Bash(touch:*)"], "allow": ["Bash"]}),
                "rewritten",
            ),
            (
                "an ask rule on the original only",
                json!({"ask": ["Bash(touch:*)"], "allow": ["Bash"]}),
                "rewritten",
            ),
            (
                "a deny rule on the replaced input",
                json!({"deny": ["Bash(echo:*)"], "allow": ["Bash"]}),
                "refused",
            ),
            ("no rule, dontAsk", json!({"defaultMode": "dontAsk"}), "rewritten"),
            ("no rule, the default mode", json!({}), "rewritten"),
            ("an allow rule", json!({"allow": ["Bash(touch:*)"], "defaultMode": "dontAsk"}), "rewritten"),
        ];
        for (label, permissions, when_allowed) in rows {
            let project = Project::example(&tools());
            let hook = rewriting_hook(&project, decision);
            project.set_settings(&settings(&hook, permissions));
            project.trust();
            let api = start(Script::new().agent(
                "MAINTASK",
                vec![Turn::one(Block::tool_with_id("toolu_x", "Bash", json!({"command": "touch x"})))],
            ));
            let options =
                RunOptions { settings_decide: Some("Bash,Read,Agent".into()), ..RunOptions::default() };
            project.run(&api, "MAINTASK go", &options);
            // `ask` is a refusal in `-p` mode whatever the rules: it cannot carry a rewrite.
            let expected = if decision == "allow" { when_allowed } else { "refused" };
            assert_eq!(outcome(&api, "toolu_x"), expected, "{decision}: {label}");
            assert!(!project.root.join("x").exists(), "{decision}: {label}: the original never ran");
        }
    }
}
