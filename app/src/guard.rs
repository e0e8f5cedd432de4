//! Guardrail use cases: validate a `result.json` and record the verdict; snapshot,
//! check and revert protected paths, writing and recording a violation; the guarded agent run
//! . The rules — the verdict, the diff, what a revert achieved, the violation record,
//! when an item fails — are the domain's (`agentwarden_domain::guardrails`); this module reads
//! and writes through the ports around them.

use std::path::Path;

use agentwarden_domain::audit::{Correlation, Head};
use agentwarden_domain::events::{AuditEvent, ResultValidated};
use agentwarden_domain::fact::FactError;
use agentwarden_domain::guardrails::{
    ContentSnapshot, MAX_RESULT_BYTES, ResultValidation, RevertAttempt, TreeDiff, Violation, diff,
    item_failed, validate_result,
};
use serde::Serialize;

use agentwarden_ports::FilesError;

use crate::warden::Warden;

/// The answer of [`Warden::validate_result_file`].
#[derive(Debug, Serialize)]
pub struct ResultOutcome {
    /// The verdict and every problem. Invalid too when the file cannot be read, or the
    /// verdict cannot be recorded.
    #[serde(flatten)]
    pub validation: ResultValidation,
    /// Where the verdict was recorded; `None` if it could not be.
    pub audit: Option<Head>,
}

impl Warden {
    /// Reads and validates the `result.json` at `path` (at most 1 MiB, UTF-8), records a
    /// `result_validated` event under `correlation`, and only then answers. A verdict that
    /// cannot be recorded is an invalid result.
    pub async fn validate_result_file(&self, path: &Path, correlation: Correlation) -> ResultOutcome {
        let described = format!("`{}`", path.display());
        let (validation, digest) =
            match self.files.read_text(path, MAX_RESULT_BYTES).await.into_text(&described) {
                Ok(text) => {
                    (validate_result(&text), Some(blake3::hash(text.as_bytes()).to_hex().to_string()))
                }
                Err(why) => (ResultValidation::unreadable(why.to_string()), None),
            };
        let event =
            ResultValidated { path: path.display().to_string(), digest, validation: validation.clone() };
        match self.record_event(correlation, &AuditEvent::ResultValidated(Box::new(event))).await {
            Ok(appended) => ResultOutcome { validation, audit: Some(appended.head) },
            Err(e) => ResultOutcome { validation: validation.unrecorded(&e.to_string()), audit: None },
        }
    }
}

/// The largest snapshot file `warden guard check --snapshot` reads.
pub const MAX_SNAPSHOT_BYTES: u64 = 64 * 1024 * 1024;

/// How a guardrail check puts protected paths back.
enum Revert<'a> {
    /// It does not.
    No,
    /// Through the restorer port (git, R-3).
    Restorer,
    /// From a content snapshot in Warden's own storage (U-14): no git, nothing laundered.
    Content(&'a ContentSnapshot),
}

/// The answer of [`Warden::check_guardrails`]: clean, or a violation (written and recorded).
#[derive(Debug, Serialize)]
pub struct GuardOutcome {
    /// `true` when nothing protected changed and the tree could be read.
    pub clean: bool,
    /// The violation, when there is one.
    pub violation: Option<agentwarden_domain::guardrails::Violation>,
    /// Where `violation.json` was written, when it could be.
    pub violation_file: Option<String>,
    /// Where the violation was recorded; `None` if clean or if it could not be.
    pub audit: Option<Head>,
}

/// What a guardrail check is about.
#[derive(Clone, Debug)]
pub struct GuardTarget<'a> {
    /// The workspace root.
    pub root: &'a Path,
    /// The plan item.
    pub item: &'a str,
    /// The run.
    pub run: &'a str,
    /// The harness's session, when the hook checks a subagent: the violation is recorded
    /// under it, so that the session's timeline shows it (H-30).
    pub session: Option<&'a str>,
    /// Where `violation.json` goes.
    pub artifacts: &'a Path,
}

/// Why `warden guard run` did not run the agent: there is no snapshot to put the
/// protected paths back from, so it fails closed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GuardRunError {
    /// The content of the protected paths could not be kept (too large, unreadable).
    #[error("snapshot: {0}")]
    Snapshot(FilesError),
}

impl Warden {
    /// Writes a file atomically through the file-system port.
    pub async fn write_file(&self, path: &Path, bytes: &[u8]) -> Result<(), FilesError> {
        self.files.write_atomic(path, bytes).await
    }

    /// A manifest of the configured protected paths under `root`.
    pub async fn guard_snapshot(
        &self,
        root: &Path,
    ) -> Result<agentwarden_domain::guardrails::TreeManifest, FilesError> {
        self.files.snapshot(root, &self.config.guardrails.protected).await
    }

    /// Compares the protected paths with `before`; on any change (or an unreadable tree) it
    /// reverts if asked, verifies the revert with a new snapshot, writes `violation.json`
    /// atomically, records a `guardrail_violation` event as the configured actor, and answers.
    /// U-7: the event in Warden's own store is the record; `violation.json` in the artifacts
    /// directory (which the agent can write) is only a copy, written by descriptor (U-4).
    pub async fn check_guardrails(
        &self,
        target: &GuardTarget<'_>,
        before: &agentwarden_domain::guardrails::TreeManifest,
        revert: bool,
    ) -> GuardOutcome {
        self.check(target, before, if revert { Revert::Restorer } else { Revert::No }, None).await
    }

    /// The content snapshot of the protected paths under `root` (U-12), to be kept in Warden's
    /// own storage; an error (too large, unreadable) means there is none: fail closed.
    pub async fn guard_capture(&self, root: &Path) -> Result<ContentSnapshot, FilesError> {
        self.files.capture(root, &self.config.guardrails.protected).await
    }

    /// [`Warden::check_guardrails`] with the revert made from `snapshot` (U-14): every protected
    /// entry put back exactly and every added one removed, with no git.
    pub async fn check_guardrails_restoring(
        &self,
        target: &GuardTarget<'_>,
        snapshot: &ContentSnapshot,
    ) -> GuardOutcome {
        self.check(target, &snapshot.manifest, Revert::Content(snapshot), None).await
    }

    /// As [`Warden::check_guardrails_restoring`], to the session's snapshot, for a subagent
    /// whose own start is `own_start`: the violation names the changed paths the agent did not
    /// change, already changed when it started (H-47).
    pub(crate) async fn check_guardrails_restoring_attributed(
        &self,
        target: &GuardTarget<'_>,
        session_snapshot: &ContentSnapshot,
        own_start: &agentwarden_domain::guardrails::TreeManifest,
    ) -> GuardOutcome {
        self.check(target, &session_snapshot.manifest, Revert::Content(session_snapshot), Some(own_start))
            .await
    }

    async fn check(
        &self,
        target: &GuardTarget<'_>,
        before: &agentwarden_domain::guardrails::TreeManifest,
        revert: Revert<'_>,
        own_start: Option<&agentwarden_domain::guardrails::TreeManifest>,
    ) -> GuardOutcome {
        let protected = &before.protected;
        let (changes, unreadable, by_agent) = match self.files.snapshot(target.root, protected).await {
            Ok(after) => (diff(before, &after), None, own_start.map(|own| diff(own, &after).changed_paths())),
            Err(why) => (TreeDiff::default(), Some(why.to_string()), None),
        };
        if changes.is_empty() && unreadable.is_none() {
            return GuardOutcome { clean: true, violation: None, violation_file: None, audit: None };
        }
        let attempt = match (unreadable, &revert) {
            (Some(why), _) => RevertAttempt::Unreadable(why),
            (None, Revert::No) => RevertAttempt::NotRequested,
            (None, Revert::Restorer | Revert::Content(_)) => {
                let restored = match revert {
                    Revert::Content(snapshot) => self
                        .files
                        .restore(target.root, snapshot)
                        .await
                        .map_err(|e| FactError::new(e.to_string())),
                    _ => self.restorer.restore(target.root, before, &changes).await,
                };
                let remaining = match self.files.snapshot(target.root, protected).await {
                    Ok(now) => diff(before, &now).changed_paths(),
                    Err(why) => vec![format!("(unreadable after revert: {why})")],
                };
                RevertAttempt::Made { restored, remaining }
            }
        };
        let mut violation = Violation::new(protected, changes, attempt, target.item, target.run);
        if let Some(by_agent) = &by_agent {
            violation = violation.attributed(by_agent);
        }
        let file = target.artifacts.join("violation.json");
        let violation_file = match serde_json::to_vec_pretty(&violation) {
            Ok(bytes) => {
                self.files.write_atomic(&file, &bytes).await.ok().map(|()| file.display().to_string())
            }
            Err(_) => None,
        };
        let correlation = Correlation {
            item: agentwarden_domain::audit::CorrelationId::new(target.item).ok(),
            run: agentwarden_domain::audit::CorrelationId::new(target.run).ok(),
            session: target.session.and_then(|s| agentwarden_domain::audit::CorrelationId::new(s).ok()),
            ..Correlation::default()
        };
        let recorder = match agentwarden_domain::audit::Actor::new(self.config.guardrails.actor.clone()) {
            Ok(actor) => self.with_actor(actor),
            Err(_) => self.clone(),
        };
        let event = AuditEvent::GuardrailViolation(Box::new(violation.clone()));
        let audit = recorder.record_event(correlation, &event).await.ok().map(|a| a.head);
        GuardOutcome { clean: false, violation: Some(violation), violation_file, audit }
    }
}

/// A guarded run's outcome: how the agent ended, what the guard found (and put back), and the
/// verdict on its `result.json` when one was named.
#[derive(Debug, Serialize)]
pub struct GuardedRun {
    /// The item failed: the agent did not exit 0, or it touched a protected path, or its
    /// result is invalid.
    pub item_failed: bool,
    /// The agent's exit code (`None`: ended by a signal), or why it could not be started.
    #[serde(serialize_with = "command_json")]
    pub command: Result<Option<i32>, FactError>,
    /// The guard's check after the run, reverted from the content kept before it.
    pub guard: GuardOutcome,
    /// The `result.json` verdict, recorded.
    pub result: Option<ResultOutcome>,
}

fn command_json<S: serde::Serializer>(
    command: &Result<Option<i32>, FactError>,
    s: S,
) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut map = s.serialize_map(Some(1))?;
    match command {
        Ok(code) => map.serialize_entry("exit_code", code)?,
        Err(why) => map.serialize_entry("error", why.reason())?,
    }
    map.end()
}

impl Warden {
    /// `warden guard run`: keeps the content of the protected paths (U-8: in this process, so
    /// the revert needs no git and a commit the agent makes launders nothing), runs the agent
    /// through `agent`, then checks the paths and puts back what changed (a violation written
    /// and recorded), and validates and records `result` when named. No snapshot (too large,
    /// unreadable) is an error and the agent is not run: fail closed.
    pub async fn guarded_run(
        &self,
        target: &GuardTarget<'_>,
        agent: &dyn agentwarden_ports::AgentRunner,
        result: Option<&Path>,
    ) -> Result<GuardedRun, GuardRunError> {
        let before = self.guard_capture(target.root).await.map_err(GuardRunError::Snapshot)?;
        let command = agent.run_agent(target.root).await;
        let guard = self.check_guardrails_restoring(target, &before).await;
        let correlation = Correlation {
            item: agentwarden_domain::audit::CorrelationId::new(target.item).ok(),
            run: agentwarden_domain::audit::CorrelationId::new(target.run).ok(),
            ..Correlation::default()
        };
        let result = match result {
            Some(file) => Some(self.validate_result_file(file, correlation).await),
            None => None,
        };
        let item_failed = item_failed(&command, guard.clean, result.as_ref().map(|r| r.validation.valid));
        Ok(GuardedRun { item_failed, command, guard, result })
    }
}

#[cfg(test)]
mod guarded_run_tests {
    use std::sync::Arc;

    use super::*;
    use crate::{Config, GuardrailsConfig, store::MemoryEventStore};

    /// Writes into the protected `okrs/` and exits 0, or cannot start.
    struct Agent {
        starts: bool,
    }

    #[async_trait::async_trait]
    impl agentwarden_ports::AgentRunner for Agent {
        async fn run_agent(&self, root: &Path) -> Result<Option<i32>, FactError> {
            if !self.starts {
                return Err("cannot run `agent`".into());
            }
            std::fs::write(root.join("okrs/q4.md"), "rewritten by the agent")
                .map_err(|e| FactError::new(e.to_string()))?;
            Ok(Some(0))
        }
    }

    /// The agent's write into a protected path is put back from the content kept before it
    /// ran, the violation is recorded, and the item fails though the agent exited 0; an agent
    /// that cannot start fails the item too.
    #[tokio::test]
    async fn a_guarded_run_puts_back_what_the_agent_changed_and_fails_the_item() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("okrs")).unwrap();
        std::fs::write(root.join("okrs/q4.md"), "objectives").unwrap();
        let guardrails = GuardrailsConfig { protected: vec!["okrs".into()], ..GuardrailsConfig::default() };
        let config = Config { root: root.clone(), guardrails, ..Config::default() };
        let store = Arc::new(MemoryEventStore::new());
        let warden = Warden::builder().store(store.clone()).config(config).build().unwrap();
        let artifacts = root.join("artifacts");
        let target = GuardTarget { root: &root, item: "i1", run: "r1", session: None, artifacts: &artifacts };
        let run = warden.guarded_run(&target, &Agent { starts: true }, None).await.unwrap();
        assert_eq!(run.command, Ok(Some(0)));
        assert!(run.item_failed && !run.guard.clean);
        assert!(run.guard.violation.as_ref().is_some_and(|v| v.details.reverted), "{:?}", run.guard);
        assert!(run.guard.audit.is_some(), "the violation is recorded");
        assert_eq!(std::fs::read_to_string(root.join("okrs/q4.md")).unwrap(), "objectives");
        let failed = warden.guarded_run(&target, &Agent { starts: false }, None).await.unwrap();
        assert!(failed.item_failed && failed.guard.clean && failed.command.is_err());
    }
}
