//! Copilot names a subagent's direct parent alone (`parent_agent_id`), so a subagent's own
//! subagent is held to a session Warden never saw start, where no spawn accounts for it: each
//! of its calls is denied, whatever its manifest grants (H-66). Its parent's spawn of it is still
//! judged by the lineage, and a first-level subagent is held to its own rules. Through Copilot's
//! wire format, against a kernel over a small project: the main persona may spawn a planner, the
//! planner a coder; both may read.

#![expect(clippy::unwrap_used, reason = "test code: a failed unwrap is a failed test")]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use agentwarden::harness::Harness;
use agentwarden::human::{ApprovalRequest, Signer};
use agentwarden::{
    Config, HookAnswer, HookStorage, Warden, store::MemoryEventStore, wiring::FixedEnvironment,
};
use agentwarden_copilot::wire::Copilot;
use serde_json::{Value, json};

const ENABLE: &str = "AGENTWARDEN_ENABLE_SUBAGENTS";
const ROOT: &str = "root-session";
const PLANNER: &str = "planner-1";
const CODER: &str = "coder-1";

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

struct Kernel {
    _dir: tempfile::TempDir,
    root: PathBuf,
    config: Config,
    warden: Warden,
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
             [copilot]\nmain_persona = \"main\"\n\n[lineage]\nmanifests = \"manifests.toml\"\n"
        ),
    );
    write(&root.join("agents/main.md"), "---\nname: main\nsubagents: [planner]\n---\n\nThe main session.\n");
    for (name, subagents) in [("planner", "[coder]"), ("coder", "[]")] {
        write(
            &root.join(format!("agents/{name}.md")),
            &format!(
                "---\nname: {name}\nsubagents: {subagents}\nAGENT_TYPE: 2\nAGENT_CLASS: TASK\n---\n\nA {name}.\n"
            ),
        );
    }
    write(
        &root.join("manifests.toml"),
        "[agents.main]\ncan_spawn = [\"planner\"]\nmax_spawn_depth = 3\ntools = [\"Read\"]\n\n\
         [agents.planner]\ncan_spawn = [\"coder\"]\nmax_spawn_depth = 2\ntools = [\"Read\"]\n\n\
         [agents.coder]\ncan_spawn = []\nmax_spawn_depth = 1\ntools = [\"Read\"]\n",
    );
    write(&root.join("notes.md"), "notes\n");
    let config = Config::load(Some(&root.join("agentwarden.toml"))).unwrap();
    let warden = Warden::builder()
        .store(Arc::new(MemoryEventStore::new()))
        .environment(Arc::new(FixedEnvironment::with(ENABLE, "true")))
        .config(config.clone())
        .build()
        .unwrap();
    let signer = Signer { by: Some("alice".to_owned()), key: None };
    warden.seal(&signer).await.unwrap();
    let request = ApprovalRequest { reference: "RUN-1".to_owned(), scope: Vec::new(), expires_in_ms: None };
    warden.approve(&request, &signer).await.unwrap();
    let storage = HookStorage::new(root.join(".agentwarden"));
    Kernel { _dir: dir, root, config, warden, storage }
}

impl Kernel {
    /// An event of `agent` (`None`: the main session), whose parent is `parent`, as Copilot
    /// 1.0.102 sends it.
    fn event(&self, name: &str, agent: Option<(&str, &str, &str)>, fields: Value) -> String {
        let mut event = json!({
            "hook_event_name": name, "session_id": ROOT, "timestamp": "2026-11-28T21:43:57.203Z",
            "cwd": self.root.display().to_string(),
        });
        if let Some(object) = event.as_object_mut() {
            if let Some((id, agent_type, parent)) = agent {
                object.insert("session_id".into(), json!(id));
                object.insert("agent_id".into(), json!(id));
                object.insert("agent_type".into(), json!(agent_type));
                object.insert("parent_agent_id".into(), json!(parent));
            }
            if let Value::Object(fields) = fields {
                object.extend(fields);
            }
        }
        event.to_string()
    }

    /// `SubagentStart` in its shape without an event name (H-66).
    fn start(&self, id: &str, agent_type: &str, parent: &str) -> String {
        json!({
            "sessionId": parent, "timestamp": 1, "cwd": self.root.display().to_string(),
            "transcriptPath": "/x/events.jsonl", "agentName": agent_type, "agent_id": id,
            "agent_type": agent_type, "parent_agent_id": parent,
        })
        .to_string()
    }

    fn spawn(&self, by: Option<(&str, &str, &str)>, agent_type: &str) -> String {
        let input = json!({"name": agent_type, "description": "d", "prompt": "go", "agent_type": agent_type});
        self.event("PreToolUse", by, json!({"tool_name": "Agent", "tool_input": input}))
    }

    fn read(&self, by: Option<(&str, &str, &str)>) -> String {
        let path = self.root.join("notes.md").display().to_string();
        self.event("PreToolUse", by, json!({"tool_name": "Read", "tool_input": {"path": path}}))
    }

    /// As `warden hook` answers (the hook's one entry, X-88).
    async fn decide(&self, text: &str) -> HookAnswer {
        let open = |_| Ok(self.warden.clone());
        agentwarden::answer_hook(self.config.clone(), &self.storage, text, Copilot.decode(text), open).await
    }
}

#[tokio::test]
async fn a_subagents_subagent_cannot_be_attributed_and_may_call_nothing() {
    let k = kernel().await;
    let planner = Some((PLANNER, "planner", ROOT));
    let coder = Some((CODER, "coder", PLANNER));
    let session_start = k.event("SessionStart", None, json!({"source": "new"}));
    assert_eq!(k.decide(&session_start).await, HookAnswer::Proceed);
    assert_eq!(k.decide(&k.spawn(None, "planner")).await, HookAnswer::Proceed, "the main session spawns");
    assert_eq!(k.decide(&k.start(PLANNER, "planner", ROOT)).await, HookAnswer::Proceed);
    assert_eq!(
        k.decide(&k.read(planner)).await,
        HookAnswer::Proceed,
        "the planner is attributed and may read"
    );
    let denied = k.decide(&k.spawn(planner, "scout")).await;
    assert!(matches!(denied, HookAnswer::Deny { .. }), "the lineage judges the planner's spawns: {denied:?}");
    assert_eq!(
        k.decide(&k.spawn(planner, "coder")).await,
        HookAnswer::Proceed,
        "the planner may spawn a coder"
    );
    let started = k.decide(&k.start(CODER, "coder", PLANNER)).await;
    assert!(!matches!(started, HookAnswer::Deny { .. }), "a start cannot be refused: {started:?}");
    let answer = k.decide(&k.read(coder)).await;
    assert!(
        matches!(&answer, HookAnswer::Deny { reason } if reason.as_str().contains("agent_untracked")),
        "the coder's parent is not a session Warden knows: {answer:?}"
    );
}
