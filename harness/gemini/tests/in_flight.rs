//! Gemini names no subagent: the kernel holds a call to the subagents running (M-2), credits
//! every spawn to the main session, the only agent Gemini gives `invoke_agent` (M-22), and denies
//! a second of the same spawn while the first runs (M-4). Each through Gemini's wire format, against a kernel over a small project: the main
//! persona may spawn a planner and a scout, the planner a coder; the planner and the scout may
//! read, the coder may not.

#![expect(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "test code: a failed unwrap or index is a failed test"
)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use agentwarden::harness::Harness;
use agentwarden::human::{ApprovalRequest, Signer};
use agentwarden::{
    Config, HookAnswer, HookStorage, Warden,
    store::{EventStore, MemoryEventStore},
    wiring::FixedEnvironment,
};
use agentwarden_gemini::wire::Gemini;
use serde_json::{Value, json};

/// What the hook decided before the store: done, or the store's turn with the deny already
/// known (H-24).
#[derive(Debug, PartialEq, Eq)]
enum Pre {
    Done(HookAnswer),
    Store { fallback: Option<HookAnswer> },
}

const ENABLE: &str = "AGENTWARDEN_ENABLE_SUBAGENTS";
const SESSION: &str = "gemini-session";

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

struct Kernel {
    _dir: tempfile::TempDir,
    root: PathBuf,
    config: Config,
    warden: Warden,
    store: Arc<MemoryEventStore>,
    storage: HookStorage,
}

async fn kernel() -> Kernel {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    write(
        &root.join("agentwarden.toml"),
        &format!(
            "[subagents]\nenable_env = \"{ENABLE}\"\npersonas_dir = \"agents\"\nagents_dir = \"agents\"\n\
             persona_file_pattern = \"{{name}}.md\"\nagent_file_pattern = \"{{name}}.md\"\n\n\
             [gemini]\nmain_persona = \"main\"\n\n[lineage]\nmanifests = \"manifests.toml\"\n\n\
             [guardrails]\nprotected = [\"okrs\"]\n"
        ),
    );
    write(
        &root.join("agents/main.md"),
        "---\nname: main\nsubagents: [planner, scout]\n---\n\nThe main session.\n",
    );
    for (name, subagents) in [("planner", "[coder]"), ("scout", "[]"), ("coder", "[]")] {
        write(
            &root.join(format!("agents/{name}.md")),
            &format!(
                "---\nname: {name}\nsubagents: {subagents}\nAGENT_TYPE: 2\nAGENT_CLASS: TASK\n---\n\nA {name}.\n"
            ),
        );
    }
    write(
        &root.join("manifests.toml"),
        "[agents.main]\ncan_spawn = [\"planner\", \"scout\"]\nmax_spawn_depth = 3\ntools = [\"Read\"]\n\n\
         [agents.planner]\ncan_spawn = [\"coder\"]\nmax_spawn_depth = 2\ntools = [\"Read\"]\n\n\
         [agents.scout]\ncan_spawn = []\nmax_spawn_depth = 1\ntools = [\"Read\"]\n\n\
         [agents.coder]\ncan_spawn = []\nmax_spawn_depth = 1\ntools = []\n",
    );
    write(&root.join("okrs/q4.md"), "# Q4\n");
    write(&root.join("notes.md"), "notes\n");
    let config = Config::load(Some(&root.join("agentwarden.toml"))).unwrap();
    let store = Arc::new(MemoryEventStore::new());
    let warden = Warden::builder()
        .store(store.clone())
        .environment(Arc::new(FixedEnvironment::with(ENABLE, "true")))
        .config(config.clone())
        .build()
        .unwrap();
    let signer = Signer { by: Some("alice".to_owned()), key: None };
    warden.seal(&signer).await.unwrap();
    let request = ApprovalRequest { reference: "RUN-1".to_owned(), scope: Vec::new(), expires_in_ms: None };
    warden.approve(&request, &signer).await.unwrap();
    let storage = HookStorage::new(root.join(".agentwarden"));
    Kernel { _dir: dir, root, config, warden, store, storage }
}

impl Kernel {
    fn event(&self, name: &str, fields: Value) -> String {
        let mut event = json!({
            "session_id": SESSION, "transcript_path": "/tmp/t.jsonl", "cwd": self.root.display().to_string(),
            "hook_event_name": name, "timestamp": "2026-11-26T22:00:00.000Z",
        });
        if let (Some(object), Value::Object(fields)) = (event.as_object_mut(), fields) {
            object.extend(fields);
        }
        event.to_string()
    }

    /// `text` decided by the store alone.
    async fn ask(&self, text: &str) -> HookAnswer {
        let parsed = Gemini.decode(text);
        agentwarden::harness::conformance::decided_by_the_store(&self.warden, text, parsed, &self.storage)
            .await
    }

    async fn spawn(&self, agent: &str, prompt: &str) -> HookAnswer {
        let input = json!({"agent_name": agent, "prompt": prompt});
        self.ask(&self.event("BeforeTool", json!({"tool_name": "invoke_agent", "tool_input": input}))).await
    }

    async fn end(&self, agent: &str, prompt: &str) -> HookAnswer {
        let input = json!({"agent_name": agent, "prompt": prompt});
        let fields =
            json!({"tool_name": "invoke_agent", "tool_input": input, "tool_response": {"llmContent": "ok"}});
        self.ask(&self.event("AfterTool", fields)).await
    }

    /// As `warden hook` answers: before the store first, then the store when it must decide
    /// (the hook's one entry, X-88).
    async fn decide(&self, text: &str) -> HookAnswer {
        let open = |_| Ok(self.warden.clone());
        agentwarden::answer_hook(self.config.clone(), &self.storage, text, Gemini.decode(text), open).await
    }

    /// What the hook decides before the store ([`Pre`]): its answer when it opened no store,
    /// else the store's fallback, read through the entry with a store that cannot be opened.
    async fn before_store(&self, text: &str) -> Pre {
        let opened = std::cell::Cell::new(false);
        let open = |_| -> Result<Warden, agentwarden::WardenError> {
            opened.set(true);
            Err(agentwarden::WardenError::Store(agentwarden::store::StoreError::Unavailable {
                reason: "not opened: the test asks what comes before the store".into(),
            }))
        };
        let answer =
            agentwarden::answer_hook(self.config.clone(), &self.storage, text, Gemini.decode(text), open)
                .await;
        match (opened.get(), answer) {
            (false, answer) => Pre::Done(answer),
            (true, HookAnswer::Failed { code: agentwarden_domain::code::Code::StoreUnavailable, .. }) => {
                Pre::Store { fallback: None }
            }
            (true, answer) => Pre::Store { fallback: Some(answer) },
        }
    }

    fn shell(&self, name: &str, command: &str) -> String {
        let mut fields = json!({"tool_name": "run_shell_command", "tool_input": {"command": command}});
        if name == "AfterTool" {
            fields["tool_response"] = json!({"llmContent": "ok"});
        }
        self.event(name, fields)
    }

    fn read_text(&self) -> String {
        let path = self.root.join("notes.md").display().to_string();
        self.event("BeforeTool", json!({"tool_name": "read_file", "tool_input": {"file_path": path}}))
    }

    async fn recorded(&self, event_type: &str) -> Vec<String> {
        let records = self.store.read(1, 10_000).await.unwrap();
        records
            .iter()
            .map(|r| String::from_utf8_lossy(&r.body).into_owned())
            .filter(|body| body.contains(&format!("\"event_type\":\"{event_type}\"")))
            .collect()
    }
}

fn denied_with(answer: &HookAnswer, what: &str) {
    assert!(
        matches!(answer, HookAnswer::Deny { reason } if reason.as_str().contains(what)),
        "expected a deny naming `{what}`, got {answer:?}"
    );
}

/// While a subagent runs, a call without a caller is its call, held to its rules; once its
/// spawn's call ends, the main session's again (M-2). Two running (the planner and the scout,
/// each the main session's), a call is judged as each.
#[tokio::test]
async fn a_call_while_a_subagent_runs_is_held_to_its_rules() {
    let k = kernel().await;
    assert_eq!(k.ask(&k.read_text()).await, HookAnswer::Proceed, "the main session may read");
    assert_eq!(k.spawn("planner", "plan").await, HookAnswer::Proceed);
    assert_eq!(k.ask(&k.read_text()).await, HookAnswer::Proceed, "the planner may read");
    assert_eq!(k.spawn("scout", "look").await, HookAnswer::Proceed, "the main session spawns a scout too");
    assert_eq!(k.ask(&k.read_text()).await, HookAnswer::Proceed, "planner and scout may both read");
    assert_eq!(k.end("scout", "look").await, HookAnswer::Proceed, "the scout stops, nothing changed");
    assert_eq!(k.end("planner", "plan").await, HookAnswer::Proceed);
    assert_eq!(k.ask(&k.read_text()).await, HookAnswer::Proceed, "the main session's again");
    let started = k.recorded("subagent_started").await;
    assert_eq!(started.len(), 2, "each allowed spawn started its agent: {started:?}");
    assert!(started.iter().all(|s| s.contains("\"depth\":1")), "both the main session's: {started:?}");
}

/// Gemini CLI gives its subagents no `invoke_agent`, so a spawn is the main session's whatever
/// runs, never credited to a running subagent (M-22): with the planner running, a spawn of the
/// coder (which only the planner may spawn) is denied as the main session's, never run at depth
/// 2; and a spawn while two run is the main session's too, its parent certain.
#[tokio::test]
async fn a_spawn_while_subagents_run_is_the_main_sessions() {
    let k = kernel().await;
    assert_eq!(k.spawn("planner", "plan").await, HookAnswer::Proceed);
    denied_with(&k.spawn("coder", "code").await, "not_declared");
    assert_eq!(k.spawn("scout", "look").await, HookAnswer::Proceed, "the main session may spawn a scout");
    denied_with(&k.spawn("coder", "code").await, "not_declared");
    assert_eq!(k.end("scout", "look").await, HookAnswer::Proceed);
    assert_eq!(k.end("planner", "plan").await, HookAnswer::Proceed);
    let started = k.recorded("subagent_started").await;
    assert_eq!(started.len(), 2, "the planner and the scout, never the coder: {started:?}");
    assert!(started.iter().all(|s| !s.contains("\"agent_type\":\"coder\"")), "{started:?}");
    let spawns = k.recorded("subagent_spawn_evaluated").await;
    let coder: Vec<&String> = spawns.iter().filter(|s| s.contains("\"coder\"")).collect();
    assert_eq!(coder.len(), 2, "{spawns:?}");
    let as_main = |s: &&&String| s.contains("\"decision\":\"deny\"") && s.contains("\"persona\":\"main\"");
    assert!(coder.iter().all(|s| as_main(&s)), "denied as the main session's: {coder:?}");
}

/// The same spawn again while the first runs would be one agent to Warden: denied; once the
/// first has stopped, it may run again (M-4).
#[tokio::test]
async fn the_same_spawn_while_it_runs_is_denied() {
    let k = kernel().await;
    assert_eq!(k.spawn("scout", "look").await, HookAnswer::Proceed);
    denied_with(&k.spawn("scout", "look").await, "caller_ambiguous");
    assert_eq!(k.end("scout", "look").await, HookAnswer::Proceed);
    assert_eq!(k.spawn("scout", "look").await, HookAnswer::Proceed, "run again after it stopped");
}

/// The end of a spawn that was denied has nothing to check: answered, not quarantined (M-2).
#[tokio::test]
async fn the_end_of_a_denied_spawn_checks_nothing() {
    let k = kernel().await;
    denied_with(&k.spawn("coder", "code").await, "not_declared");
    assert_eq!(k.end("coder", "code").await, HookAnswer::Proceed);
    assert!(k.storage.marker(SESSION).unwrap().is_none(), "not quarantined");
    assert!(k.recorded("subagent_stopped").await.is_empty());
}

/// The fast path answers a call without the store only while no subagent runs (M-2).
#[tokio::test]
async fn the_fast_path_leaves_a_call_to_the_store_while_a_subagent_runs() {
    let k = kernel().await;
    let read = k.read_text();
    assert_eq!(k.ask(&read).await, HookAnswer::Proceed, "writes the session's index");
    assert_eq!(k.before_store(&read).await, Pre::Done(HookAnswer::Proceed));
    assert_eq!(k.spawn("planner", "plan").await, HookAnswer::Proceed);
    assert_eq!(k.before_store(&read).await, Pre::Store { fallback: None });
    assert_eq!(k.end("planner", "plan").await, HookAnswer::Proceed);
    assert_eq!(k.before_store(&read).await, Pre::Done(HookAnswer::Proceed));
}

/// A subagent's write into a protected path is denied before it runs, and a change it made
/// another way is put back at its end (H-26, H-27).
#[tokio::test]
async fn a_protected_change_is_denied_and_put_back_at_the_spawns_end() {
    let k = kernel().await;
    assert_eq!(k.spawn("planner", "plan").await, HookAnswer::Proceed);
    let path = k.root.join("okrs/q4.md");
    let write = k.event(
        "BeforeTool",
        json!({"tool_name": "write_file", "tool_input": {"file_path": path.display().to_string(), "content": "x"}}),
    );
    denied_with(&k.ask(&write).await, "okrs");
    std::fs::write(&path, "# Q4, rewritten through the shell\n").unwrap();
    let answer = k.end("planner", "plan").await;
    assert!(
        matches!(&answer, HookAnswer::Block { reason } if reason.as_str().contains("protected_path_changed")),
        "{answer:?}"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "# Q4\n", "put back");
    // Its end is final (M-6): the planner runs no more, and the main session reads again.
    let stopped = k.recorded("subagent_stopped").await;
    assert!(
        stopped[0].contains("\"ended\":true") && stopped[0].contains("\"decision\":\"deny\""),
        "{stopped:?}"
    );
    assert_eq!(k.ask(&k.read_text()).await, HookAnswer::Proceed);
    assert_eq!(k.before_store(&k.read_text()).await, Pre::Done(HookAnswer::Proceed));
}

/// Table: a call's input at `BeforeTool` (approved) and at `AfterTool` (what ran). A run with an
/// input Warden did not approve — rewritten by another hook, or never asked — is a violation that
/// quarantines the session; what ran as approved passes, however often the same input is asked
/// and run (H-55).
#[tokio::test]
async fn what_ran_is_checked_against_what_was_approved() {
    let k = kernel().await;
    assert_eq!(k.decide(&k.shell("BeforeTool", "echo one")).await, HookAnswer::Proceed);
    assert_eq!(k.decide(&k.shell("BeforeTool", "echo one")).await, HookAnswer::Proceed);
    assert_eq!(k.decide(&k.shell("AfterTool", "echo one")).await, HookAnswer::Proceed, "ran as approved");
    assert_eq!(
        k.decide(&k.shell("AfterTool", "echo one")).await,
        HookAnswer::Proceed,
        "the second, in parallel"
    );
    assert!(k.storage.marker(SESSION).unwrap().is_none());
    let rows: [(Option<&str>, &str, &str); 3] = [
        (Some("echo innocent"), "touch m_rewritten", "rewritten by another hook"),
        (None, "echo never-asked", "never asked"),
        (Some("echo once"), "echo once", "asked once, run twice"),
    ];
    for (asked, ran, why) in rows {
        let k = kernel().await;
        if let Some(asked) = asked {
            assert_eq!(k.decide(&k.shell("BeforeTool", asked)).await, HookAnswer::Proceed, "{why}");
        }
        if asked == Some(ran) {
            assert_eq!(
                k.decide(&k.shell("AfterTool", ran)).await,
                HookAnswer::Proceed,
                "{why}: the first run"
            );
        }
        let answer = k.decide(&k.shell("AfterTool", ran)).await;
        assert!(
            matches!(&answer, HookAnswer::Block { reason } if reason.as_str().contains("ran_unapproved_input")),
            "{why}: {answer:?}"
        );
        let marker = k.storage.marker(SESSION).unwrap().expect("quarantined");
        assert_eq!(marker.code, "ran_unapproved_input", "{why}");
        let recorded = k.recorded("session_quarantined").await;
        assert!(
            recorded.len() == 1 && recorded[0].contains("ran_unapproved_input"),
            "{why}: recorded {recorded:?}"
        );
        denied_with(&k.decide(&k.read_text()).await, "session_quarantined");
    }
}

/// Another hook turns the approved spawn of the planner into a spawn of the coder: the end of
/// that call names an agent Warden never let start, a run not approved (H-55, M-22).
#[tokio::test]
async fn a_spawn_rewritten_after_approval_quarantines() {
    let k = kernel().await;
    let spawn = |agent: &str, name: &str| {
        let mut fields =
            json!({"tool_name": "invoke_agent", "tool_input": {"agent_name": agent, "prompt": "p"}});
        if name == "AfterTool" {
            fields["tool_response"] = json!({"llmContent": "ok"});
        }
        k.event(name, fields)
    };
    assert_eq!(k.decide(&spawn("planner", "BeforeTool")).await, HookAnswer::Proceed);
    assert!(!matches!(k.decide(&spawn("coder", "AfterTool")).await, HookAnswer::Proceed));
    assert_eq!(k.storage.marker(SESSION).unwrap().expect("quarantined").code, "ran_unapproved_input");
}
