//! No single event weakens protection (issue 47, item 3): every kind of hook event the kernel
//! reads, sent by the agent alone, twice, after another, or before the session's start, leaves
//! the session's reference as its first start took it, and a protected change made around it
//! ends put back and recorded by the real stop (H-52, H-53, H-54). The events the agent's user
//! sends cannot be told from the harness's; they are contained, not believed.

use std::sync::Arc;

use agentwarden_domain::lineage::RulesAs;
use agentwarden_domain::sessions::{
    Attribution, CallingAgent, HookAnswer, HookEvent, HookInput, ROOT_ID, SpawnRequest, ToolCall, ToolKind,
};
use agentwarden_ports::{EventStore, SnapshotStore};

use super::HookStorage;
use crate::{Config, Warden, store::MemoryEventStore};

const ORIGINAL: &str = "# Q4\n";

/// Which kind of kernel event `event` is. No wildcard: a new variant of [`HookEvent`] fails to
/// compile here until it has a kind, and [`every_event`] then fails the test until it has a
/// representative.
fn kind(event: &HookEvent) -> usize {
    match event {
        HookEvent::Spawn(_) => 0,
        HookEvent::Tool(_) => 1,
        HookEvent::SubagentStart(_) => 2,
        HookEvent::SubagentStop { .. } => 3,
        HookEvent::SessionStart => 4,
        HookEvent::SessionStop { .. } => 5,
        HookEvent::SessionEnd { .. } => 6,
        HookEvent::ConfigChange { .. } => 7,
        HookEvent::Other { .. } => 8,
    }
}

/// How many kinds [`kind`] names.
const KINDS: usize = 9;

/// The lifecycle kinds: each is recorded whenever it is answered (H-52 … H-54).
const LIFECYCLE: [usize; 5] = [2, 3, 4, 5, 6];

fn agent(id: &str) -> CallingAgent {
    CallingAgent { agent_id: id.into(), agent_type: "planner".into() }
}

/// Every event the agent could forge, at least one of each kind, the lifecycle events in each of
/// their shapes (a repeated stop, an agent the session never saw).
fn every_event() -> Vec<HookEvent> {
    vec![
        HookEvent::Spawn(SpawnRequest {
            tool_name: "Task".into(),
            tool_use_id: "t1".into(),
            subagent_type: "planner".into(),
            builtin: false,
            prompt: String::new(),
            caller: None,
        }),
        HookEvent::Tool(ToolCall {
            tool_name: "Write".into(),
            tool_use_id: Some("t2".into()),
            caller: None,
            kind: ToolKind::Write { path: "okrs/q4.md".into() },
            rules_as: RulesAs::named("Write"),
            shell: None,
        }),
        HookEvent::Tool(ToolCall {
            tool_name: "Bash".into(),
            tool_use_id: Some("t3".into()),
            caller: None,
            kind: ToolKind::Other,
            rules_as: RulesAs::named("Bash"),
            shell: None,
        }),
        HookEvent::SubagentStart(agent("a1")),
        HookEvent::SubagentStop { agent: agent("a1"), stop_hook_active: false },
        HookEvent::SubagentStop { agent: agent("a1"), stop_hook_active: true },
        HookEvent::SubagentStop { agent: agent("ghost"), stop_hook_active: false },
        HookEvent::SessionStart,
        HookEvent::SessionStop { stop_hook_active: false },
        HookEvent::SessionStop { stop_hook_active: true },
        HookEvent::SessionEnd { reason: Some("other".into()) },
        HookEvent::SessionEnd { reason: None },
        HookEvent::ConfigChange { source: "project_settings".into(), file_path: None },
        HookEvent::Other { name: "Notification".into() },
    ]
}

#[test]
fn every_kind_of_event_has_a_representative() {
    let mut seen = [false; KINDS];
    for event in every_event() {
        if let Some(slot) = seen.get_mut(kind(&event)) {
            *slot = true;
        }
    }
    assert_eq!(seen, [true; KINDS], "a kind of HookEvent is not tried");
}

/// A project with `okrs/q4.md` protected, a Warden over a memory store that keeps the
/// snapshots, and the hook's files.
struct Project {
    _dir: tempfile::TempDir,
    root: std::path::PathBuf,
    store: Arc<MemoryEventStore>,
    warden: Warden,
    storage: HookStorage,
    attribution: Attribution,
    /// The session's reference as its first start took it (store, copy).
    reference: Option<(Vec<u8>, super::storage::SnapshotCopy)>,
}

impl Project {
    fn new(attribution: Attribution) -> Project {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("okrs")).unwrap();
        std::fs::write(root.join("okrs/q4.md"), ORIGINAL).unwrap();
        let mut config = Config { root: root.clone(), ..Config::default() };
        config.guardrails.protected = vec!["okrs".to_owned()];
        let store = Arc::new(MemoryEventStore::new());
        let warden = Warden::builder().store(store.clone()).config(config).build().unwrap();
        let storage = HookStorage::new(root.join(".agentwarden"));
        Project { _dir: dir, root, store, warden, storage, attribution, reference: None }
    }

    async fn send(&self, event: HookEvent) -> HookAnswer {
        let input = HookInput {
            session_id: "s".into(),
            cwd: None,
            event,
            attribution: self.attribution,
            call: None,
            harness: agentwarden_domain::sessions::HarnessProfile::NEUTRAL,
        };
        self.warden.hook_input(input, &self.storage).await
    }

    fn write(&self, text: &str) {
        std::fs::write(self.root.join("okrs/q4.md"), text).unwrap();
    }

    fn q4(&self) -> String {
        std::fs::read_to_string(self.root.join("okrs/q4.md")).unwrap()
    }

    async fn head(&self) -> u64 {
        self.store.head().await.unwrap().seq
    }

    async fn reference_now(&self) -> Option<(Vec<u8>, super::storage::SnapshotCopy)> {
        let kept = self.store.read_snapshot("s", ROOT_ID).await.unwrap();
        let copy = self.storage.read_snapshot("s", ROOT_ID).unwrap();
        kept.zip(copy)
    }

    /// The reference is the one the first start took, unchanged (store and copy), once taken.
    async fn reference_holds(&mut self, after: &str) {
        let now = self.reference_now().await;
        match &self.reference {
            None => self.reference = now,
            Some(first) => {
                assert_eq!(now.as_ref(), Some(first), "{after}: the reference was replaced or removed")
            }
        }
    }

    /// `event`, forged; recorded when it is a lifecycle event of a harness that names its agents.
    async fn forge(&mut self, event: &HookEvent, why: &str) {
        let before = self.head().await;
        let _ = self.send(event.clone()).await;
        if self.attribution == Attribution::Named && LIFECYCLE.contains(&kind(event)) {
            assert!(self.head().await > before, "{why}: the forged {event:?} is recorded");
        }
        self.reference_holds(why).await;
    }

    /// The real stop finds the last change, puts it back and records it; the real end is clean,
    /// and the reference is still the first.
    async fn real_stop_and_end(&mut self, why: &str) {
        let violations = self.violations().await;
        let stop = self.send(HookEvent::SessionStop { stop_hook_active: false }).await;
        assert!(
            matches!(&stop, HookAnswer::Block { reason } if reason.as_str().contains("okrs/q4.md")),
            "{why}: the real stop finds the change: {stop:?}"
        );
        assert_eq!(self.q4(), ORIGINAL, "{why}: put back by the real stop");
        assert_eq!(self.violations().await, violations + 1, "{why}: and recorded");
        let end = self.send(HookEvent::SessionEnd { reason: Some("prompt_input_exit".into()) }).await;
        assert_eq!(end, HookAnswer::Proceed, "{why}: a clean real end");
        self.reference_holds(why).await;
        assert!(self.reference.is_some(), "{why}: a reference was taken");
    }

    async fn violations(&self) -> usize {
        let records = self.store.read(1, 10_000).await.unwrap();
        records
            .iter()
            .filter(|r| String::from_utf8_lossy(&r.body).contains(r#""event_type":"guardrail_violation""#))
            .count()
    }
}

/// The real start, then for each forged event in `forged` a change and the event, a last
/// change, and the real stop and end.
async fn around(attribution: Attribution, forged: &[&HookEvent], why: &str) {
    let mut p = Project::new(attribution);
    assert_eq!(p.send(HookEvent::SessionStart).await, HookAnswer::Proceed, "{why}: the real start");
    p.reference_holds(why).await;
    for (i, event) in forged.iter().enumerate() {
        p.write(&format!("changed before forged event {i}\n"));
        p.forge(event, why).await;
    }
    p.write("changed after the forged events\n");
    p.real_stop_and_end(why).await;
}

/// The forged event before the session's real start, then a change, the real stop and end.
async fn before_start(attribution: Attribution, event: &HookEvent, why: &str) {
    let mut p = Project::new(attribution);
    p.forge(event, why).await;
    let _ = p.send(HookEvent::SessionStart).await;
    p.reference_holds(why).await;
    p.write("changed after the real start\n");
    p.real_stop_and_end(why).await;
}

/// Every event, alone, twice, and before the session's start; every ordered pair of lifecycle
/// events (the issue's attack is `SessionEnd` then `SessionStart`): with a harness that names its
/// agents and one that does not (M-2).
#[tokio::test]
async fn no_forged_event_alone_twice_or_out_of_order_keeps_a_protected_change() {
    let events = every_event();
    for attribution in [Attribution::Named, Attribution::InFlight] {
        for event in &events {
            let why = format!("{attribution:?} {event:?}");
            around(attribution, &[event], &format!("{why} alone")).await;
            around(attribution, &[event, event], &format!("{why} twice")).await;
            before_start(attribution, event, &format!("{why} before the start")).await;
        }
        let lifecycle: Vec<&HookEvent> = events.iter().filter(|e| LIFECYCLE.contains(&kind(e))).collect();
        for first in &lifecycle {
            for second in &lifecycle {
                let why = format!("{attribution:?} {first:?} then {second:?}");
                around(attribution, &[first, second], &why).await;
            }
        }
    }
}

/// The issue's attack, step by step: a forged end puts the change back and keeps the reference;
/// a change and a forged start are checked against it; the real stop finds the third change.
#[tokio::test]
async fn a_forged_end_then_start_is_checked_against_the_first_snapshot() {
    let mut p = Project::new(Attribution::Named);
    assert_eq!(p.send(HookEvent::SessionStart).await, HookAnswer::Proceed);
    p.reference_holds("start").await;
    p.write("changed before the forged end\n");
    let end = p.send(HookEvent::SessionEnd { reason: Some("other".into()) }).await;
    assert!(matches!(end.failure(), Some(text) if text.contains("okrs/q4.md")), "{end:?}");
    assert_eq!(p.q4(), ORIGINAL);
    p.reference_holds("forged end").await;
    p.write("changed between the forged end and start\n");
    let start = p.send(HookEvent::SessionStart).await;
    assert!(matches!(start.failure(), Some(text) if text.contains("okrs/q4.md")), "{start:?}");
    assert_eq!(p.q4(), ORIGINAL, "the forged start puts it back");
    p.reference_holds("forged start").await;
    assert!(p.storage.marker("s").unwrap().is_none(), "a change put back quarantines nothing");
    p.write("changed after the forged start\n");
    p.real_stop_and_end("the attack").await;
    assert_eq!(p.violations().await, 3, "each change recorded");
}

/// A subagent's start while it runs takes no snapshot and no pending spawn; its first snapshot is
/// never replaced, in a worktree of its own too, and its stop does not remove it, so a stop the
/// agent forges before it changes its worktree leaves the real stop something to put back (H-54).
#[tokio::test]
async fn an_agents_first_snapshot_is_never_replaced_nor_removed_by_its_events() {
    let p = Project::new(Attribution::Named);
    let tree = p.root.join("wt");
    std::fs::create_dir_all(tree.join("okrs")).unwrap();
    std::fs::write(tree.join(".git"), "gitdir: elsewhere\n").unwrap();
    std::fs::write(tree.join("okrs/q4.md"), ORIGINAL).unwrap();
    let cwd = Some(tree.display().to_string());
    let send = |event: HookEvent| {
        let input = HookInput {
            session_id: "s".into(),
            cwd: cwd.clone(),
            event,
            attribution: Attribution::Named,
            call: None,
            harness: agentwarden_domain::sessions::HarnessProfile::NEUTRAL,
        };
        async { p.warden.hook_input(input, &p.storage).await }
    };
    let wt_q4 = tree.join("okrs/q4.md");
    assert_eq!(send(HookEvent::SubagentStart(agent("w1"))).await, HookAnswer::Proceed);
    let first = p.store.read_snapshot("s", "w1").await.unwrap().expect("taken");
    std::fs::write(&wt_q4, "changed in the worktree\n").unwrap();
    let _ = send(HookEvent::SubagentStart(agent("w1"))).await;
    assert_eq!(p.store.read_snapshot("s", "w1").await.unwrap(), Some(first.clone()), "a start while running");
    let records = p.store.read(1, 100).await.unwrap();
    let last = String::from_utf8_lossy(&records.last().unwrap().body).into_owned();
    assert!(last.contains(r#""repeated":true"#), "recorded as repeated: {last}");
    std::fs::write(&wt_q4, ORIGINAL).unwrap();
    let forged = send(HookEvent::SubagentStop { agent: agent("w1"), stop_hook_active: false }).await;
    assert_eq!(forged, HookAnswer::Proceed, "nothing changed yet");
    assert_eq!(p.store.read_snapshot("s", "w1").await.unwrap(), Some(first.clone()), "kept at its stop");
    std::fs::write(&wt_q4, "changed after the forged stop\n").unwrap();
    let _ = send(HookEvent::SubagentStart(agent("w1"))).await;
    assert_eq!(p.store.read_snapshot("s", "w1").await.unwrap(), Some(first), "a start after its stop");
    let real = send(HookEvent::SubagentStop { agent: agent("w1"), stop_hook_active: false }).await;
    assert!(
        matches!(&real, HookAnswer::Block { reason } if reason.as_str().contains("okrs/q4.md")),
        "{real:?}"
    );
    assert_eq!(std::fs::read_to_string(&wt_q4).unwrap(), ORIGINAL, "put back by the real stop");
}
