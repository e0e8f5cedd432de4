//! The events of human approval and of the Claude Code hook.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::audit::Timestamp;
use crate::governance::{GateReport, RecordSignature, Scope};
use crate::guardrails::ResultValidation;
use crate::lineage::{AgentIdentifier, LineageVerdict};
use crate::verdict::{Code, Decision};

/// `context_sealed`, version 1: a human declared the context final (`warden seal`), and this is
/// what was sealed: the digest of every file the decisions depend on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContextSealed {
    /// Who sealed it, when given.
    pub by: Option<String>,
    /// BLAKE3 (hex) of each file, by path relative to the workspace root.
    pub files: BTreeMap<String, String>,
    /// The approver's SSH signature (K-1), absent when none was made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<RecordSignature>,
    /// K-14: the text of `allowed_signers` as sealed (its digest is among `files`), kept so that
    /// a later change of the list can be verified against this one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_list: Option<String>,
}

/// `approval_granted`, version 1: a human approved the pipeline run (`warden approve`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApprovalGranted {
    /// The approval's reference (a valid `approvalRef`).
    pub approval_ref: String,
    /// Who approved, when given.
    pub approved_by: Option<String>,
    /// When it stops being valid, if ever.
    pub expires_at: Option<Timestamp>,
    /// Whom it covers (empty lists: anyone).
    pub scope: Scope,
    /// The approver's SSH signature (K-1), absent when none was made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<RecordSignature>,
}

/// `approval_revoked`, version 1: a human withdrew an approval (`warden revoke --ref REF`), or
/// every approval and the seal (`warden revoke`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApprovalRevoked {
    /// The approval revoked; `None`: all of them, and the seal.
    pub approval_ref: Option<String>,
    /// Who revoked, when given.
    pub by: Option<String>,
    /// The human's SSH signature (K-1), absent when none was made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<RecordSignature>,
}

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

/// `subagent_spawn_evaluated`, version 1: one `PreToolUse` of `Task`/`Agent`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpawnEvaluated {
    /// Claude Code's id of the tool call.
    pub tool_use_id: String,
    /// `Task` or `Agent`.
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

/// `subagent_started`, version 1: a subagent began (`SubagentStart`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubagentStarted {
    /// Claude Code's id of the subagent.
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
}

/// `subagent_stopped`, version 1: the stop check of a subagent (`SubagentStop`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubagentStopped {
    /// Claude Code's id of the subagent.
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
    /// Claude Code's `stop_hook_active`.
    pub stop_hook_active: bool,
}

/// `hook_tool_evaluated`, version 1: the hook's decision on a `PreToolUse` that is not a spawn
/// through `Agent`/`Task` but that Warden governs: a tool call in a quarantined session (H-29),
/// from an untracked or unknown agent (H-23), a write into a protected path (H-26), a
/// `SendMessage` to an existing agent (H-21), or a tool that starts agents (H-22). A tool call
/// that nothing governs is not recorded (the fast path, H-24).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HookToolEvaluated {
    /// The tool's name.
    pub tool_name: String,
    /// Claude Code's id of the tool call, when given.
    pub tool_use_id: Option<String>,
    /// The calling subagent's id; `None` for the main session.
    pub agent_id: Option<String>,
    /// The calling subagent's type, when given.
    pub agent_type: Option<String>,
    /// What the call targets, when Warden read one: the agent a `SendMessage` goes to, or the
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

/// `config_change_blocked`, version 1: a Claude Code settings or skills file changed during
/// the session, and the hook blocked the change (H-43): the session goes on with the settings
/// it started with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigChangeBlocked {
    /// Claude Code's `source` (`project_settings`, `local_settings`, …).
    pub source: String,
    /// The file that changed, when Claude Code named it.
    pub file_path: Option<String>,
    /// Always deny: the change is not applied.
    pub decision: Decision,
    /// Why.
    pub failure: HookFailure,
}

/// `hook_input_refused`, version 1: a hook input Warden could not use (H-1), answered with
/// exit 2. Recorded when the store can be used; the input itself is kept only by digest and
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
