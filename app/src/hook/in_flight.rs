//! The events of a harness that never names its subagents ([`Attribution::InFlight`]):
//! a subagent's calls arrive with its parent's session and no agent field, between the call that
//! spawned it and that call's end, and no start event comes.
//!
//! - A spawn is the main session's, whatever runs: the one harness that names no subagent (its
//!   integration says so) gives its subagents no spawn tool, so the main session is the only agent that can
//!   ask, and crediting a spawn to a running subagent would be a guess in the asker's favour
//!   (M-22, superseding M-3). The same spawn (the integration names it by its input) while it
//!   still runs is denied: the two would be one agent to Warden (M-4). An allowed spawn starts
//!   its agent at once, its protected paths snapshotted, as a start event would (M-2).
//! - A tool call without a caller: the one subagent running is its caller; with several, it is
//!   judged as each in turn and the first denial stands — the strictest rules in force hold;
//!   with none, it is the main session's (M-2).
//! - The end of a spawn's call is its agent's stop; the end of one that never started (denied)
//!   or that stopped already has nothing to check (M-2).

use std::path::Path;

use agentwarden_domain::sessions::{
    Attribution, CallingAgent, HookAnswer, HookToolEvaluated, SessionRecords, SpawnRequest, ToolCall,
};

use super::storage::{HookStorage, Marker};
use crate::config::HarnessSettings;
use crate::warden::{Warden, WardenError};

/// The subagents running in `session`, as the callers of an event that names none (M-2).
fn running(state: &SessionRecords, session: &str) -> Vec<CallingAgent> {
    state
        .session_ref(session)
        .running()
        .map(|(id, agent)| CallingAgent { agent_id: id.clone(), agent_type: agent.agent_type.clone() })
        .collect()
}

/// Whether `agent_id` runs in `session` (started, tracked, not stopped).
pub(super) fn is_running(state: &SessionRecords, session: &str, agent_id: &str) -> bool {
    state.session_ref(session).running().any(|(id, _)| id == agent_id)
}

impl Warden {
    /// A spawn of a harness that names no subagent (see the module's doc).
    pub(super) async fn hook_spawn_in_flight(
        &self,
        state: &mut SessionRecords,
        session: &str,
        harness: &HarnessSettings,
        mut request: SpawnRequest,
        root: &Path,
        storage: &HookStorage,
    ) -> Result<HookAnswer, WardenError> {
        debug_assert_eq!(
            request.caller,
            None,
            "an integration of {:?} names no caller",
            Attribution::InFlight
        );
        // The same spawn while it runs would be one agent to Warden (M-4).
        if is_running(state, session, &request.tool_use_id) {
            let event = HookToolEvaluated::twin_spawn(&request);
            return Ok(self.answer_recorded(state, session, event).await);
        }
        // Only the main session can spawn: never credited to a running subagent (M-22).
        request.caller = None;
        let agent =
            CallingAgent { agent_id: request.tool_use_id.clone(), agent_type: request.subagent_type.clone() };
        let answer = self.hook_spawn(state, session, harness, request).await?;
        if answer != HookAnswer::Proceed {
            return Ok(answer);
        }
        // No start event comes: the allowed spawn starts its agent now (M-2).
        self.hook_start(state, session, agent, root, false, storage).await?;
        Ok(answer)
    }

    /// A tool call of a harness that names no subagent (see the module's doc).
    pub(super) async fn hook_tool_in_flight(
        &self,
        state: &mut SessionRecords,
        session: &str,
        harness: &HarnessSettings,
        cwd: Option<&str>,
        call: ToolCall,
        quarantined: Option<&Marker>,
    ) -> HookAnswer {
        let running = running(state, session);
        if running.is_empty() || call.caller.is_some() {
            return self.hook_tool(state, session, harness, cwd, call, quarantined).await;
        }
        // Judged as each running subagent; the first denial stands (M-2). A call each lets run
        // under the launcher must run under one confinement: the same from each, or it is denied
        // (E-13), never run under one agent's grants alone.
        let mut rewrites: Vec<HookAnswer> = Vec::new();
        for agent in running {
            let as_agent = ToolCall { caller: Some(agent), ..call.clone() };
            let answer = self.hook_tool(state, session, harness, cwd, as_agent, quarantined).await;
            match answer {
                HookAnswer::Proceed => {}
                HookAnswer::Rewrite { .. } => {
                    if !rewrites.contains(&answer) {
                        rewrites.push(answer);
                    }
                }
                HookAnswer::Deny { .. } | HookAnswer::Block { .. } | HookAnswer::Failed { .. } => {
                    return answer;
                }
            }
        }
        match rewrites.as_slice() {
            [] => HookAnswer::Proceed,
            [one] => one.clone(),
            _ => HookAnswer::deny_for(
                &agentwarden_domain::code::Code::ConfinementUnavailable,
                "the call is judged as each of several running subagents, whose confinements differ",
            ),
        }
    }
}
