//! Governing the sessions of an agent harness: the hook event as the kernel reads it, each
//! session's spawn tree and quarantine, and the decisions on them — pure data and folds, over
//! neutral values that a harness integration builds from its own wire format.
//!
//! Rulings (H-1 … H-6, in `docs/rulings.md`): every input Warden cannot use is an error the
//! integration answers as a failure, never a guess (H-1); an agent's start is matched to the
//! deepest, then oldest, pending allowed spawn of its type (H-2); the records are a projection of
//! the audit log, caught up from its head on every call (H-3); a prompt asks for a `result.json`
//! by naming a relative path ending in `result.json` (H-4). H-20 … H-31 (issue 18): every way an
//! agent starts is governed, ids are checked before they name files, writes into protected paths
//! are refused before they happen, and a stop that cannot be made safe quarantines its session.
//!
//! The decisions are functions of what the application read (issue 22, X-42): which tool calls
//! are governed and how each is decided ([`check_tool`], [`judge_tool_rules`]), a spawn
//! ([`evaluate_spawn`]), a stop ([`evaluate_stop`], [`quarantine_cause`]), a protected write
//! ([`protected_write`]), the texts of their reasons, and the answer each becomes once recorded:
//! a typed [`HookAnswer`], which each integration renders in its harness's protocol.
//! Nothing here names a harness, a tool of one, an exit code or a wire format (issue 35).

mod answer;
mod call;
mod config_change;
mod events;
mod harness;
mod paths;
mod reasons;
mod request;
mod session_stop;
mod shell;
mod spawn;
mod state;
mod stop;
mod terms;
mod tool;
mod tool_rules;

pub use answer::{HookAnswer, HookReason};
pub use call::{APPROVED_INPUT_STAGE, CallInput, CallStage, check_ran, input_digest};
pub use config_change::{CONFIG_CHANGE_STAGE, config_change_answer, config_change_blocked};

pub use crate::lineage::{CallArgument, RulesAs};
pub use crate::lineage::{NoLinks, ResolvePath};
pub use events::{
    ConfigChangeBlocked, HookFailure, HookInputRefused, HookToolEvaluated, SessionEnded, SessionQuarantined,
    SessionReleased, SessionStarted, SessionStopped, SpawnEvaluated, SubagentStarted, SubagentStopped,
};
pub use harness::{Harness, Rendered};
pub use paths::{ProtectedPaths, is_within, normalize, protected_shell, protected_target, protected_write};
pub use reasons::{human_verb_reason, in_user_terms, quarantine_reason, quarantined_without_store, with_fix};
pub use request::{
    Attribution, CallingAgent, HUMAN_VERBS, HookEvent, HookInput, InputError, MAX_HOOK_INPUT, MAX_ID_LEN,
    ROOT_ID, SpawnRequest, ToolCall, ToolKind, human_verb_in, is_safe_id, requested_result_path,
};
pub use session_stop::{
    SessionEndDecision, SessionStartDecision, SessionStartFacts, SessionStopDecision, SessionStopFacts,
    evaluate_session_end, evaluate_session_start, evaluate_session_stop,
};
pub use shell::{ClientRules, RuleSource, ShellInput};
pub use spawn::{SpawnFacts, builtin_failure, evaluate_spawn, spawn_answer};
pub use state::{
    MAX_PENDING, MAX_SESSIONS, PendingSpawn, Quarantine, Released, SessionRecords, SessionsEvent, SpawnTree,
    TrackedAgent,
};
pub use stop::{StopDecision, StopFacts, evaluate_stop, quarantine_cause};
pub use terms::{HarnessProfile, HarnessTerms};
pub use tool::{QuarantineInForce, ToolFacts, check_tool, tool_answer};
pub use tool_rules::{ToolRulesFacts, ToolRulesJudged, judge_tool_rules, tool_rules_answer};

#[cfg(test)]
mod tests;
