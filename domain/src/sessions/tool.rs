//! A tool call that is not a spawn, decided: which calls Warden
//! governs, the `hook_tool_evaluated` event of each, and the answer each becomes once recorded.
//! A subagent's call they let through then meets the manifests' tool rules (`tool_rules`).
//!
//! In this order: a quarantined session denies everything (H-28); a subagent that no allowed
//! spawn accounts for — untracked at its start, unknown, or claiming another type — may call
//! nothing (H-23); a shell command that runs `warden seal|approve|revoke|release` is denied
//! (K-11); a write into a protected path is denied (H-26), and so is a shell line whose text
//! writes one or a held name (T-31, T-32); a `SendMessage` may resume only a
//! tracked agent whose approval is still active (H-21); a tool that starts agents needs the
//! configured `agent_tools` (H-22). Anything else is not governed: allowed, not recorded
//! (H-24).

use super::answer::HookAnswer;
use super::events::{HookFailure, HookToolEvaluated};
use super::paths::{ProtectedPaths, protected_shell, protected_write};
use super::reasons::{human_verb_reason, quarantine_reason};
use super::request::{CallingAgent, SpawnRequest, ToolCall, ToolKind};
use super::state::SpawnTree;
use super::terms::HarnessTerms;
use crate::audit::Timestamp;
use crate::fact::FactError;
use crate::governance::Approvals;
use crate::lineage::ResolvePath;
use crate::verdict::{Code, Decision};

/// A session's quarantine in force, as its marker or the log says it (H-28).
#[derive(Clone, Copy, Debug)]
pub struct QuarantineInForce<'a> {
    /// The stable code of the cause.
    pub code: &'a str,
    /// Why.
    pub reason: &'a str,
}

/// What a tool call is checked with, read by the application beforehand.
#[derive(Clone, Copy)]
pub struct ToolFacts<'a> {
    /// The session.
    pub session: &'a str,
    /// The hook input's `cwd`.
    pub cwd: Option<&'a str>,
    /// The session's quarantine, when one is in force.
    pub quarantine: Option<QuarantineInForce<'a>>,
    /// The session's spawn tree.
    pub tree: &'a SpawnTree,
    /// The approvals recorded (for a `SendMessage`).
    pub approvals: &'a Approvals,
    /// The time now.
    pub now: Timestamp,
    /// The configured `agent_tools`: the tools that start agents allowed (H-22).
    pub agent_tools: &'a [String],
    /// The harness's words in the reasons.
    pub terms: HarnessTerms<'a>,
    /// The protected paths (H-26).
    pub protected: ProtectedPaths<'a>,
    /// How the file system resolves a path (H-26).
    pub resolve: &'a dyn ResolvePath,
}

impl std::fmt::Debug for ToolFacts<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolFacts")
            .field("session", &self.session)
            .field("cwd", &self.cwd)
            .field("quarantine", &self.quarantine)
            .field("agent_tools", &self.agent_tools)
            .field("protected", &self.protected)
            .finish_non_exhaustive()
    }
}

/// The quarantine's deny of any call (H-28).
fn quarantined(session: &str, quarantine: QuarantineInForce<'_>) -> HookFailure {
    let reason = quarantine_reason(session, quarantine.code, quarantine.reason);
    HookFailure::new("quarantine", Code::SessionQuarantined, reason)
}

/// The checks every tool call passes (see the module's doc): the event to record, or `None`
/// when Warden does not govern the call (allowed, not recorded).
pub fn check_tool(call: ToolCall, facts: &ToolFacts<'_>) -> Option<HookToolEvaluated> {
    let tree = facts.tree;
    let mut target = None;
    let (decision, failure) = if let Some(quarantine) = facts.quarantine {
        (Decision::Deny, Some(quarantined(facts.session, quarantine)))
    } else if let Some(f) = call.caller.as_ref().and_then(|caller| tree.identity(caller)) {
        (Decision::Deny, Some(f))
    } else {
        match &call.kind {
            ToolKind::Other => return None,
            ToolKind::HumanVerb { verb } => {
                let reason = human_verb_reason(verb);
                (Decision::Deny, Some(HookFailure::new("human_verb", Code::HumanVerbDenied, reason)))
            }
            ToolKind::Write { path } => {
                target = Some(path.clone());
                let own_root = call
                    .caller
                    .as_ref()
                    .and_then(|c| tree.agents.get(&c.agent_id))
                    .and_then(|a| a.root.as_deref());
                let refused = protected_write(facts.protected, facts.resolve, facts.cwd, own_root, path)?;
                (Decision::Deny, Some(HookFailure::new("protected_path", refused.code, refused.reason)))
            }
            ToolKind::Writes { paths } => {
                let own_root = call
                    .caller
                    .as_ref()
                    .and_then(|c| tree.agents.get(&c.agent_id))
                    .and_then(|a| a.root.as_deref());
                // The first protected file names the deny; none protected, not governed (C-5).
                let (path, refused) = paths.iter().find_map(|path| {
                    protected_write(facts.protected, facts.resolve, facts.cwd, own_root, path)
                        .map(|refused| (path, refused))
                })?;
                target = Some(path.clone());
                (Decision::Deny, Some(HookFailure::new("protected_path", refused.code, refused.reason)))
            }
            ToolKind::Shell { command, dir } => {
                let own_root = call
                    .caller
                    .as_ref()
                    .and_then(|c| tree.agents.get(&c.agent_id))
                    .and_then(|a| a.root.as_deref());
                // A shell line that writes no held name nor protected path is not governed
                // here; a subagent's still meets its tool rules (T-31).
                let refused = protected_shell(
                    facts.protected,
                    facts.resolve,
                    facts.cwd,
                    own_root,
                    command,
                    dir.as_deref(),
                )?;
                target = Some(command.clone());
                (Decision::Deny, Some(HookFailure::new("protected_path", refused.code, refused.reason)))
            }
            ToolKind::SendMessage { to } => {
                target = to.clone();
                match tree.may_resume(to.as_deref(), facts.approvals, facts.now) {
                    Ok(_) => (Decision::Allow, None),
                    Err(v) => {
                        (Decision::Deny, Some(HookFailure::new("resume", v.code, v.reason.to_string())))
                    }
                }
            }
            ToolKind::StartsAgents => {
                if facts.agent_tools.contains(&call.tool_name) {
                    (Decision::Allow, None)
                } else {
                    let reason = format!(
                        "`{}` starts agents the spawn gate never sees; list it in `[{}] agent_tools` to allow it",
                        call.tool_name, facts.terms.section
                    );
                    (Decision::Deny, Some(HookFailure::new("agent_tool", Code::AgentToolNotAllowed, reason)))
                }
            }
        }
    };
    Some(HookToolEvaluated {
        tool_name: call.tool_name,
        tool_use_id: call.tool_use_id,
        agent_id: call.caller.as_ref().map(|c| c.agent_id.clone()),
        agent_type: call.caller.map(|c| c.agent_type),
        target,
        decision,
        failure,
    })
}

impl SpawnTree {
    /// Why `caller` may call nothing, if it may not: it is unknown to the session's tree,
    /// it started matching no allowed spawn, or it claims a type it was not started as (H-23).
    pub fn identity(&self, caller: &CallingAgent) -> Option<HookFailure> {
        let refused = |code, reason| Some(HookFailure::new("identity", code, reason));
        match self.agents.get(&caller.agent_id) {
            None => refused(
                Code::AgentUnknown,
                format!("agent `{}` was not started through a spawn Warden allowed", caller.agent_id),
            ),
            Some(agent) if agent.depth.is_none() => refused(
                Code::AgentUntracked,
                format!(
                    "agent `{}` matched no allowed spawn when it started; every tool call it makes is denied",
                    caller.agent_id
                ),
            ),
            Some(agent) if agent.agent_type != caller.agent_type => refused(
                Code::AgentTypeMismatch,
                format!(
                    "agent `{}` claims type `{}` but was started as `{}`",
                    caller.agent_id, caller.agent_type, agent.agent_type
                ),
            ),
            Some(_) => None,
        }
    }
}

impl HookToolEvaluated {
    /// A spawn in a quarantined session: denied, and recorded as a governed tool call (H-28).
    pub fn quarantined_spawn(
        request: &SpawnRequest,
        session: &str,
        quarantine: QuarantineInForce<'_>,
    ) -> HookToolEvaluated {
        HookToolEvaluated {
            tool_name: request.tool_name.clone(),
            tool_use_id: Some(request.tool_use_id.clone()),
            agent_id: request.caller.as_ref().map(|c| c.agent_id.clone()),
            agent_type: request.caller.as_ref().map(|c| c.agent_type.clone()),
            target: Some(request.subagent_type.clone()),
            decision: Decision::Deny,
            failure: Some(quarantined(session, quarantine)),
        }
    }

    /// A spawn of a harness that never names its subagents, the same (agent and prompt) as one
    /// that still runs: the two would be one agent to Warden, so it is denied (M-4).
    pub fn twin_spawn(request: &SpawnRequest) -> HookToolEvaluated {
        HookToolEvaluated {
            tool_name: request.tool_name.clone(),
            tool_use_id: Some(request.tool_use_id.clone()),
            agent_id: None,
            agent_type: None,
            target: Some(request.subagent_type.clone()),
            decision: Decision::Deny,
            failure: Some(HookFailure::new(
                "lineage",
                Code::CallerAmbiguous,
                format!(
                    "the harness names no agent, and the same spawn of `{}` (its agent and prompt) \
                     still runs as `{}`: the two would be one agent, so it is not spawned; spawn it \
                     again once the first has ended",
                    request.subagent_type, request.tool_use_id
                ),
            )),
        }
    }
}

/// The answer to a governed tool call whose `hook_tool_evaluated` names `failure`, once the
/// event was appended (`recorded`: `Ok`) or not (`Err`, why). A deny stands either way (a
/// quarantine's and a protected write's reason already say where they were denied; any other
/// names its stage); an allow not recorded is a deny at `audit`.
pub fn tool_answer(failure: Option<&HookFailure>, recorded: Result<(), FactError>) -> HookAnswer {
    let answer = match failure {
        Some(f) if f.stage == "quarantine" || f.stage == "protected_path" => HookAnswer::deny(&f.reason),
        Some(f) => HookAnswer::deny(f.describe()),
        None => HookAnswer::Proceed,
    };
    match (recorded, &answer) {
        (Ok(()), _) | (Err(_), HookAnswer::Deny { .. }) => answer,
        (Err(e), _) => HookAnswer::deny(HookFailure::unrecorded(&e).describe()),
    }
}

#[cfg(test)]
pub(super) mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::lineage::RulesAs;
    use crate::sessions::TrackedAgent;

    fn tracked(agent_type: &str, depth: Option<u64>) -> TrackedAgent {
        TrackedAgent {
            agent_type: agent_type.into(),
            parent: None,
            depth,
            result_path: None,
            approval_ref: None,
            stopped: false,
            root: None,
        }
    }

    pub(in crate::sessions) fn tree() -> SpawnTree {
        SpawnTree {
            last_seq: 1,
            pending: Vec::new(),
            agents: BTreeMap::from([
                ("a1".to_owned(), tracked("planner", Some(1))),
                ("rogue".to_owned(), tracked("planner", None)),
            ]),
        }
    }

    pub(in crate::sessions) fn call(caller: Option<(&str, &str)>, tool: &str, kind: ToolKind) -> ToolCall {
        ToolCall {
            tool_name: tool.into(),
            tool_use_id: Some("u1".into()),
            caller: caller.map(|(id, t)| CallingAgent { agent_id: id.into(), agent_type: t.into() }),
            kind,
            rules_as: RulesAs::named(tool),
            shell: None,
        }
    }

    /// Which calls are governed and how each is decided, in the module's order.
    #[test]
    fn each_governed_call_is_decided_and_anything_else_is_not_recorded() {
        let tree = tree();
        let approvals = Approvals::default();
        let (protected, agent_tools) = (["okrs".to_owned()], ["Workflow".to_owned()]);
        let facts = ToolFacts {
            session: "s",
            cwd: Some("/p"),
            quarantine: None,
            tree: &tree,
            approvals: &approvals,
            now: Timestamp::from_unix_millis(0).unwrap_or_else(|e| panic!("{e}")),
            agent_tools: &agent_tools,
            terms: HarnessTerms::NEUTRAL,
            protected: ProtectedPaths {
                root: Some("/p"),
                paths: &protected,
                held: crate::lineage::HeldNames::NONE,
            },
            resolve: &crate::lineage::NoLinks,
        };
        let quarantined =
            ToolFacts { quarantine: Some(QuarantineInForce { code: "revert_failed", reason: "r" }), ..facts };
        let write = |path: &str| ToolKind::Write { path: path.into() };
        let main = None;
        let a1 = Some(("a1", "planner"));
        /// The call, the facts, the decision and failure code (`None`: not governed), why.
        type Row<'a> = (ToolCall, &'a ToolFacts<'a>, Option<(Decision, Option<Code>)>, &'a str);
        let deny = |code| Some((Decision::Deny, Some(code)));
        let writes =
            |paths: &[&str]| ToolKind::Writes { paths: paths.iter().map(|p| (*p).to_owned()).collect() };
        let rows: [Row<'_>; 17] = [
            (call(main, "shell", ToolKind::Other), &facts, None, "the main session's call: not governed"),
            (call(a1, "read", ToolKind::Other), &facts, None, "a tracked agent's call: the tool rules' turn"),
            (call(main, "read", ToolKind::Other), &quarantined, deny(Code::SessionQuarantined), "quarantine"),
            (
                call(Some(("rogue", "planner")), "read", ToolKind::Other),
                &facts,
                deny(Code::AgentUntracked),
                "an agent that matched no allowed spawn",
            ),
            (
                call(Some(("ghost", "planner")), "read", ToolKind::Other),
                &facts,
                deny(Code::AgentUnknown),
                "an agent nobody started",
            ),
            (
                call(Some(("a1", "coder")), "read", ToolKind::Other),
                &facts,
                deny(Code::AgentTypeMismatch),
                "a type it was not started as",
            ),
            (
                call(main, "shell", ToolKind::HumanVerb { verb: "approve" }),
                &facts,
                deny(Code::HumanVerbDenied),
                "a human verb",
            ),
            (
                call(a1, "write", write("okrs/a.md")),
                &facts,
                deny(Code::ProtectedPathWrite),
                "a protected write",
            ),
            (call(a1, "write", write("src/a.md")), &facts, None, "a write elsewhere: not recorded"),
            (
                call(main, "patch", writes(&["src/a.md", "okrs/b.md"])),
                &facts,
                deny(Code::ProtectedPathWrite),
                "C-5: a patch whose second file is protected",
            ),
            (
                call(a1, "patch", writes(&["/p/okrs/../okrs/c.md"])),
                &facts,
                deny(Code::ProtectedPathWrite),
                "C-5: a patch naming a protected file by a roundabout path",
            ),
            (call(main, "patch", writes(&["src/a.md", "b.md"])), &facts, None, "C-5: a patch elsewhere"),
            (
                call(main, "SendMessage", ToolKind::SendMessage { to: Some("a1".into()) }),
                &facts,
                deny(Code::ApprovalNotActive),
                "a message to an agent under no approval",
            ),
            (
                call(main, "SendMessage", ToolKind::SendMessage { to: None }),
                &facts,
                deny(Code::MessageTargetUnknown),
                "a message to nobody named",
            ),
            (call(main, "Workflow", ToolKind::StartsAgents), &facts, Some((Decision::Allow, None)), "listed"),
            (
                call(main, "Swarm", ToolKind::StartsAgents),
                &facts,
                deny(Code::AgentToolNotAllowed),
                "not listed",
            ),
            (
                call(main, "write", write("okrs/a.md")),
                &quarantined,
                deny(Code::SessionQuarantined),
                "the quarantine first",
            ),
        ];
        for (call, facts, expected, why) in rows {
            let event = check_tool(call, facts);
            let seen = event.as_ref().map(|e| (e.decision, e.failure.as_ref().map(|f| f.code.clone())));
            assert_eq!(seen, expected, "{why}");
        }
        let message =
            check_tool(call(main, "SendMessage", ToolKind::SendMessage { to: Some("a1".into()) }), &facts);
        assert_eq!(message.and_then(|e| e.target).as_deref(), Some("a1"), "the target is recorded");
    }

    #[test]
    fn a_deny_stands_unrecorded_and_an_allow_unrecorded_is_a_deny_at_audit() {
        let quarantine =
            HookFailure::new("quarantine", Code::SessionQuarantined, "Agent Warden denied this at q");
        let resume = HookFailure::new("resume", Code::ApprovalNotActive, "r");
        let unrecorded = HookAnswer::deny(HookFailure::unrecorded("disk full").describe());
        /// Failure, recorded, the answer, why.
        type Row = (Option<HookFailure>, Result<(), FactError>, HookAnswer, &'static str);
        let rows: [Row; 5] = [
            (None, Ok(()), HookAnswer::Proceed, "an allow recorded"),
            (None, Err("disk full".into()), unrecorded, "an allow not recorded"),
            (
                Some(quarantine.clone()),
                Ok(()),
                HookAnswer::deny(&quarantine.reason),
                "its reason says it all",
            ),
            (Some(resume.clone()), Ok(()), HookAnswer::deny(resume.describe()), "a deny names its stage"),
            (
                Some(resume.clone()),
                Err("x".into()),
                HookAnswer::deny(resume.describe()),
                "a deny unrecorded stands",
            ),
        ];
        for (failure, recorded, expected, why) in rows {
            assert_eq!(tool_answer(failure.as_ref(), recorded), expected, "{why}");
        }
    }
}
