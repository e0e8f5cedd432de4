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

mod events;
mod input;
mod paths;
mod state;

pub use events::{
    ApprovalGranted, ApprovalRevoked, ContextSealed, HookFailure, HookInputRefused, HookToolEvaluated,
    SessionQuarantined, SessionReleased, SpawnEvaluated, SubagentStarted, SubagentStopped,
};
pub use input::{
    AGENT_STARTING_TOOLS, BUILTIN_AGENT_TYPES, CallingAgent, DEFAULT_SUBAGENT_TYPE, HUMAN_VERBS, HookEvent,
    HookInput, InputError, MAX_HOOK_INPUT, MAX_ID_LEN, SEND_MESSAGE_TOOL, SUBAGENT_TOOLS, SpawnRequest,
    ToolCall, ToolKind, WRITE_TOOLS, human_verb_in, is_safe_id, parse_hook_input, requested_result_path,
};
pub use paths::{is_within, normalize, protected_target};
pub use state::{
    HookState, MAX_PENDING, MAX_SESSIONS, PendingSpawn, Quarantine, ROOT_ID, Released, SpawnTree,
    TrackedAgent,
};

#[cfg(test)]
mod tests;
