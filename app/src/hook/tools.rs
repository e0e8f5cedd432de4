//! The slow path of a `PreToolUse` that is not a spawn through `Agent`/`Task`: the store's
//! authoritative answer, recorded as `hook_tool_evaluated` for everything Warden governs.
//!
//! The rules — which calls are governed, in which order they are checked, what each is
//! answered — are the domain's (`agentwarden_domain::sessions::check_tool`,
//! `judge_tool_rules`); this module reads what they need (the records, the manifests as sealed,
//! the file system for protected writes), records the event, then answers.

use agentwarden_domain::events::AuditEvent;
use agentwarden_domain::fact::FactError;
use agentwarden_domain::governance::{Name, ReadDigests};
use agentwarden_domain::lineage::ToolUse;
use agentwarden_domain::sessions::{
    HookAnswer, HookToolEvaluated, ProtectedPaths, QuarantineInForce, RulesAs, SessionRecords, SpawnRequest,
    ToolCall, ToolFacts, ToolRulesFacts, ToolRulesJudged, check_tool, judge_tool_rules, tool_answer,
    tool_rules_answer,
};
use agentwarden_domain::verdict::Decision;

use crate::ToolRules;
use crate::config::HarnessSettings;

use agentwarden_adapters::paths::LocalPaths;

use super::fast::{HARNESS_HELD_NAMES, absolute};
use super::session_correlation;
use super::storage::Marker;
use crate::warden::Warden;

fn in_force(marker: &Marker) -> QuarantineInForce<'_> {
    QuarantineInForce { code: &marker.code, reason: &marker.reason }
}

impl Warden {
    /// Decides one tool call: the domain's checks, then, for a subagent's call they let
    /// through, the manifests' tool rules (T-9, T-10).
    pub(super) async fn hook_tool(
        &self,
        state: &mut SessionRecords,
        session: &str,
        harness: &HarnessSettings,
        cwd: Option<&str>,
        call: ToolCall,
        quarantined: Option<&Marker>,
    ) -> HookAnswer {
        let rules_call = call.caller.is_some().then(|| call.clone());
        let main_shell = (call.caller.is_none() && call.is_shell()).then(|| call.shell.clone());
        let answer = self.hook_tool_checks(state, session, harness, cwd, call, quarantined).await;
        match (rules_call, main_shell) {
            (Some(call), _) if answer == HookAnswer::Proceed => {
                self.hook_tool_rules(state, session, harness, cwd, &call).await.unwrap_or(answer)
            }
            // The main session's shell with `[confine] main_session` (E-15): not recorded, as
            // none of its allowed calls is.
            (None, Some(shell)) if answer == HookAnswer::Proceed => {
                let root = absolute(&self.config.root).unwrap_or_default();
                let cwd = cwd.map_or_else(|| root.clone(), str::to_owned);
                match self.confine_call(session, shell.as_ref(), None, &root, &cwd) {
                    Some(confined) => {
                        tracing::info!(applied = %confined.applied.summary(), "the main session's shell call");
                        confined.answer.unwrap_or(answer)
                    }
                    None => answer,
                }
            }
            _ => answer,
        }
    }

    /// A subagent's call through the three layers on its recorded lineage, recorded
    /// as `tool_call_authorized`. `Some(answer)` when it is not to run: a denial in enforce
    /// mode, or an allow that could not be recorded; `None` when it may (T-9, T-10).
    async fn hook_tool_rules(
        &self,
        state: &mut SessionRecords,
        session: &str,
        harness: &HarnessSettings,
        cwd: Option<&str>,
        call: &ToolCall,
    ) -> Option<HookAnswer> {
        let tree = state.session_ref(session);
        let main = match Name::new(&harness.config.main_persona) {
            Ok(main) => main,
            Err(e) => {
                return Some(HookAnswer::failed(
                    agentwarden_domain::code::Code::ConfigInvalid,
                    format!("{}.main_persona: {e}", harness.terms.section),
                ));
            }
        };
        // Paths are read from the agent's own root when it has one (a worktree, H-27).
        let own_root =
            call.caller.as_ref().and_then(|c| tree.agents.get(&c.agent_id)).and_then(|a| a.root.clone());
        let root = own_root.or_else(|| absolute(&self.config.root)).unwrap_or_default();
        let cwd = cwd.map_or_else(|| root.clone(), str::to_owned);
        let tool = match &call.rules_as {
            RulesAs::Call { tool, argument } => {
                ToolUse::resolve_holding(tool, argument, &cwd, &root, &LocalPaths, HARNESS_HELD_NAMES)
            }
            // Judged unknown by the domain whatever the name says (C-6).
            RulesAs::Unknown => ToolUse::named(call.tool_name.clone()),
        };
        // The rules that judge the call are the manifests as sealed, read once: a subagent
        // that can write them (a bare `Bash`) does not get to write its own rules (T-11).
        let mut read = ReadDigests::new();
        self.read_context_digests(&mut read).await;
        let manifests = self.sealed_manifests(&mut read).await;
        let facts = ToolRulesFacts {
            main: &main,
            tree,
            manifests: manifests.as_deref().map_err(|e| FactError::new(e.to_string())),
            seal: state.governance.seal_verdict(&read),
            shadow_mode: harness.config.tools == ToolRules::Shadow,
        };
        let lineage_of = |main: &Name| tree.caller_lineage(main, call.caller.as_ref()).ok();
        let types: Option<Vec<String>> =
            lineage_of(&main).map(|l| l.iter().map(|a| a.agent_type.as_str().to_owned()).collect());
        let held = manifests.as_deref().ok().cloned();
        let ToolRulesJudged { mut event, mut refused } = judge_tool_rules(call, tool, facts)?;
        if let Some(reason) = refused.as_ref().and_then(HookAnswer::reason) {
            tracing::info!(%reason, "tool call denied by the manifests' rules");
        }
        // An allowed shell call runs under the launcher, its confinement recorded with the
        // allow (E-13, E-14, H-61).
        let mut rewrite = None;
        if let (None, true, Some(types), Some(held), Decision::Allow) =
            (&refused, call.is_shell(), &types, &held, &event.authorization.decision)
            && let Some(confined) =
                self.confine_call(session, call.shell.as_ref(), Some((types, held)), &root, &cwd)
        {
            match confined.answer {
                Some(deny @ HookAnswer::Deny { .. }) => refused = Some(deny),
                other => rewrite = other,
            }
            event.confinement = Some(confined.applied);
        }
        let recorded = self
            .record_and_apply(
                state,
                session_correlation(session),
                &AuditEvent::ToolCallAuthorized(Box::new(event)),
            )
            .await;
        match tool_rules_answer(refused, recorded.map(drop).map_err(|e| FactError::new(e.to_string()))) {
            None => rewrite,
            answer => answer,
        }
    }

    /// The checks every tool call passes (the domain's `check_tool`), recorded when Warden
    /// governs the call.
    async fn hook_tool_checks(
        &self,
        state: &mut SessionRecords,
        session: &str,
        harness: &HarnessSettings,
        cwd: Option<&str>,
        call: ToolCall,
        quarantined: Option<&Marker>,
    ) -> HookAnswer {
        let root = absolute(&self.config.root);
        let facts = ToolFacts {
            session,
            cwd,
            quarantine: quarantined.map(in_force),
            tree: state.session_ref(session),
            approvals: &state.governance,
            now: self.now(),
            agent_tools: &harness.config.agent_tools,
            terms: harness.terms,
            protected: ProtectedPaths {
                root: root.as_deref(),
                paths: &self.config.guardrails.protected,
                held: HARNESS_HELD_NAMES,
            },
            resolve: &LocalPaths,
        };
        match check_tool(call, &facts) {
            None => HookAnswer::Proceed,
            Some(event) => self.answer_recorded(state, session, event).await,
        }
    }

    /// A spawn in a quarantined session: denied and recorded as a governed tool call (H-28).
    pub(super) async fn deny_in_quarantine(
        &self,
        state: &mut SessionRecords,
        session: &str,
        request: &SpawnRequest,
        marker: &Marker,
    ) -> HookAnswer {
        let event = HookToolEvaluated::quarantined_spawn(request, session, in_force(marker));
        self.answer_recorded(state, session, event).await
    }

    /// Records the decision, then answers it (the domain's `HookToolEvaluated::answer`): an
    /// allow that cannot be recorded is a deny.
    pub(super) async fn answer_recorded(
        &self,
        state: &mut SessionRecords,
        session: &str,
        event: HookToolEvaluated,
    ) -> HookAnswer {
        let failure = event.failure.clone();
        let recorded = self
            .record_and_apply(
                state,
                session_correlation(session),
                &AuditEvent::HookToolEvaluated(Box::new(event)),
            )
            .await
            .map(drop)
            .map_err(|e| FactError::new(e.to_string()));
        if let (Err(e), Some(_)) = (&recorded, &failure) {
            tracing::warn!(error = %e, "a denied tool call could not be recorded");
        }
        tool_answer(failure.as_ref(), recorded)
    }
}
