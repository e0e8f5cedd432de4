//! The session's rules through the hook's entry, as `warden hook` runs it: the configuration
//! loaded from the live file for every event, one store for the session (H-58 … H-60).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use agentwarden_domain::sessions::{
    Attribution, HookAnswer, HookEvent, HookInput, RulesAs, ToolCall, ToolKind,
};
use agentwarden_ports::SnapshotStore;

use super::*;
use crate::hook::HookStorage;
use crate::hook::{Pre, before_store_parsed};
use crate::human::Signer;
use crate::store::MemoryEventStore;

/// The harness of these events: one with a tool that starts agents, which its section may list.
const PROFILE: agentwarden_domain::sessions::HarnessProfile = agentwarden_domain::sessions::HarnessProfile {
    agent_tools: &["Workflow"],
    ..agentwarden_domain::sessions::HarnessProfile::NEUTRAL
};

const PROTECTING: &str = "[guardrails]\nprotected = [\"okrs\"]\n";
const EMPTIED: &str = "[guardrails]\nprotected = []\n";

struct Project {
    _dir: tempfile::TempDir,
    root: PathBuf,
    store: Arc<MemoryEventStore>,
    storage: HookStorage,
}

impl Project {
    fn new(config: Option<&str>) -> Project {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("okrs")).unwrap();
        std::fs::write(root.join("okrs/q4.md"), "# Q4\n").unwrap();
        if let Some(text) = config {
            std::fs::write(root.join(CONFIG_FILE), text).unwrap();
        }
        let storage = HookStorage::new(root.join(".agentwarden"));
        Project { _dir: dir, root, store: Arc::new(MemoryEventStore::new()), storage }
    }

    fn config_path(&self) -> PathBuf {
        self.root.join(CONFIG_FILE)
    }

    /// The configuration as the hook loads it now: the live file, or the defaults at the root.
    fn live(&self) -> Config {
        match self.config_path().exists() {
            true => Config::load(Some(&self.config_path())).unwrap(),
            false => Config { root: self.root.clone(), ..Config::default() },
        }
    }

    fn warden(&self) -> Warden {
        Warden::builder().store(self.store.clone()).config(self.live()).build().unwrap()
    }

    /// One event through the hook's entry: what needs no store first (H-24), then the store.
    async fn hook(&self, event: HookEvent) -> HookAnswer {
        let input = HookInput {
            session_id: "s".into(),
            cwd: Some(self.root.display().to_string()),
            event,
            attribution: Attribution::Named,
            call: None,
            harness: PROFILE,
        };
        let parsed = Ok(input);
        match before_store_parsed(&self.live(), &self.storage, &parsed) {
            Pre::Done(answer) => answer,
            Pre::Store { .. } => self.warden().hook_parsed("", parsed, &self.storage).await,
        }
    }

    fn write(&self, rel: &str) -> HookEvent {
        let path = self.root.join(rel).display().to_string();
        HookEvent::Tool(ToolCall {
            tool_name: "Write".into(),
            tool_use_id: Some("t".into()),
            caller: None,
            kind: ToolKind::Write { path },
            rules_as: RulesAs::named("Write"),
            shell: None,
        })
    }

    fn bash(&self) -> HookEvent {
        HookEvent::Tool(ToolCall {
            tool_name: "Bash".into(),
            tool_use_id: Some("b".into()),
            caller: None,
            kind: ToolKind::Other,
            rules_as: RulesAs::named("Bash"),
            shell: None,
        })
    }

    /// The agent's shell: `sed -i 's/^protected = .*/protected = []/' agentwarden.toml`.
    fn empty_the_list(&self) {
        let text = std::fs::read_to_string(self.config_path()).unwrap();
        std::fs::write(self.config_path(), text.replace("protected = [\"okrs\"]", "protected = []")).unwrap();
    }
}

fn denied_naming(answer: &HookAnswer, what: &[&str]) -> bool {
    matches!(answer, HookAnswer::Deny { reason } if what.iter().all(|w| reason.as_str().contains(w)))
}

fn failed_naming(answer: &HookAnswer, what: &str) -> bool {
    matches!(answer.failure(), Some(text) if text.contains(what))
}

/// How the situation is set up before the protected write, in one row.
#[derive(Clone, Copy, Debug)]
enum Before {
    /// The session started, then its shell emptied the protected list.
    StartedThenEmptied,
    /// The session started, then its shell removed the configuration.
    StartedThenRemoved,
    /// The session started, its shell emptied the list, then sent a start of its own.
    StartedEmptiedRestarted,
    /// The session started with the list empty: that is its configuration.
    StartedEmpty,
    /// The session started, then a human sealed, then the shell emptied the list.
    StartedSealedEmptied,
    /// No start was seen.
    NoStart,
    /// The session started, then its copy was replaced by garbage.
    CopyGarbage,
    /// The session started, then its copy's text was edited (its digest kept).
    CopyEdited,
}

/// What the protected write is answered.
#[derive(Debug, PartialEq)]
enum Then {
    /// Denied as a protected write, the live file named as changed.
    DeniedNamingTheChange,
    /// Denied as a protected write.
    Denied,
    /// Let through.
    Proceeds,
    /// Failed: nothing to decide with.
    NoRules,
}

/// The agent's attack on an unsealed project, and every way around the session's copy (H-58 …
/// H-60): each row set up through the hook's entry, then `Write okrs/q4.md` after a `Bash` call
/// that wrote the fast path's index.
#[tokio::test]
async fn an_edit_of_the_configuration_after_the_sessions_start_decides_nothing() {
    let rows: [(&str, Before, Then); 8] = [
        ("the list emptied by the shell", Before::StartedThenEmptied, Then::DeniedNamingTheChange),
        ("the configuration removed", Before::StartedThenRemoved, Then::DeniedNamingTheChange),
        (
            "a forged later start replaces nothing",
            Before::StartedEmptiedRestarted,
            Then::DeniedNamingTheChange,
        ),
        ("the session's own configuration decides", Before::StartedEmpty, Then::Proceeds),
        ("a seal made mid-session wins", Before::StartedSealedEmptied, Then::Denied),
        ("no recorded start", Before::NoStart, Then::NoRules),
        ("a copy that does not decode", Before::CopyGarbage, Then::NoRules),
        ("a copy whose text is not its digest's", Before::CopyEdited, Then::NoRules),
    ];
    for (why, before, expected) in rows {
        let initial = if matches!(before, Before::StartedEmpty) { EMPTIED } else { PROTECTING };
        let p = Project::new(Some(initial));
        if !matches!(before, Before::NoStart) {
            assert_eq!(p.hook(HookEvent::SessionStart).await, HookAnswer::Proceed, "{why}: the start");
            let bash = p.hook(p.bash()).await;
            assert_eq!(bash, HookAnswer::Proceed, "{why}: a call before the edit");
        }
        match before {
            Before::StartedThenEmptied | Before::NoStart => p.empty_the_list(),
            Before::StartedThenRemoved => std::fs::remove_file(p.config_path()).unwrap(),
            Before::StartedEmptiedRestarted => {
                p.empty_the_list();
                let _ = p.hook(HookEvent::SessionStart).await;
            }
            Before::StartedEmpty => {}
            Before::StartedSealedEmptied => {
                p.warden().seal(&Signer { by: Some("alice".into()), key: None }).await.unwrap();
                p.empty_the_list();
            }
            Before::CopyGarbage => {
                p.store.write_snapshot("s", RULES_ID, b"{not json".to_vec()).await.unwrap()
            }
            Before::CopyEdited => {
                let kept = p.store.read_snapshot("s", RULES_ID).await.unwrap().unwrap();
                let mut copy: RulesCopy = serde_json::from_slice(&kept).unwrap();
                copy.text = EMPTIED.to_owned();
                p.store.write_snapshot("s", RULES_ID, serde_json::to_vec(&copy).unwrap()).await.unwrap();
                p.empty_the_list();
            }
        }
        let answer = p.hook(p.write("okrs/q4.md")).await;
        let then = match &answer {
            a if denied_naming(a, &["okrs", "changed since the session started"]) => {
                Then::DeniedNamingTheChange
            }
            a if denied_naming(a, &["okrs"]) => Then::Denied,
            HookAnswer::Proceed => Then::Proceeds,
            a if failed_naming(a, "session_rules_missing") && failed_naming(a, "warden init") => {
                Then::NoRules
            }
            other => panic!("{why}: an answer no row expects: {other:?}"),
        };
        assert_eq!(then, expected, "{why}: {answer:?}");
    }
}

/// The fast path never answers with a configuration the store did not decide with: after the
/// edit, a call the index would have answered goes to the store, which decides with the copy;
/// and a session with no recorded start has no index to answer from (H-58, H-59).
#[tokio::test]
async fn the_fast_path_answers_only_with_the_sessions_configuration() {
    let p = Project::new(Some(PROTECTING));
    assert_eq!(p.hook(HookEvent::SessionStart).await, HookAnswer::Proceed);
    assert_eq!(p.hook(p.bash()).await, HookAnswer::Proceed);
    let index = p.storage.read_index("s").expect("the store wrote the index");
    assert_eq!(index.config, p.live().source_digest, "the copied configuration's digest");
    p.empty_the_list();
    let parsed = Ok(HookInput {
        session_id: "s".into(),
        cwd: Some(p.root.display().to_string()),
        event: p.bash(),
        attribution: Attribution::Named,
        call: None,
        harness: PROFILE,
    });
    assert_eq!(
        before_store_parsed(&p.live(), &p.storage, &parsed),
        Pre::Store { fallback: None },
        "the edited file is not the one the index names"
    );
    assert_eq!(p.hook(p.bash()).await, HookAnswer::Proceed, "the store lets a Bash call through");
    assert_eq!(p.storage.read_index("s").unwrap().config, index.config, "still the copy's digest");

    // No start seen: an event that needs no copy is decided, and leaves no index behind.
    let q = Project::new(Some(PROTECTING));
    let agent =
        agentwarden_domain::sessions::CallingAgent { agent_id: "a".into(), agent_type: "planner".into() };
    assert_eq!(q.hook(HookEvent::SubagentStart(agent)).await, HookAnswer::Proceed);
    assert!(q.storage.read_index("s").is_none(), "no index from rules nobody recorded");
    let answer = q.hook(q.bash()).await;
    assert!(failed_naming(&answer, "session_rules_missing"), "{answer:?}");
    assert!(q.storage.read_index("s").is_none(), "still none");
}

/// A session that started with no configuration file is decided by the defaults, whatever file
/// appears later (H-58).
#[tokio::test]
async fn a_file_that_appears_after_the_start_decides_nothing() {
    let p = Project::new(None);
    assert_eq!(p.hook(HookEvent::SessionStart).await, HookAnswer::Proceed);
    std::fs::write(p.config_path(), "[harness]\nagent_tools = [\"Workflow\"]\n").unwrap();
    let workflow = HookEvent::Tool(ToolCall {
        tool_name: "Workflow".into(),
        tool_use_id: Some("w".into()),
        caller: None,
        kind: ToolKind::StartsAgents,
        rules_as: RulesAs::named("Workflow"),
        shell: None,
    });
    let answer = p.hook(workflow).await;
    assert!(denied_naming(&answer, &["changed since the session started"]), "{answer:?}");
    assert!(p.hook(p.bash()).await.failure().is_none());
}

/// The copy's own check: intact only when its text is its digest's, and a copy of no file
/// holds no text.
#[test]
fn a_copy_is_intact_only_as_taken() {
    let digest = crate::files::text_digest(PROTECTING, Some(0o644));
    let file = RulesCopy {
        path: Some("/p/agentwarden.toml".into()),
        root: "/p".into(),
        digest: Some(digest.clone()),
        text: PROTECTING.into(),
    };
    let none = RulesCopy { path: None, root: "/p".into(), digest: None, text: String::new() };
    let rows: [(&str, RulesCopy, bool); 5] = [
        ("as taken", file.clone(), true),
        ("no file", none.clone(), true),
        ("text edited", RulesCopy { text: EMPTIED.into(), ..file.clone() }, false),
        ("a digest without a file", RulesCopy { path: None, ..file.clone() }, false),
        ("no file, a text added", RulesCopy { text: EMPTIED.into(), ..none }, false),
    ];
    for (why, copy, intact) in rows {
        assert_eq!(copy.intact(), intact, "{why}");
    }
    let config = file.config().unwrap();
    assert_eq!(config.guardrails.protected, vec!["okrs".to_owned()]);
    assert_eq!(config.source_digest, Some(digest));
    assert_eq!(config.root, Path::new("/p"));
}
