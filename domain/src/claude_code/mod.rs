//! Governing Claude Code sessions: the hook's input, the human approval state, and each
//! session's spawn tree — everything `warden hook` decides with, as pure data and folds.
//!
//! Rulings (H-1 … H-6, in `docs/rulings.md`): every input Warden cannot use is an error the hook
//! answers with exit 2, never a guess (H-1); a `SubagentStart` is matched to the deepest, then
//! oldest, pending allowed spawn of its type (H-2); the state is a projection of the audit log,
//! caught up from its head on every call (H-3); a prompt asks for a `result.json` by naming a
//! relative path ending in `result.json` (H-4). H-20 … H-31 (issue 18): every way an agent
//! starts is governed, ids are checked before they name files, writes into protected paths are
//! refused before they happen, and a stop that cannot be made safe quarantines its session.
//!
//! The hook's decisions are here too, as functions of what the application read (issue 22,
//! which tool calls are governed and how each is decided ([`check_tool`],
//! [`judge_tool_rules`]), a spawn ([`evaluate_spawn`]), a stop ([`evaluate_stop`],
//! [`quarantine_cause`]), a protected write ([`protected_write`]), the texts of their reasons,
//! and the answer each becomes once recorded: a typed [`HookAnswer`] with the exact bytes
//! Claude Code reads.

mod answer;
mod config_change;
mod events;
mod input;
mod paths;
mod reasons;
mod spawn;
mod state;
mod stop;
mod tool;
mod tool_rules;

pub use answer::{HOOK_FAILED, HookAnswer, HookReason, RenderingError};
pub use config_change::{CONFIG_CHANGE_STAGE, config_change_answer, config_change_blocked};

pub use events::{
    ApprovalGranted, ApprovalRevoked, ConfigChangeBlocked, ContextSealed, HookFailure, HookInputRefused,
    HookToolEvaluated, SessionQuarantined, SessionReleased, SpawnEvaluated, SubagentStarted, SubagentStopped,
};
pub use input::{
    AGENT_STARTING_TOOLS, BUILTIN_AGENT_TYPES, CallingAgent, DEFAULT_SUBAGENT_TYPE, HUMAN_VERBS, HookEvent,
    HookInput, InputError, MAX_HOOK_INPUT, MAX_ID_LEN, SEND_MESSAGE_TOOL, SUBAGENT_TOOLS, SpawnRequest,
    ToolCall, ToolKind, WRITE_TOOLS, human_verb_in, is_safe_id, parse_hook_input, requested_result_path,
};
pub use paths::{ProtectedPaths, ResolvePath, is_within, normalize, protected_target, protected_write};
pub use reasons::{human_verb_reason, in_user_terms, quarantine_reason, quarantined_without_store, with_fix};
pub use spawn::{SpawnFacts, builtin_failure, evaluate_spawn, spawn_answer};
pub use state::{
    HookState, MAX_PENDING, MAX_SESSIONS, PendingSpawn, Quarantine, ROOT_ID, Released, SpawnTree,
    TrackedAgent,
};
pub use stop::{StopDecision, StopFacts, evaluate_stop, quarantine_cause};
pub use tool::{QuarantineInForce, ToolFacts, check_tool, tool_answer};
pub use tool_rules::{ToolRulesFacts, ToolRulesJudged, judge_tool_rules, tool_rules_answer};

#[cfg(test)]
mod tests;
