//! Issue 50, measured before relying on it: what the pinned client does with a `PreToolUse`
//! answer that replaces a `Bash` call's input, next to its own permission rules.

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

fn report(label: &str, api: &FakeApi, run: &Run, ids: &[&str]) {
    let decisions = agentwarden_tests::claude_code::client_decisions(run);
    for id in ids {
        let result = api.tool_result(id);
        println!("FACT {label} {id}: decision {:?} result {:?}", decisions.get(*id), result);
    }
}

#[test]
#[ignore = "real Claude Code: an experiment"]
fn facts_of_updated_input() {
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
        let run = project.run(&api, "MAINTASK go", &RunOptions::default());
        report(&format!("{decision}/allowedTools"), &api, &run, &["toolu_main", "toolu_sub"]);

        // 2. The client's own rules decide (`--tools`, trusted project): a deny rule, an ask
        // rule, no rule under dontAsk, no rule under default mode, an allow rule.
        for (label, permissions) in [
            ("deny-rule", json!({"deny": ["Bash(echo:*)"], "allow": ["Bash"]})),
            ("ask-rule", json!({"ask": ["Bash(echo:*)"], "allow": ["Bash"]})),
            ("no-rule-dontAsk", json!({"defaultMode": "dontAsk"})),
            ("no-rule-default", json!({})),
            ("allow-rule", json!({"allow": ["Bash(echo:*)"], "defaultMode": "dontAsk"})),
            ("deny-original-only", json!({"deny": ["Bash(touch:*)"], "allow": ["Bash"]})),
            ("ask-original-only", json!({"ask": ["Bash(touch:*)"], "allow": ["Bash"]})),
            ("deny-original-bypass", json!({"deny": ["Bash(touch:*)"], "defaultMode": "bypassPermissions"})),
        ] {
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
            let run = project.run(&api, "MAINTASK go", &options);
            report(&format!("{decision}/{label}"), &api, &run, &["toolu_x"]);
            let log = std::fs::read_to_string(project.dir().join("hook.log")).unwrap_or_default();
            println!("FACT LOG {label}: {}", log.lines().next().unwrap_or_default());
        }
    }
}
