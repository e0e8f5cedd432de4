//! The events of a session's decisions: spawns, agents started and stopped, governed tool
//! calls, quarantines and their release, blocked settings changes and refused inputs.

use serde::{Deserialize, Serialize};

use crate::governance::{GateReport, RecordSignature};
use crate::guardrails::ResultValidation;
use crate::lineage::{AgentIdentifier, LineageVerdict};
use crate::verdict::{Code, Decision};

/// Which check failed first in a hook decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HookFailure {
    /// `gate`, `lineage`, `guardrails`, `result` or `audit`.
    pub stage: String,
    /// The stable code.
    pub code: Code,
    /// Why.
    pub reason: String,
}

/// `subagent_spawn_evaluated`, version 1: one call of the tool that spawns subagents.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpawnEvaluated {
    /// The harness's id of the tool call.
    pub tool_use_id: String,
    /// The harness's name of that tool.
    pub tool_name: String,
    /// The calling subagent's id; `None` for the main session.
    pub agent_id: Option<String>,
    /// The persona the gate evaluated (the caller's type, or the main persona).
    pub persona: String,
    /// The subagent type asked for.
    pub subagent_type: String,
    /// Allow or deny.
    pub decision: Decision,
    /// The first failure, on a deny.
    pub first_failure: Option<HookFailure>,
    /// The gate's whole report.
    pub gate: GateReport,
    /// The lineage walk of parent → requested child.
    pub lineage: LineageVerdict,
    /// The lineage walked, root first, ending with the requested child.
    pub lineage_agents: Vec<AgentIdentifier>,
    /// The `result.json` the prompt asks for, if any.
    pub result_path: Option<String>,
}

/// `subagent_started`, version 1: a subagent began.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubagentStarted {
    /// The harness's id of the subagent.
    pub agent_id: String,
    /// Its type.
    pub agent_type: String,
    /// The allowed spawn it was matched to (H-2); `None`: no allowed spawn was pending, and
    /// the agent may spawn nothing.
    pub tool_use_id: Option<String>,
    /// Its parent's id (`None`: the main session, or unmatched).
    pub parent: Option<String>,
    /// Its depth (the main session is 0), when matched.
    pub depth: Option<u64>,
    /// Whether the protected paths were snapshotted for the stop check.
    pub snapshot: bool,
    /// Where they were snapshotted, when not the workspace root: a worktree subagent's own
    /// worktree (H-27). Its stop is checked there too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root: Option<String>,
    /// A start of an agent already running in the session (H-54): recorded, and it replaces
    /// nothing — no snapshot is taken, no pending spawn is matched, the agent keeps its place.
    /// Absent (false) in the events of a first start and in those written before it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub repeated: bool,
}

/// `subagent_stopped`, version 1: the stop check of a subagent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubagentStopped {
    /// The harness's id of the subagent.
    pub agent_id: String,
    /// Its type.
    pub agent_type: String,
    /// Allow (it may stop) or deny (the stop is blocked).
    pub decision: Decision,
    /// Every reason it was blocked.
    pub failures: Vec<HookFailure>,
    /// The protected paths it changed.
    pub changed_files: Vec<String>,
    /// Whether they were reverted.
    pub reverted: bool,
    /// The `result.json` checked, if one was asked for.
    pub result_path: Option<String>,
    /// Its validation.
    pub result: Option<ResultValidation>,
    /// Whether the harness said the subagent already went on once after a block.
    pub stop_hook_active: bool,
    /// The stop is the subagent's end, whatever the decision: its harness cannot make it go on
    /// after a block (its stop comes once the agent has ended), so it runs no more (M-6).
    /// Absent (false) in the events of a harness whose stop can be blocked.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ended: bool,
}

/// `session_started`, version 1: the main session began (or resumed, or was cleared or
/// compacted), and its protected paths are snapshotted for its stop (H-45).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionStarted {
    /// Whether the session has a snapshot of its protected paths for its stop: taken now, or
    /// kept from an earlier start of the session.
    pub snapshot: bool,
    /// True when the snapshot of an earlier start was kept, not taken again (H-45: a later
    /// start replaces nothing, so a change made before it is still put back).
    pub kept: bool,
    /// A later start compares the protected paths with the kept snapshot and puts back what
    /// differs, as a stop does (H-52): every reason it did not find them as kept. Absent
    /// (empty) at a first start, a clean later one, and in the events written before H-52.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failures: Vec<HookFailure>,
    /// The protected paths a later start found changed since the kept snapshot (H-52).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changed_files: Vec<String>,
    /// Whether they were put back (H-52).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reverted: bool,
}

/// `session_stopped`, version 1: the stop check of the main session (H-46): its protected
/// paths compared with the session's snapshot, and put back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionStopped {
    /// Allow (nothing to put back) or deny (the stop was blocked, or let through on a
    /// repeated stop, with these failures).
    pub decision: Decision,
    /// Every reason the stop did not end cleanly.
    pub failures: Vec<HookFailure>,
    /// The protected paths changed since the session's snapshot.
    pub changed_files: Vec<String>,
    /// Whether they were reverted.
    pub reverted: bool,
    /// Whether the harness said the session already went on once after a block.
    pub stop_hook_active: bool,
}

/// `session_ended`, version 1: the session's end (H-48): its protected paths compared with the
/// session's snapshot and put back, as at a stop, and nothing blocked (an ending session cannot
/// go on). The session's snapshot is kept: an end can be forged, so a later start of the same
/// session is compared with it (H-53).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionEnded {
    /// Allow (nothing to put back) or deny (something was found, with these failures).
    pub decision: Decision,
    /// Every reason the session did not end cleanly.
    pub failures: Vec<HookFailure>,
    /// The protected paths changed since the session's snapshot.
    pub changed_files: Vec<String>,
    /// Whether they were reverted.
    pub reverted: bool,
    /// Why the session ended, as the harness says (`clear`, `logout`, `prompt_input_exit`,
    /// `other`, …), when it says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// `hook_tool_evaluated`, version 1: the hook's decision on a tool call that is not a spawn but
/// that Warden governs: a tool call in a quarantined session (H-29),
/// from an untracked or unknown agent (H-23), a write into a protected path (H-26), a
/// message to an existing agent (H-21), or a tool that starts agents (H-22). A tool call
/// that nothing governs is not recorded (the fast path, H-24).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HookToolEvaluated {
    /// The tool's name.
    pub tool_name: String,
    /// The harness's id of the tool call, when given.
    pub tool_use_id: Option<String>,
    /// The calling subagent's id; `None` for the main session.
    pub agent_id: Option<String>,
    /// The calling subagent's type, when given.
    pub agent_type: Option<String>,
    /// What the call targets, when Warden read one: the agent a message goes to, or the
    /// file a write names.
    pub target: Option<String>,
    /// Allow or deny.
    pub decision: Decision,
    /// Why it was denied.
    pub failure: Option<HookFailure>,
}

/// `session_quarantined`, version 1: a stop could not be made safe (a revert failed, the store
/// could not be used, a required `result.json` was still missing on a repeated stop), so every
/// further tool call of the session is denied until a human runs `warden release` (H-28).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionQuarantined {
    /// The subagent whose stop quarantined the session, when known.
    pub agent_id: Option<String>,
    /// The stable code of the cause.
    pub code: Code,
    /// Why.
    pub reason: String,
}

/// `session_released`, version 1: a human lifted a session's quarantine (`warden release`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionReleased {
    /// Who released it, when given.
    pub by: Option<String>,
    /// The human's SSH signature (K-1), absent when none was made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<RecordSignature>,
}

/// `config_change_blocked`, version 1: a harness's settings or skills file changed during
/// the session, and the hook blocked the change (H-43): the session goes on with the settings
/// it started with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigChangeBlocked {
    /// The harness's `source` (`project_settings`, `local_settings`, …).
    pub source: String,
    /// The file that changed, when the harness named it.
    pub file_path: Option<String>,
    /// Always deny: the change is not applied.
    pub decision: Decision,
    /// Why.
    pub failure: HookFailure,
}

/// `hook_input_refused`, version 1: a hook input Warden could not use (H-1), answered with
/// a failure. Recorded when the store can be used; the input itself is kept only by digest and
/// length (it may be large, and it is the adversary's text).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HookInputRefused {
    /// The stable code (`hook_input_*`).
    pub code: Code,
    /// Why.
    pub reason: String,
    /// BLAKE3 (hex) of the input.
    pub digest: String,
    /// Its length in bytes.
    pub bytes: u64,
}
