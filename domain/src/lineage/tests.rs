//! The spec's nine cases verbatim, L-2, L-3, escalation by delegation, adversarial inputs, and
//! the property: a lineage built to satisfy every manifest is allowed; breaking one link is
//! denied, naming that link and its rule.

use proptest::prelude::*;

use super::*;
use crate::governance::Name;
use crate::verdict::{Code, Decision};

fn name(s: &str) -> Name {
    Name::new(s).unwrap()
}

fn agent(id: &str, agent_type: &str, spawn_depth: u64) -> AgentIdentifier {
    AgentIdentifier { id: id.into(), agent_type: name(agent_type), spawn_depth }
}

fn manifest(can_spawn: &[&str], max_spawn_depth: u64, tools: &[&str]) -> Manifest {
    Manifest {
        can_spawn: can_spawn.iter().map(|s| name(s)).collect(),
        max_spawn_depth,
        tools: tools.iter().map(|s| ToolRule::parse(s).unwrap()).collect(),
    }
}

/// The spec's manifests: an orchestrator that spawns coders and researchers, a coder that
/// spawns researchers, a researcher that spawns nothing.
fn manifests() -> Manifests {
    Manifests::from([
        (name("orchestrator"), manifest(&["coder", "researcher"], 3, &["read", "write", "search"])),
        (name("coder"), manifest(&["researcher"], 2, &["read", "write"])),
        (name("researcher"), manifest(&[], 3, &["read", "search"])),
    ])
}

fn parse_tool_call_at(text: &str) -> Result<ToolCallRequest, crate::verdict::Failed> {
    ToolCallRequest::from_json(text, "/project", |tool, _| super::RulesAs::named(tool), &super::NoLinks)
}

/// A request's input is read by the integration's reading, which names the rule syntax's
/// tool and its argument; a tool it does not know is refused, as the hook grants it by no rule
/// (C-6) (T-16).
#[test]
fn a_requests_input_is_read_by_the_integration() {
    use super::{Argument, CallArgument, RulesAs};
    let text = r#"{"agent": {"id": "a", "type": "coder", "spawn_depth": 1}, "tool": "run", "input": {"x": 1}, "cwd": "/project/src"}"#;
    let read = |tool: &str, input: &serde_json::Value| {
        assert_eq!((tool, input), ("run", &serde_json::json!({"x": 1})), "the reader sees the call");
        RulesAs::Call { tool: "shell".into(), argument: CallArgument::Paths(vec!["a.rs".into()]) }
    };
    let call = ToolCallRequest::from_json(text, "/project", read, &super::NoLinks).unwrap().call;
    assert_eq!(call.tool.tool, "shell", "the syntax's tool, as the reader named it");
    let Argument::Path(path) = &call.tool.argument else { panic!("{:?}", call.tool) };
    assert_eq!(path.in_project(), Some(&["src".to_owned(), "a.rs".to_owned()][..]), "read from the cwd");
    let unknown =
        ToolCallRequest::from_json(text, "/project", |_, _| RulesAs::Unknown, &super::NoLinks).unwrap_err();
    assert_eq!(unknown.code, Code::RequestInvalid);
    assert!(
        unknown.reason.contains("`run` is a tool the harness's integration does not know"),
        "{}",
        unknown.reason
    );
    let without_input = text.replace(r#""input": {"x": 1}, "#, "");
    let named =
        ToolCallRequest::from_json(&without_input, "/project", |_, _| RulesAs::Unknown, &super::NoLinks)
            .unwrap();
    assert_eq!(named.call.tool, super::ToolUse::named("run"), "no input: by its name, the reader unasked");
}

fn code(verdict: &LineageVerdict) -> Option<&str> {
    verdict.verdict.code().map(|c| c.as_str())
}

#[test]
fn spec_case_1_no_lineage_is_allowed() {
    assert!(walk(&[], &manifests()).verdict.passed());
}

#[test]
fn spec_case_2_empty_lineage_is_allowed() {
    let empty: Vec<AgentIdentifier> = Vec::new();
    assert!(walk(&empty, &manifests()).verdict.passed());
}

#[test]
fn spec_case_3_single_agent_lineage_is_allowed() {
    assert!(walk(&[agent("o1", "orchestrator", 0)], &manifests()).verdict.passed());
}

#[test]
fn spec_case_4_valid_two_level_lineage_is_allowed() {
    let lineage = [agent("o1", "orchestrator", 0), agent("r1", "researcher", 1)];
    assert!(walk(&lineage, &manifests()).verdict.passed());
}

#[test]
fn spec_case_5_valid_three_level_lineage_is_allowed() {
    let lineage = [agent("o1", "orchestrator", 0), agent("c1", "coder", 1), agent("r1", "researcher", 2)];
    assert!(walk(&lineage, &manifests()).verdict.passed());
}

#[test]
fn spec_case_6_parent_cannot_spawn_child_type() {
    let lineage = [agent("r1", "researcher", 0), agent("c1", "coder", 1)];
    let verdict = walk(&lineage, &Manifests::from([(name("researcher"), manifest(&[], 5, &[]))]));
    assert_eq!(code(&verdict), Some("spawn_not_allowed"));
    assert_eq!(verdict.pair, Some(Pair { parent: 0, child: 1 }));
}

#[test]
fn spec_case_7_spawn_depth_exceeded() {
    let tight = Manifests::from([(name("orchestrator"), manifest(&["coder"], 0, &[]))]);
    let verdict = walk(&[agent("o1", "orchestrator", 0), agent("c1", "coder", 1)], &tight);
    assert_eq!(code(&verdict), Some("depth_exceeded"));
}

#[test]
fn spec_case_8_unknown_parent_type() {
    let verdict = walk(&[agent("x1", "stranger", 0), agent("c1", "coder", 1)], &manifests());
    assert_eq!(code(&verdict), Some("unknown_parent"));
}

#[test]
fn spec_case_9_mid_chain_violation_names_the_pair() {
    let lineage = [
        agent("o1", "orchestrator", 0),
        agent("c1", "coder", 1),
        agent("r1", "researcher", 2),
        agent("c2", "coder", 3),
    ];
    let verdict = walk(&lineage, &manifests());
    assert_eq!(code(&verdict), Some("spawn_not_allowed"));
    assert_eq!(verdict.pair, Some(Pair { parent: 2, child: 3 }));
    assert!(
        verdict.verdict.reason().contains("researcher may not spawn coder"),
        "{}",
        verdict.verdict.reason()
    );
}

#[test]
fn l2_a_spoofed_depth_is_denied() {
    // The child claims depth 1 under a parent at depth 1, to slip under max_spawn_depth.
    let lineage = [agent("o1", "orchestrator", 0), agent("c1", "coder", 1), agent("r1", "researcher", 1)];
    let verdict = walk(&lineage, &manifests());
    assert_eq!(code(&verdict), Some("depth_not_consecutive"));
    assert_eq!(verdict.pair, Some(Pair { parent: 1, child: 2 }));
    let root = walk(&[agent("o1", "orchestrator", 4)], &manifests());
    assert_eq!(code(&root), Some("root_depth_not_zero"));
}

#[test]
fn l3_an_agent_twice_is_a_cycle() {
    let loops = Manifests::from([(name("coder"), manifest(&["coder"], 10, &[]))]);
    let lineage = [agent("a", "coder", 0), agent("b", "coder", 1), agent("a", "coder", 2)];
    let verdict = walk(&lineage, &loops);
    assert_eq!(code(&verdict), Some("agent_repeated"));
    assert_eq!(verdict.pair, Some(Pair { parent: 1, child: 2 }));
}

#[test]
fn escalation_by_delegation_is_denied_at_layer_2() {
    // A coder may not search; its child researcher may. The coder cannot gain `search` by
    // spawning a researcher.
    let researcher = agent("r1", "researcher", 2);
    let call = ToolCall {
        agent: researcher.clone(),
        lineage: vec![agent("o1", "orchestrator", 0), agent("c1", "coder", 1), researcher],
        tool: "search".into(),
    };
    let auth = authorize(&call, &manifests());
    assert_eq!(auth.decision, Decision::Deny);
    let failure = auth.first_failure.unwrap();
    assert_eq!((failure.layer, failure.code.as_ref()), (2, "ancestor_lacks_tool"));
    assert!(failure.reason.contains("`c1`"), "{}", failure.reason);
    assert!(auth.layers[0].verdict.passed() && auth.layers[2].verdict.passed(), "every layer is evaluated");
}

#[test]
fn a_permitted_tool_call_passes_every_layer() {
    let coder = agent("c1", "coder", 1);
    let call = ToolCall {
        agent: coder.clone(),
        lineage: vec![agent("o1", "orchestrator", 0), coder],
        tool: "write".into(),
    };
    let auth = authorize(&call, &manifests());
    assert_eq!(auth.decision, Decision::Allow);
    assert_eq!(auth.layers.iter().map(|l| l.layer).collect::<Vec<_>>(), [1, 2, 3]);
    assert!(auth.first_failure.is_none());
    let top = ToolCall { agent: agent("o1", "orchestrator", 0), lineage: vec![], tool: "search".into() };
    assert_eq!(authorize(&top, &manifests()).decision, Decision::Allow);
}

#[test]
fn layer_1_and_a_lineage_that_does_not_end_with_the_agent() {
    let call = ToolCall { agent: agent("r1", "researcher", 0), lineage: vec![], tool: "write".into() };
    assert_eq!(authorize(&call, &manifests()).first_failure.unwrap().code, "tool_not_allowed");
    let stranger = ToolCall { agent: agent("x", "stranger", 0), lineage: vec![], tool: "read".into() };
    assert_eq!(authorize(&stranger, &manifests()).first_failure.unwrap().code, "unknown_agent");
    let elsewhere = ToolCall {
        agent: agent("c9", "coder", 1),
        lineage: vec![agent("o1", "orchestrator", 0), agent("c1", "coder", 1)],
        tool: "read".into(),
    };
    let auth = authorize(&elsewhere, &manifests());
    assert_eq!(auth.layers[2].verdict.code().map(|c| c.as_str()), Some("agent_not_last"));
    assert_eq!(auth.decision, Decision::Deny);
}

#[test]
fn adversarial_requests_are_refused_with_a_reason() {
    let cases = [
        (r#"[{"id":"o","type":"orchestrator","spawn_depth":-1}]"#, "request_invalid"),
        (r#"[{"id":"o","type":"orchestrator","spawn_depth":1.5}]"#, "request_invalid"),
        (r#"[{"id":"o","type":"","spawn_depth":0}]"#, "request_invalid"),
        (r#"[{"id":"o","type":"../x","spawn_depth":0}]"#, "request_invalid"),
        (r#"[{"id":"o","type":"orchestrator","spawn_depth":0,"admin":true}]"#, "request_invalid"),
        (r#"[{"id":"o","id":"p","type":"orchestrator","spawn_depth":0}]"#, "duplicate_key"),
        (r#"{"lineage": [], "extra": 1}"#, "request_invalid"),
        ("[", "request_invalid"),
        ("", "request_invalid"),
    ];
    for (text, want) in cases {
        let err = LineageRequest::from_json(text).unwrap_err();
        assert_eq!(err.code, want, "{text}: {}", err.reason);
    }
    let max = format!(
        r#"[{{"id":"o","type":"orchestrator","spawn_depth":0}},{{"id":"c","type":"coder","spawn_depth":{}}}]"#,
        u64::MAX
    );
    let request = LineageRequest::from_json(&max).unwrap();
    assert_eq!(code(&walk(&request.lineage, &manifests())), Some("depth_not_consecutive"));
    let top = format!(r#"[{{"id":"o","type":"orchestrator","spawn_depth":{}}}]"#, u64::MAX);
    assert_eq!(
        code(&walk(&LineageRequest::from_json(&top).unwrap().lineage, &manifests())),
        Some("root_depth_not_zero")
    );
    for bad_tool in [r#""""#, r#""  ""#, r#""a\u0000b""#] {
        let text =
            format!(r#"{{"agent":{{"id":"o","type":"orchestrator","spawn_depth":0}},"tool":{bad_tool}}}"#);
        assert_eq!(parse_tool_call_at(&text).unwrap_err().code, Code::RequestInvalid, "{bad_tool}");
    }
}

#[test]
fn a_100_000_agent_lineage_is_walked_in_bounded_time_without_recursion() {
    let chain = Manifests::from([(name("worker"), manifest(&["worker"], u64::MAX, &["read"]))]);
    let lineage: Vec<AgentIdentifier> =
        (0..100_000u64).map(|i| agent(&format!("w{i}"), "worker", i)).collect();
    assert!(walk(&lineage, &chain).verdict.passed());
    let mut looped = lineage.clone();
    looped[99_999].id = "w5".into();
    let verdict = walk(&looped, &chain);
    assert_eq!(code(&verdict), Some("agent_repeated"));
    assert_eq!(verdict.pair, Some(Pair { parent: 99_998, child: 99_999 }));
}

/// A lineage valid under `manifests()`: orchestrator → coder → researcher prefixes.
fn valid_lineage() -> impl Strategy<Value = Vec<AgentIdentifier>> {
    prop::sample::select(vec![
        vec!["orchestrator"],
        vec!["orchestrator", "coder"],
        vec!["orchestrator", "researcher"],
        vec!["orchestrator", "coder", "researcher"],
    ])
    .prop_map(|types| types.iter().enumerate().map(|(i, t)| agent(&format!("a{i}"), t, i as u64)).collect())
}

proptest! {
    #[test]
    fn valid_lineages_pass_and_any_single_broken_link_is_named(
        lineage in valid_lineage(),
        link in any::<prop::sample::Index>(),
        rule in 0usize..4,
    ) {
        prop_assert!(walk(&lineage, &manifests()).verdict.passed());
        if lineage.len() < 2 {
            return Ok(());
        }
        let child = 1 + link.index(lineage.len() - 1);
        let mut broken = lineage.clone();
        let expected = match rule {
            0 => { broken[child].id = broken[child - 1].id.clone(); "agent_repeated" }
            1 => { broken[child].spawn_depth += 1; "depth_not_consecutive" }
            2 => { broken[child].agent_type = name("orchestrator"); "spawn_not_allowed" }
            _ => { broken[child - 1].agent_type = name("stranger"); "unknown_parent" }
        };
        // Changing the parent's type can also break the link above it; the walker names the
        // first broken link, which is then the one above.
        let verdict = walk(&broken, &manifests());
        prop_assert!(!verdict.verdict.passed());
        if rule == 3 && child >= 2 {
            prop_assert_eq!(verdict.pair, Some(Pair { parent: child - 2, child: child - 1 }));
        } else {
            prop_assert_eq!(code(&verdict), Some(expected));
            prop_assert_eq!(verdict.pair, Some(Pair { parent: child - 1, child }));
        }
    }
}

#[test]
fn the_lineage_digest_is_blake3_of_the_compact_json_the_events_record() {
    let lineage = [agent("o1", "orchestrator", 0), agent("c1", "coder", 1)];
    let compact =
        r#"[{"id":"o1","type":"orchestrator","spawn_depth":0},{"id":"c1","type":"coder","spawn_depth":1}]"#;
    assert_eq!(lineage_digest(&lineage), blake3::hash(compact.as_bytes()).to_hex().to_string());
    assert_ne!(lineage_digest(&lineage), lineage_digest(&lineage[..1]));
}

#[test]
fn layer_2_checks_the_ancestors_and_only_them() {
    // The lineage does not end with the acting agent: every agent in it is an ancestor.
    let call = ToolCall {
        agent: agent("r1", "researcher", 2),
        lineage: vec![agent("o1", "orchestrator", 0), agent("c1", "coder", 1)],
        tool: "search".into(),
    };
    let layer_2 = &authorize(&call, &manifests()).layers[1];
    assert_eq!(layer_2.verdict.code().map(|c| c.as_str()), Some("ancestor_lacks_tool"));
    assert!(layer_2.verdict.reason().contains("`c1`"), "{}", layer_2.verdict.reason());
    // It ends with the agent: the agent is not its own ancestor (its own manifest is layer 1).
    let coder = agent("c1", "coder", 1);
    let call = ToolCall {
        agent: coder.clone(),
        lineage: vec![agent("o1", "orchestrator", 0), coder],
        tool: "search".into(),
    };
    let auth = authorize(&call, &manifests());
    assert_eq!(auth.layers[0].verdict.code().map(|c| c.as_str()), Some("tool_not_allowed"));
    assert!(auth.layers[1].verdict.passed(), "{:?}", auth.layers[1]);
}

#[test]
fn a_short_lineage_that_repeats_its_root_is_a_cycle() {
    let lineage = [agent("a", "orchestrator", 0), agent("b", "coder", 1), agent("a", "researcher", 2)];
    let verdict = walk(&lineage, &manifests());
    assert_eq!(code(&verdict), Some("agent_repeated"));
    assert_eq!(verdict.pair, Some(Pair { parent: 1, child: 2 }));
}

#[test]
fn reasons_name_the_agent_its_type_and_depth() {
    let verdict = walk(&[agent("o1", "orchestrator", 1)], &manifests());
    assert_eq!(code(&verdict), Some("root_depth_not_zero"));
    assert_eq!(verdict.verdict.reason(), "the root `o1` (orchestrator at depth 1) must be at depth 0");
}

#[test]
fn a_tool_name_of_128_characters_is_read_and_129_are_not() {
    let request = |tool: &str| {
        format!(r#"{{"agent":{{"id":"c1","type":"coder","spawn_depth":0}},"lineage":[],"tool":"{tool}"}}"#)
    };
    assert!(parse_tool_call_at(&request(&"é".repeat(MAX_TOOL_LEN))).is_ok(), "characters, not bytes");
    assert_eq!(
        parse_tool_call_at(&request(&"a".repeat(MAX_TOOL_LEN + 1))).unwrap_err().code,
        Code::RequestInvalid
    );
}

#[test]
fn the_root_repeated_is_found_on_both_sides_of_the_scan_limit() {
    let manifests = Manifests::from([(name("t"), manifest(&["t"], 100, &[]))]);
    for len in [31, 32, 33, 34] {
        let mut lineage: Vec<AgentIdentifier> =
            (0..len - 1).map(|i| agent(&format!("a{i}"), "t", i as u64)).collect();
        lineage.push(agent("a0", "t", len as u64 - 1));
        let verdict = walk(&lineage, &manifests);
        assert_eq!(code(&verdict), Some("agent_repeated"), "length {len}");
        assert_eq!(verdict.pair, Some(Pair { parent: len - 2, child: len - 1 }), "length {len}");
        lineage.pop();
        assert!(walk(&lineage, &manifests).verdict.passed(), "length {} without the repeat", len - 1);
    }
}
