//! The slow path of a `PreToolUse` that is not a spawn through `Agent`/`Task`: the store's
//! authoritative answer, recorded as `hook_tool_evaluated` for everything Warden governs.
//!
//! In this order: a quarantined session denies everything (H-28); a subagent that no allowed
//! spawn accounts for — untracked at its start, unknown, or claiming another type — may call
//! nothing (H-23); a write into a protected path is denied (H-26); a `SendMessage` may resume
//! only a tracked agent whose approval is still active (H-21); a tool that starts agents needs
//! `[claude_code] agent_tools` (H-22); a `Bash` call that runs `warden seal|approve|revoke|release`
//! is denied (K-11). Anything else is allowed and not recorded (H-24).

use agentwarden_domain::audit::{AuditEvent, ToolCallAuthorized};
use agentwarden_domain::claude_code::{
    HookFailure, HookState, HookToolEvaluated, SpawnRequest, ToolCall, ToolKind,
};
use agentwarden_domain::governance::{Name, ReadDigests};
use agentwarden_domain::lineage::refuse;
use agentwarden_domain::verdict::{Code, Decision, Verdict};

use crate::ToolRules;

use super::storage::Marker;
use super::{HookAnswer, describe, failure, protected_write, quarantine_reason, session_correlation};
use crate::warden::Warden;

impl Warden {
    /// Decides one tool call (see the module's doc): the checks above, then, for a subagent's
    /// call they let through, the manifests' tool rules (T-9, T-10).
    pub(super) async fn hook_tool(
        &self,
        state: &mut HookState,
        session: &str,
        cwd: Option<&str>,
        call: ToolCall,
        quarantined: Option<&Marker>,
    ) -> HookAnswer {
        let rules_call = call.caller.is_some().then(|| call.clone());
        let answer = self.hook_tool_checks(state, session, cwd, call, quarantined).await;
        let allowed = answer.exit_code == 0 && answer.stdout.is_none();
        match rules_call {
            Some(call) if allowed => self.hook_tool_rules(state, session, cwd, &call).await.unwrap_or(answer),
            _ => answer,
        }
    }

    /// T-9, T-10: a subagent's call through the three layers on its recorded lineage, recorded
    /// as `tool_call_authorized`. `Some(answer)` when it is not to run: a denial in enforce
    /// mode, or an allow that could not be recorded; `None` when it may.
    async fn hook_tool_rules(
        &self,
        state: &mut HookState,
        session: &str,
        cwd: Option<&str>,
        call: &ToolCall,
    ) -> Option<HookAnswer> {
        let tree = state.session_ref(session);
        let main = match Name::new(&self.config.claude_code.main_persona) {
            Ok(main) => main,
            Err(e) => {
                return Some(HookAnswer::failed(format!("config_invalid: claude_code.main_persona: {e}")));
            }
        };
        // Paths are read from the agent's own root when it has one (a worktree, H-27).
        let own_root =
            call.caller.as_ref().and_then(|c| tree.agents.get(&c.agent_id)).and_then(|a| a.root.clone());
        let root = own_root.or_else(|| super::fast::absolute(&self.config.root)).unwrap_or_default();
        let cwd = cwd.map_or_else(|| root.clone(), str::to_owned);
        let tool =
            agentwarden_domain::lineage::ToolUse::from_claude_code(&call.tool_name, &call.input, &cwd, &root);
        // T-11: the rules that judge the call are the manifests as sealed, read once: a subagent
        // that can write them (a bare `Bash`) does not get to write its own rules.
        let mut read = ReadDigests::new();
        self.read_context_digests(&mut read).await;
        let manifests = self.sealed_manifests(&mut read).await;
        let sealed = state.governance.seal_verdict(&read).unwrap_or_else(|| {
            let reason = "no seal is recorded, so no tool rule is in force (run `warden seal`)";
            Verdict::from(super::failed(Code::SealNotRecorded, reason.to_owned()))
        });
        // Shadow mode softens only the rules' verdict: rules that are not the sealed ones, or
        // that cannot be read, deny in either mode.
        let mut enforced = true;
        let (lineage, authorization) = match (manifests, &sealed) {
            (Ok(_), Verdict::Fail { code, reason }) => {
                let reason = format!("the tool rules are not as sealed: {reason}");
                let why = super::failed(code.clone(), reason);
                (tree.caller_lineage(&main, call.caller.as_ref()).unwrap_or_default(), refuse(&why))
            }
            (Ok(manifests), Verdict::Pass { .. }) => {
                enforced = false;
                tree.authorize_tool(&main, call.caller.as_ref(), tool.clone(), &manifests)?
            }
            (Err(e), _) => {
                let why = super::failed(Code::ManifestsUnavailable, format!("manifests: {e}"));
                (Vec::new(), refuse(&why))
            }
        };
        let shadow = !enforced && self.config.claude_code.tools == ToolRules::Shadow;
        let denied = authorization.decision == Decision::Deny;
        let reason = authorization.first_failure.as_ref().map(|f| {
            format!("Agent Warden denied this at tool rules layer {} ({}): {}", f.layer, f.code, f.reason)
        });
        let event = ToolCallAuthorized::new(
            lineage.last().cloned(),
            Some(tool.to_string()),
            authorization,
            &lineage,
            shadow,
        );
        let recorded = self
            .record_and_apply(
                state,
                session_correlation(session),
                AuditEvent::ToolCallAuthorized(Box::new(event)),
            )
            .await;
        match (recorded, denied && !shadow) {
            (_, true) => {
                if let Some(reason) = &reason {
                    tracing::info!(%reason, "tool call denied by the manifests' rules");
                }
                Some(HookAnswer::deny(reason.as_deref().unwrap_or("Agent Warden denied this at tool rules")))
            }
            (Ok(_), false) => None,
            (Err(e), false) => {
                let why = failure(
                    "audit",
                    Code::AuditUnavailable,
                    format!("the decision could not be recorded: {e}"),
                );
                Some(HookAnswer::deny(&describe(&why)))
            }
        }
    }

    /// The checks every tool call passes: quarantine, identity, protected writes, messages,
    /// agent-starting tools, the human verbs.
    async fn hook_tool_checks(
        &self,
        state: &mut HookState,
        session: &str,
        cwd: Option<&str>,
        call: ToolCall,
        quarantined: Option<&Marker>,
    ) -> HookAnswer {
        let tree = state.session_ref(session);
        let mut target = None;
        let (decision, failure) = if let Some(marker) = quarantined {
            let reason = quarantine_reason(session, marker);
            (Decision::Deny, Some(failure("quarantine", Code::SessionQuarantined, reason)))
        } else if let Some(f) = call.caller.as_ref().and_then(|caller| identity(tree, caller)) {
            (Decision::Deny, Some(f))
        } else {
            match &call.kind {
                ToolKind::Other => return HookAnswer::silent(),
                ToolKind::HumanVerb { verb } => {
                    let reason = super::fast::human_verb_reason(verb);
                    (Decision::Deny, Some(failure("human_verb", Code::HumanVerbDenied, reason)))
                }
                ToolKind::Write { path } => {
                    target = Some(path.clone());
                    let own_root = call
                        .caller
                        .as_ref()
                        .and_then(|c| tree.agents.get(&c.agent_id))
                        .and_then(|a| a.root.as_deref());
                    match protected_write(&self.config, cwd, own_root, path) {
                        None => return HookAnswer::silent(),
                        Some(reason) => (
                            Decision::Deny,
                            Some(failure("protected_path", Code::ProtectedPathWrite, reason)),
                        ),
                    }
                }
                ToolKind::SendMessage { to } => {
                    target = to.clone();
                    match tree.may_resume(to.as_deref(), &state.governance, self.now()) {
                        Ok(_) => (Decision::Allow, None),
                        Err(v) => (Decision::Deny, Some(failure("resume", v.code, v.reason.to_string()))),
                    }
                }
                ToolKind::StartsAgents => {
                    if self.config.claude_code.agent_tools.contains(&call.tool_name) {
                        (Decision::Allow, None)
                    } else {
                        let reason = format!(
                            "`{}` starts agents the spawn gate never sees; list it in `[claude_code] agent_tools` \
                             to allow it",
                            call.tool_name
                        );
                        (Decision::Deny, Some(failure("agent_tool", Code::AgentToolNotAllowed, reason)))
                    }
                }
            }
        };
        let event = HookToolEvaluated {
            tool_name: call.tool_name,
            tool_use_id: call.tool_use_id,
            agent_id: call.caller.as_ref().map(|c| c.agent_id.clone()),
            agent_type: call.caller.map(|c| c.agent_type),
            target,
            decision,
            failure: failure.clone(),
        };
        self.answer_recorded(state, session, event).await
    }

    /// A spawn in a quarantined session: denied and recorded as a governed tool call (H-28).
    pub(super) async fn deny_in_quarantine(
        &self,
        state: &mut HookState,
        session: &str,
        request: &SpawnRequest,
        marker: &Marker,
    ) -> HookAnswer {
        let event = HookToolEvaluated {
            tool_name: request.tool_name.clone(),
            tool_use_id: Some(request.tool_use_id.clone()),
            agent_id: request.caller.as_ref().map(|c| c.agent_id.clone()),
            agent_type: request.caller.as_ref().map(|c| c.agent_type.clone()),
            target: Some(request.subagent_type.clone()),
            decision: Decision::Deny,
            failure: Some(failure(
                "quarantine",
                Code::SessionQuarantined,
                quarantine_reason(session, marker),
            )),
        };
        self.answer_recorded(state, session, event).await
    }

    /// Records the decision, then answers it; an allow that cannot be recorded is a deny.
    async fn answer_recorded(
        &self,
        state: &mut HookState,
        session: &str,
        event: HookToolEvaluated,
    ) -> HookAnswer {
        let answer = match &event.failure {
            Some(f) if f.stage == "quarantine" || f.stage == "protected_path" => HookAnswer::deny(&f.reason),
            Some(f) => HookAnswer::deny(&describe(f)),
            None => HookAnswer::silent(),
        };
        let recorded = self
            .record_and_apply(
                state,
                session_correlation(session),
                AuditEvent::HookToolEvaluated(Box::new(event)),
            )
            .await;
        match recorded {
            Ok(_) => answer,
            Err(e) if answer.stdout.is_some() => {
                tracing::warn!(error = %e, "a denied tool call could not be recorded");
                answer
            }
            Err(e) => {
                let why = failure(
                    "audit",
                    Code::AuditUnavailable,
                    format!("the decision could not be recorded: {e}"),
                );
                HookAnswer::deny(&describe(&why))
            }
        }
    }
}

/// H-23: why `caller` may call nothing, if it may not: it is unknown to the session's tree, it
/// started matching no allowed spawn, or it claims a type it was not started as.
fn identity(
    tree: &agentwarden_domain::claude_code::SpawnTree,
    caller: &agentwarden_domain::claude_code::CallingAgent,
) -> Option<HookFailure> {
    match tree.agents.get(&caller.agent_id) {
        None => Some(failure(
            "identity",
            Code::AgentUnknown,
            format!("agent `{}` was not started through a spawn Warden allowed", caller.agent_id),
        )),
        Some(agent) if agent.depth.is_none() => Some(failure(
            "identity",
            Code::AgentUntracked,
            format!(
                "agent `{}` matched no allowed spawn when it started; every tool call it makes is denied",
                caller.agent_id
            ),
        )),
        Some(agent) if agent.agent_type != caller.agent_type => Some(failure(
            "identity",
            Code::AgentTypeMismatch,
            format!(
                "agent `{}` claims type `{}` but was started as `{}`",
                caller.agent_id, caller.agent_type, agent.agent_type
            ),
        )),
        Some(_) => None,
    }
}
