//! `warden doctor`: the manifests' tool rules against the tools Claude Code offers each agent
//! (issue 24). Where a definition's `tools:` list offers a tool no rule of its type names,
//! every call of it will be denied. Where a rule of a type that spawns nothing names a tool its
//! list does not offer, the rule never applies (a type that spawns needs rules for what its
//! descendants use: delegation, T-9). Both are warnings: the rules are what binds.

use agentwarden::governance::frontmatter::{Value, parse_instruction_file};
use agentwarden::lineage_rules::{Manifests, compare_offered};

use crate::check::Check;
use agentwarden::Config;

/// One check per agent type whose definition has a `tools:` list.
pub fn check_tool_rules(config: &Config, manifests: &Manifests, checks: &mut Vec<Check>) {
    for (name, manifest) in manifests {
        let path = config.subagents.agent_path(name);
        let Ok(text) = agentwarden::files::read_text(None, &path, agentwarden::MAX_INPUT_BYTES) else {
            continue;
        };
        let Some(tools) = parse_instruction_file(&text)
            .ok()
            .and_then(|file| file.frontmatter)
            .and_then(|front| front.get("tools").cloned())
        else {
            continue;
        };
        let offered: Vec<String> = match tools {
            Value::Scalar(s) => {
                s.text.split(',').map(str::trim).filter(|t| !t.is_empty()).map(str::to_owned).collect()
            }
            Value::List(items) => items.into_iter().map(|s| s.text.trim().to_owned()).collect(),
        };
        let mut d = compare_offered(manifest.tools.rules(), &offered);
        if !manifest.can_spawn.is_empty() {
            d.granted_not_offered.clear();
        }
        if d.offered_not_granted.is_empty() && d.granted_not_offered.is_empty() {
            checks
                .push(Check::ok("tool rules", format!("`{name}`: its rules and `{}` agree", path.display())));
            continue;
        }
        let mut said = Vec::new();
        if !d.offered_not_granted.is_empty() {
            said.push(format!(
                "`{}` offers {} but no rule of `{name}` names {}: every call is denied",
                path.display(),
                d.offered_not_granted.join(", "),
                if d.offered_not_granted.len() == 1 { "it" } else { "them" }
            ));
        }
        if !d.granted_not_offered.is_empty() {
            said.push(format!(
                "rules of `{name}` name tools its definition does not offer: {}",
                d.granted_not_offered.join(", ")
            ));
        }
        checks.push(Check::warn(
            "tool rules",
            said.join("; "),
            format!(
                "make `[agents.{name}] tools` in the manifests and the `tools:` line of `{}` agree",
                path.display()
            ),
        ));
    }
}
