//! `warden hook` for everything that starts or runs inside an agent (issue 18): the real
//! binary, the example project copied into a fresh git repository, hook inputs as Claude Code
//! 2.1.x sends them (`session_id`, `hook_event_name`, `cwd`, `tool_name`, `tool_input`,
//! `tool_use_id`, and inside a subagent `agent_id`/`agent_type`).

#![expect(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "test code: a failed unwrap or index is a failed test"
)]
#![allow(clippy::zombie_processes, reason = "every lock holder is killed and waited for by `unlock`")]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

mod store_lock;
mod support;

use store_lock::{lock_store, unlock};
use support::{EXAMPLE, committed_example, git};
const SESSION: &str = "demo-session";

struct Project {
    _dir: tempfile::TempDir,
    root: PathBuf,
    store: PathBuf,
}

fn project() -> Project {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap().join("project");
    committed_example(&root);
    Project { store: root.parent().unwrap().join("store/audit"), root, _dir: dir }
}

fn run(p: &Project, args: &[&str], stdin: &str, env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_warden"));
    command
        .arg("--store")
        .arg(&p.store)
        .args(args)
        .current_dir(&p.root)
        .env_remove("CLAUDECODE")
        .env("AGENTWARDEN_ENABLE_SUBAGENTS", "true");
    for (k, v) in env {
        command.env(k, v);
    }
    let mut child =
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

/// Runs the hook; returns (exit code, stdout JSON or Null, stderr).
fn hook_with(p: &Project, input: &str, extra: &[&str]) -> (i32, Value, String) {
    let mut args = extra.to_vec();
    args.extend(["hook", "--config", "agentwarden.toml"]);
    let out = run(p, &args, input, &[]);
    let stdout = String::from_utf8(out.stdout).unwrap();
    let json = if stdout.trim().is_empty() { Value::Null } else { serde_json::from_str(&stdout).unwrap() };
    (out.status.code().unwrap(), json, String::from_utf8(out.stderr).unwrap())
}

fn hook(p: &Project, input: &str) -> (i32, Value, String) {
    hook_with(p, input, &[])
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(Path::new(EXAMPLE).join("events").join(format!("{name}.json"))).unwrap()
}

/// A `PreToolUse` of `tool` with `input`, from the main session or from `agent` (id, type).
fn tool(p: &Project, name: &str, input: Value, agent: Option<(&str, &str)>) -> String {
    let mut event = json!({
        "session_id": SESSION, "transcript_path": "/tmp/t.jsonl", "cwd": p.root.display().to_string(),
        "permission_mode": "acceptEdits", "hook_event_name": "PreToolUse", "tool_name": name,
        "tool_use_id": "toolu_x", "tool_input": input,
    });
    if let Some((id, kind)) = agent {
        event["agent_id"] = json!(id);
        event["agent_type"] = json!(kind);
    }
    event.to_string()
}

fn approve(p: &Project) {
    for args in
        [&["seal", "--by", "alice"][..], &["approve", "--ref", "GATE-2026-11-22-001", "--by", "alice"]]
    {
        let out = run(p, args, "", &[]);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

fn deny_reason(answer: &(i32, Value, String)) -> String {
    assert_eq!(answer.0, 0, "{}", answer.2);
    let out = &answer.1["hookSpecificOutput"];
    assert_eq!(out["permissionDecision"], "deny", "{}", answer.1);
    out["permissionDecisionReason"].as_str().unwrap().to_owned()
}

fn allowed(answer: &(i32, Value, String)) {
    assert_eq!((answer.0, &answer.1), (0, &Value::Null), "an allow is exit 0 and silent: {}", answer.2);
}

fn events(p: &Project) -> Vec<Value> {
    let out = run(p, &["audit", "export", "--format", "jsonl"], "", &[]);
    String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn of_type<'a>(log: &'a [Value], kind: &str) -> Vec<&'a Value> {
    log.iter().filter(|e| e["event_type"] == kind).collect()
}

#[test]
fn a_spawn_without_a_type_is_evaluated_as_general_purpose_and_a_builtin_is_denied() {
    let p = project();
    approve(&p);
    let answer = hook(&p, &fixture("pre-task-no-subagent-type"));
    assert!(deny_reason(&answer).contains("spawn (builtin_agent_denied)"), "{answer:?}");
    let explore = fixture("pre-task-main-planner")
        .replace(r#""subagent_type":"planner""#, r#""subagent_type":"Explore""#);
    assert!(deny_reason(&hook(&p, &explore)).contains("builtin_agent_denied"));
    let log = events(&p);
    let spawns = of_type(&log, "subagent_spawn_evaluated");
    assert_eq!(spawns.len(), 2, "recorded, not exit 2");
    assert_eq!(spawns[0]["payload"]["subagent_type"], "general-purpose");
    assert_eq!(spawns[0]["payload"]["first_failure"]["code"], "builtin_agent_denied");
    // Listed: the built-in check passes and the gate decides (no instruction file: denied there).
    let config = std::fs::read_to_string(p.root.join("agentwarden.toml")).unwrap();
    let listed =
        config.replace("main_persona = \"main\"", "main_persona = \"main\"\nbuiltin_agents = [\"Explore\"]");
    std::fs::write(p.root.join("agentwarden.toml"), listed).unwrap();
    assert_eq!(run(&p, &["seal"], "", &[]).status.code(), Some(0));
    let reason = deny_reason(&hook(&p, &explore));
    assert!(!reason.contains("builtin_agent_denied") && reason.contains("gate: candidates"), "{reason}");
}

#[test]
fn an_untracked_agent_may_call_nothing_and_a_tracked_one_is_checked_against_the_tool_rules() {
    let p = project();
    approve(&p);
    // The coder starts with no allowed spawn pending: untracked.
    allowed(&hook(&p, &fixture("start-coder")));
    let bash = |agent| tool(&p, "Bash", json!({"command": "ls"}), agent);
    let reason = deny_reason(&hook(&p, &bash(Some(("agent-coder-1", "coder")))));
    assert!(reason.contains("identity (agent_untracked)"), "{reason}");
    let reason = deny_reason(&hook(&p, &bash(Some(("agent-ghost", "coder")))));
    assert!(reason.contains("identity (agent_unknown)"), "{reason}");
    // A tracked planner's tool calls run the tool rules (T-9): its manifest grants Bash.
    for name in ["pre-task-main-planner", "start-planner"] {
        allowed(&hook(&p, &fixture(name)));
    }
    allowed(&hook(&p, &bash(Some(("agent-planner-1", "planner")))));
    let index = p.store.parent().unwrap().join(format!("sessions/{SESSION}.json"));
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&index).unwrap()).unwrap();
    assert_eq!(written["tracked"]["agent-planner-1"], "planner", "{written}");
    assert!(written["tracked"].get("agent-coder-1").is_none(), "an untracked agent is never indexed");
    let before = events(&p).len();
    allowed(&hook(&p, &bash(Some(("agent-planner-1", "planner")))));
    allowed(&hook(&p, &bash(None)));
    // The main session's call takes the fast path, which opens no store: allowed even while
    // another process holds its lock. A subagent's call is the store's to decide and record.
    let holder = lock_store(&p.store);
    let main = hook_with(&p, &bash(None), &["--lock-timeout-ms", "100"]);
    let subagent = hook_with(&p, &bash(Some(("agent-planner-1", "planner"))), &["--lock-timeout-ms", "100"]);
    unlock(holder);
    allowed(&main);
    assert_eq!(subagent.0, 2, "the store decides, and it is locked: exit 2 (a deny)");
    // A claimed type the tree does not hold: denied.
    let reason = deny_reason(&hook(&p, &bash(Some(("agent-planner-1", "coder")))));
    assert!(reason.contains("agent_type_mismatch"), "{reason}");
    let log = events(&p);
    assert_eq!(
        log.len(),
        before + 2,
        "the subagent's allowed call and the deny are recorded, not the main's"
    );
    let tools = of_type(&log, "hook_tool_evaluated");
    let codes: Vec<&str> = tools.iter().map(|e| e["payload"]["failure"]["code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["agent_untracked", "agent_unknown", "agent_type_mismatch"]);
    assert!(tools.iter().all(|e| e["session"] == SESSION));
    let authorized = of_type(&log, "tool_call_authorized");
    assert_eq!(authorized.len(), 2, "each of the planner's calls");
    let last = &authorized[1]["payload"];
    assert_eq!(last["authorization"]["decision"], "allow");
    assert_eq!(last["tool"], "Bash(ls)");
    let ids: Vec<&str> =
        last["lineage"].as_array().unwrap().iter().map(|a| a["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["main", "agent-planner-1"], "the recorded lineage, the main session at the root");
    assert_eq!(authorized[1]["session"], SESSION);
    // An index edited to list the untracked coder as tracked: the store still decides.
    let forged =
        json!({"session": SESSION, "head": 1, "quarantined": false, "tracked": {"agent-coder-1": "coder"}});
    std::fs::write(&index, forged.to_string()).unwrap();
    assert!(deny_reason(&hook(&p, &bash(Some(("agent-coder-1", "coder"))))).contains("agent_untracked"));
}

/// A call the manifests' rules do not grant is denied naming the layer, the agent
/// and the rule that was missing; in shadow mode it runs and is recorded as what enforcing
/// would have denied; `audit replay --projection shadow` lists it (T-9, T-10).
#[test]
fn tool_rules_deny_what_a_manifest_does_not_grant_and_shadow_mode_records_it() {
    let p = project();
    approve(&p);
    for name in ["pre-task-main-planner", "start-planner"] {
        allowed(&hook(&p, &fixture(name)));
    }
    let planner = Some(("agent-planner-1", "planner"));
    let search = tool(&p, "WebFetch", json!({"url": "https://example.com/x"}), planner);
    let reason = deny_reason(&hook(&p, &search));
    assert!(
        reason.contains("tool rules layer 1 (tool_not_allowed)")
            && reason.contains("planner")
            && reason.contains("WebFetch(domain:example.com)"),
        "{reason}"
    );
    allowed(&hook(&p, &tool(&p, "Read", json!({"file_path": "x.md"}), planner)));
    let log = events(&p);
    let authorized = of_type(&log, "tool_call_authorized");
    assert_eq!(authorized.len(), 2);
    assert_eq!(authorized[0]["payload"]["authorization"]["decision"], "deny");
    assert!(authorized[0]["payload"].get("shadow").is_none(), "enforced: no shadow flag");

    let config = std::fs::read_to_string(p.root.join("agentwarden.toml")).unwrap();
    std::fs::write(
        p.root.join("agentwarden.toml"),
        config.replace("main_persona = \"main\"", "main_persona = \"main\"\ntools = \"shadow\""),
    )
    .unwrap();
    approve(&p);
    allowed(&hook(&p, &search));
    let log = events(&p);
    let last = of_type(&log, "tool_call_authorized").pop().unwrap();
    assert_eq!(last["payload"]["shadow"], true);
    assert_eq!(last["payload"]["authorization"]["decision"], "deny", "what enforcing would have done");
    let out = run(&p, &["audit", "replay", "--projection", "shadow", "--json"], "", &[]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let shadow: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = shadow["would_deny"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{shadow}");
    assert_eq!(rows[0]["agent_type"], "planner");
    assert_eq!(rows[0]["tool"], "WebFetch(domain:example.com)");
    assert_eq!(rows[0]["code"], "tool_not_allowed");
    assert_eq!(rows[0]["count"], 1);
}

/// A subagent whose `Bash` rewrites the manifests is not judged by the rules it
/// wrote: once they differ from the seal, every call of every subagent is denied at
/// `sealed_file_changed`, naming the file, until a human seals again; the same for
/// `agentwarden.toml` switched to shadow mode. The main session is not a subagent: its calls
/// are not the manifests' to judge (T-11, U-16).
#[test]
fn a_subagent_cannot_grant_itself_tools_by_rewriting_the_manifests_or_the_mode() {
    let p = project();
    approve(&p);
    for name in ["pre-task-main-planner", "start-planner"] {
        allowed(&hook(&p, &fixture(name)));
    }
    let planner = Some(("agent-planner-1", "planner"));
    let fetch = tool(&p, "WebFetch", json!({"url": "https://example.com/x"}), planner);
    let read = tool(&p, "Read", json!({"file_path": "x.md"}), planner);
    assert!(deny_reason(&hook(&p, &fetch)).contains("tool_not_allowed"));
    // What the planner's granted `Bash` can do: grant itself (and every ancestor) WebFetch.
    let path = p.root.join("manifests.toml");
    let sealed = std::fs::read_to_string(&path).unwrap();
    let widened = sealed.replace("tools = [\"Read\"", "tools = [\"WebFetch\", \"Read\"");
    assert_ne!(widened, sealed);
    std::fs::write(&path, &widened).unwrap();
    for call in [&fetch, &read] {
        let reason = deny_reason(&hook(&p, call));
        assert!(
            reason.contains("sealed_file_changed") && reason.contains("`manifests.toml` changed"),
            "{reason}"
        );
    }
    allowed(&hook(&p, &tool(&p, "Read", json!({"file_path": "x.md"}), None)));
    // Put back, the seal holds again; sealed by a human, the wider rules are the rules.
    std::fs::write(&path, &sealed).unwrap();
    allowed(&hook(&p, &read));
    std::fs::write(&path, &widened).unwrap();
    approve(&p);
    allowed(&hook(&p, &fetch));
    // Shadow mode written by the agent: the configuration differs from the seal.
    std::fs::write(&path, &sealed).unwrap();
    approve(&p);
    let config = std::fs::read_to_string(p.root.join("agentwarden.toml")).unwrap();
    std::fs::write(
        p.root.join("agentwarden.toml"),
        config.replace("main_persona = \"main\"", "main_persona = \"main\"\ntools = \"shadow\""),
    )
    .unwrap();
    let reason = deny_reason(&hook(&p, &fetch));
    assert!(reason.contains("`agentwarden.toml` changed"), "{reason}");
    let log = events(&p);
    let denied: Vec<&str> = of_type(&log, "tool_call_authorized")
        .iter()
        .filter_map(|e| e["payload"]["authorization"]["first_failure"]["code"].as_str())
        .collect();
    assert_eq!(
        denied,
        ["tool_not_allowed", "sealed_file_changed", "sealed_file_changed", "sealed_file_changed"],
        "each denial recorded with its code"
    );
}

#[test]
fn tools_that_start_agents_are_denied_unless_configured_and_messages_recheck_the_approval() {
    let p = project();
    approve(&p);
    let reason = deny_reason(&hook(&p, &tool(&p, "Workflow", json!({"name": "w"}), None)));
    assert!(reason.contains("agent_tool (agent_tool_not_allowed)"), "{reason}");
    for name in ["pre-task-main-planner", "start-planner"] {
        allowed(&hook(&p, &fixture(name)));
    }
    let stop = fixture("stop-coder")
        .replace("agent-coder-1", "agent-planner-1")
        .replace(r#""coder""#, r#""planner""#);
    allowed(&hook(&p, &stop));
    let message = |to: &str| tool(&p, "SendMessage", json!({"to": to, "message": "go on"}), None);
    allowed(&hook(&p, &message("agent-planner-1")));
    let reason = deny_reason(&hook(&p, &message("agent-nobody")));
    assert!(reason.contains("resume (message_target_unknown)"), "{reason}");
    let reason = deny_reason(&hook(&p, &tool(&p, "SendMessage", json!({"message": "hi"}), None)));
    assert!(reason.contains("message_target_unknown"), "{reason}");
    let out = run(&p, &["revoke", "--ref", "GATE-2026-11-22-001"], "", &[]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let reason = deny_reason(&hook(&p, &message("agent-planner-1")));
    assert!(reason.contains("approval_not_active") && reason.contains("revoked"), "{reason}");
    // Configured: allowed, and recorded.
    let config = std::fs::read_to_string(p.root.join("agentwarden.toml")).unwrap();
    let listed =
        config.replace("main_persona = \"main\"", "main_persona = \"main\"\nagent_tools = [\"Workflow\"]");
    std::fs::write(p.root.join("agentwarden.toml"), listed).unwrap();
    // The configuration changed decides once a human seals it: until then the sealed one does (H-49).
    let reason = deny_reason(&hook(&p, &tool(&p, "Workflow", json!({"name": "w"}), None)));
    assert!(reason.contains("agent_tool_not_allowed"), "{reason}");
    let out = run(&p, &["seal", "--by", "alice"], "", &[]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    allowed(&hook(&p, &tool(&p, "Workflow", json!({"name": "w"}), None)));
    let log = events(&p);
    let decisions: Vec<(&str, &str)> = of_type(&log, "hook_tool_evaluated")
        .iter()
        .map(|e| (e["payload"]["tool_name"].as_str().unwrap(), e["payload"]["decision"].as_str().unwrap()))
        .collect();
    assert_eq!(
        decisions,
        [
            ("Workflow", "deny"),
            ("SendMessage", "allow"),
            ("SendMessage", "deny"),
            ("SendMessage", "deny"),
            ("SendMessage", "deny"),
            ("Workflow", "deny"),
            ("Workflow", "allow")
        ]
    );
}

#[test]
fn writes_into_protected_paths_are_denied_from_any_agent_before_they_happen() {
    let p = project();
    approve(&p);
    for name in ["pre-task-main-planner", "start-planner"] {
        allowed(&hook(&p, &fixture(name)));
    }
    std::os::unix::fs::symlink(p.root.join("okrs"), p.root.join("notes")).unwrap();
    let write = |path: &str, agent| tool(&p, "Write", json!({"file_path": path, "content": "x"}), agent);
    let planner = Some(("agent-planner-1", "planner"));
    for (input, why) in [
        (write("okrs/q4.md", None), "main, relative"),
        (write(&p.root.join("okrs/new.md").display().to_string(), planner), "a subagent, absolute"),
        (write("src/../okrs/q4.md", planner), "`..`"),
        (write("notes/q4.md", planner), "a symlinked parent"),
        (
            tool(
                &p,
                "Edit",
                json!({"file_path": "okrs/q4.md", "old_string": "a", "new_string": "b"}),
                planner,
            ),
            "Edit",
        ),
        (
            tool(&p, "NotebookEdit", json!({"notebook_path": "okrs/n.ipynb", "new_source": "x"}), None),
            "NotebookEdit",
        ),
    ] {
        let reason = deny_reason(&hook(&p, &input));
        assert!(reason.contains("protected_path_write"), "{why}: {reason}");
    }
    allowed(&hook(&p, &write("src/main.rs", planner)));
    allowed(&hook(&p, &write("okrs-notes.md", None)));
    let log = events(&p);
    let denied = of_type(&log, "hook_tool_evaluated");
    assert_eq!(denied.len(), 6);
    assert_eq!(denied[3]["payload"]["target"], "notes/q4.md");
    // Even with the store locked, the deny stands (decided before the store is opened).
    let holder = lock_store(&p.store);
    let answer = hook_with(&p, &write("okrs/q4.md", None), &["--lock-timeout-ms", "100"]);
    unlock(holder);
    assert!(deny_reason(&answer).contains("protected_path_write"));
}

#[test]
fn a_repeated_stop_without_its_result_quarantines_the_session_until_a_human_releases_it() {
    let p = project();
    approve(&p);
    for name in ["pre-task-main-planner", "start-planner", "pre-agent-planner-coder", "start-coder"] {
        allowed(&hook(&p, &fixture(name)));
    }
    // First stop: out/result.json is missing, the stop is blocked.
    let (code, answer, _) = hook(&p, &fixture("stop-coder"));
    assert_eq!((code, answer["decision"].as_str()), (0, Some("block")), "{answer}");
    // Claude Code continued it once; still missing: quarantined, and the stop passes (H-29).
    let again = fixture("stop-coder").replace(r#""stop_hook_active":false"#, r#""stop_hook_active":true"#);
    allowed(&hook(&p, &again));
    let marker = p.store.parent().unwrap().join(format!("quarantine/{SESSION}"));
    assert!(marker.exists());
    let bash = tool(&p, "Bash", json!({"command": "ls"}), None);
    let reason = deny_reason(&hook(&p, &bash));
    assert!(reason.contains(&format!("warden release --session {SESSION}")), "{reason}");
    assert!(reason.contains("stop_unresolved"), "{reason}");
    let reason = deny_reason(&hook(&p, &fixture("pre-task-main-planner")));
    assert!(reason.contains("quarantine (session_quarantined)"), "spawns too: {reason}");
    let planner_bash = tool(&p, "Bash", json!({"command": "ls"}), Some(("agent-planner-1", "planner")));
    assert!(deny_reason(&hook(&p, &planner_bash)).contains("session_quarantined"), "subagents too");
    // The agent removes the marker: the log still holds the quarantine, and marks it again.
    std::fs::remove_file(&marker).unwrap();
    assert!(deny_reason(&hook(&p, &bash)).contains("session_quarantined"));
    assert!(marker.exists(), "marked again");
    // Held even while the store is locked.
    let holder = lock_store(&p.store);
    let answer = hook_with(&p, &bash, &["--lock-timeout-ms", "100"]);
    unlock(holder);
    assert!(deny_reason(&answer).contains("warden release"), "{answer:?}");
    // Only a human releases: refused inside a Claude Code session.
    let release = ["release", "--session", SESSION, "--by", "alice", "--config", "agentwarden.toml"];
    let out = run(&p, &release, "", &[("CLAUDECODE", "1")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("CLAUDECODE"));
    let out = run(&p, &release, "", &[]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!marker.exists());
    allowed(&hook(&p, &bash));
    let out = run(&p, &release, "", &[]);
    assert_eq!(out.status.code(), Some(2), "nothing to release");
    let log = events(&p);
    assert_eq!(of_type(&log, "session_quarantined").len(), 1);
    let released = of_type(&log, "session_released");
    assert_eq!((released.len(), &released[0]["session"]), (1, &json!(SESSION)));
    let timeline = run(&p, &["audit", "timeline", "--session", SESSION, "--json"], "", &[]);
    let text = String::from_utf8(timeline.stdout).unwrap();
    for kind in ["session_quarantined", "hook_tool_evaluated", "session_released"] {
        assert!(text.contains(kind), "{kind} in the timeline");
    }
}

#[test]
fn a_stop_the_store_cannot_serve_quarantines_the_session_and_the_quarantine_is_recorded_later() {
    let p = project();
    approve(&p);
    for name in ["pre-task-main-planner", "start-planner"] {
        allowed(&hook(&p, &fixture(name)));
    }
    let stop = fixture("stop-coder")
        .replace("agent-coder-1", "agent-planner-1")
        .replace(r#""coder""#, r#""planner""#);
    let holder = lock_store(&p.store);
    let (code, _, stderr) = hook_with(&p, &stop, &["--lock-timeout-ms", "100"]);
    let bash = tool(&p, "Bash", json!({"command": "ls"}), None);
    let locked = hook_with(&p, &bash, &["--lock-timeout-ms", "100"]);
    unlock(holder);
    assert_eq!(code, 2, "the stop is blocked: {stderr}");
    assert!(stderr.contains("quarantined"), "{stderr}");
    assert!(deny_reason(&locked).contains("store_unavailable"), "{locked:?}");
    // The store is back: the deny is recorded, and so is the quarantine.
    assert!(deny_reason(&hook(&p, &bash)).contains("session_quarantined"));
    let log = events(&p);
    let quarantined = of_type(&log, "session_quarantined");
    assert_eq!(quarantined.len(), 1);
    assert_eq!(quarantined[0]["payload"]["code"], "store_unavailable");
    assert_eq!(quarantined[0]["session"], SESSION);
}

#[test]
fn ids_that_would_name_a_path_are_refused_and_refusals_are_recorded() {
    let p = project();
    approve(&p);
    let escape =
        fixture("stop-coder").replace(r#""session_id":"demo-session""#, r#""session_id":"../../..""#);
    let (code, _, stderr) = hook(&p, &escape);
    assert_eq!(code, 2);
    assert!(stderr.contains("hook_input_unsafe_id"), "{stderr}");
    let agent = fixture("start-coder").replace(r#""agent_id":"agent-coder-1""#, r#""agent_id":"../x""#);
    assert!(hook(&p, &agent).2.contains("hook_input_unsafe_id"));
    assert_eq!(hook(&p, "{not json").0, 2);
    let log = events(&p);
    let refused = of_type(&log, "hook_input_refused");
    let codes: Vec<&str> = refused.iter().map(|e| e["payload"]["code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["hook_input_unsafe_id", "hook_input_unsafe_id", "hook_input_invalid"]);
    assert!(refused.iter().all(|e| e.get("session").is_none_or(Value::is_null)), "no untrusted session");
    assert!(!p.root.parent().unwrap().parent().unwrap().join("violation.json").exists());
}

#[test]
fn the_views_agree_on_a_hook_session() {
    let p = project();
    approve(&p);
    for name in ["pre-task-main-planner", "start-planner", "pre-agent-planner-coder", "start-coder"] {
        allowed(&hook(&p, &fixture(name)));
    }
    let off = fixture("pre-task-main-planner").replace("toolu_01", "toolu_09");
    let out = {
        let mut command = Command::new(env!("CARGO_BIN_EXE_warden"));
        command
            .arg("--store")
            .arg(&p.store)
            .args(["hook", "--config", "agentwarden.toml"])
            .current_dir(&p.root);
        command.env_remove("CLAUDECODE").env_remove("AGENTWARDEN_ENABLE_SUBAGENTS");
        let mut child = command.stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
        child.stdin.take().unwrap().write_all(off.as_bytes()).unwrap();
        child.wait_with_output().unwrap()
    };
    assert!(String::from_utf8_lossy(&out.stdout).contains("deny"));
    assert!(deny_reason(&hook(&p, &fixture("pre-task-coder-researcher"))).contains("depth_exceeded"));
    std::fs::write(p.root.join("okrs/q4.md"), "changed\n").unwrap();
    let (_, answer, _) = hook(&p, &fixture("stop-coder"));
    assert_eq!(answer["decision"], "block");

    let replay = |name: &str| -> Value {
        let out = run(&p, &["audit", "replay", "--projection", name, "--json"], "", &[]);
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let decisions = replay("decisions");
    assert_eq!(
        (decisions["total"]["allow"].as_u64(), decisions["total"]["deny"].as_u64()),
        (Some(2), Some(3)),
        "{decisions}"
    );
    let denials = replay("denials");
    assert_eq!(denials["denials"], 3, "{denials}");
    let tree = replay("spawn-tree");
    let agents = &tree["sessions"][SESSION]["agents"];
    let ids: Vec<&str> = agents.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(ids, ["agent-coder-1", "agent-planner-1", "main", "toolu_04", "toolu_09"], "{tree}");
    assert_eq!(agents["agent-coder-1"]["parent"], "agent-planner-1");
    let timeline = run(&p, &["audit", "timeline", "--session", SESSION, "--json"], "", &[]);
    assert!(
        String::from_utf8(timeline.stdout).unwrap().contains("guardrail_violation"),
        "the violation is in the session"
    );
}

#[test]
fn a_worktree_subagent_is_snapshotted_and_checked_in_its_own_worktree() {
    let p = project();
    approve(&p);
    let worktree = p.root.parent().unwrap().join("wt");
    git(&p.root, &["worktree", "add", "-q", "-b", "agent", worktree.to_str().unwrap()]);
    allowed(&hook(&p, &fixture("pre-task-main-planner")));
    let in_worktree = |name: &str| {
        let mut event: Value = serde_json::from_str(&fixture(name)).unwrap();
        event["agent_id"] = json!("agent-planner-1");
        event["agent_type"] = json!("planner");
        event["cwd"] = json!(worktree.display().to_string());
        event.to_string()
    };
    allowed(&hook(&p, &in_worktree("start-planner")));
    // A write into the worktree's okrs is denied even after the agent moved its cwd away.
    let mut write: Value = serde_json::from_str(&tool(
        &p,
        "Write",
        json!({"file_path": worktree.join("okrs/x.md").display().to_string(), "content": "x"}),
        Some(("agent-planner-1", "planner")),
    ))
    .unwrap();
    write["cwd"] = json!(p.root.parent().unwrap().display().to_string());
    for _ in 0..2 {
        // Decided from the index's roots before the store, and again by the store (recorded).
        assert!(deny_reason(&hook(&p, &write.to_string())).contains("protected_path_write"));
    }
    // The project root's okrs change (another writer): not this agent's worktree.
    std::fs::write(p.root.join("okrs/other.md"), "not the worktree\n").unwrap();
    // The agent changes its worktree's okrs.
    std::fs::write(worktree.join("okrs/q4.md"), "rewritten in the worktree\n").unwrap();
    let (_, answer, _) = hook(&p, &in_worktree("stop-coder"));
    assert_eq!(answer["decision"], "block", "{answer}");
    let reason = answer["reason"].as_str().unwrap();
    assert!(reason.contains("okrs/q4.md") && !reason.contains("okrs/other.md"), "{reason}");
    assert!(std::fs::read_to_string(worktree.join("okrs/q4.md")).unwrap().starts_with("# Q4 objectives"));
    let log = events(&p);
    let started = of_type(&log, "subagent_started");
    assert_eq!(started[0]["payload"]["root"], json!(worktree.display().to_string()));
    // A start whose cwd is a subdirectory of the project (not a worktree) is checked at the root.
    let sub = p.root.join("okrs");
    let mut event: Value = serde_json::from_str(&fixture("start-coder")).unwrap();
    event["cwd"] = json!(sub.display().to_string());
    allowed(&hook(&p, &event.to_string()));
    let log = events(&p);
    assert!(of_type(&log, "subagent_started")[1]["payload"].get("root").is_none());
}

#[test]
fn bash_calls_that_run_wardens_human_verbs_are_denied_and_recorded() {
    let p = project();
    approve(&p);
    for name in ["pre-task-main-planner", "start-planner"] {
        allowed(&hook(&p, &fixture(name)));
    }
    let bash = |command: &str, agent| tool(&p, "Bash", json!({"command": command}), agent);
    let planner = Some(("agent-planner-1", "planner"));
    for (command, agent) in [
        ("warden approve --ref SELF-2 --by main-agent", None),
        ("env -u CLAUDECODE warden approve --ref SELF-2", None),
        ("cd /tmp && ./target/debug/warden seal", planner),
        ("warden release --session s", planner),
    ] {
        let reason = deny_reason(&hook(&p, &bash(command, agent)));
        assert!(reason.contains("human_verb_denied"), "{command}: {reason}");
    }
    allowed(&hook(&p, &bash("warden audit log --type approval_granted", None)));
    allowed(&hook(&p, &bash("ls", planner)));
    let log = events(&p);
    let denied = of_type(&log, "hook_tool_evaluated");
    assert_eq!(denied.len(), 4, "each denial recorded");
    assert_eq!(denied[0]["payload"]["failure"]["code"], "human_verb_denied", "{}", denied[0]);
}
