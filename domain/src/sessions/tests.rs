//! Given these events, when the hook asks, then this state: the projection's rules, and the
//! property that a state saved part-way and caught up equals one folded in one go (H-3).

use std::collections::BTreeMap;

use proptest::prelude::{Just, Strategy, any, prop_assert_eq, prop_oneof, proptest};

use super::*;
use crate::audit::{Hash, Head, Timestamp};
use crate::events::AuditEvent;
use crate::governance::{
    ApprovalGranted, ApprovalRevoked, ContextSealed, EnvValue, GateInputs, GateReport, Name, PersonaReading,
    Request, Scope, evaluate,
};
use crate::lineage::{AgentIdentifier, LineageVerdict};
use crate::verdict::{Code, Decision, Verdict};

pub(super) fn report() -> GateReport {
    let inputs = GateInputs {
        env_var: "X".into(),
        env: EnvValue::Unset,
        request: Request::from_json("{}"),
        persona: PersonaReading::Invalid(Verdict::fail(Code::PersonaMissing, "none")),
        agents: BTreeMap::new(),
        recorded: None,
    };
    evaluate(&inputs).report
}

fn agent(id: &str, agent_type: &str, depth: u64) -> AgentIdentifier {
    AgentIdentifier { id: id.into(), agent_type: Name::new(agent_type).unwrap(), spawn_depth: depth }
}

fn spawn(tool_use_id: &str, caller: Option<&str>, child: &str, depth: u64, decision: Decision) -> AuditEvent {
    AuditEvent::SpawnEvaluated(Box::new(SpawnEvaluated {
        tool_use_id: tool_use_id.into(),
        tool_name: "spawn".into(),
        agent_id: caller.map(str::to_owned),
        persona: "main".into(),
        subagent_type: child.into(),
        decision,
        first_failure: None,
        gate: report(),
        lineage: LineageVerdict { verdict: Verdict::pass("ok"), pair: None },
        lineage_agents: vec![agent("main", "main", 0), agent(tool_use_id, child, depth)],
        result_path: Some("out/result.json".into()),
    }))
}

fn started(agent_id: &str, agent_type: &str, matched: Option<&PendingSpawn>) -> AuditEvent {
    AuditEvent::SubagentStarted(Box::new(SubagentStarted {
        agent_id: agent_id.into(),
        agent_type: agent_type.into(),
        tool_use_id: matched.map(|p| p.tool_use_id.clone()),
        parent: matched.and_then(|p| p.parent.clone()),
        depth: matched.map(|p| p.depth),
        snapshot: true,
        root: None,
        repeated: false,
    }))
}

fn stopped(agent_id: &str, decision: Decision) -> AuditEvent {
    AuditEvent::SubagentStopped(Box::new(SubagentStopped {
        agent_id: agent_id.into(),
        agent_type: "coder".into(),
        decision,
        failures: Vec::new(),
        changed_files: Vec::new(),
        reverted: false,
        result_path: None,
        result: None,
        stop_hook_active: false,
        ended: false,
    }))
}

fn head(seq: u64) -> Head {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seq.to_be_bytes());
    Head { seq, hash: Hash::from_bytes(bytes) }
}

fn fold(events: &[(Option<&str>, AuditEvent)]) -> SessionRecords {
    let mut state = SessionRecords::default();
    for (i, (session, event)) in events.iter().enumerate() {
        state.apply(head(i as u64 + 1), *session, event);
    }
    state
}

#[test]
fn governance_is_what_seal_approve_and_revoke_left() {
    let now = Timestamp::from_unix_millis(0).unwrap();
    let seal = AuditEvent::ContextSealed(ContextSealed {
        by: Some("alice".into()),
        files: BTreeMap::new(),
        signature: None,
        key_list: None,
        texts: Default::default(),
    });
    let approve = AuditEvent::ApprovalGranted(ApprovalGranted {
        approval_ref: "GATE-1".into(),
        approved_by: None,
        expires_at: None,
        scope: Scope::default(),
        signature: None,
    });
    let revoke_all =
        AuditEvent::ApprovalRevoked(ApprovalRevoked { approval_ref: None, by: None, signature: None });
    let state = fold(&[(None, seal.clone()), (None, approve.clone())]);
    let metadata = state.governance.metadata_for("main", &["planner"], now);
    assert_eq!(metadata["contextSealed"], true);
    assert_eq!(metadata["pipelineRunApproved"], true);
    assert_eq!(metadata["approvalRef"], "GATE-1");
    assert!(metadata.get("approvedBy").is_none(), "no approver recorded, none claimed");
    let revoked = fold(&[(None, seal), (None, approve), (None, revoke_all)]);
    let metadata = revoked.governance.metadata_for("main", &["planner"], now);
    assert_eq!(
        (metadata["contextSealed"].clone(), metadata["pipelineRunApproved"].clone()),
        (false.into(), false.into())
    );
    assert!(metadata.get("approvalRef").is_none(), "revoke without a reference withdraws everything");
    let nothing = SessionRecords::default().governance.metadata_for("main", &[], now);
    assert_eq!(nothing["pipelineRunApproved"], false, "nothing by default");
}

#[test]
fn a_start_matches_the_deepest_then_oldest_pending_spawn_of_its_type() {
    let state = fold(&[
        (Some("s"), spawn("t1", None, "coder", 1, Decision::Allow)),
        (Some("s"), spawn("t2", Some("p"), "coder", 2, Decision::Allow)),
        (Some("s"), spawn("t3", Some("q"), "coder", 2, Decision::Allow)),
        (Some("s"), spawn("t4", None, "planner", 1, Decision::Deny)),
        (Some("other"), spawn("t5", None, "coder", 3, Decision::Allow)),
    ]);
    let tree = state.session("s");
    assert_eq!(tree.match_start("coder").unwrap().tool_use_id, "t2", "deepest, then oldest");
    assert!(tree.match_start("planner").is_none(), "a denied spawn is never pending");
    assert!(tree.match_start("researcher").is_none());
}

#[test]
fn the_lineage_follows_started_agents_to_the_root() {
    let main = Name::new("main").unwrap();
    let mut events = vec![(Some("s"), spawn("t1", None, "planner", 1, Decision::Allow))];
    let pending = fold(&events).session("s").match_start("planner").cloned();
    events.push((Some("s"), started("a1", "planner", pending.as_ref())));
    let tree = fold(&events).session("s");
    let caller = CallingAgent { agent_id: "a1".into(), agent_type: "planner".into() };
    let chain = tree.lineage(&main, Some(&caller), "coder", "t2").unwrap();
    let ids: Vec<(&str, u64)> = chain.iter().map(|a| (a.id.as_str(), a.spawn_depth)).collect();
    assert_eq!(ids, [("main", 0), ("a1", 1), ("t2", 2)]);
    let from_main = tree.lineage(&main, None, "planner", "t9").unwrap();
    assert_eq!(from_main.len(), 2);

    let rows = [
        (CallingAgent { agent_id: "ghost".into(), agent_type: "planner".into() }, "agent_unknown"),
        (CallingAgent { agent_id: "a1".into(), agent_type: "coder".into() }, "agent_type_mismatch"),
    ];
    for (caller, code) in rows {
        assert_eq!(tree.lineage(&main, Some(&caller), "coder", "t2").unwrap_err().code, code);
    }
    events.push((Some("s"), started("rogue", "coder", None)));
    let tree = fold(&events).session("s");
    let rogue = CallingAgent { agent_id: "rogue".into(), agent_type: "coder".into() };
    let err = tree.lineage(&main, Some(&rogue), "researcher", "t3").unwrap_err();
    assert_eq!(err.code, "agent_untracked", "started without an allowed spawn");
    assert_eq!(
        tree.lineage(&main, None, "../etc", "t4").unwrap_err().code,
        "invalid_name",
        "a requested type that is not a name"
    );
}

/// A subagent's tool call is authorized against its recorded lineage, the main session's
/// type at the root; the main session itself is not governed here; an untracked caller is
/// denied at every layer (T-9).
#[test]
fn a_subagents_tool_call_runs_the_three_layers_on_its_recorded_lineage() {
    use crate::lineage::{Manifest, Manifests, ToolRule};
    let main = Name::new("main").unwrap();
    let rules = |texts: &[&str]| {
        texts.iter().map(|t| ToolRule::parse(t).unwrap()).collect::<crate::lineage::ToolRuleSet>()
    };
    let manifests = Manifests::from([
        (
            main.clone(),
            Manifest {
                can_spawn: vec![Name::new("planner").unwrap()],
                max_spawn_depth: 3,
                tools: rules(&[READ, "Bash(git push:*)", "Bash(npm test:*)"]),
            },
        ),
        (
            Name::new("planner").unwrap(),
            Manifest {
                can_spawn: vec![],
                max_spawn_depth: 3,
                tools: rules(&[READ, "Bash(npm test:*)", "Bash(curl:*)"]),
            },
        ),
    ]);
    let mut events = vec![(Some("s"), spawn("t1", None, "planner", 1, Decision::Allow))];
    let pending = fold(&events).session("s").match_start("planner").cloned();
    events.push((Some("s"), started("a1", "planner", pending.as_ref())));
    events.push((Some("s"), started("rogue", "planner", None)));
    let tree = fold(&events).session("s");
    use crate::lineage::syntax::{READ, SHELL};
    use crate::lineage::{CallArgument, RulesAs};
    let call = |agent: Option<&str>, tool: &str, argument: CallArgument| ToolCall {
        tool_name: tool.into(),
        tool_use_id: Some("u1".into()),
        caller: agent.map(|a| CallingAgent { agent_id: a.into(), agent_type: "planner".into() }),
        kind: ToolKind::Other,
        rules_as: RulesAs::Call { tool: tool.into(), argument },
        shell: None,
    };
    let decide = |c: &ToolCall| {
        let RulesAs::Call { tool, argument } = &c.rules_as else { panic!("a known tool") };
        let tool = crate::lineage::ToolUse::resolve(tool, argument, "/p", "/p", &crate::lineage::NoLinks);
        tree.authorize_tool(&main, c.caller.as_ref(), tool, &manifests)
    };
    let bash = |agent: Option<&str>, line: &str| call(agent, SHELL, CallArgument::Command(line.into()));
    let path = |agent: Option<&str>, tool: &str, path: &str| {
        call(agent, tool, CallArgument::Paths(vec![path.into()]))
    };

    let push = bash(Some("a1"), "git push origin");
    let (lineage, denied) = decide(&push).unwrap();
    assert_eq!(lineage.iter().map(|a| a.id.as_str()).collect::<Vec<_>>(), ["main", "a1"]);
    assert_eq!(denied.decision, Decision::Deny);
    let failure = denied.first_failure.unwrap();
    assert_eq!((failure.layer, failure.code.as_ref()), (1, "tool_not_allowed"));
    assert!(failure.reason.contains("planner") && failure.reason.contains("Bash(git push origin)"));

    let curl = bash(Some("a1"), "curl https://x.io");
    let escalation = decide(&curl).unwrap().1.first_failure.unwrap();
    assert_eq!(
        (escalation.layer, escalation.code.as_ref()),
        (2, "ancestor_lacks_tool"),
        "the root's rules bind"
    );
    let test = bash(Some("a1"), "npm test");
    assert_eq!(decide(&test).unwrap().1.decision, Decision::Allow);
    let read = path(Some("a1"), READ, "/p/a");
    assert_eq!(decide(&read).unwrap().1.decision, Decision::Allow);
    let write = path(Some("a1"), crate::lineage::syntax::EDIT_FAMILY[1], "/p/a");
    assert_eq!(decide(&write).unwrap().1.first_failure.unwrap().code, "tool_not_allowed");

    assert!(decide(&bash(None, "rm -rf /")).is_none(), "main");
    let (_, rogue) = decide(&call(Some("rogue"), READ, CallArgument::None)).unwrap();
    assert_eq!(rogue.decision, Decision::Deny);
    assert_eq!(rogue.first_failure.unwrap().code, "agent_untracked");
    let (_, ghost) = decide(&call(Some("ghost"), READ, CallArgument::None)).unwrap();
    assert_eq!(ghost.first_failure.unwrap().code, "agent_unknown");
}

#[test]
fn an_allowed_stop_forgets_the_agent_and_a_blocked_one_keeps_it() {
    let mut events = vec![(Some("s"), spawn("t1", None, "coder", 1, Decision::Allow))];
    let pending = fold(&events).session("s").match_start("coder").cloned();
    events.push((Some("s"), started("a1", "coder", pending.as_ref())));
    events.push((Some("s"), stopped("a1", Decision::Deny)));
    let kept = fold(&events).session("s");
    assert_eq!(kept.agents["a1"].result_path.as_deref(), Some("out/result.json"), "carried from the spawn");
    assert_eq!(kept.running().count(), 1, "a blocked stop keeps it running");
    events.push((Some("s"), stopped("a1", Decision::Allow)));
    let after = fold(&events).session("s");
    assert!(after.agents["a1"].stopped, "kept, marked stopped, so that a message can resume it (H-21)");
    assert!(after.is_tracked("a1"));
    assert_eq!(after.running().count(), 0);
}

/// A start recorded as repeated (the agent was running) replaces nothing: the pending spawn it
/// names is not taken, and the agent keeps its parent, depth and approval (H-54).
#[test]
fn a_repeated_start_replaces_nothing() {
    let mut events = vec![
        (Some("s"), spawn("t1", None, "coder", 1, Decision::Allow)),
        (Some("s"), spawn("t2", Some("p"), "coder", 2, Decision::Allow)),
    ];
    let first = fold(&events).session("s").match_start("coder").cloned();
    events.push((Some("s"), started("a1", "coder", first.as_ref())));
    let before = fold(&events).session("s");
    let second = before.match_start("coder").cloned();
    assert!(second.is_some(), "another spawn is still pending");
    let AuditEvent::SubagentStarted(mut again) = started("a1", "coder", second.as_ref()) else {
        unreachable!()
    };
    again.repeated = true;
    events.push((Some("s"), AuditEvent::SubagentStarted(again)));
    let after = fold(&events).session("s");
    assert_eq!(after.agents, before.agents, "the agent keeps its place");
    assert_eq!(after.pending, before.pending, "no pending spawn taken");
}

/// A stop its harness cannot block ends the agent whatever the decision (M-6).
#[test]
fn a_denied_stop_that_ends_the_agent_stops_it() {
    let mut events = vec![(Some("s"), spawn("t1", None, "coder", 1, Decision::Allow))];
    let pending = fold(&events).session("s").match_start("coder").cloned();
    events.push((Some("s"), started("a1", "coder", pending.as_ref())));
    let AuditEvent::SubagentStopped(mut last) = stopped("a1", Decision::Deny) else { unreachable!() };
    last.ended = true;
    events.push((Some("s"), AuditEvent::SubagentStopped(last)));
    let after = fold(&events).session("s");
    assert!(after.agents["a1"].stopped && after.running().count() == 0, "{after:?}");
}

fn spawn_under(tool_use_id: &str, child: &str, approval: &str) -> AuditEvent {
    let AuditEvent::SpawnEvaluated(mut e) = spawn(tool_use_id, None, child, 1, Decision::Allow) else {
        unreachable!()
    };
    e.gate.approval_ref = Some(approval.into());
    AuditEvent::SpawnEvaluated(e)
}

#[test]
fn a_message_resumes_only_a_tracked_agent_whose_approval_is_still_active() {
    let grant = |reference: &str, expires: Option<i64>| {
        AuditEvent::ApprovalGranted(ApprovalGranted {
            approval_ref: reference.into(),
            approved_by: None,
            expires_at: expires.map(|ms| Timestamp::from_unix_millis(ms).unwrap()),
            scope: Scope::default(),
            signature: None,
        })
    };
    let mut events = vec![
        (None, grant("LIVE", None)),
        (None, grant("SHORT", Some(1_000))),
        (None, grant("GONE", None)),
        (
            None,
            AuditEvent::ApprovalRevoked(ApprovalRevoked {
                approval_ref: Some("GONE".into()),
                by: None,
                signature: None,
            }),
        ),
        (Some("s"), spawn_under("t1", "coder", "LIVE")),
        (Some("s"), spawn_under("t2", "planner", "SHORT")),
        (Some("s"), spawn_under("t3", "researcher", "GONE")),
        (Some("s"), spawn("t4", None, "writer", 1, Decision::Allow)),
    ];
    for (id, kind, tool) in
        [("a1", "coder", "t1"), ("a2", "planner", "t2"), ("a3", "researcher", "t3"), ("a4", "writer", "t4")]
    {
        let pending = fold(&events).session("s").pending.into_iter().find(|p| p.tool_use_id == tool);
        events.push((Some("s"), started(id, kind, pending.as_ref())));
    }
    events.push((Some("s"), started("rogue", "coder", None)));
    events.push((Some("s"), stopped("a1", Decision::Allow)));
    let state = fold(&events);
    let tree = state.session("s");
    let now = Timestamp::from_unix_millis(5_000).unwrap();
    let rows: [(Option<&str>, Result<&str, &str>, &str); 7] = [
        (Some("a1"), Ok("LIVE"), "a stopped agent under an active approval"),
        (Some("a2"), Err("approval_not_active"), "its approval expired"),
        (Some("a3"), Err("approval_not_active"), "its approval was revoked"),
        (Some("a4"), Err("approval_not_active"), "spawned under no recorded approval"),
        (Some("rogue"), Err("message_target_unknown"), "untracked"),
        (Some("nobody"), Err("message_target_unknown"), "unknown"),
        (None, Err("message_target_unknown"), "no target"),
    ];
    for (to, expected, why) in rows {
        let got = tree.may_resume(to, &state.governance, now);
        match expected {
            Ok(reference) => assert_eq!(got.unwrap(), reference, "{why}"),
            Err(code) => assert_eq!(got.unwrap_err().code, code, "{why}"),
        }
    }
    assert!(tree.is_tracked("a1") && !tree.is_tracked("rogue") && !tree.is_tracked("nobody"));
    assert_eq!(tree.tracked().map(String::as_str).collect::<Vec<_>>(), ["a1", "a2", "a3", "a4"]);
    // An approval whose signature the application refused is no approval to resume under (K-3).
    let mut refused = state.governance.clone();
    if let Some(live) = refused.approvals.get_mut("LIVE") {
        live.refused = Some(crate::governance::SignatureRefusal {
            code: crate::governance::SignatureCode::Missing,
            reason: "unsigned".into(),
        });
    }
    let got = tree.may_resume(Some("a1"), &refused, now).unwrap_err();
    assert_eq!(got.code, "approval_not_active");
    assert!(got.reason.contains("signature_missing"), "{}", got.reason);
    // A tracked agent that starts again (resumed) stays tracked; an unknown one is untracked.
    events.push((Some("s"), started("a1", "coder", None)));
    let tree = fold(&events).session("s");
    assert!(tree.is_tracked("a1") && !tree.agents["a1"].stopped);
}

#[test]
fn a_quarantine_holds_until_released_and_no_eviction_lifts_it() {
    let quarantine = AuditEvent::SessionQuarantined(Box::new(SessionQuarantined {
        agent_id: Some("a1".into()),
        code: "revert_failed".into(),
        reason: "r".into(),
    }));
    let release = AuditEvent::SessionReleased(SessionReleased { by: Some("alice".into()), signature: None });
    let mut events = vec![(Some("q"), quarantine.clone()), (None, release.clone())];
    assert!(fold(&events).quarantined.contains_key("q"), "a release without a session releases nothing");
    let sessions: Vec<String> = (0..MAX_SESSIONS + 1).map(|i| format!("s{i}")).collect();
    events.extend(sessions.iter().map(|s| (Some(s.as_str()), spawn("t", None, "coder", 1, Decision::Allow))));
    let state = fold(&events);
    assert_eq!(state.quarantined["q"].code, "revert_failed");
    events.push((Some("q"), release));
    assert!(fold(&events).quarantined.is_empty());
}

#[test]
fn pending_spawns_and_sessions_are_bounded() {
    let events: Vec<(Option<&str>, AuditEvent)> = (0..MAX_PENDING + 5)
        .map(|i| (Some("s"), spawn(&format!("t{i}"), None, "coder", 1, Decision::Allow)))
        .collect();
    let tree = fold(&events).session("s");
    assert_eq!(tree.pending.len(), MAX_PENDING);
    assert_eq!(tree.pending[0].tool_use_id, "t5", "the oldest were dropped");
    let sessions: Vec<String> = (0..MAX_SESSIONS + 3).map(|i| format!("s{i}")).collect();
    let events: Vec<(Option<&str>, AuditEvent)> =
        sessions.iter().map(|s| (Some(s.as_str()), spawn("t", None, "coder", 1, Decision::Allow))).collect();
    let state = fold(&events);
    assert_eq!(state.sessions.len(), MAX_SESSIONS);
    assert!(
        !state.sessions.contains_key("s0") && state.sessions.contains_key("s258"),
        "least recent forgotten"
    );
}

fn any_event() -> impl Strategy<Value = (Option<&'static str>, AuditEvent)> {
    let session = prop_oneof![Just(Some("s1")), Just(Some("s2")), Just(None)];
    let kind = prop_oneof![Just("coder"), Just("planner")];
    let id = prop_oneof![Just("a1"), Just("a2"), Just("a3")];
    let tool = prop_oneof![Just("t1"), Just("t2")];
    (0u8..6, session, kind, id, tool, any::<bool>(), 1u64..4).prop_map(
        |(k, session, kind, id, tool, yes, depth)| {
            let decision = if yes { Decision::Allow } else { Decision::Deny };
            let event = match k {
                0 => AuditEvent::ContextSealed(ContextSealed {
                    by: None,
                    files: BTreeMap::new(),
                    signature: None,
                    key_list: None,
                    texts: Default::default(),
                }),
                1 => AuditEvent::ApprovalGranted(ApprovalGranted {
                    approval_ref: tool.into(),
                    approved_by: None,
                    expires_at: None,
                    scope: Scope::default(),
                    signature: None,
                }),
                2 => AuditEvent::ApprovalRevoked(ApprovalRevoked {
                    approval_ref: yes.then(|| tool.to_owned()),
                    by: None,
                    signature: None,
                }),
                3 => spawn(tool, yes.then_some(id), kind, depth, decision),
                4 => {
                    let pending = PendingSpawn {
                        seq: 0,
                        tool_use_id: tool.into(),
                        parent: None,
                        child_type: kind.into(),
                        depth,
                        result_path: None,
                        approval_ref: None,
                    };
                    started(id, kind, yes.then_some(&pending))
                }
                _ => stopped(id, decision),
            };
            (session, event)
        },
    )
}

proptest! {
    #[test]
    fn saved_part_way_then_caught_up_equals_folded_in_one_go(
        events in proptest::collection::vec(any_event(), 0..60),
        cut in 0usize..60,
    ) {
        let cut = cut.min(events.len());
        let whole = fold(&events);
        let (before, after) = events.split_at(cut);
        let saved = serde_json::to_vec(&fold(before)).unwrap();
        let mut resumed: SessionRecords = serde_json::from_slice(&saved).unwrap();
        for (i, (session, event)) in after.iter().enumerate() {
            resumed.apply(head((cut + i) as u64 + 1), *session, event);
        }
        prop_assert_eq!(resumed, whole);
    }
}

#[test]
fn a_spawn_tree_that_loops_is_refused_not_walked_forever() {
    // Only forged events can make a loop: a1 started under a2's spawn, a2 under a1's.
    let main = Name::new("main").unwrap();
    let pending = |tool_use_id: &str, parent: &str, depth: u64| PendingSpawn {
        tool_use_id: tool_use_id.into(),
        parent: Some(parent.into()),
        child_type: "planner".into(),
        depth,
        seq: 1,
        result_path: None,
        approval_ref: None,
    };
    let events = [
        (Some("s"), spawn("t1", Some("a2"), "planner", 1, Decision::Allow)),
        (Some("s"), spawn("t2", Some("a1"), "planner", 2, Decision::Allow)),
        (Some("s"), started("a1", "planner", Some(&pending("t1", "a2", 1)))),
        (Some("s"), started("a2", "planner", Some(&pending("t2", "a1", 2)))),
    ];
    let tree = fold(&events).session("s");
    let caller = CallingAgent { agent_id: "a1".into(), agent_type: "planner".into() };
    let err = tree.lineage(&main, Some(&caller), "coder", "t3").unwrap_err();
    assert_eq!(err.code, "lineage_cycle", "{err:?}");
}
