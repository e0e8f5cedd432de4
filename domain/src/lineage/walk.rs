//! The lineage walker (spec 003, L-1 … L-4): may this chain of agents exist?
//!
//! For each consecutive parent → child pair, in order from the root (L-1): the child's id has
//! not appeared before (L-3); the parent's manifest is known; the child's depth is the parent's
//! plus one (L-2); it does not exceed the parent's `max_spawn_depth`; and the parent's
//! `can_spawn` lists the child's type. The first broken pair is named with its rule (L-4).
//! No lineage, an empty one, or a single agent: allowed (spec 003).
//!
//! Beyond the spec (fail closed, as L-2): the root's `spawn_depth` must be 0 — a lineage starts
//! at the root, and a root that claims a depth could start a consecutive chain anywhere.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use super::model::{AgentIdentifier, Manifest, Manifests};
use crate::governance::show;
use crate::verdict::{Code, Verdict};

/// Positions (0-based, from the root) of the parent and the child that broke a rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pair {
    /// The parent's position.
    pub parent: usize,
    /// The child's position.
    pub child: usize,
}

/// The walker's answer: a verdict (its code is the rule broken) and the failing pair.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "LineageVerdictFields")]
pub struct LineageVerdict {
    /// Pass or fail, with the rule's code and a reason.
    #[serde(flatten)]
    pub verdict: Verdict,
    /// The pair that broke it, if a pair did.
    pub pair: Option<Pair>,
}

/// [`LineageVerdict`] as stored, read field by field: `flatten` buffers every field first, which
/// made decoding the most expensive step of a replay.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LineageVerdictFields {
    passed: bool,
    code: Option<crate::verdict::Code>,
    reason: std::borrow::Cow<'static, str>,
    pair: Option<Pair>,
}

impl TryFrom<LineageVerdictFields> for LineageVerdict {
    type Error = crate::verdict::VerdictShapeError;

    fn try_from(f: LineageVerdictFields) -> Result<Self, Self::Error> {
        Ok(LineageVerdict { verdict: Verdict::from_parts(f.passed, f.code, f.reason)?, pair: f.pair })
    }
}

impl LineageVerdict {
    fn pass(reason: std::borrow::Cow<'static, str>) -> Self {
        LineageVerdict { verdict: Verdict::pass(reason), pair: None }
    }

    fn fail(code: Code, pair: Option<Pair>, reason: String) -> Self {
        LineageVerdict { verdict: Verdict::fail(code, reason), pair }
    }
}

/// Lineages up to this length check for repeated ids by scanning; longer ones use a set.
const SCAN_LIMIT: usize = 32;

fn describe(agent: &AgentIdentifier) -> String {
    format!("{} ({} at depth {})", show(&agent.id), agent.agent_type, agent.spawn_depth)
}

/// Walks `lineage` (root first) against `manifests`.
pub fn walk(lineage: &[AgentIdentifier], manifests: &Manifests) -> LineageVerdict {
    walk_with(lineage, |_, agent| manifests.get(&agent.agent_type))
}

/// [`walk`], with `manifest_of(position, agent)` the manifest of the agent at that position:
/// the pipeline looks each agent's manifest up once for its layers (T-12).
pub(super) fn walk_with<'m>(
    lineage: &[AgentIdentifier],
    manifest_of: impl Fn(usize, &AgentIdentifier) -> Option<&'m Manifest>,
) -> LineageVerdict {
    let Some(root) = lineage.first() else {
        return LineageVerdict::pass("no lineage: a top-level agent".into());
    };
    if root.spawn_depth != 0 {
        return LineageVerdict::fail(
            Code::RootDepthNotZero,
            None,
            format!("the root {} must be at depth 0", describe(root)),
        );
    }
    let mut seen: HashSet<&str> = HashSet::new();
    if lineage.len() > SCAN_LIMIT {
        seen.reserve(lineage.len());
        seen.insert(&root.id);
    }
    for (index, pair) in lineage.windows(2).enumerate() {
        let [parent, child] = pair else { continue };
        let at = Some(Pair { parent: index, child: index + 1 });
        let repeated = if lineage.len() > SCAN_LIMIT {
            !seen.insert(&child.id)
        } else {
            lineage.iter().take(index + 1).any(|earlier| earlier.id == child.id)
        };
        if repeated {
            let why = format!("{} appears twice in the lineage (a cycle)", show(&child.id));
            return LineageVerdict::fail(Code::AgentRepeated, at, why);
        }
        let Some(manifest) = manifest_of(index, parent) else {
            let why = format!("parent {} has no manifest", describe(parent));
            return LineageVerdict::fail(Code::UnknownParent, at, why);
        };
        if parent.spawn_depth.checked_add(1) != Some(child.spawn_depth) {
            let why =
                format!("child {} is not one deeper than its parent {}", describe(child), describe(parent));
            return LineageVerdict::fail(Code::DepthNotConsecutive, at, why);
        }
        if child.spawn_depth > manifest.max_spawn_depth {
            let why = format!(
                "child {} is deeper than {}'s max_spawn_depth {}",
                describe(child),
                parent.agent_type,
                manifest.max_spawn_depth
            );
            return LineageVerdict::fail(Code::DepthExceeded, at, why);
        }
        if !manifest.can_spawn.contains(&child.agent_type) {
            let why = format!("{} may not spawn {} (can_spawn)", parent.agent_type, child.agent_type);
            return LineageVerdict::fail(Code::SpawnNotAllowed, at, why);
        }
    }
    LineageVerdict::pass("every spawn in the lineage is allowed".into())
}
