//! The subagent-gate use case: read the inputs through ports, ask the domain, append the
//! `delegation_evaluated` event, and only then answer (G-10).
//!
//! Nothing here returns an error: every failure is a deny with a reason, and the caller's turn
//! goes on (G-9). An allow whose event cannot be appended becomes a deny (`audit_unavailable`).

use std::collections::BTreeMap;
use std::time::Instant;

use agentwarden_domain::audit::{Correlation, CorrelationId, Head};
use agentwarden_domain::code::Code;
use agentwarden_domain::events::AuditEvent;
use agentwarden_domain::governance::{
    Approvals, Delegation, Evaluation, GateInputs, GateReport, PersonaReading, ReadDigests, Recorded,
    Request, candidates_to_read, evaluate, read_agent, read_persona,
};
use serde::Serialize;

use crate::MAX_INPUT_BYTES;
use crate::files::{digest, key};
use crate::warden::Warden;

/// The records a gate decision is checked against (issue 11).
#[derive(Debug)]
pub(crate) struct GateRecords {
    /// `require_recorded_approval`.
    pub(crate) require: bool,
    /// The recorded seal and approvals.
    pub(crate) approvals: Approvals,
    /// Digests of files read besides the instruction files (the configuration, manifests).
    pub(crate) read: ReadDigests,
}

/// The permission to inject subagents: what the gate delegated, and where its decision was
/// recorded. X-20: only a [`Warden`] hands one out, from [`Warden::evaluate_delegation`], and
/// only once the decision's `delegation_evaluated` event is durable;
/// its fields are private and it has no public constructor, nor does any crate of the workspace
/// offer another way to obtain one, so a harness that injects only against a grant cannot
/// inject around the gate. A consumer cannot make one up (the compile-fail suite,
/// `tests/tests/compile_fail.rs`, checks each way with its error code):
///
/// ```compile_fail
/// let forged = agentwarden::DelegationGrant { delegation: todo!(), audit: todo!() };
/// ```
#[derive(Debug, PartialEq, Eq)]
pub struct DelegationGrant {
    delegation: Delegation,
    audit: Head,
}

impl DelegationGrant {
    /// The persona that delegates.
    pub fn persona(&self) -> &agentwarden_domain::governance::Name {
        self.delegation.persona()
    }

    /// The subagents that may be injected, never empty.
    pub fn subagents(&self) -> &[agentwarden_domain::governance::Name] {
        self.delegation.subagents()
    }

    /// The human approval in force.
    pub fn approval_ref(&self) -> &str {
        self.delegation.approval_ref()
    }

    /// Where the decision that granted it was recorded.
    pub fn audit(&self) -> Head {
        self.audit
    }
}

/// The answer to "may this persona inject these subagents?".
#[derive(Debug)]
pub struct GateOutcome {
    /// Everything the gate found.
    pub report: GateReport,
    /// The permission to inject, present only on an allow that was recorded.
    pub grant: Option<DelegationGrant>,
    /// Where the decision was recorded; `None` if it could not be.
    pub audit: Option<Head>,
    /// How long the evaluation took, reading included, in microseconds.
    pub evaluation_us: u64,
}

/// The report as `warden gate --json` prints it: the report's fields, then `evaluation_us` and
/// `audit`.
#[derive(Debug, Serialize)]
pub struct GateOutput<'a> {
    /// The report.
    #[serde(flatten)]
    pub report: &'a GateReport,
    /// Microseconds.
    pub evaluation_us: u64,
    /// `{seq, hash}` or null.
    pub audit: Option<AuditRef>,
}

/// An event's place in the log.
#[derive(Debug, Serialize)]
pub struct AuditRef {
    /// Sequence number.
    pub seq: u64,
    /// Hash.
    pub hash: String,
}

impl GateOutcome {
    /// The JSON shape of `warden gate --json`.
    pub fn output(&self) -> GateOutput<'_> {
        GateOutput {
            report: &self.report,
            evaluation_us: self.evaluation_us,
            audit: self.audit.map(|h| AuditRef { seq: h.seq, hash: h.hash.to_string() }),
        }
    }
}

impl Warden {
    /// May this persona inject these subagents? `request` is the gate's request as read
    /// ([`Request::from_json`], or [`Request::unreadable`] with why it could not be read: a
    /// deny, recorded). The persona's and the candidates' files are read, every gate evaluated,
    /// one `delegation_evaluated` event recorded, and only then the answer (G-10).
    pub async fn evaluate_delegation(&self, request: Request) -> GateOutcome {
        self.evaluate_request(request, Instant::now()).await
    }

    /// Reads the persona's and the candidates' instruction files and evaluates the gate,
    /// without recording: the caller records the decision (and only then acts on it). With
    /// `records`, the digests of the files read join `records.read` and the gate checks them
    /// and the approval against the records (G-20, G-21); X-51: without, nothing compares
    /// them, and the files are read but not digested.
    pub(crate) async fn assess_delegation(
        &self,
        request: Request,
        records: Option<GateRecords>,
    ) -> (Evaluation, Correlation) {
        let mut read = records.as_ref().map(|_| ReadDigests::new());
        let config = &self.config.subagents;
        let persona = match &request.persona {
            Err(verdict) => PersonaReading::Invalid(verdict.clone()),
            Ok(raw) => {
                let file = match agentwarden_domain::governance::Name::new(raw) {
                    Ok(name) => {
                        let path = config.persona_path(&name);
                        let (file, mode) = self.files.read_text_mode(&path, MAX_INPUT_BYTES).await;
                        if let Some(read) = &mut read {
                            read.insert(key(&self.config.root, &path), digest(&file, mode));
                        }
                        Some(file)
                    }
                    Err(_) => None,
                };
                read_persona(raw, file.as_ref())
            }
        };
        let mut agents = BTreeMap::new();
        for name in candidates_to_read(&request, &persona) {
            let path = config.agent_path(&name);
            let (file, mode) = self.files.read_text_mode(&path, MAX_INPUT_BYTES).await;
            if let Some(read) = &mut read {
                read.insert(key(&self.config.root, &path), digest(&file, mode));
            }
            agents.insert(name, read_agent(&file));
        }
        let mut warnings = Vec::new();
        let mut id = |field: &str, raw: &Option<String>| {
            raw.as_ref().and_then(|raw| match CorrelationId::new(raw.clone()) {
                Ok(id) => Some(id),
                Err(e) => {
                    warnings.push(format!("{field} not recorded: {e}"));
                    None
                }
            })
        };
        let correlation = Correlation {
            session: id("session", &request.session),
            turn: id("turn", &request.turn),
            ..Correlation::default()
        };
        let env = self.environment.var(&config.enable_env);
        let recorded = records.map(|mut records| {
            if let Some(mut read) = read {
                records.read.append(&mut read);
            }
            Recorded {
                require: records.require,
                approvals: records.approvals,
                read: records.read,
                now: self.now(),
            }
        });
        let inputs =
            GateInputs { env_var: config.enable_env.clone(), env, request, persona, agents, recorded };
        let mut evaluation = evaluate(&inputs);
        evaluation.report.warnings.extend(warnings);
        (evaluation, correlation)
    }

    async fn evaluate_request(&self, request: Request, started: Instant) -> GateOutcome {
        // The records are read for every decision: a seal in force is checked even when
        // recorded approval is not required (G-20).
        // V-38: held, not copied; back in memory when the decision ends.
        let mut state = match self.hold().await {
            Ok(state) => state,
            Err(e) => {
                let (evaluation, _) = self.assess_delegation(request, None).await;
                let reason = format!("the recorded seal and approvals could not be read: {e}");
                let report = evaluation.records_unavailable(Code::AuditUnavailable, reason);
                let evaluation_us = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
                return GateOutcome { report, grant: None, audit: None, evaluation_us };
            }
        };
        let require = self.config.subagents.require_recorded_approval;
        let records = (require || state.governance.seal.is_some()).then(|| GateRecords {
            require,
            approvals: state.governance.clone(),
            read: ReadDigests::new(),
        });
        let records = match records {
            Some(mut records) => {
                self.read_context_digests(&mut records.read).await;
                Some(records)
            }
            None => None,
        };
        let (mut evaluation, correlation) = self.assess_delegation(request, records).await;
        // The report is moved into the event and, once recorded, back out of it: not
        // copied. Until it is back, the evaluation holds a report that is a deny (X-50).
        let event = AuditEvent::DelegationEvaluated(Box::new(std::mem::take(&mut evaluation.report)));
        let mut recorded = self.record_and_apply(&mut state, correlation, &event).await;
        let AuditEvent::DelegationEvaluated(report) = event else {
            // Cannot be (the event was built above); fail closed all the same: no grant.
            let reason = "the recorded event is not the gate's report";
            let report = evaluation.audit_failed(Code::InternalError, reason);
            let evaluation_us = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
            return GateOutcome { report, grant: None, audit: None, evaluation_us };
        };
        evaluation.report = *report;
        // A deferring Warden (a resident service's group commit) appended the event
        // without making it durable; a grant waits for the sync, so that none is ever handed
        // out for an event a crash could still take back (X-20, X-33).
        if self.deferred
            && evaluation.delegation().is_some()
            && let Ok(head) = recorded
        {
            recorded = self.store.sync().await.map(|()| head).map_err(crate::WardenError::from);
        }
        let (report, grant, audit) = match recorded {
            Ok(head) => {
                let (report, delegation) = evaluation.into_parts();
                let grant = delegation.map(|delegation| DelegationGrant { delegation, audit: head });
                (report, grant, Some(head))
            }
            Err(e) => {
                tracing::error!(error = %e, "delegation decision could not be recorded; denying");
                let reason = format!("the decision could not be recorded: {e}");
                (evaluation.audit_failed(Code::AuditUnavailable, reason), None, None)
            }
        };
        let evaluation_us = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
        GateOutcome { report, grant, audit, evaluation_us }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use agentwarden_domain::governance::{Decision, FileRead, Request, Stage};
    use agentwarden_ports::{MockEventStore, MockFileSystem, StoreError};

    use crate::{Warden, wiring::FixedEnvironment};

    const REQUEST: &str = r#"{"persona":"M","opts":{"subagentGovernance":
        {"contextSealed":true,"pipelineRunApproved":true,"approvalRef":"GATE-1"}}}"#;

    fn warden(mut store: MockEventStore) -> Warden {
        // The records are read first: an empty log.
        store.expect_read().returning(|_, _| Ok(Vec::new()));
        store.expect_read_page().returning(|_, _, mut page| {
            page.clear();
            Ok(page)
        });
        let files = example_files();
        Warden::builder()
            .event_store(Arc::new(store))
            .without_state()
            .file_system(Arc::new(files))
            .environment(Arc::new(FixedEnvironment::with("AGENTWARDEN_ENABLE_SUBAGENTS", "true")))
            .build()
            .unwrap()
    }

    /// The persona `M` (who may spawn `A`) and an agent file of type 2 for every other name.
    fn example_files() -> MockFileSystem {
        let mut files = MockFileSystem::new();
        files.expect_read_text_mode().returning(|path, _| {
            if path.ends_with("AGENT_M.md") {
                (FileRead::Text("---\nsubagents: [A]\n---\n".into()), None)
            } else {
                (FileRead::Text("---\nAGENT_TYPE: 2\nAGENT_CLASS: TASK\n---\n".into()), None)
            }
        });
        files
    }

    #[tokio::test]
    async fn an_allow_that_cannot_be_recorded_is_a_deny_without_a_grant() {
        let mut store = MockEventStore::new();
        store
            .expect_append()
            .times(1)
            .returning(|_, _| Err(StoreError::Unavailable { reason: "disk full".into() }));
        let outcome = warden(store).evaluate_delegation(Request::from_json(REQUEST)).await;
        assert_eq!(outcome.report.decision, Decision::Deny);
        assert!(outcome.grant.is_none());
        assert!(outcome.audit.is_none());
        let first = outcome.report.first_failure.unwrap();
        assert_eq!(first.gate, Stage::Audit);
        assert_eq!(first.code, "audit_unavailable");
        assert!(first.reason.contains("disk full"), "{}", first.reason);
    }

    #[tokio::test]
    async fn the_grant_is_handed_out_only_after_the_event_is_appended() {
        let mut store = MockEventStore::new();
        store.expect_append().times(1).returning(|_, batch| {
            let (_, head) = agentwarden_domain::audit::seal_batch(&Default::default(), &batch).unwrap();
            Ok(agentwarden_ports::Appended { first_seq: 1, head })
        });
        let outcome = warden(store).evaluate_delegation(Request::from_json(REQUEST)).await;
        assert_eq!(outcome.report.decision, Decision::Allow);
        assert_eq!(outcome.grant.unwrap().subagents()[0].as_str(), "A");
        assert_eq!(outcome.audit.unwrap().seq, 1);
    }

    /// The report handed back is the one recorded, moved into the event and back out of
    /// it whole — not the deny it leaves behind meanwhile (X-50).
    #[tokio::test]
    async fn the_report_handed_back_is_the_report_recorded() {
        use agentwarden_domain::audit::EnvelopeRef;
        use agentwarden_domain::events::{AuditEvent, decode_ref};
        let store = Arc::new(crate::store::MemoryEventStore::new());
        let files = example_files();
        let warden = Warden::builder()
            .store(store.clone())
            .file_system(Arc::new(files))
            .environment(Arc::new(FixedEnvironment::with("AGENTWARDEN_ENABLE_SUBAGENTS", "true")))
            .build()
            .unwrap();
        let outcome = warden.evaluate_delegation(Request::from_json(REQUEST)).await;
        assert_eq!(outcome.report.decision, Decision::Allow);
        assert!(outcome.grant.is_some());
        let stored = agentwarden_ports::EventStore::read(store.as_ref(), 1, 1).await.unwrap();
        let envelope = EnvelopeRef::parse(&stored[0]).unwrap();
        let AuditEvent::DelegationEvaluated(recorded) = decode_ref(&envelope).unwrap() else {
            panic!("not the gate's event")
        };
        assert_eq!(*recorded, outcome.report);
    }

    fn deferred_append(store: &mut MockEventStore) {
        store.expect_append_deferred().times(1).returning(|_, batch| {
            let (_, head) = agentwarden_domain::audit::seal_batch(&Default::default(), &batch).unwrap();
            Ok(agentwarden_ports::Appended { first_seq: 1, head })
        });
    }

    #[tokio::test]
    async fn a_deferring_warden_syncs_before_it_hands_out_a_grant() {
        // The event appended deferred is made durable before the grant leaves (X-33).
        let mut store = MockEventStore::new();
        deferred_append(&mut store);
        store.expect_sync().times(1).returning(|| Ok(()));
        let outcome = warden(store).deferring().warden.evaluate_delegation(Request::from_json(REQUEST)).await;
        assert_eq!(outcome.report.decision, Decision::Allow);
        assert!(outcome.grant.is_some());
    }

    #[tokio::test]
    async fn a_deferring_warden_whose_sync_fails_hands_out_no_grant() {
        let mut store = MockEventStore::new();
        deferred_append(&mut store);
        store
            .expect_sync()
            .times(1)
            .returning(|| Err(StoreError::Unavailable { reason: "fsync failed".into() }));
        let outcome = warden(store).deferring().warden.evaluate_delegation(Request::from_json(REQUEST)).await;
        assert_eq!(outcome.report.decision, Decision::Deny);
        assert!(outcome.grant.is_none());
        assert!(outcome.audit.is_none());
        let first = outcome.report.first_failure.unwrap();
        assert_eq!(first.code, "audit_unavailable");
        assert!(first.reason.contains("fsync failed"), "{}", first.reason);
    }
}
