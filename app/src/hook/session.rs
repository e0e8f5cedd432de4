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

use agentwarden_domain::events::AuditEvent;
use agentwarden_domain::sessions::{
    HookAnswer, HookFailure, ROOT_ID, SessionRecords, SessionStarted, SessionStopFacts, evaluate_session_stop,
};
use agentwarden_domain::verdict::Code;

use super::storage::HookStorage;
use super::{quarantine_unrecorded, session_correlation};
use crate::warden::{Warden, WardenError};

impl Warden {
    /// H-45: the session's start: its snapshot taken, unless one is kept from an earlier start.
    pub(super) async fn hook_session_start(
        &self,
        state: &mut SessionRecords,
        session: &str,
        storage: &HookStorage,
    ) -> Result<HookAnswer, WardenError> {
        let root = self.config.root.clone();
        // What is there already, read or not, is kept: a snapshot that does not decode is
        // found out at the stop, never replaced by one of a tree the agent may have changed.
        let kept = match &self.snapshots {
            Some(store) => store.read_snapshot(session, ROOT_ID).await.map(|found| found.is_some()),
            None => Ok(false),
        };
        let (snapshot, kept) = match kept {
            Ok(true) => (true, true),
            Err(e) => {
                tracing::warn!(error = %e, "the session's snapshot could not be looked up");
                (false, false)
            }
            Ok(false) => match self.guard_capture(&root).await {
                Ok(content) => (self.save_snapshot(session, ROOT_ID, &root, &content, storage).await, false),
                Err(why) => {
                    tracing::warn!(why = %why, "the session's protected paths could not be snapshotted");
                    (false, false)
                }
            },
        };
        let event = SessionStarted { snapshot, kept };
        self.record_and_apply(
            state,
            session_correlation(session),
            &AuditEvent::SessionStarted(Box::new(event)),
        )
        .await?;
        if !snapshot {
            let cause = HookFailure::new(
                "guardrails",
                Code::SnapshotMissing,
                "the session's protected paths could not be snapshotted when it started, so its stop \
                 cannot be checked",
            );
            self.quarantine(state, session, storage, None, &cause).await;
        }
        Ok(HookAnswer::silent())
    }

    /// H-46: the main session's stop: the protected paths compared with the session's snapshot
    /// and put back; a change blocks the stop once, and what cannot be made safe quarantines.
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
            .record_and_apply(
                state,
                session_correlation(session),
                &AuditEvent::SessionStopped(Box::new(decided.event.clone())),
            )
            .await
            .map(drop)
            .map_err(|e| e.to_string());
        if let Err(e) = &recorded {
            // H-28: the store cannot be used at a stop: the session is quarantined (marker only).
            let why = HookFailure::unrecorded(e);
            quarantine_unrecorded(storage, session, None, &why.code, &why.reason);
        } else if let Some(cause) = &decided.cause {
            self.quarantine(state, session, storage, None, cause).await;
        }
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
