//! `warden lineage check` and `warden authorize` through the real binary, on the example
//! manifests: exit codes, the layer list, and one event per decision.

#![expect(clippy::unwrap_used, reason = "test code: a failed unwrap is a failed test")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples")
}

fn warden(store: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warden")).arg("--store").arg(store).args(args).output().unwrap()
}

fn json_run(store: &Path, args: &[&str]) -> (Option<i32>, Value) {
    let config = examples().join("agentwarden.toml");
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--config", config.to_str().unwrap(), "--json"]);
    let out = warden(store, &all);
    let text = String::from_utf8(out.stdout).unwrap();
    (out.status.code(), serde_json::from_str(text.trim()).unwrap_or(Value::Null))
}

fn example(name: &str) -> String {
    examples().join("lineage").join(name).to_string_lossy().into_owned()
}

#[test]
fn lineage_check_allows_and_denies_with_the_failing_pair() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("audit");
    let (code, ok) = json_run(&store, &["lineage", "check", "--lineage", &example("three-levels.json")]);
    assert_eq!(code, Some(0), "{ok}");
    assert_eq!(ok["decision"], "allow");
    assert_eq!(ok["audit"]["seq"], 1);

    let (code, bad) =
        json_run(&store, &["lineage", "check", "--lineage", &example("mid-chain-violation.json")]);
    assert_eq!(code, Some(1), "{bad}");
    assert_eq!(bad["result"]["code"], "spawn_not_allowed");
    assert_eq!(bad["result"]["pair"], serde_json::json!({"parent": 2, "child": 3}));

    let log = warden(&store, &["audit", "log", "--json"]);
    let events: Vec<Value> =
        String::from_utf8(log.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(events.len(), 2);
    assert!(events.iter().all(|e| e["event_type"] == "lineage_checked" && e["session"] == "example-session"));
    assert_eq!(events[1]["payload"]["result"]["code"], "spawn_not_allowed");
    assert_eq!(events[1]["payload"]["lineage_length"], 4);
}

#[test]
fn authorize_lists_every_layer_and_denies_escalation_at_layer_2() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("audit");
    let (code, ok) = json_run(&store, &["authorize", "--request", &example("authorize-write.json")]);
    assert_eq!(code, Some(0), "{ok}");
    let names: Vec<&str> =
        ok["layers"].as_array().unwrap().iter().map(|l| l["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["capability", "delegation", "lineage"]);

    let (code, denied) = json_run(&store, &["authorize", "--request", &example("authorize-escalation.json")]);
    assert_eq!(code, Some(1), "{denied}");
    assert_eq!(denied["first_failure"]["layer"], 2);
    assert_eq!(denied["first_failure"]["code"], "ancestor_lacks_tool");
    assert_eq!(denied["layers"][0]["passed"], true);
    assert_eq!(denied["layers"][2]["passed"], true);
    let log = warden(&store, &["audit", "log", "--json"]);
    let events: Vec<Value> =
        String::from_utf8(log.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(events.len(), 2);
    assert!(events.iter().all(|e| e["event_type"] == "tool_call_authorized"));
    let recorded = &events[1]["payload"];
    assert_eq!(recorded["authorization"]["layers"].as_array().unwrap().len(), 3, "every layer's verdict");
    assert_eq!(recorded["authorization"]["first_failure"]["code"], "ancestor_lacks_tool");
    assert_eq!(recorded["tool"], "search");
    assert_eq!(recorded["lineage_length"], 3);
}

#[test]
fn bad_requests_and_missing_manifests_are_recorded_denials() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("audit");
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, r#"[{"id":"o","type":"orchestrator","spawn_depth":-1}]"#).unwrap();
    let (code, r) = json_run(&store, &["lineage", "check", "--lineage", bad.to_str().unwrap()]);
    assert_eq!((code, r["result"]["code"].as_str()), (Some(1), Some("request_invalid")));

    let no_manifests = dir.path().join("agentwarden.toml");
    std::fs::write(&no_manifests, "[lineage]\nmanifests = \"nowhere\"\n").unwrap();
    let out = warden(
        &store,
        &[
            "authorize",
            "--request",
            &example("authorize-write.json"),
            "--config",
            no_manifests.to_str().unwrap(),
            "--json",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["first_failure"]["code"], "manifests_unavailable");
    assert_eq!(warden(&store, &["audit", "verify"]).status.code(), Some(0));
    let usage = warden(&store, &["lineage", "check"]);
    assert_eq!(usage.status.code(), Some(2));
}

/// Issue 24 through the real binary: rules in Claude Code's syntax, compared with the call's
/// input; the denial names the layer, the agent and the call as the rule that was missing.
#[test]
fn authorize_compares_the_call_with_rules_in_claude_codes_syntax() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(project.join("agentwarden.toml"), "[lineage]\nmanifests = \"agents.toml\"\n").unwrap();
    std::fs::write(
        project.join("agents.toml"),
        "[agents.planner]\ncan_spawn = [\"researcher\"]\nmax_spawn_depth = 2\n\
         tools = [\"Read\", \"Bash(npm test:*)\", \"Bash(git push:*)\", \"Edit(src/**)\"]\n\n\
         [agents.researcher]\nmax_spawn_depth = 2\ntools = [\"Read\", \"Bash(npm test:*)\", \"Edit(src/**)\"]\n",
    )
    .unwrap();
    let store = dir.path().join("audit");
    let config = project.join("agentwarden.toml");
    let decide = |tool: &str, input: Value| {
        let request = serde_json::json!({
            "agent": {"id": "r1", "type": "researcher", "spawn_depth": 1},
            "lineage": [
                {"id": "main", "type": "planner", "spawn_depth": 0},
                {"id": "r1", "type": "researcher", "spawn_depth": 1}
            ],
            "tool": tool,
            "input": input,
        });
        let file = dir.path().join("request.json");
        std::fs::write(&file, request.to_string()).unwrap();
        let out = warden(
            &store,
            &[
                "authorize",
                "--request",
                file.to_str().unwrap(),
                "--config",
                config.to_str().unwrap(),
                "--json",
            ],
        );
        (out.status.code(), serde_json::from_slice::<Value>(&out.stdout).unwrap_or(Value::Null))
    };
    let (code, push) = decide("Bash", serde_json::json!({"command": "git push origin main"}));
    assert_eq!(code, Some(1), "{push}");
    assert_eq!(push["first_failure"]["layer"], 1);
    assert_eq!(push["first_failure"]["code"], "tool_not_allowed");
    let reason = push["first_failure"]["reason"].as_str().unwrap();
    assert!(reason.contains("researcher") && reason.contains("Bash(git push origin main)"), "{reason}");

    assert_eq!(decide("Bash", serde_json::json!({"command": "npm test -- -u"})).0, Some(0));
    let (code, chained) = decide("Bash", serde_json::json!({"command": "npm test && git push"}));
    assert_eq!((code, chained["first_failure"]["code"].as_str()), (Some(1), Some("tool_not_allowed")));
    let src = project.join("src/lib.rs");
    assert_eq!(decide("Write", serde_json::json!({"file_path": src})).0, Some(0), "Edit covers Write");
    let escape = project.join("src/../okrs/q.md");
    assert_eq!(decide("Edit", serde_json::json!({"file_path": escape})).0, Some(1), "`..` is resolved first");
    assert_eq!(decide("Read", serde_json::json!({"file_path": "/etc/hosts"})).0, Some(0));
    // `~` is Claude Code's home directory, not `src/~`; only the bare rule grants it (T-13).
    let home = serde_json::json!({"file_path": "~/.bashrc", "old_string": "a", "new_string": "b"});
    let (code, home) = decide("Edit", home);
    let why = home["first_failure"]["reason"].as_str().unwrap_or_default();
    assert_eq!(code, Some(1), "{home}");
    assert!(why.contains("`Edit` (its path is not resolved") && why.contains("leading `~`"), "{why}");
    // An input Warden does not know may name a path (T-14).
    let extra = serde_json::json!({"file_path": src, "content": "x", "path": "/etc/passwd"});
    assert_eq!(decide("Write", extra).0, Some(1), "an unknown input");

    let log = warden(&store, &["audit", "log", "--json"]);
    let events: Vec<Value> =
        String::from_utf8(log.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(events.len(), 8, "one event per decision");
    assert_eq!(events[0]["payload"]["tool"], "Bash(git push origin main)", "recorded as the missing rule");

    std::fs::write(
        project.join("agents.toml"),
        "[agents.planner]\nmax_spawn_depth = 2\ntools = [\n\"Edit(~/x)\"]\n",
    )
    .unwrap();
    let (code, broken) = decide("Read", serde_json::json!({"file_path": "/etc/hosts"}));
    assert_eq!((code, broken["first_failure"]["code"].as_str()), (Some(1), Some("manifests_unavailable")));
    let why = broken["first_failure"]["reason"].as_str().unwrap();
    assert!(why.contains("agents.toml") && why.contains(":4") && why.contains("Edit(~/x)"), "{why}");
}

/// Issue 24, item 5: `warden doctor` compares the manifests' tool rules with the tools Claude
/// Code offers each agent (its definition's `tools:` line) and warns where they disagree.
#[test]
fn doctor_warns_where_tool_rules_and_an_agents_tools_line_disagree() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    let copied =
        Command::new("cp").arg("-r").arg(examples().join("claude-code")).arg(&project).status().unwrap();
    assert!(copied.success());
    let doctor = |project: &Path| {
        let out = Command::new(env!("CARGO_BIN_EXE_warden"))
            .args(["doctor", "--json"])
            .current_dir(project)
            .env_remove("AGENTWARDEN_STORE")
            .output()
            .unwrap();
        let report: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        report["checks"]
            .as_array()
            .unwrap_or(&Vec::new())
            .iter()
            .filter(|c| c["check"] == "tool rules")
            .cloned()
            .collect::<Vec<Value>>()
    };
    let clean = doctor(&project);
    assert_eq!(clean.len(), 3, "one per agent with a tools: line: {clean:?}");
    assert!(clean.iter().all(|c| c["ok"] == true && c["fix"].is_null()), "the example agrees: {clean:?}");

    let researcher = project.join(".claude/agents/researcher.md");
    let text = std::fs::read_to_string(&researcher).unwrap();
    std::fs::write(&researcher, text.replace("tools: Read, Grep, WebSearch", "tools: Read, Bash")).unwrap();
    let warned = doctor(&project);
    let detail =
        warned.iter().find(|c| c["fix"].is_string()).map(|c| c["detail"].to_string()).unwrap_or_default();
    assert!(detail.contains("offers Bash") && detail.contains("researcher"), "{warned:?}");
    assert!(detail.contains("WebSearch"), "a leaf's rule for a tool it is not offered: {warned:?}");
}
