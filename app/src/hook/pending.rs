//! A stop whose log cannot be written (H-33): the revert needs only the content snapshot, so
//! it does not wait for the log. The protected paths are put back from the copy of the start's
//! snapshot kept beside the store, the session is quarantined, and the violation is kept as a
//! pending record beside the marker until a hook that has the store (or `warden release`)
//! records it, exactly once, and removes it.
//!
//! The agent can edit or remove any of these files. A pending record that does not read (not
//! a violation, not named by its digest) or that the marker lists and is gone is recorded as
//! such (`violation_record_lost`): what it held is lost, and the log says so. Where the
//! store's own snapshot of the agent is there, the paths are checked against it again when the
//! record is written, so a forged copy reverts nothing for good. A pending record quarantines
//! its session even without a marker, and `warden release` refuses while one is not recorded.

use std::path::PathBuf;

use agentwarden_domain::audit::{Actor, Correlation, CorrelationId};
use agentwarden_domain::events::AuditEvent;
use agentwarden_domain::guardrails::ContentSnapshot;
use agentwarden_domain::sessions::{
    HookAnswer, ROOT_ID, SessionQuarantined, SessionRecords, quarantined_without_store,
};
use agentwarden_domain::verdict::Code;

use super::storage::{HookStorage, Marker, PendingViolation};
use crate::guard::GuardTarget;
use crate::warden::Warden;

/// Where a stop's `violation.json` goes, under the root the agent was checked in.
pub(super) fn artifacts(root: &std::path::Path, session: &str, agent: &str) -> PathBuf {
    root.join(".agentwarden").join("violations").join(session).join(agent)
}

fn correlation(session: &str, agent: &str) -> Correlation {
    Correlation {
        item: CorrelationId::new(agent).ok(),
        run: CorrelationId::new(session).ok(),
        session: CorrelationId::new(session).ok(),
        ..Correlation::default()
    }
}

impl Warden {
    /// The recorder of guardrail violations: the configured `[guardrails] actor`.
    fn violation_recorder(&self) -> Warden {
        match Actor::new(self.config.guardrails.actor.clone()) {
            Ok(actor) => self.with_actor(actor),
            Err(_) => self.clone(),
        }
    }

    /// A `SubagentStop` of `agent` whose log cannot be written (H-28, H-33): the session is
    /// quarantined (its marker first), the protected paths are put back from the snapshot copy,
    /// and a violation is kept pending; always exit 2, with what the revert did.
    pub(crate) async fn stop_without_store(
        &self,
        session: &str,
        agent: &str,
        storage: &HookStorage,
        why: &str,
    ) -> HookAnswer {
        let marker = Marker {
            code: Code::StoreUnavailable.to_string(),
            reason: why.to_owned(),
            agent_id: Some(agent.to_owned()),
            pending: Vec::new(),
        };
        if let Err(e) = storage.quarantine(session, &marker) {
            tracing::error!(error = %e, "the quarantine marker could not be written");
        }
        let said = match self.revert_from_copy(session, agent, storage, &marker).await {
            Ok(said) | Err(said) => said,
        };
        super::failed_text(format!("{}; {said}", quarantined_without_store(why, session)))
    }

    /// Puts `agent`'s protected paths back from the snapshot copy and keeps the violation
    /// pending; says what it did, or why it could not.
    async fn revert_from_copy(
        &self,
        session: &str,
        agent: &str,
        storage: &HookStorage,
        marker: &Marker,
    ) -> Result<String, String> {
        let own = storage
            .read_snapshot(session, agent)
            .map_err(|e| e.to_string())?
            .ok_or("nothing was put back: no copy of the snapshot taken at its start")?;
        // Held to the session's snapshot at the session's root, as a stop with the store is (H-47).
        let copy = match (agent != ROOT_ID).then(|| storage.read_snapshot(session, ROOT_ID)) {
            Some(Ok(Some(session_copy))) if session_copy.root == own.root => session_copy,
            _ => own,
        };
        let snapshot = ContentSnapshot::decode(&copy.encoded)
            .map_err(|e| format!("nothing was put back: the snapshot copy is refused: {e}"))?;
        let artifacts = artifacts(&copy.root, session, agent);
        let target = GuardTarget {
            root: &copy.root,
            item: agent,
            run: session,
            session: Some(session),
            artifacts: &artifacts,
        };
        let outcome = self.check_guardrails_restoring(&target, &snapshot).await;
        let Some(violation) = outcome.violation else { return Ok("nothing protected changed".to_owned()) };
        let said = if violation.details.reverted {
            format!("put back: {}", violation.details.changed_files.join(", "))
        } else {
            format!("revert_failed: {}", violation.details.revert_error)
        };
        if outcome.audit.is_some() {
            return Ok(said);
        }
        self.keep_pending(session, agent, storage, marker, violation)
            .map(|()| format!("{said} (the violation is recorded once the log can be written)"))
            .map_err(|e| format!("{said}; the violation could not be kept to record later: {e}"))
    }

    /// Writes a violation that could not be recorded as pending, and lists it in the marker.
    pub(super) fn keep_pending(
        &self,
        session: &str,
        agent: &str,
        storage: &HookStorage,
        marker: &Marker,
        violation: agentwarden_domain::guardrails::Violation,
    ) -> Result<(), String> {
        let pending = PendingViolation { agent_id: agent.to_owned(), violation };
        let name = storage.add_pending(session, &pending).map_err(|e| e.to_string())?;
        storage.note_pending(session, marker, &name).map_err(|e| e.to_string())
    }

    /// Records `session`'s pending violations (H-33), each once, then removes it; a record the
    /// agent edited, replaced or removed is recorded as lost. `Err` names what could not be
    /// recorded yet: it stays pending, and the session quarantined.
    pub(crate) async fn record_pending(
        &self,
        state: &mut SessionRecords,
        session: &str,
        storage: &HookStorage,
    ) -> Result<(), String> {
        let files = storage.pending(session).map_err(|e| e.to_string())?;
        let listed = storage.marker(session).ok().flatten().map(|m| m.pending).unwrap_or_default();
        let gone = listed.iter().filter(|name| !files.iter().any(|(found, _)| found == *name));
        let gone: Vec<(String, Result<PendingViolation, String>)> = gone
            .map(|name| {
                (name.clone(), Err(format!("the pending violation `{name}` the marker lists is gone")))
            })
            .collect();
        let mut failed = Vec::new();
        for (name, read) in files.into_iter().chain(gone) {
            let recorded = match read {
                Ok(pending) => self.record_one(state, session, pending).await,
                Err(why) => {
                    let event = AuditEvent::SessionQuarantined(Box::new(SessionQuarantined {
                        agent_id: None,
                        code: Code::ViolationRecordLost,
                        reason: format!("{why}: what it held is lost"),
                    }));
                    self.record_and_apply(state, correlation(session, session), &event)
                        .await
                        .map(drop)
                        .map_err(|e| e.to_string())
                }
            };
            match recorded.and_then(|()| storage.remove_pending(session, &name).map_err(|e| e.to_string())) {
                Ok(()) => {
                    if let Err(e) = storage.unlist_pending(session, &name) {
                        tracing::warn!(error = %e, "a recorded pending violation is still listed");
                    }
                }
                Err(e) => failed.push(format!("`{name}`: {e}")),
            }
        }
        match failed.is_empty() {
            true => Ok(()),
            false => Err(format!("pending violations not recorded yet: {}", failed.join("; "))),
        }
    }

    /// Records one pending violation; when it says the paths were put back, checks them again
    /// against the store's own snapshot, if it has one: a copy the agent forged put back
    /// nothing for good. (A revert that failed is on record as failed: a human looks anyway.)
    async fn record_one(
        &self,
        state: &mut SessionRecords,
        session: &str,
        pending: PendingViolation,
    ) -> Result<(), String> {
        let agent = pending.agent_id.as_str();
        let event = AuditEvent::GuardrailViolation(Box::new(pending.violation.clone()));
        self.violation_recorder()
            .record_and_apply(state, correlation(session, agent), &event)
            .await
            .map_err(|e| e.to_string())?;
        if !pending.violation.details.reverted {
            return Ok(());
        }
        if let Ok(snapshot) = self.load_snapshot(session, agent).await {
            let own = state.session_ref(session).agents.get(agent).and_then(|a| a.root.clone());
            let root = own.map_or_else(|| self.config.root.clone(), PathBuf::from);
            let artifacts = artifacts(&root, session, agent);
            let target = GuardTarget {
                root: &root,
                item: agent,
                run: session,
                session: Some(session),
                artifacts: &artifacts,
            };
            let again = self.check_guardrails_restoring(&target, &snapshot).await;
            if again.violation.is_some() && again.audit.is_none() {
                return Err(
                    "the paths differ from the store's snapshot, and that could not be recorded".into()
                );
            }
        }
        Ok(())
    }
}
