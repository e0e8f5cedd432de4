//! Governing Claude Code sessions: the hook's input, the human approval state, and each
//! session's spawn tree — everything `warden hook` decides with, as pure data and folds.
//!
//! Rulings (H-1 … H-6, in `docs/rulings.md`): every input Warden cannot use is an error the hook
//! answers with exit 2, never a guess (H-1); a `SubagentStart` is matched to the deepest, then
//! oldest, pending allowed spawn of its type (H-2); the state is a projection of the audit log,
//! caught up from its head on every call (H-3); a prompt asks for a `result.json` by naming a
//! relative path ending in `result.json` (H-4).

mod events;
mod input;
mod state;

pub use events::{
    ApprovalGranted, ApprovalRevoked, ContextSealed, HookFailure, SpawnEvaluated, SubagentStarted,
    SubagentStopped,
};
pub use input::{
    CallingAgent, HookEvent, HookInput, InputError, MAX_HOOK_INPUT, SUBAGENT_TOOLS, SpawnRequest,
    parse_hook_input, requested_result_path,
};
pub use state::{HookState, MAX_PENDING, MAX_SESSIONS, PendingSpawn, ROOT_ID, SpawnTree, TrackedAgent};

#[cfg(test)]
mod tests;
