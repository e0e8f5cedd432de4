//! The two answers a rule-meaning test compares (T-15, T-28): the pinned client's own decision
//! per call, read from stream-json (`tool_result_meta[].permission_decision.decision`), and
//! Warden's, from its matcher as a subagent held to a manifest whose rule set is the one rule
//! (`ToolRule::parse`, the integration's `rules_as`, `ToolUse::resolve_holding` with the harnesses' held names, `ToolRuleSet::grants`).

use std::collections::HashMap;
use std::path::Path;

use agentwarden_adapters::paths::LocalPaths;
use agentwarden_domain::lineage::{RulesAs, ToolRule, ToolRuleSet, ToolUse};
use serde_json::Value;

use super::Run;

/// `@ROOT@` and `@OUT@` replaced in every string of `value`.
pub fn placed(value: &Value, root: &str, out: &str) -> Value {
    match value {
        Value::String(s) => Value::String(s.replace("@ROOT@", root).replace("@OUT@", out)),
        Value::Array(items) => Value::Array(items.iter().map(|v| placed(v, root, out)).collect()),
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), placed(v, root, out))).collect())
        }
        other => other.clone(),
    }
}

/// Claude Code's decision (`accept`, `reject`) per `tool_use_id`, from the `user` events of
/// stream-json.
pub fn client_decisions(run: &Run) -> HashMap<String, String> {
    let mut found = HashMap::new();
    for event in run.events.iter().filter(|e| e.get("type").and_then(Value::as_str) == Some("user")) {
        for meta in event.get("tool_result_meta").and_then(Value::as_array).into_iter().flatten() {
            let id = meta.get("id").and_then(Value::as_str).unwrap_or_default();
            let decision = meta.get("permission_decision").and_then(|d| d.get("decision"));
            if let Some(decision) = decision.and_then(Value::as_str) {
                found.insert(id.to_owned(), decision.to_owned());
            }
        }
    }
    found
}

/// Warden's decision: the rule as a manifest holds it (`Err`: refused at load, which grants
/// nothing), the call as the hook builds it from the same input and working directory.
pub fn warden_grants(rule: &str, tool: &str, input: &Value, cwd: &Path, root: &Path) -> Result<bool, String> {
    let rule = ToolRule::parse(rule).map_err(|e| format!("refused at load: {e}"))?;
    let use_ = match agentwarden_claude_code::wire::rules_as(tool, input) {
        RulesAs::Call { tool, argument } => {
            let (cwd, root) = (cwd.to_string_lossy(), root.to_string_lossy());
            ToolUse::resolve_holding(
                &tool,
                &argument,
                &cwd,
                &root,
                &LocalPaths,
                agentwarden::HARNESS_HELD_NAMES,
            )
        }
        RulesAs::Unknown => return Ok(false),
    };
    Ok(ToolRuleSet::new(vec![rule]).grants(&use_))
}
