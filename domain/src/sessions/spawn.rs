//! A spawn of a subagent, decided (H-20, H-23): given the gate's report, the
//! session's spawn tree and the manifests as sealed, the `subagent_spawn_evaluated` event, and
//! the answer it becomes once recorded.

use super::answer::HookAnswer;
use super::events::{HookFailure, SpawnEvaluated};
use super::reasons::in_user_terms;
use super::request::{SpawnRequest, requested_result_path};
use super::state::SpawnTree;
use super::terms::HarnessTerms;
use crate::fact::FactError;
use crate::governance::{GateReport, Name};
use crate::lineage::{LineageVerdict, Manifests, walk};
use crate::verdict::{Code, Decision, Failed, Verdict};

/// What a spawn is decided with, read by the application beforehand.
#[derive(Debug)]
pub struct SpawnFacts<'a> {
    /// The configured main persona: the main session's type, the lineage's root.
    pub main_persona: &'a str,
    /// The configured `builtin_agents`: the harness's built-in agent types allowed (H-20).
    pub builtin_agents: &'a [String],
    /// The harness's words in the reasons.
    pub terms: HarnessTerms<'a>,
    /// The session's spawn tree.
    pub tree: &'a SpawnTree,
    /// The gate's report on the spawn, its persona [`SpawnRequest::persona`].
    pub gate: GateReport,
    /// The manifests as sealed (T-11), or why they could not be read.
    pub manifests: Result<&'a Manifests, FactError>,
}

impl SpawnRequest {
    /// The persona the gate judges the spawn for: the calling subagent's type, or the main
    /// session's (`main_persona`).
    pub fn persona<'a>(&'a self, main_persona: &'a str) -> &'a str {
        self.caller.as_ref().map_or(main_persona, |c| c.agent_type.as_str())
    }
}

/// A built-in agent type (the request's `builtin`, as the integration read it) has no
/// instruction file of the project's; it is refused unless `allowed` (the configured
/// `builtin_agents`) lists it (and then the gate still needs its registration) (H-20).
pub fn builtin_failure(
    request: &SpawnRequest,
    allowed: &[String],
    terms: HarnessTerms<'_>,
) -> Option<HookFailure> {
    let subagent_type = request.subagent_type.as_str();
    let refused = request.builtin && !allowed.iter().any(|a| a == subagent_type);
    refused.then(|| {
        let HarnessTerms { harness, section } = terms;
        HookFailure::new(
            "spawn",
            Code::BuiltinAgentDenied,
            format!(
                "`{subagent_type}` is a built-in {harness} agent type; list it in `[{section}] builtin_agents` \
                 to allow it"
            ),
        )
    })
}

/// The spawn's decision: an allow only when the gate allows and nothing failed. The first
/// failure named is, in this order: who is asking (an unknown, untracked or mistyped caller,
/// whatever the gate found with its claimed type as the persona), a built-in type not allowed,
/// the gate's first failure (in the user's terms, N-7), the lineage walk's.
pub fn evaluate_spawn(request: &SpawnRequest, facts: SpawnFacts<'_>) -> SpawnEvaluated {
    let SpawnFacts { main_persona, builtin_agents, terms, tree, gate, manifests } = facts;
    let mut identity_failure = None;
    let (lineage, lineage_agents) = match Name::new(main_persona) {
        Err(e) => (failed_walk(Failed::new(Code::InvalidName, e.to_string())), Vec::new()),
        Ok(main) => {
            match tree.lineage(&main, request.caller.as_ref(), &request.subagent_type, &request.tool_use_id) {
                Err(failed) => {
                    identity_failure =
                        Some(HookFailure::new("lineage", failed.code.clone(), failed.reason.clone()));
                    (failed_walk(failed), Vec::new())
                }
                Ok(chain) => match manifests {
                    Ok(manifests) => (walk(&chain, manifests), chain),
                    Err(e) => (
                        failed_walk(Failed::new(Code::ManifestsUnavailable, format!("manifests: {e}"))),
                        chain,
                    ),
                },
            }
        }
    };
    let gate_failure = gate.first_failure.as_ref().map(|f| {
        let stage = format!("gate: {}", f.gate.as_str());
        HookFailure::new(stage, f.code.clone(), in_user_terms(f.gate.as_str(), &f.code, &f.reason))
    });
    let lineage_failure = match &lineage.verdict {
        Verdict::Pass { .. } => None,
        Verdict::Fail { code, reason } => Some(HookFailure::new("lineage", code.clone(), reason.clone())),
    };
    let builtin = builtin_failure(request, builtin_agents, terms);
    let first_failure = identity_failure.or(builtin).or(gate_failure).or(lineage_failure);
    let decision = match (&gate.decision, &first_failure) {
        (Decision::Allow, None) => Decision::Allow,
        _ => Decision::Deny,
    };
    SpawnEvaluated {
        tool_use_id: request.tool_use_id.clone(),
        tool_name: request.tool_name.clone(),
        agent_id: request.caller.as_ref().map(|c| c.agent_id.clone()),
        persona: request.persona(main_persona).to_owned(),
        subagent_type: request.subagent_type.clone(),
        decision,
        first_failure,
        gate,
        lineage,
        lineage_agents,
        result_path: requested_result_path(&request.prompt),
    }
}

fn failed_walk(failed: Failed) -> LineageVerdict {
    LineageVerdict { verdict: failed.into(), pair: None }
}

/// The answer to a spawn whose first failure is `first_failure`, once its event was appended
/// (`recorded`: `Ok`) or not (`Err`, why): a deny with the first failure; an allow proceeds
/// (the harness's own permission flow goes on), unless it could not be recorded — then a deny
/// at `audit`, as is any spawn unrecorded.
pub fn spawn_answer(first_failure: Option<&HookFailure>, recorded: Result<(), FactError>) -> HookAnswer {
    match (recorded, first_failure) {
        (Err(e), _) => HookAnswer::deny(HookFailure::unrecorded(&e).describe()),
        (Ok(()), Some(f)) => HookAnswer::deny(f.describe()),
        (Ok(()), None) => HookAnswer::Proceed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_builtin_type_is_refused_unless_listed() {
        let listed = ["Explore".to_owned()];
        let spawn = |subagent_type: &str, builtin| SpawnRequest {
            tool_name: "spawn".into(),
            tool_use_id: "t1".into(),
            subagent_type: subagent_type.into(),
            builtin,
            prompt: String::new(),
            caller: None,
        };
        let terms = HarnessTerms { harness: "Some Harness", section: "some_harness" };
        let refused = builtin_failure(&spawn("general-purpose", true), &listed, terms);
        assert_eq!(refused.as_ref().map(|f| f.code.clone()), Some(Code::BuiltinAgentDenied));
        assert_eq!(
            refused.map(|f| f.reason),
            Some(
                "`general-purpose` is a built-in Some Harness agent type; list it in `[some_harness] \
                 builtin_agents` to allow it"
                    .to_owned()
            ),
            "the harness's words"
        );
        assert_eq!(builtin_failure(&spawn("Explore", true), &listed, terms), None, "listed");
        assert_eq!(builtin_failure(&spawn("planner", false), &[], terms), None, "a project's own type");
    }

    #[test]
    fn a_spawn_proceeds_only_when_allowed_and_recorded() {
        let deny = HookFailure::new("gate: environment", Code::EnvNotEnabled, "r");
        /// First failure, recorded, the answer, why.
        type Row = (Option<HookFailure>, Result<(), FactError>, HookAnswer, &'static str);
        let rows: [Row; 4] = [
            (None, Ok(()), HookAnswer::Proceed, "allowed and recorded"),
            (Some(deny.clone()), Ok(()), HookAnswer::deny(deny.describe()), "denied and recorded"),
            (
                None,
                Err("disk full".into()),
                HookAnswer::deny(HookFailure::unrecorded("disk full").describe()),
                "an allow not recorded is a deny",
            ),
            (
                Some(deny),
                Err("disk full".into()),
                HookAnswer::deny(HookFailure::unrecorded("disk full").describe()),
                "a deny not recorded names the audit",
            ),
        ];
        for (first_failure, recorded, expected, why) in rows {
            assert_eq!(spawn_answer(first_failure.as_ref(), recorded), expected, "{why}");
        }
    }

    fn evaluated() -> SpawnEvaluated {
        let request = SpawnRequest {
            tool_use_id: "t1".into(),
            tool_name: "spawn".into(),
            subagent_type: "planner".into(),
            builtin: false,
            prompt: String::new(),
            caller: None,
        };
        let facts = SpawnFacts {
            main_persona: "main",
            builtin_agents: &[],
            terms: HarnessTerms::NEUTRAL,
            tree: &SpawnTree::default(),
            gate: super::super::tests::report(),
            manifests: Err("none".into()),
        };
        evaluate_spawn(&request, facts)
    }

    /// Who is asking comes first, then a built-in type, then the gate, then the walk.
    #[test]
    fn the_first_failure_is_the_callers_then_the_builtin_then_the_gates_then_the_walks() {
        let event = evaluated();
        assert_eq!(event.decision, Decision::Deny);
        let first = event.first_failure.as_ref().map(|f| f.stage.as_str());
        assert!(first.is_some_and(|s| s.starts_with("gate: ")), "{first:?}");
        assert_eq!(event.lineage.verdict.code(), Some(&Code::ManifestsUnavailable));
        let request = SpawnRequest {
            tool_use_id: "t1".into(),
            tool_name: "spawn".into(),
            subagent_type: "general-purpose".into(),
            builtin: true,
            prompt: "write out/result.json".into(),
            caller: Some(super::super::CallingAgent { agent_id: "a1".into(), agent_type: "planner".into() }),
        };
        let facts = |tree| SpawnFacts {
            main_persona: "main",
            builtin_agents: &[],
            terms: HarnessTerms::NEUTRAL,
            tree,
            gate: super::super::tests::report(),
            manifests: Err("none".into()),
        };
        let empty = SpawnTree::default();
        let unknown = evaluate_spawn(&request, facts(&empty));
        assert_eq!(unknown.first_failure.map(|f| f.code), Some(Code::AgentUnknown), "the caller first");
        assert_eq!((unknown.persona.as_str(), unknown.agent_id.as_deref()), ("planner", Some("a1")));
        assert_eq!(unknown.result_path.as_deref(), Some("out/result.json"));
        let main = SpawnRequest { caller: None, ..request };
        let builtin = evaluate_spawn(&main, facts(&empty));
        assert_eq!(builtin.first_failure.map(|f| f.code), Some(Code::BuiltinAgentDenied), "then the type");
        assert_eq!(builtin.persona, "main");
    }
}
