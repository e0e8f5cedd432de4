//! The session's end (H-48): at `SessionEnd` the protected paths are compared with the
//! session's snapshot and put back, as at a stop of the main session (H-46), and the end is
//! recorded (`session_ended`).
//!
//! Nothing can be blocked: the harnesses end the session whatever the hook answers (an
//! exit 2 only shows its reason to the human). So the answer is a proceed when nothing was
//! found, else a failure whose reason says what was put back or why the session is quarantined.
//!
//! H-53: the session's snapshot, its reference, is kept, in the store and its copy. An end
//! cannot be told from one the agent sent itself through the hook, and a session whose end was
//! forged goes on: its later stops, and a later start of the same id, are checked against the
//! reference, never against a snapshot taken after the end.

use agentwarden_domain::events::AuditEvent;
use agentwarden_domain::sessions::{HookAnswer, ROOT_ID, SessionRecords, evaluate_session_end};

use super::storage::HookStorage;
use crate::warden::{Warden, WardenError};

impl Warden {
    /// The session's end (H-48): the protected paths compared with the session's snapshot and
    /// put back, as at a stop, recorded, and nothing blocked (the harness ends the session
    /// whatever it is told). The snapshot is kept, in the store and its copy, whatever the end
    /// found (H-53): the end may be the agent's, and the session go on. What could not be made
    /// safe quarantines the session.
    pub(super) async fn hook_session_end(
        &self,
        state: &mut SessionRecords,
        session: &str,
        reason: Option<String>,
        storage: &HookStorage,
    ) -> Result<HookAnswer, WardenError> {
        let root = self.config.root.clone();
        let guard = self.guard_against_snapshot(session, ROOT_ID, &root, storage).await;
        let decided = evaluate_session_end(guard, reason);
        let recorded = self
            .record_lifecycle(
                state,
                session,
                storage,
                AuditEvent::SessionEnded(Box::new(decided.event.clone())),
                decided.cause.as_ref(),
            )
            .await;
        Ok(decided.answer(recorded))
    }

    /// The session's end when the store cannot be opened (H-28, H-33): as a stop's, the session
    /// quarantined and its paths put back from the snapshot copy; the snapshot is kept (H-48).
    pub(crate) async fn session_end_without_store(
        &self,
        session: &str,
        storage: &HookStorage,
        why: &str,
    ) -> HookAnswer {
        self.stop_without_store(session, ROOT_ID, storage, why).await
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use agentwarden_domain::sessions::{Attribution, CallingAgent, HookEvent, HookInput};
    use agentwarden_ports::EventStore;

    use super::*;
    use crate::{Config, store::MemoryEventStore};

    /// A project with one protected directory, `okrs/q4.md` in it, and a Warden over a store.
    fn project() -> (tempfile::TempDir, Config, std::path::PathBuf, Arc<MemoryEventStore>, Warden, HookStorage)
    {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("okrs")).unwrap();
        std::fs::write(root.join("okrs/q4.md"), "# Q4\n").unwrap();
        let mut config = Config { root: root.clone(), ..Config::default() };
        config.guardrails.protected = vec!["okrs".to_owned()];
        let store = Arc::new(MemoryEventStore::new());
        let warden = Warden::builder().store(store.clone()).config(config.clone()).build().unwrap();
        let storage = HookStorage::new(root.join(".agentwarden"));
        (dir, config, root, store, warden, storage)
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

    fn end() -> HookInput {
        input(HookEvent::SessionEnd { reason: Some("prompt_input_exit".into()) })
    }

    async fn recorded(store: &MemoryEventStore, event_type: &str) -> Vec<String> {
        let records = store.read(1, 1000).await.unwrap();
        records
            .iter()
            .map(|r| String::from_utf8_lossy(&r.body).into_owned())
            .filter(|body| body.contains(&format!("\"event_type\":\"{event_type}\"")))
            .collect()
    }

    /// A change still there at the end is put back and recorded, nothing is blocked, and the
    /// session's snapshot is kept, in the store and its copy: a later start of the same id is
    /// checked against it, never snapshots afresh (H-48, H-53, H-52).
    #[tokio::test]
    async fn the_end_puts_back_records_and_keeps_the_sessions_snapshot() {
        let (_dir, _config, root, store, warden, storage) = project();
        assert_eq!(warden.hook_input(input(HookEvent::SessionStart), &storage).await, HookAnswer::Proceed);
        let reference = storage.read_snapshot("s", ROOT_ID).unwrap().expect("the copy is there");
        std::fs::write(root.join("okrs/q4.md"), "changed, never stopped\n").unwrap();
        let answer = warden.hook_input(end(), &storage).await;
        assert!(
            matches!(answer.failure(), Some(text) if text.contains("okrs/q4.md")),
            "told, never blocked: {answer:?}"
        );
        assert_eq!(std::fs::read_to_string(root.join("okrs/q4.md")).unwrap(), "# Q4\n");
        let ended = recorded(&store, "session_ended").await;
        assert_eq!(ended.len(), 1);
        assert!(ended[0].contains(r#""reverted":true"#), "{}", ended[0]);
        assert!(ended[0].contains(r#""reason":"prompt_input_exit""#), "{}", ended[0]);
        assert!(storage.marker("s").unwrap().is_none(), "a change put back quarantines nothing");
        assert_eq!(storage.read_snapshot("s", ROOT_ID).unwrap(), Some(reference.clone()), "the copy is kept");
        std::fs::write(root.join("okrs/q4.md"), "changed after the end\n").unwrap();
        let again = warden.hook_input(input(HookEvent::SessionStart), &storage).await;
        assert!(
            matches!(again.failure(), Some(text) if text.contains("okrs/q4.md")),
            "a later start is checked against the kept snapshot: {again:?}"
        );
        assert_eq!(std::fs::read_to_string(root.join("okrs/q4.md")).unwrap(), "# Q4\n", "and put back");
        let starts = recorded(&store, "session_started").await;
        assert!(starts[1].contains(r#""snapshot":true,"kept":true"#), "{}", starts[1]);
        assert!(starts[1].contains(r#""changed_files":["okrs/q4.md"],"reverted":true"#), "{}", starts[1]);
        assert_eq!(warden.hook_input(end(), &storage).await, HookAnswer::Proceed, "a clean end");
        assert_eq!(storage.read_snapshot("s", ROOT_ID).unwrap(), Some(reference), "still the first");
    }

    /// An end that cannot be checked (no snapshot), or made while a subagent at the workspace
    /// root still runs, or without the store, keeps what there is and quarantines what cannot
    /// be made safe (H-48, H-47, H-33, H-53).
    #[tokio::test]
    async fn the_end_keeps_the_snapshot_on_any_failure_and_while_a_subagent_runs_at_the_root() {
        let (_dir, config, root, store, warden, storage) = project();
        let answer = warden.hook_input(end(), &storage).await;
        assert!(matches!(answer.failure(), Some(text) if text.contains("snapshot_missing")), "{answer:?}");
        assert!(storage.marker("s").unwrap().is_some(), "no snapshot: quarantined");
        let (_dir, config2, root2, _store2, warden2, storage2) = project();
        assert_eq!(warden2.hook_input(input(HookEvent::SessionStart), &storage2).await, HookAnswer::Proceed);
        let agent = CallingAgent { agent_id: "bg".into(), agent_type: "planner".into() };
        assert_eq!(
            warden2.hook_input(input(HookEvent::SubagentStart(agent)), &storage2).await,
            HookAnswer::Proceed
        );
        assert_eq!(warden2.hook_input(end(), &storage2).await, HookAnswer::Proceed);
        assert!(storage2.read_snapshot("s", ROOT_ID).unwrap().is_some(), "held for the running subagent");
        std::fs::write(root2.join("okrs/q4.md"), "changed, the store locked\n").unwrap();
        let why = "the store is locked".to_owned();
        let answer = crate::hook::hook_store_unavailable(
            config2,
            &storage2,
            Some(&end()),
            None,
            agentwarden_domain::code::Code::StoreUnavailable,
            why,
        )
        .await;
        assert!(matches!(answer, HookAnswer::Failed { .. }), "{answer:?}");
        assert_eq!(
            std::fs::read_to_string(root2.join("okrs/q4.md")).unwrap(),
            "# Q4\n",
            "put back from the copy"
        );
        assert!(storage2.read_snapshot("s", ROOT_ID).unwrap().is_some(), "kept without the store");
        assert!(storage2.marker("s").unwrap().is_some(), "quarantined without the store");
        drop((config, root, store));
    }
}
