//! The layered enforcement pipeline for a tool call by an agent with a lineage.
//!
//! Three ordered layers, every one evaluated, the first failure named, and the decision made in
//! one exhaustive `match` that defaults to deny:
//!
//! 1. **capability** — the acting agent's manifest lists the tool;
//! 2. **delegation** — every ancestor's manifest lists it too: capabilities only narrow down a
//!    lineage, so an agent cannot escape a restriction by delegating to a child that lacks it;
//! 3. **lineage** — the [walker](super::walk) allows the chain.
//!
//! The lineage lists the agents from the root to the acting agent (L-1); when it is not empty,
//! its last entry must be the acting agent itself. An empty lineage means a top-level agent.

use serde::{Deserialize, Serialize};

use super::model::{AgentIdentifier, Manifest, Manifests};
use super::walk::{LineageVerdict, Pair, walk_with};
use crate::governance::show;
use crate::verdict::{Code, Decision, Failed, Verdict};

/// A tool call to authorize.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolCall {
    /// The agent making the call.
    pub agent: AgentIdentifier,
    /// Root → acting agent (empty: a top-level agent).
    pub lineage: Vec<AgentIdentifier>,
    /// The tool asked for, with what its rules compare (T-2).
    pub tool: super::tool_use::ToolUse,
}

/// The layers, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Layer {
    /// 1: the agent's own manifest.
    Capability,
    /// 2: every ancestor's manifest.
    Delegation,
    /// 3: the lineage walk.
    Lineage,
}

impl Layer {
    /// The layers in evaluation order.
    pub const ORDER: [Layer; 3] = [Layer::Capability, Layer::Delegation, Layer::Lineage];

    /// 1, 2 or 3.
    pub fn number(self) -> u8 {
        match self {
            Layer::Capability => 1,
            Layer::Delegation => 2,
            Layer::Lineage => 3,
        }
    }
}

/// One layer's outcome.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "LayerResultFields")]
pub struct LayerResult {
    /// 1, 2 or 3.
    pub layer: u8,
    /// Which layer.
    pub name: Layer,
    /// Pass or fail.
    #[serde(flatten)]
    pub verdict: Verdict,
}

/// [`LayerResult`] as stored, read field by field (without `flatten`'s buffering).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LayerResultFields {
    layer: u8,
    name: Layer,
    passed: bool,
    code: Option<Code>,
    reason: std::borrow::Cow<'static, str>,
}

impl TryFrom<LayerResultFields> for LayerResult {
    type Error = crate::verdict::VerdictShapeError;

    fn try_from(f: LayerResultFields) -> Result<Self, Self::Error> {
        Ok(LayerResult {
            layer: f.layer,
            name: f.name,
            verdict: Verdict::from_parts(f.passed, f.code, f.reason)?,
        })
    }
}

/// The first failing layer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LayerFailure {
    /// 1, 2 or 3.
    pub layer: u8,
    /// Which layer.
    pub name: Layer,
    /// Stable code.
    pub code: Code,
    /// Why.
    pub reason: std::borrow::Cow<'static, str>,
}

/// The pipeline's answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Authorization {
    /// Allow or deny.
    pub decision: Decision,
    /// Every layer, in order.
    pub layers: Vec<LayerResult>,
    /// The first failure, if any.
    pub first_failure: Option<LayerFailure>,
    /// The lineage pair the walker blamed, if it did.
    pub pair: Option<Pair>,
}

fn capability(call: &ToolCall, manifest: Option<&Manifest>) -> Verdict {
    let agent = &call.agent;
    // Where a path lands cannot be said: no rule can grant it (T-17).
    if let Some(why) = call.tool.unplaced() {
        return Verdict::fail(Code::PathUnresolvable, format!("{}: {why}", show(&call.tool.to_string())));
    }
    // A write to a held name, a command naming a path outside the tree: no rule grants it
    // (T-18 … T-20).
    if let Some(why) = call.tool.held() {
        return Verdict::fail(Code::ProtectedPathWrite, format!("{}: {why}", show(&call.tool.to_string())));
    }
    match manifest {
        None => Verdict::fail(Code::UnknownAgent, format!("agent type {} has no manifest", agent.agent_type)),
        Some(m) => match m.tools.missing(&call.tool) {
            None => Verdict::pass("the agent's manifest grants the tool"),
            Some(missing) => Verdict::fail(
                Code::ToolNotAllowed,
                format!("{}'s manifest has no rule granting {}", agent.agent_type, shown(&missing)),
            ),
        },
    }
}

/// The part of a call a manifest lacks, in rule syntax; for a call that names a path Warden
/// cannot resolve, why (T-13).
fn shown(missing: &super::tool_use::ToolUse) -> String {
    match missing.unresolved() {
        Some(why) => format!("{} (its path is not resolved: {why})", show(&missing.to_string())),
        None => show(&missing.to_string()),
    }
}

/// `ancestors`: the lineage without the acting agent at its end, each with its manifest.
fn delegation<'m>(
    call: &ToolCall,
    ancestors: impl Iterator<Item = (&'m AgentIdentifier, Option<&'m Manifest>)>,
) -> Verdict {
    for (ancestor, manifest) in ancestors {
        match manifest {
            None => {
                let why =
                    format!("ancestor {} ({}) has no manifest", show(&ancestor.id), ancestor.agent_type);
                return Verdict::fail(Code::UnknownAncestor, why);
            }
            Some(m) => {
                if let Some(missing) = m.tools.missing(&call.tool) {
                    let why = format!(
                        "ancestor {} ({}) has no rule granting {}: a child cannot gain it by being spawned",
                        show(&ancestor.id),
                        ancestor.agent_type,
                        shown(&missing)
                    );
                    return Verdict::fail(Code::AncestorLacksTool, why);
                }
            }
        }
    }
    Verdict::pass("every ancestor's manifest grants the tool")
}

fn lineage<'m>(
    call: &ToolCall,
    manifest_of: impl Fn(usize, &AgentIdentifier) -> Option<&'m Manifest>,
) -> LineageVerdict {
    match call.lineage.last() {
        Some(last) if *last != call.agent => LineageVerdict {
            verdict: Verdict::fail(
                Code::AgentNotLast,
                format!(
                    "the lineage ends with {}, not with the acting agent {}",
                    show(&last.id),
                    show(&call.agent.id)
                ),
            ),
            pair: None,
        },
        _ => walk_with(&call.lineage, manifest_of),
    }
}

/// The one place the decision is made. Adding a layer breaks this match until it is combined.
fn decide(capability: &Verdict, delegation: &Verdict, lineage: &Verdict) -> Decision {
    match (capability.passed(), delegation.passed(), lineage.passed()) {
        (true, true, true) => Decision::Allow,
        (false, _, _) | (_, false, _) | (_, _, false) => Decision::Deny,
    }
}

/// Runs every layer and combines them. Pure: the same call gives the same answer.
pub fn authorize(call: &ToolCall, manifests: &Manifests) -> Authorization {
    // Each agent of the lineage has its manifest looked up once, for every layer that
    // reads it; the acting agent, when the lineage ends with it, is that last agent (T-12).
    let resolved: Vec<Option<&Manifest>> =
        call.lineage.iter().map(|agent| manifests.get(&agent.agent_type)).collect();
    let ends_with_agent = call.lineage.last() == Some(&call.agent);
    let own = match resolved.last() {
        Some(manifest) if ends_with_agent => *manifest,
        _ => manifests.get(&call.agent.agent_type),
    };
    // The ancestors: the lineage without the acting agent at its end.
    let ancestors = call.lineage.len().saturating_sub(usize::from(ends_with_agent));
    let manifest_of = |at: usize, agent: &AgentIdentifier| match resolved.get(at) {
        Some(manifest) => *manifest,
        None => manifests.get(&agent.agent_type),
    };
    let capability = capability(call, own);
    let delegation = delegation(call, call.lineage.iter().zip(resolved.iter().copied()).take(ancestors));
    let LineageVerdict { verdict: lineage, pair } = lineage(call, manifest_of);
    let decision = decide(&capability, &delegation, &lineage);
    let layers: Vec<LayerResult> = Layer::ORDER
        .into_iter()
        .zip([capability, delegation, lineage])
        .map(|(name, verdict)| LayerResult { layer: name.number(), name, verdict })
        .collect();
    let first_failure = layers.iter().find_map(|l| match &l.verdict {
        Verdict::Pass { .. } => None,
        Verdict::Fail { code, reason } => {
            Some(LayerFailure { layer: l.layer, name: l.name, code: code.clone(), reason: reason.clone() })
        }
    });
    Authorization { decision, layers, first_failure, pair }
}

/// The answer for a request that could not be read: every layer fails with `failed`.
pub fn refuse(failed: &Failed) -> Authorization {
    let layers: Vec<LayerResult> = Layer::ORDER
        .into_iter()
        .map(|name| LayerResult { layer: name.number(), name, verdict: failed.clone().into() })
        .collect();
    let first_failure = layers.first().map(|l| LayerFailure {
        layer: l.layer,
        name: l.name,
        code: failed.code.clone(),
        reason: failed.reason.clone(),
    });
    Authorization { decision: Decision::Deny, layers, first_failure, pair: None }
}
