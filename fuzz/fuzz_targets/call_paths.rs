//! The paths a file tool's call names (T-13, T-14): any tool and input, read from `/p/src` in
//! project `/p`. Never a panic; a call Warden cannot resolve is granted by no rule with a
//! specifier; a call that `Read(src/**)` and `Edit(src/**)` grant names only paths under
//! `src`, and none of its path inputs starts with `~` or holds `$` or `%`.
#![no_main]

use agentwarden_claude_code::wire::rules_as;
use agentwarden_domain::lineage::{RulesAs, ToolRule, ToolRuleSet, ToolUse};
use libfuzzer_sys::fuzz_target;

const PATH_INPUTS: [&str; 5] = ["file_path", "notebook_path", "path", "pattern", "glob"];

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    // tool \0 input-json
    let Some((tool, input)) = text.split_once('\0') else { return };
    let Ok(input) = serde_json::from_str::<serde_json::Value>(input) else { return };
    let RulesAs::Call { tool: read, argument } = rules_as(tool, &input) else { return };
    let call = ToolUse::resolve(&read, &argument, "/p/src", "/p", &agentwarden_domain::lineage::NoLinks);
    let rules: Vec<ToolRule> =
        ["Read(src/**)", "Edit(src/**)"].iter().filter_map(|r| ToolRule::parse(r).ok()).collect();
    let set = ToolRuleSet::new(rules);
    let granted = set.grants(&call);
    assert_eq!(granted, set.missing(&call).is_none());
    let shown = call.to_string();
    assert!(!shown.is_empty() || tool.is_empty());
    if !granted {
        return;
    }
    assert!(call.unresolved().is_none(), "a rule with a specifier granted {call:?}");
    // Grep's `pattern` is a regular expression, not a path.
    for key in PATH_INPUTS.into_iter().filter(|key| !(tool == "Grep" && *key == "pattern")) {
        if let Some(path) = input.get(key).and_then(serde_json::Value::as_str) {
            assert!(!path.starts_with('~') && !path.contains(['$', '%']), "granted {key} {path:?}");
        }
    }
    // Every part shown is `TOOL(src…)` (checked where no input could spell a part itself).
    if !input.to_string().contains(['(', ')', ',']) {
        for part in shown.split(", ") {
            let inner = part.strip_prefix(&format!("{tool}(")).and_then(|p| p.strip_suffix(')'));
            assert!(
                inner.is_some_and(|p| p == "src" || p.starts_with("src/")),
                "granted {part} of {shown} for {input}"
            );
        }
    }
});
