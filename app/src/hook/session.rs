//! The main session's start and stop (H-45, H-46): the protected paths are snapshotted when the
//! session starts, and at every stop of the main session (the end of each of its turns) they are
//! compared with that snapshot and put back, whoever changed them.
//!
//! H-45: the snapshot is taken once a session, at the first `SessionStart` Warden sees; a later
//! start of the same session (resumed, cleared, compacted) keeps it, so that nothing changed
//! before it is laundered into the snapshot. It is kept under the main session's id
//! ([`ROOT_ID`]), which no subagent may carry. A start whose snapshot cannot be taken
//! quarantines the session at once, and a stop with no snapshot to check against (Warden
//! installed during the session, a snapshot lost) quarantines it then: either way the session
//! cannot be checked, and a new one started with the hooks in place can.
//!
//! H-52: a start cannot be told from one the agent sent itself, so a later start is a check: the
//! protected paths are compared with the kept snapshot and put back, as at a stop.

use agentwarden_domain::events::AuditEvent;
use agentwarden_domain::fact::FactError;
use agentwarden_domain::sessions::{
    HookAnswer, HookFailure, ROOT_ID, SessionRecords, SessionStartFacts, SessionStopFacts,
    evaluate_session_start, evaluate_session_stop,
};

use super::storage::HookStorage;
use super::{quarantine_unrecorded, session_correlation};
use crate::warden::{Warden, WardenError};

impl Warden {
    /// The session's start. The first takes the session's snapshot, its reference (H-45); a
    /// later start of the same session — resumed, compacted, or the agent's own, which cannot be
    /// told apart — replaces nothing: the protected paths are compared with the reference and put
    /// back as at a stop, and the start is recorded with what it found (H-52).
    pub(super) async fn hook_session_start(
        &self,
        state: &mut SessionRecords,
        session: &str,
        storage: &HookStorage,
    ) -> Result<HookAnswer, WardenError> {
        let root = self.config.root.clone();
        // What is there already, read or not, is kept: a snapshot that does not decode is
        // found out by the check, never replaced by one of a tree the agent may have changed.
        let kept = match &self.snapshots {
            Some(store) => store.read_snapshot(session, ROOT_ID).await.map(|found| found.is_some()),
            None => Ok(false),
        };
        let facts = match kept {
            Ok(true) => SessionStartFacts::Kept {
                guard: self.guard_against_snapshot(session, ROOT_ID, &root, storage).await,
            },
            Err(e) => SessionStartFacts::Kept {
                guard: Err(FactError::new(format!(
                    "the session's kept snapshot could not be looked up: {e}"
                ))),
            },
            Ok(false) => {
                // The configuration deciding now is kept with the snapshot, the session's rules
                // while no seal holds any (H-58).
                if !self.keep_session_rules(session).await {
                    tracing::warn!(
                        "the session's configuration was not kept: its tool calls will fail (H-60)"
                    );
                }
                SessionStartFacts::First {
                    snapshot: match self.guard_capture(&root).await {
                        Ok(content) => self.save_snapshot(session, ROOT_ID, &root, &content, storage).await,
                        Err(why) => {
                            tracing::warn!(why = %why, "the session's protected paths could not be snapshotted");
                            false
                        }
                    },
                }
            }
        };
        let decided = evaluate_session_start(facts);
        let recorded = self
            .record_lifecycle(
                state,
                session,
                storage,
                AuditEvent::SessionStarted(Box::new(decided.event.clone())),
                decided.cause.as_ref(),
            )
            .await;
        Ok(decided.answer(recorded))
    }

    /// Records a lifecycle decision of `session` (its start, stop or end), then quarantines what
    /// cannot be made safe: a store that cannot record it quarantines by marker alone (H-28), and
    /// a recorded decision with a `cause` quarantines for that cause. The record's outcome goes
    /// into the answer.
    pub(super) async fn record_lifecycle(
        &self,
        state: &mut SessionRecords,
        session: &str,
        storage: &HookStorage,
        event: AuditEvent,
        cause: Option<&HookFailure>,
    ) -> Result<(), FactError> {
        let recorded = self
            .record_and_apply(state, session_correlation(session), &event)
            .await
            .map(drop)
            .map_err(|e| FactError::new(e.to_string()));
        if let Err(e) = &recorded {
            let why = HookFailure::unrecorded(e);
            quarantine_unrecorded(storage, session, None, &why.code, &why.reason);
        } else if let Some(cause) = cause {
            self.quarantine(state, session, storage, None, cause).await;
        }
        recorded
    }

    /// The main session's stop: the protected paths compared with the session's snapshot
    /// and put back; a change blocks the stop once, and what cannot be made safe quarantines (H-46).
    pub(super) async fn hook_session_stop(
        &self,
        state: &mut SessionRecords,
        session: &str,
        stop_hook_active: bool,
        storage: &HookStorage,
    ) -> Result<HookAnswer, WardenError> {
        let root = self.config.root.clone();
        let guard = self.guard_against_snapshot(session, ROOT_ID, &root, storage).await;
        let decided = evaluate_session_stop(SessionStopFacts { stop_hook_active, guard });
        let recorded = self
            .record_lifecycle(
                state,
                session,
                storage,
                AuditEvent::SessionStopped(Box::new(decided.event.clone())),
                decided.cause.as_ref(),
            )
            .await;
        Ok(decided.answer(recorded))
    }

    /// The main session's stop when the store cannot be opened (H-28, H-33): as a subagent's,
    /// the session quarantined and its paths put back from the snapshot copy, answered exit 2;
    /// a repeated stop is let through with the same done (H-46).
    pub(crate) async fn session_stop_without_store(
        &self,
        session: &str,
        stop_hook_active: bool,
        storage: &HookStorage,
        why: &str,
    ) -> HookAnswer {
        let answer = self.stop_without_store(session, ROOT_ID, storage, why).await;
        if stop_hook_active { HookAnswer::Proceed } else { answer }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use agentwarden_domain::sessions::{Attribution, CallingAgent, HookEvent, HookInput};
    use agentwarden_ports::EventStore;

    use super::*;
    use crate::{Config, store::MemoryEventStore};

    /// A project with one protected directory, `okrs/q4.md` in it.
    fn project() -> (tempfile::TempDir, Config, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("okrs")).unwrap();
        std::fs::write(root.join("okrs/q4.md"), "# Q4\n").unwrap();
        let mut config = Config { root: root.clone(), ..Config::default() };
        config.guardrails.protected = vec!["okrs".to_owned()];
        (dir, config, root)
    }

    fn input(event: HookEvent) -> HookInput {
        HookInput {
            session_id: "s".into(),
            cwd: None,
            event,
            attribution: Attribution::Named,
            call: None,
            harness: agentwarden_domain::sessions::HarnessProfile::NEUTRAL,
        }
    }

    fn stop(stop_hook_active: bool) -> HookInput {
        input(HookEvent::SessionStop { stop_hook_active })
    }

    async fn recorded(store: &MemoryEventStore, event_type: &str) -> Vec<String> {
        let records = store.read(1, 1000).await.unwrap();
        records
            .iter()
            .map(|r| String::from_utf8_lossy(&r.body).into_owned())
            .filter(|body| body.contains(&format!("\"event_type\":\"{event_type}\"")))
            .collect()
    }

    /// A later start keeps the first snapshot and is checked against it: a change made before it
    /// is put back and recorded there, and the stop after it finds the tree as the session began
    /// (H-45, H-52).
    #[tokio::test]
    async fn a_later_start_keeps_the_first_snapshot_and_puts_back_what_changed_before_it() {
        let (_dir, config, root) = project();
        let store = Arc::new(MemoryEventStore::new());
        let warden = Warden::builder().store(store.clone()).config(config).build().unwrap();
        let storage = HookStorage::new(root.join(".agentwarden"));
        assert_eq!(warden.hook_input(input(HookEvent::SessionStart), &storage).await, HookAnswer::Proceed);
        std::fs::write(root.join("okrs/q4.md"), "changed before a resume\n").unwrap();
        let again = warden.hook_input(input(HookEvent::SessionStart), &storage).await;
        assert!(
            matches!(again.failure(), Some(text) if text.contains("okrs/q4.md")),
            "told what was put back, never held: {again:?}"
        );
        assert_eq!(std::fs::read_to_string(root.join("okrs/q4.md")).unwrap(), "# Q4\n");
        let starts = recorded(&store, "session_started").await;
        assert_eq!(starts.len(), 2);
        assert!(starts[0].contains(r#""snapshot":true,"kept":false}"#), "{}", starts[0]);
        assert!(
            starts[1].contains(r#""snapshot":true,"kept":true,"failures":[{"stage":"guardrails","code":"protected_path_changed""#),
            "{}",
            starts[1]
        );
        assert!(starts[1].contains(r#""changed_files":["okrs/q4.md"],"reverted":true"#), "{}", starts[1]);
        assert_eq!(recorded(&store, "guardrail_violation").await.len(), 1);
        assert!(storage.marker("s").unwrap().is_none(), "a change put back quarantines nothing");
        assert_eq!(warden.hook_input(stop(false), &storage).await, HookAnswer::Proceed, "nothing left");
        assert_eq!(
            warden.hook_input(input(HookEvent::SessionStart), &storage).await,
            HookAnswer::Proceed,
            "a clean later start"
        );
    }

    /// A start whose snapshot cannot be kept (here: no snapshot store) quarantines (H-45).
    #[tokio::test]
    async fn a_start_without_a_snapshot_quarantines_the_session() {
        let (_dir, config, root) = project();
        let store = Arc::new(MemoryEventStore::new());
        let warden =
            Warden::builder().event_store(store.clone()).without_state().config(config).build().unwrap();
        let storage = HookStorage::new(root.join(".agentwarden"));
        assert_eq!(warden.hook_input(input(HookEvent::SessionStart), &storage).await, HookAnswer::Proceed);
        let starts = recorded(&store, "session_started").await;
        assert!(starts[0].contains(r#""snapshot":false"#), "{starts:?}");
        let marker = storage.marker("s").unwrap().expect("quarantined");
        assert_eq!(marker.code, "snapshot_missing");
    }

    /// The session's stop over a store that cannot be opened puts the paths back
    /// from the snapshot copy and quarantines; exit 2 the first time, let through when repeated (H-46, H-33).
    #[tokio::test]
    async fn a_stop_without_the_store_puts_back_and_a_repeated_one_is_let_through() {
        let (_dir, config, root) = project();
        let store = Arc::new(MemoryEventStore::new());
        let warden = Warden::builder().store(store.clone()).config(config.clone()).build().unwrap();
        let storage = HookStorage::new(root.join(".agentwarden"));
        assert_eq!(warden.hook_input(input(HookEvent::SessionStart), &storage).await, HookAnswer::Proceed);
        for active in [false, true] {
            std::fs::write(root.join("okrs/q4.md"), "changed\n").unwrap();
            let why = "the store is locked".to_owned();
            let answer = crate::hook::hook_store_unavailable(
                config.clone(),
                &storage,
                Some(&stop(active)),
                None,
                agentwarden_domain::code::Code::StoreUnavailable,
                why,
            )
            .await;
            match active {
                false => {
                    assert!(matches!(answer.failure(), Some(text) if text.contains("put back")), "{answer:?}")
                }
                true => assert_eq!(answer, HookAnswer::Proceed),
            }
            assert_eq!(
                std::fs::read_to_string(root.join("okrs/q4.md")).unwrap(),
                "# Q4\n",
                "active: {active}"
            );
            assert!(storage.marker("s").unwrap().is_some(), "quarantined by its marker");
        }
    }

    /// A subagent that started after the main agent changed a protected file, and stops after
    /// the session's stop put it back, does not bring the change back: it is held to the
    /// session's snapshot, with the store and without it (H-47).
    #[tokio::test]
    async fn a_late_subagents_stop_does_not_bring_back_what_the_sessions_stop_put_back() {
        let (_dir, config, root) = project();
        let store = Arc::new(MemoryEventStore::new());
        let warden = Warden::builder().store(store.clone()).config(config.clone()).build().unwrap();
        let storage = HookStorage::new(root.join(".agentwarden"));
        let q4 = root.join("okrs/q4.md");
        let agent = |id: &str| CallingAgent { agent_id: id.into(), agent_type: "planner".into() };
        let subagent_stop =
            |id: &str| input(HookEvent::SubagentStop { agent: agent(id), stop_hook_active: false });
        assert_eq!(warden.hook_input(input(HookEvent::SessionStart), &storage).await, HookAnswer::Proceed);
        for (background, with_store) in [("bg1", true), ("bg2", false)] {
            std::fs::write(&q4, "changed by the main agent\n").unwrap();
            let started =
                warden.hook_input(input(HookEvent::SubagentStart(agent(background))), &storage).await;
            assert_eq!(started, HookAnswer::Proceed);
            let stopped = warden.hook_input(stop(false), &storage).await;
            assert!(matches!(stopped, HookAnswer::Block { .. }), "{stopped:?}");
            assert_eq!(std::fs::read_to_string(&q4).unwrap(), "# Q4\n", "the session's stop put it back");
            if with_store {
                let answer = warden.hook_input(subagent_stop(background), &storage).await;
                assert_eq!(answer, HookAnswer::Proceed, "nothing differs from the session's start");
            } else {
                let why = "the store is locked".to_owned();
                let input = subagent_stop(background);
                let _ = crate::hook::hook_store_unavailable(
                    config.clone(),
                    &storage,
                    Some(&input),
                    None,
                    agentwarden_domain::code::Code::StoreUnavailable,
                    why,
                )
                .await;
            }
            assert_eq!(std::fs::read_to_string(&q4).unwrap(), "# Q4\n", "{background}: not brought back");
        }
    }

    /// A subagent's stop held to the session's snapshot tells what it changed from what it found
    /// changed when it started, and puts back both (H-47).
    #[tokio::test]
    async fn a_subagents_violation_names_what_was_changed_before_it_started() {
        let (_dir, config, root) = project();
        let store = Arc::new(MemoryEventStore::new());
        let warden = Warden::builder().store(store.clone()).config(config).build().unwrap();
        let storage = HookStorage::new(root.join(".agentwarden"));
        let agent = CallingAgent { agent_id: "bg".into(), agent_type: "planner".into() };
        assert_eq!(warden.hook_input(input(HookEvent::SessionStart), &storage).await, HookAnswer::Proceed);
        std::fs::write(root.join("okrs/q4.md"), "changed by the main agent\n").unwrap();
        let started = warden.hook_input(input(HookEvent::SubagentStart(agent.clone())), &storage).await;
        assert_eq!(started, HookAnswer::Proceed);
        std::fs::write(root.join("okrs/mine.md"), "added by the subagent\n").unwrap();
        let stopped = warden
            .hook_input(input(HookEvent::SubagentStop { agent, stop_hook_active: false }), &storage)
            .await;
        let HookAnswer::Block { reason } = stopped else { panic!("a block: {stopped:?}") };
        assert!(
            reason.as_str().contains("changed before this agent started, not by it: okrs/q4.md"),
            "{reason}"
        );
        assert_eq!(
            std::fs::read_to_string(root.join("okrs/q4.md")).unwrap(),
            "# Q4\n",
            "put back all the same"
        );
        assert!(!root.join("okrs/mine.md").exists(), "its own change put back");
        let violations = recorded(&store, "guardrail_violation").await;
        assert_eq!(violations.len(), 1);
        assert!(violations[0].contains(r#""changed_before_start":["okrs/q4.md"]"#), "{}", violations[0]);
    }
}
