//! The Claude Code hook use case: `warden hook` reads one hook event and answers in the
//! protocol of Claude Code's hooks reference.
//!
//! - `PreToolUse` of `Task`/`Agent`: the subagent gate (persona: the calling subagent's type,
//!   or `[claude_code] main_persona`; metadata: the human approval state that only `warden
//!   seal`/`approve`/`revoke` set) and the lineage walk of parent → requested type. Allow: exit
//!   0, no output (Claude Code's own permission flow goes on). Deny: exit 0 with a
//!   `permissionDecision: "deny"` carrying the first failure's reason.
//! - `SubagentStart`: the agent is matched to a pending allowed spawn (H-2) and the protected
//!   paths are snapshotted for its stop check.
//! - `SubagentStop`: protected paths compared with that snapshot (reverted on a change), and the
//!   `result.json` the prompt asked for validated; any failure blocks the stop with its reasons.
//! - Every other event or tool: exit 0, no output.
//!
//! Every decision is one event, recorded before the answer, with the session as correlation
//! and the tool-use and agent ids in its payload. Whatever goes wrong inside — bad input, a
//! store that cannot be opened or read, a log that does not verify — is exit 2, which Claude
//! Code treats as a deny (`PreToolUse`) or a block (`SubagentStop`); any other exit code would
//! let the call run.

use std::path::Path;

use agentwarden_domain::audit::{AuditEvent, Correlation, CorrelationId};
use agentwarden_domain::claude_code::{
    CallingAgent, HookEvent, HookFailure, SpawnEvaluated, SpawnRequest, SubagentStarted, SubagentStopped,
    parse_hook_input, requested_result_path,
};
use agentwarden_domain::governance::{Name, ReadDigests, parse_request};
use agentwarden_domain::guardrails::ContentSnapshot;
use agentwarden_domain::lineage::{LineageVerdict, walk};
use agentwarden_domain::verdict::{Decision, Verdict};

use crate::gate::GateRecords;
use crate::guard::GuardTarget;
use crate::warden::{Warden, WardenError};

/// Exit code of a hook that could not decide: Claude Code denies the tool call or blocks the
/// stop.
pub const HOOK_FAILED: u8 = 2;

/// What `warden hook` writes and how it exits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HookAnswer {
    /// 0, or [`HOOK_FAILED`].
    pub exit_code: u8,
    /// The protocol's JSON answer, if any.
    pub stdout: Option<String>,
    /// A one-line reason (with exit code 2).
    pub stderr: Option<String>,
}

impl HookAnswer {
    fn silent() -> Self {
        HookAnswer { exit_code: 0, stdout: None, stderr: None }
    }

    /// A failure: exit 2 with the reason on stderr.
    pub fn failed(reason: impl Into<String>) -> Self {
        HookAnswer { exit_code: HOOK_FAILED, stdout: None, stderr: Some(reason.into()) }
    }

    fn deny(reason: &str) -> Self {
        let answer = serde_json::json!({"hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }});
        HookAnswer { exit_code: 0, stdout: Some(answer.to_string()), stderr: None }
    }

    fn block(reason: &str) -> Self {
        let answer = serde_json::json!({"decision": "block", "reason": reason});
        HookAnswer { exit_code: 0, stdout: Some(answer.to_string()), stderr: None }
    }
}

fn failure(stage: &str, code: &str, reason: impl Into<String>) -> HookFailure {
    HookFailure { stage: stage.to_owned(), code: code.to_owned(), reason: reason.into() }
}

fn describe(f: &HookFailure) -> String {
    format!("Agent Warden denied this at {} ({}): {}", f.stage, f.code, f.reason)
}

fn session_correlation(session: &str) -> Correlation {
    Correlation { session: CorrelationId::new(session).ok(), ..Correlation::default() }
}

fn snapshot_key(session: &str, agent_id: &str) -> String {
    // The session's length keeps `a/b` + `c` apart from `a` + `b/c`.
    format!("snapshot/{}/{session}/{agent_id}", session.len())
}

impl Warden {
    /// Answers one Claude Code hook event given as the JSON text of its stdin.
    pub async fn hook(&self, input: &str) -> HookAnswer {
        let input = match parse_hook_input(input) {
            Ok(input) => input,
            Err(e) => return HookAnswer::failed(format!("{}: {e}", e.code())),
        };
        let session = input.session_id.as_str();
        if let Err(e) = CorrelationId::new(session) {
            return HookAnswer::failed(format!("hook_input_wrong_type: `session_id` is not usable: {e}"));
        }
        let root = self.config.root.clone();
        let answer = match input.event {
            HookEvent::OtherTool { .. } | HookEvent::Other { .. } => Ok(HookAnswer::silent()),
            HookEvent::Spawn(request) => self.hook_spawn(session, request).await,
            HookEvent::SubagentStart(agent) => self.hook_start(session, agent, &root).await,
            HookEvent::SubagentStop { agent, stop_hook_active } => {
                self.hook_stop(session, agent, stop_hook_active, &root).await
            }
        };
        answer.unwrap_or_else(|e| HookAnswer::failed(format!("{}: {e}", e.code())))
    }

    async fn hook_spawn(&self, session: &str, request: SpawnRequest) -> Result<HookAnswer, WardenError> {
        let mut state = self.records().await?;
        let tree = state.session(session);
        let main = &self.config.claude_code.main_persona;
        let persona = request.caller.as_ref().map_or(main.as_str(), |c| c.agent_type.as_str());
        let now = self.now();
        let metadata = state.governance.metadata_for(persona, &[request.subagent_type.as_str()], now);
        let gate_request = serde_json::json!({
            "persona": persona,
            "subagents": [request.subagent_type],
            "opts": {"subagentGovernance": metadata},
            "session": session,
        });
        // The hook always checks the records (G-20, G-21), the manifests among the sealed files.
        let mut read = ReadDigests::new();
        self.read_context_digests(&mut read, true).await;
        let records = GateRecords { require: true, approvals: state.governance.clone(), read };
        let (evaluation, _) =
            self.assess_delegation(parse_request(&gate_request.to_string()), Some(records)).await;
        let gate = evaluation.report;
        // Who is asking comes first: an unknown, untracked or mistyped caller is named as such,
        // whatever the gate (which took its claimed type as the persona) found.
        let mut identity_failure = None;
        let (lineage, lineage_agents) = match Name::new(main) {
            Err(e) => {
                (LineageVerdict { verdict: verdict("invalid_name", e.to_string()), pair: None }, Vec::new())
            }
            Ok(main) => {
                match tree.lineage(
                    &main,
                    request.caller.as_ref(),
                    &request.subagent_type,
                    &request.tool_use_id,
                ) {
                    Err(verdict) => {
                        let code = verdict.code.as_deref().unwrap_or("lineage_denied");
                        identity_failure = Some(failure("lineage", code, verdict.reason.clone()));
                        (LineageVerdict { verdict, pair: None }, Vec::new())
                    }
                    Ok(chain) => match self.manifests() {
                        Ok(manifests) => (walk(&chain, &manifests), chain),
                        Err(e) => {
                            let why = verdict("manifests_unavailable", format!("manifests: {e}"));
                            (LineageVerdict { verdict: why, pair: None }, chain)
                        }
                    },
                }
            }
        };
        let gate_failure = gate.first_failure.as_ref().map(|f| {
            let stage = format!("gate: {}", f.gate.as_str());
            failure(&stage, &f.code, f.reason.clone())
        });
        let lineage_failure = (!lineage.verdict.passed).then(|| {
            let code = lineage.verdict.code.as_deref().unwrap_or("lineage_denied");
            failure("lineage", code, lineage.verdict.reason.clone())
        });
        let first_failure = identity_failure.or(gate_failure).or(lineage_failure);
        let decision = match (&gate.decision, &first_failure) {
            (Decision::Allow, None) => Decision::Allow,
            _ => Decision::Deny,
        };
        let event = SpawnEvaluated {
            tool_use_id: request.tool_use_id.clone(),
            tool_name: request.tool_name.clone(),
            agent_id: request.caller.as_ref().map(|c| c.agent_id.clone()),
            persona: persona.to_owned(),
            subagent_type: request.subagent_type.clone(),
            decision,
            first_failure: first_failure.clone(),
            gate,
            lineage,
            lineage_agents,
            result_path: requested_result_path(&request.prompt),
        };
        let recorded = self
            .record_and_apply(
                &mut state,
                session_correlation(session),
                AuditEvent::SpawnEvaluated(Box::new(event)),
            )
            .await;
        Ok(match (recorded, first_failure) {
            (Err(e), _) => {
                let why =
                    failure("audit", "audit_unavailable", format!("the decision could not be recorded: {e}"));
                HookAnswer::deny(&describe(&why))
            }
            (Ok(_), Some(f)) => HookAnswer::deny(&describe(&f)),
            (Ok(_), None) => HookAnswer::silent(),
        })
    }

    async fn hook_start(
        &self,
        session: &str,
        agent: CallingAgent,
        root: &Path,
    ) -> Result<HookAnswer, WardenError> {
        let mut state = self.records().await?;
        let matched = state.session(session).match_start(&agent.agent_type).cloned();
        // The content, not only the digests, kept in Warden's own storage (U-12, U-14).
        let snapshot = match self.guard_capture(root).await {
            Ok(content) => self.save_snapshot(session, &agent.agent_id, &content).await,
            Err(why) => {
                tracing::warn!(why = %why, "the protected paths could not be snapshotted");
                false
            }
        };
        let event = SubagentStarted {
            agent_id: agent.agent_id,
            agent_type: agent.agent_type,
            tool_use_id: matched.as_ref().map(|p| p.tool_use_id.clone()),
            parent: matched.as_ref().and_then(|p| p.parent.clone()),
            depth: matched.as_ref().map(|p| p.depth),
            snapshot,
        };
        self.record_and_apply(
            &mut state,
            session_correlation(session),
            AuditEvent::SubagentStarted(Box::new(event)),
        )
        .await?;
        Ok(HookAnswer::silent())
    }

    async fn save_snapshot(&self, session: &str, agent_id: &str, content: &ContentSnapshot) -> bool {
        let (Some(store), Ok(bytes)) = (&self.state, content.encode()) else { return false };
        store.write_projection(&snapshot_key(session, agent_id), bytes).await.is_ok()
    }

    async fn load_snapshot(&self, session: &str, agent_id: &str) -> Result<ContentSnapshot, String> {
        let Some(store) = &self.state else { return Err("no state store is configured".into()) };
        match store.read_projection(&snapshot_key(session, agent_id)).await {
            // Decoding checks every entry's bytes against its digest (U-13).
            Ok(Some(bytes)) => ContentSnapshot::decode(&bytes).map_err(|e| e.to_string()),
            Ok(None) => Err("no snapshot of the protected paths was taken when it started".into()),
            Err(e) => Err(e.to_string()),
        }
    }

    async fn hook_stop(
        &self,
        session: &str,
        agent: CallingAgent,
        stop_hook_active: bool,
        root: &Path,
    ) -> Result<HookAnswer, WardenError> {
        let mut state = self.records().await?;
        let tracked = state.session(session).agents.get(&agent.agent_id).cloned();
        let mut failures = Vec::new();
        let (mut changed_files, mut reverted) = (Vec::new(), false);
        match self.load_snapshot(session, &agent.agent_id).await {
            Err(why) => failures.push(failure("guardrails", "snapshot_missing", why)),
            Ok(before) => {
                let artifacts =
                    root.join(".agentwarden").join("violations").join(session).join(&agent.agent_id);
                let target = GuardTarget { root, item: &agent.agent_id, run: session, artifacts: &artifacts };
                // Restored from the content kept at the start: a commit inside the subagent
                // launders nothing, and no git is needed (U-14).
                let outcome = self.check_guardrails_restoring(&target, &before).await;
                if let Some(violation) = outcome.violation {
                    changed_files = violation.details.changed_files.clone();
                    reverted = violation.details.reverted;
                    let what = if reverted { "reverted" } else { "NOT reverted" };
                    let mut reason = format!(
                        "protected paths were changed and have been {what}: {}",
                        changed_files.join(", ")
                    );
                    if !violation.details.diff.odd.is_empty() {
                        // What each odd entry is (U-10, U-11).
                        reason.push_str(&format!(
                            "; not files, links or directories: {}",
                            violation.details.diff.odd.join(", ")
                        ));
                    }
                    if !violation.details.revert_error.is_empty() {
                        reason.push_str(&format!(" ({})", violation.details.revert_error));
                    }
                    failures.push(failure("guardrails", "protected_path_changed", reason));
                }
            }
        }
        let result_path = tracked.as_ref().and_then(|t| t.result_path.clone());
        let mut result = None;
        if let Some(path) = &result_path {
            let correlation = Correlation {
                session: CorrelationId::new(session).ok(),
                item: CorrelationId::new(agent.agent_id.clone()).ok(),
                ..Correlation::default()
            };
            let outcome = self.validate_result_file(&root.join(path), correlation).await;
            if !outcome.validation.valid {
                let problems: Vec<String> = outcome
                    .validation
                    .problems
                    .iter()
                    .map(|p| format!("{} {}", if p.pointer.is_empty() { "/" } else { &p.pointer }, p.message))
                    .collect();
                let reason = format!("`{path}` is not a valid result: {}", problems.join("; "));
                failures.push(failure("result", "result_invalid", reason));
            }
            result = Some(outcome.validation);
        }
        let decision = if failures.is_empty() { Decision::Allow } else { Decision::Deny };
        let event = SubagentStopped {
            agent_id: agent.agent_id.clone(),
            agent_type: agent.agent_type,
            decision,
            failures: failures.clone(),
            changed_files,
            reverted,
            result_path,
            result,
            stop_hook_active,
        };
        let recorded = self
            .record_and_apply(
                &mut state,
                session_correlation(session),
                AuditEvent::SubagentStopped(Box::new(event)),
            )
            .await;
        if let Err(e) = recorded {
            let why =
                failure("audit", "audit_unavailable", format!("the decision could not be recorded: {e}"));
            return Ok(HookAnswer::block(&describe(&why)));
        }
        if decision == Decision::Allow {
            if let Some(store) = &self.state {
                let _ = store.remove_projection(&snapshot_key(session, &agent.agent_id)).await;
            }
            return Ok(HookAnswer::silent());
        }
        let reasons: Vec<String> = failures.iter().map(describe).collect();
        Ok(HookAnswer::block(&reasons.join("\n")))
    }
}

fn verdict(code: &'static str, reason: String) -> Verdict {
    Verdict { passed: false, code: Some(code.into()), reason: reason.into() }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use agentwarden_domain::audit::Head;
    use agentwarden_domain::claude_code::HookState;
    use agentwarden_domain::governance::{ApprovalRecord, Approvals, Scope};
    use agentwarden_ports::{EventStore, StateStore};

    use super::*;
    use crate::MemoryEventStore;
    use crate::testing::FixedLog;

    const SPAWN: &str = r#"{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Task",
        "tool_use_id":"t1","tool_input":{"subagent_type":"planner"}}"#;

    fn warden(store: Arc<MemoryEventStore>) -> Warden {
        Warden::builder().event_store(store.clone()).state_store(store).build().unwrap()
    }

    #[tokio::test]
    async fn a_saved_state_that_is_not_on_the_log_is_rebuilt_from_the_log() {
        let store = Arc::new(MemoryEventStore::new());
        let warden = warden(store.clone());
        let note = AuditEvent::OperatorNote(agentwarden_domain::audit::OperatorNote { message: "n".into() });
        warden.record(Correlation::default(), &note).await.unwrap();
        // A forged state: an approval nobody granted, at seq 1 with a hash that is not the log's.
        let forged = HookState {
            head: Head { seq: 1, hash: agentwarden_domain::audit::Hash::from_bytes([7; 32]) },
            governance: Approvals {
                seal: None,
                approvals: [(
                    "FORGED".to_owned(),
                    ApprovalRecord {
                        seq: 1,
                        approval_ref: "FORGED".into(),
                        approved_by: None,
                        expires_at: None,
                        scope: Scope::default(),
                        revoked: None,
                    },
                )]
                .into(),
            },
            sessions: Default::default(),
        };
        store
            .write_projection(crate::RECORDS_PROJECTION, serde_json::to_vec(&forged).unwrap())
            .await
            .unwrap();
        let state = warden.records().await.unwrap();
        assert_eq!(state.governance, Approvals::default());
        assert_eq!(state.head.seq, 1);
        // An unreadable saved state is rebuilt too.
        store.write_projection(crate::RECORDS_PROJECTION, b"not json".to_vec()).await.unwrap();
        let fresh = self::warden(store.clone());
        assert_eq!(fresh.records().await.unwrap().head, state.head);
    }

    #[tokio::test]
    async fn an_event_another_writer_appended_in_between_is_never_skipped() {
        use agentwarden_domain::claude_code::{ApprovalGranted, ApprovalRevoked};
        let store = Arc::new(MemoryEventStore::new());
        let grant = AuditEvent::ApprovalGranted(ApprovalGranted {
            approval_ref: "G".into(),
            approved_by: None,
            expires_at: None,
            scope: Scope::default(),
        });
        let ours = warden(store.clone());
        ours.record(Correlation::default(), &grant).await.unwrap();
        let mut state = ours.records().await.unwrap();
        assert!(state.governance.approvals["G"].revoked.is_none());
        // Another process revokes G between our read and our write.
        let revoke =
            AuditEvent::ApprovalRevoked(ApprovalRevoked { approval_ref: Some("G".into()), by: None });
        warden(store.clone()).record(Correlation::default(), &revoke).await.unwrap();
        let note = AuditEvent::OperatorNote(agentwarden_domain::audit::OperatorNote { message: "n".into() });
        let head = ours.record_and_apply(&mut state, Correlation::default(), note).await.unwrap();
        assert_eq!(head.seq, 3);
        let caught_up = ours.records().await.unwrap();
        assert_eq!(caught_up.head, head);
        assert!(caught_up.governance.approvals["G"].revoked.is_some(), "the revoke in between is folded");
    }

    #[tokio::test]
    async fn a_log_that_does_not_verify_is_exit_2_never_a_decision() {
        let store = Arc::new(MemoryEventStore::new());
        let honest = warden(store.clone());
        for _ in 0..2 {
            let seal = AuditEvent::ContextSealed(agentwarden_domain::claude_code::ContextSealed {
                by: None,
                files: Default::default(),
            });
            honest.record(Correlation::default(), &seal).await.unwrap();
        }
        let mut records = store.read(1, 10).await.unwrap();
        let body = String::from_utf8(records[1].body.clone()).unwrap().replace("\"by\":null", "\"by\":\"x\"");
        records[1].body = body.into_bytes();
        let warden = Warden::builder().event_store(Arc::new(FixedLog(records))).build().unwrap();
        let answer = warden.hook(SPAWN).await;
        assert_eq!(answer.exit_code, HOOK_FAILED, "{answer:?}");
        assert!(answer.stderr.unwrap().starts_with("store_corrupt"));
        assert_eq!(answer.stdout, None);
    }

    #[tokio::test]
    async fn a_decision_that_cannot_be_recorded_is_a_deny() {
        let store = Arc::new(MemoryEventStore::new());
        let records = store.read(1, 10).await.unwrap();
        let warden = Warden::builder().event_store(Arc::new(FixedLog(records))).build().unwrap();
        let answer = warden.hook(SPAWN).await;
        assert_eq!(answer.exit_code, 0);
        let stdout: serde_json::Value = serde_json::from_str(&answer.stdout.unwrap()).unwrap();
        let reason = stdout["hookSpecificOutput"]["permissionDecisionReason"].as_str().unwrap();
        assert!(reason.contains("audit (audit_unavailable)"), "{reason}");
    }
}
