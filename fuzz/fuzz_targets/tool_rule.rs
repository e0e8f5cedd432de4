//! Tool rules (T-1 … T-8): any rule text against any Claude Code tool call. Never a panic; a
//! rule with a specifier never grants a Bash line that runs more than one command; a rule
//! never grants a tool it does not name (or its family).
#![no_main]

use agentwarden_claude_code::wire::rules_as;
use agentwarden_domain::lineage::{Argument, RulesAs, ToolRule, ToolUse};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    // rule \0 tool \0 input-json
    let mut parts = text.splitn(3, '\0');
    let (Some(rule), Some(tool), Some(input)) = (parts.next(), parts.next(), parts.next()) else { return };
    let Ok(rule) = ToolRule::parse(rule) else { return };
    let input: serde_json::Value = serde_json::from_str(input).unwrap_or(serde_json::Value::Null);
    let RulesAs::Call { tool: read, argument } = rules_as(tool, &input) else { return };
    let call = ToolUse::resolve(&read, &argument, "/p/sub", "/p", &agentwarden_domain::lineage::NoLinks);
    let granted = rule.grants(&call);
    let shown = call.to_string();
    assert!(!shown.is_empty() || tool.is_empty());
    if granted && rule.as_str().contains('(') {
        assert!(!matches!(call.argument, Argument::Compound(_)), "{rule} granted a compound line");
    }
    if granted {
        let name = rule.as_str().split('(').next().unwrap_or_default();
        let family: &[&str] = match name {
            "Edit" => &["Edit", "Write", "MultiEdit", "NotebookEdit"],
            "Read" => &["Read", "Grep", "Glob"],
            "Agent" | "Task" => &["Agent", "Task"],
            _ => &[],
        };
        let server = name.strip_prefix("mcp__").map(|s| s.trim_end_matches("__*"));
        assert!(
            name == tool
                || family.contains(&tool)
                || server.is_some_and(|s| tool.starts_with(&format!("mcp__{s}__"))),
            "{rule} granted {tool}"
        );
    }
});
