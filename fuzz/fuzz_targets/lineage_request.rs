//! Lineage and tool-call requests against fixed manifests: never a panic, and never an allow
//! unless a reference walk (root at depth 0, consecutive depths, unique ids, can_spawn, max
//! depth; for a tool call, every agent in the lineage may use the tool) holds.
#![no_main]

use std::collections::{HashMap, HashSet};

use agentwarden_domain::lineage::{
    AgentIdentifier, Manifest, Manifests, ToolRule, LineageRequest, ToolCallRequest, authorize, granted,
    walk,
};
use agentwarden_domain::governance::Name;
use agentwarden_domain::verdict::Decision;
use libfuzzer_sys::fuzz_target;

fn rules(texts: &[&str]) -> agentwarden_domain::lineage::ToolRuleSet {
    texts.iter().map(|t| ToolRule::parse(t).expect("a valid rule")).collect()
}

fn manifests() -> Manifests {
    let name = |s: &str| Name::new(s).expect("a valid name");
    let mut m: Manifests = HashMap::new();
    m.insert(name("orchestrator"), Manifest { can_spawn: vec![name("coder"), name("researcher")], max_spawn_depth: 3, tools: rules(&["read", "write"]) });
    m.insert(name("coder"), Manifest { can_spawn: vec![name("researcher")], max_spawn_depth: 2, tools: rules(&["read", "write"]) });
    m.insert(name("researcher"), Manifest { can_spawn: vec![], max_spawn_depth: 3, tools: rules(&["read"]) });
    m
}

fn reference_walk(lineage: &[AgentIdentifier], m: &Manifests) -> bool {
    let Some(root) = lineage.first() else { return true };
    let mut ids = HashSet::new();
    ids.insert(root.id.clone());
    root.spawn_depth == 0
        && lineage.windows(2).all(|pair| {
            let (parent, child) = (&pair[0], &pair[1]);
            let Some(manifest) = m.get(&parent.agent_type) else { return false };
            ids.insert(child.id.clone())
                && child.spawn_depth == parent.spawn_depth + 1
                && child.spawn_depth <= manifest.max_spawn_depth
                && manifest.can_spawn.contains(&child.agent_type)
        })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let m = manifests();
    if let Ok(request) = LineageRequest::from_json(text) {
        let verdict = walk(&request.lineage, &m);
        if verdict.verdict.passed() {
            assert!(reference_walk(&request.lineage, &m), "walk allowed: {text}");
        }
    }
    if let Ok(request) = ToolCallRequest::from_json(
        text,
        "/project",
        agentwarden_claude_code::wire::rules_as,
        &agentwarden_domain::lineage::NoLinks,
    ) {
        let authorization = authorize(&request.call, &m);
        if authorization.decision == Decision::Allow {
            let call = &request.call;
            let may = |a: &AgentIdentifier| m.get(&a.agent_type).is_some_and(|x| granted(x.tools.rules(), &call.tool));
            assert!(may(&call.agent), "capability: {text}");
            assert!(call.lineage.iter().all(may), "delegation: {text}");
            assert!(reference_walk(&call.lineage, &m), "lineage: {text}");
        }
    }
});
