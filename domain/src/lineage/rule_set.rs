//! A manifest's rules as a set: indexed by tool name for the three layers, and compared with
//! the tools the harness offers an agent (`warden doctor`).

use super::patterns::Lead;
use super::rules::{ToolName, ToolRule};
use super::syntax::AGENT_FAMILY;
use super::tool_use::{Argument, ToolUse};

/// Where a manifest's rules and the tools the harness offers an agent (its definition's
/// `tools:` list) disagree (issue 24, `warden doctor`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Disagreement {
    /// Tools the harness offers that no rule names: every call of them is denied.
    pub offered_not_granted: Vec<String>,
    /// Rules about tools the harness does not offer: they never apply.
    pub granted_not_offered: Vec<String>,
}

/// Compares `rules` with `offered` (tool names as a `tools:` list writes them). MCP rules are
/// not compared (a definition need not list MCP tools one by one), nor are `Agent`/`Task`:
/// spawns are governed by `can_spawn` and the gate, not by tool rules (T-9).
pub fn compare_offered(rules: &[ToolRule], offered: &[String]) -> Disagreement {
    let offered_not_granted = offered
        .iter()
        .filter(|tool| !AGENT_FAMILY.contains(&tool.as_str()))
        .filter(|tool| !rules.iter().any(|r| r.names_tool(tool)))
        .cloned()
        .collect();
    let granted_not_offered = rules
        .iter()
        .filter(|r| !matches!(r.tool, ToolName::McpServer(_)) && !r.text.starts_with("mcp__"))
        .filter(|r| !offered.iter().any(|tool| r.names_tool(tool)))
        .map(|r| r.text.clone())
        .collect();
    Disagreement { offered_not_granted, granted_not_offered }
}

/// A manifest's rules, indexed by the tool each names, so that a call is compared only with
/// the rules about its tool (a lookup, then those few), not with every rule of the manifest.
/// T-12: a Bash command pattern is indexed with the first bytes of every command it grants
/// (`Lead`), so that of the rules about Bash, only those whose first bytes the command
/// shares are matched: one comparison of a word skips each of the others.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToolRuleSet {
    rules: Vec<ToolRule>,
    /// Tool name → the rules that name it (a family rule under each member).
    by_tool: std::collections::HashMap<String, Vec<Candidate>, Fnv>,
    /// The rules about a whole MCP server.
    mcp: Vec<usize>,
}

impl ToolRuleSet {
    /// The set of `rules`, in their order.
    pub fn new(rules: Vec<ToolRule>) -> ToolRuleSet {
        let mut set =
            ToolRuleSet { rules: Vec::new(), by_tool: std::collections::HashMap::default(), mcp: Vec::new() };
        for (i, rule) in rules.iter().enumerate() {
            let candidate = Candidate { rule: i, lead: rule.command_lead() };
            match &rule.tool {
                ToolName::Exact(name) => set.by_tool.entry(name.clone()).or_default().push(candidate),
                ToolName::Family(family) => {
                    for member in *family {
                        set.by_tool.entry((*member).to_owned()).or_default().push(candidate);
                    }
                }
                ToolName::McpServer(_) => set.mcp.push(i),
            }
        }
        set.rules = rules;
        set
    }

    /// The rules, as written.
    pub fn rules(&self) -> &[ToolRule] {
        &self.rules
    }

    /// No rules: nothing is granted.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// Whether a rule of the set grants `call`: the same answer as [`granted`] over
    /// [`ToolRuleSet::rules`] (property-tested).
    pub fn grants(&self, call: &ToolUse) -> bool {
        self.missing(call).is_none()
    }

    /// The part of `call` no rule of the set grants: the call itself, or, for a call that names
    /// several paths, the first path no rule grants (T-14); `None` when the set grants it. Each
    /// path may be granted by a different rule.
    pub fn missing(&self, call: &ToolUse) -> Option<ToolUse> {
        call.missing(|part| self.grants_one(part))
    }

    /// Whether a rule of the set grants `call`, a call with one argument.
    fn grants_one(&self, call: &ToolUse) -> bool {
        // A few rules are read faster one by one than through a lookup.
        if self.rules.len() <= SCAN_BELOW {
            return self.rules.iter().any(|rule| rule.grants(call));
        }
        // The index holds only rules that name the call's tool; a rule with a lead grants only
        // a command that starts with it.
        let lead = match &call.argument {
            Argument::Command(command) => Some(Lead::of(command)),
            _ => None,
        };
        let named = |c: &Candidate| match c.lead {
            Some(wanted) if !lead.is_some_and(|seen| wanted.admits(seen)) => false,
            _ => self.rules.get(c.rule).is_some_and(|r| r.specifier_grants(call)),
        };
        let rule = |i: &usize| self.rules.get(*i).is_some_and(|r| r.grants(call));
        self.by_tool.get(call.tool.as_str()).is_some_and(|ids| ids.iter().any(named))
            || (call.tool.starts_with("mcp__") && self.mcp.iter().any(rule))
    }
}

/// A rule of the index: its position, and for a Bash command pattern the first bytes of every
/// command it grants (T-12).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Candidate {
    rule: usize,
    lead: Option<Lead>,
}

/// Sets of at most this many rules are scanned rather than looked up.
const SCAN_BELOW: usize = 8;

/// FNV-1a: tool names are short, and the table is built from the manifests (the caller's
/// configuration); a call only looks a name up, so no input of the agent's can grow a bucket.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Fnv;

/// [`Fnv`]'s hasher.
#[derive(Clone, Copy, Debug)]
pub(super) struct FnvHasher(u64);

impl std::hash::BuildHasher for Fnv {
    type Hasher = FnvHasher;
    fn build_hasher(&self) -> FnvHasher {
        FnvHasher(0xcbf2_9ce4_8422_2325)
    }
}

impl std::hash::Hasher for FnvHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.0 = (self.0 ^ u64::from(*byte)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

impl From<Vec<ToolRule>> for ToolRuleSet {
    fn from(rules: Vec<ToolRule>) -> Self {
        ToolRuleSet::new(rules)
    }
}

impl FromIterator<ToolRule> for ToolRuleSet {
    fn from_iter<I: IntoIterator<Item = ToolRule>>(rules: I) -> Self {
        ToolRuleSet::new(rules.into_iter().collect())
    }
}

/// Whether `rules` grant `call`: any of them, or for a call that names several paths, any of
/// them each path (T-14).
pub fn granted(rules: &[ToolRule], call: &ToolUse) -> bool {
    call.missing(|part| rules.iter().any(|rule| rule.grants(part))).is_none()
}
