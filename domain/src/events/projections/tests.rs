//! Projection tests: given these events, then this state (tables), and the fold property —
//! rebuilding from seq 1 equals folding a prefix and then the rest.

use proptest::prelude::*;
use serde_json::{Value, json};

use super::*;
use crate::audit::{Envelope, EnvelopeRef};
use crate::events::{AuditEvent, decode};

/// 2026-02-21T09:00:00.000Z.
const BASE_MS: i64 = 1_771_664_400_000;

fn envelope(
    seq: u64,
    minute: i64,
    session: Option<&str>,
    run: Option<&str>,
    kind: &str,
    payload: Value,
) -> Envelope {
    let version = if kind == "lineage_checked" { 2 } else { 1 };
    let at = crate::audit::Timestamp::from_unix_millis(BASE_MS + minute * 60_000).unwrap();
    let mut body = json!({
        "seq": seq, "prev_hash": "0".repeat(64), "recorded_at": at.to_string(), "actor": "test",
        "event_type": kind, "event_version": version, "payload": payload,
    });
    if let Some(s) = session {
        body["session"] = json!(s);
    }
    if let Some(r) = run {
        body["run"] = json!(r);
    }
    serde_json::from_value(body).unwrap()
}

fn gate(
    decision: &str,
    persona: &str,
    approval: Option<&str>,
    by: Option<&str>,
    failure: Option<&str>,
) -> Value {
    json!({
        "decision": decision, "delegated": if decision == "allow" { json!(["PREPARATION"]) } else { json!([]) },
        "persona": persona, "requested": null, "env_var": "E", "gates": [
            {"gate": "environment", "passed": true, "code": null, "reason": "ok"},
        ],
        "first_failure": failure.map(|g| json!({"gate": g, "code": "not_boolean_true", "reason": "r"})),
        "failures": [], "candidates": [], "warnings": [], "approval_ref": approval, "approved_by": by,
        "unknown_fields": [], "metadata_digest": "m",
    })
}

fn agents(ids: &[(&str, &str)]) -> Value {
    Value::Array(
        ids.iter().enumerate().map(|(d, (id, t))| json!({"id": id, "type": t, "spawn_depth": d})).collect(),
    )
}

fn lineage(decision: &str, ids: &[(&str, &str)], pair: Option<(usize, usize)>) -> Value {
    json!({
        "decision": decision,
        "result": {"passed": decision == "allow", "code": if decision == "allow" { Value::Null } else { json!("spawn_not_allowed") },
                   "reason": "r", "pair": pair.map(|(p, c)| json!({"parent": p, "child": c}))},
        "lineage_length": ids.len(), "lineage_digest": "d", "lineage": agents(ids),
    })
}

fn tool(decision: &str, ids: &[(&str, &str)], failed_layer: Option<&str>) -> Value {
    let (id, t) = ids.last().copied().unwrap_or(("x", "x"));
    json!({
        "agent": {"id": id, "type": t, "spawn_depth": ids.len().saturating_sub(1)}, "tool": "write",
        "authorization": {"decision": decision, "layers": [],
            "first_failure": failed_layer.map(|l| json!({"layer": 2, "name": l, "code": "tool_not_inherited", "reason": "r"})),
            "pair": null},
        "lineage_length": ids.len(), "lineage_digest": "d", "lineage": agents(ids),
    })
}

fn chunk(index: usize, status: &str) -> Value {
    json!({"chunk_index": index, "status": status, "elapsed_ms": 5,
           "test_results": {"passed": 1, "failed": 0, "skipped": 0, "failures": []},
           "coverage": null, "error": null, "warnings": []})
}

fn violation(reverted: bool) -> Value {
    json!({"violation_type": "okrs_direct_edit", "details": {"message": "m", "changed_files": ["okrs/a.md"],
        "diff": {"added": [], "removed": [], "modified": ["okrs/a.md"]}, "reverted": reverted,
        "revert_error": if reverted { "" } else { "git failed" }, "item_id": "i", "run_id": "r"}})
}

/// Builds a realistic little log: every kind of event, two sessions, two runs.
fn scenario() -> Vec<Envelope> {
    let s1 = Some("s-1");
    let s2 = Some("s-2");
    let kinds: Vec<(Option<&str>, Option<&str>, &str, Value)> = vec![
        (s1, None, "delegation_evaluated", gate("allow", "MANAGER", Some("GATE-1"), Some("alice"), None)),
        (s1, None, "delegation_evaluated", gate("deny", "MANAGER", None, None, Some("context_sealed"))),
        (
            s2,
            None,
            "delegation_evaluated",
            gate("deny", "OTHER", Some("GATE-1"), Some("bob"), Some("environment")),
        ),
        (s1, None, "lineage_checked", lineage("allow", &[("o", "orchestrator"), ("c", "coder")], None)),
        (
            s1,
            None,
            "lineage_checked",
            lineage("deny", &[("o", "orchestrator"), ("c", "coder"), ("x", "shell")], Some((1, 2))),
        ),
        (
            s2,
            None,
            "tool_call_authorized",
            tool("deny", &[("r", "orchestrator"), ("w", "researcher")], Some("delegation")),
        ),
        (
            None,
            Some("run-1"),
            "fan_out_planned",
            json!({"phase": "tests", "items": 3, "warnings": [],
            "plan": {"mode": "fan_out", "strategy": "round-robin", "chunk_sizes": [2, 1]}}),
        ),
        (None, Some("run-1"), "chunk_finished", chunk(1, "completed")),
        (None, Some("run-1"), "chunk_finished", chunk(0, "failed")),
        (
            None,
            Some("run-1"),
            "fan_out_merged",
            json!({"phase": "tests", "merged": {"status": "degraded",
            "test_results": {"passed": 1, "failed": 0, "skipped": 0, "failures": []}, "coverage": null,
            "coverage_partial": false, "failures": [{"chunk_index": 0, "status": "failed", "error": "boom"}]}}),
        ),
        (None, Some("r"), "guardrail_violation", violation(true)),
        (None, Some("r"), "guardrail_violation", violation(false)),
        (s1, None, "operator_note", json!({"message": "investigation begins"})),
    ];
    kinds
        .into_iter()
        .enumerate()
        .map(|(i, (session, run, kind, payload))| {
            envelope(i as u64 + 1, i as i64 * 20, session, run, kind, payload)
        })
        .collect()
}

fn replay<P: Projection>(projection: &P, log: &[Envelope]) -> P::State {
    let events: Vec<AuditEvent> = log.iter().map(|e| decode(e).unwrap()).collect();
    let views: Vec<EnvelopeRef<'_>> = log.iter().map(EnvelopeRef::from).collect();
    let mut state = P::State::default();
    fold(
        projection,
        &mut state,
        views.iter().zip(&events).map(|(envelope, event)| Recorded { envelope, event }),
    );
    state
}

#[test]
fn approvals_file_every_evaluation_under_its_reference() {
    let state = replay(&Approvals, &scenario());
    let gate_1 = &state.by_ref["GATE-1"];
    // (fact, expected, why)
    let rows: [(&str, Value, Value, &str); 5] = [
        ("allowed", json!(gate_1.allowed), json!(1), "example 1 ran under GATE-1"),
        ("denied", json!(gate_1.denied), json!(1), "a denial that carried the reference is still filed"),
        ("approved_by", json!(gate_1.approved_by), json!(["alice", "bob"]), "every approver named"),
        ("subagents", json!(gate_1.subagents), json!(["PREPARATION"]), "what ran under it"),
        ("without_ref", json!(state.without_ref), json!(1), "a failed approval gate has no reference"),
    ];
    for (fact, got, want, why) in rows {
        assert_eq!(got, want, "{fact}: {why}");
    }
    assert_eq!(gate_1.evaluations.iter().map(|e| e.seq).collect::<Vec<_>>(), [1, 3]);
}

#[test]
fn denials_count_each_denial_once_by_its_first_failure() {
    let state = replay(&Denials, &scenario());
    let rows: [(&str, Value, Value, &str); 5] = [
        ("denials", json!(state.denials), json!(4), "two gate, one lineage, one tool-call denial"),
        ("by_gate", json!(state.by_gate), json!({"context_sealed": 1, "environment": 1}), "first failure"),
        (
            "by_layer",
            json!(state.by_layer),
            json!({"delegation": 1, "lineage": 1}),
            "layer of the first failure",
        ),
        (
            "by_persona",
            json!(state.by_persona),
            json!({"MANAGER": 1, "OTHER": 1, "coder": 1, "researcher": 1}),
            "the lineage denial is the spawning parent's; the tool call's is the acting agent's",
        ),
        ("by_code", json!(state.by_code["not_boolean_true"]), json!(2), "codes counted over all denials"),
    ];
    for (fact, got, want, why) in rows {
        assert_eq!(got, want, "{fact}: {why}");
    }
}

#[test]
fn spawn_tree_links_each_child_to_its_parent_per_session() {
    let state = replay(&SpawnTrees, &scenario());
    let s1 = &state.sessions["s-1"];
    assert_eq!(s1.roots().map(|(id, _)| id.as_str()).collect::<Vec<_>>(), ["o"]);
    assert_eq!(s1.children("o").map(|(id, _)| id.as_str()).collect::<Vec<_>>(), ["c"]);
    assert_eq!(s1.children("c").map(|(id, _)| id.as_str()).collect::<Vec<_>>(), ["x"]);
    assert_eq!((s1.agents["c"].checks, s1.agents["c"].denied), (1, 0));
    assert_eq!((s1.agents["x"].checks, s1.agents["x"].denied), (1, 1), "the denied spawn is shown, marked");
    assert_eq!(state.sessions["s-2"].children("r").count(), 1);
}

#[test]
fn spawn_tree_keeps_a_disagreeing_parent_beside_the_first() {
    let log = vec![
        envelope(
            1,
            0,
            Some("s"),
            None,
            "lineage_checked",
            lineage("allow", &[("a", "orchestrator"), ("c", "coder")], None),
        ),
        envelope(
            2,
            1,
            Some("s"),
            None,
            "lineage_checked",
            lineage("allow", &[("b", "orchestrator"), ("c", "coder")], None),
        ),
    ];
    let state = replay(&SpawnTrees, &log);
    let c = &state.sessions["s"].agents["c"];
    assert_eq!(c.parent.as_deref(), Some("a"));
    assert_eq!(c.other_parents.iter().collect::<Vec<_>>(), ["b"]);
}

#[test]
fn fan_out_gathers_chunks_and_merge_under_the_run() {
    let state = replay(&FanOutRuns, &scenario());
    assert_eq!(state.runs.len(), 1);
    let run = &state.runs[0];
    assert_eq!(run.run.as_deref(), Some("run-1"));
    assert_eq!(run.chunks.iter().map(|c| c.outcome.chunk_index).collect::<Vec<_>>(), [1, 0]);
    assert_eq!(run.merged.as_ref().map(|m| m.seq), Some(10));
}

#[test]
fn unnamed_runs_are_never_merged_into_one() {
    let plan =
        json!({"phase": "p", "items": 1, "warnings": [], "plan": {"mode": "single_agent", "reason": "few"}});
    let log = vec![
        envelope(1, 0, None, None, "fan_out_planned", plan.clone()),
        envelope(2, 0, None, None, "chunk_finished", chunk(0, "completed")),
        envelope(3, 0, None, None, "fan_out_planned", plan),
        envelope(4, 0, None, None, "chunk_finished", chunk(0, "failed")),
        envelope(5, 0, None, Some("orphan"), "chunk_finished", chunk(0, "completed")),
    ];
    let state = replay(&FanOutRuns, &log);
    let chunks: Vec<Vec<u64>> = state.runs.iter().map(|r| r.chunks.iter().map(|c| c.seq).collect()).collect();
    assert_eq!(chunks, [vec![2], vec![4], vec![5]], "an orphan chunk opens a run without a plan");
    assert_eq!(state.runs[2].plan, None);
}

#[test]
fn violations_say_which_were_not_reverted() {
    let state = replay(&Violations, &scenario());
    assert_eq!((state.total, state.reverted, state.not_reverted), (2, 1, 1));
    assert_eq!(state.violations[1].revert_error, "git failed");
    assert_eq!(state.violations[0].changed_files, ["okrs/a.md"]);
}

#[test]
fn decisions_are_bucketed_by_hour() {
    let state = replay(&Decisions, &scenario());
    // Events 1–3 fall in 09:00, 4–6 in 10:00 (20 minutes apart).
    let hours: Vec<(&str, u64, u64)> =
        state.hours.iter().map(|(h, c)| (h.as_str(), c.allow, c.deny)).collect();
    assert_eq!(hours, [("2026-02-21T09:00:00.000Z", 1, 2), ("2026-02-21T10:00:00.000Z", 1, 2)]);
    assert_eq!((state.total.allow, state.total.deny), (2, 4));
}

#[test]
fn timeline_lists_one_session_in_order() {
    let state = replay(&Timeline { session: "s-1".into() }, &scenario());
    let seqs: Vec<u64> = state.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, [1, 2, 4, 5, 13]);
    assert!(state[0].summary.contains("under approval `GATE-1`"), "{}", state[0].summary);
    assert!(state[1].summary.contains("denied at context_sealed"), "{}", state[1].summary);
}

/// A generated log: each event is one of the scenario's kinds with its own session, run and
/// time, so prefixes cut through runs, sessions and hours at random places.
fn arbitrary_log() -> impl Strategy<Value = Vec<Envelope>> {
    let kinds = scenario();
    proptest::collection::vec((0..kinds.len(), 0..3usize, 0..3usize, 0..600i64), 0..40).prop_map(
        move |picks| {
            picks
                .into_iter()
                .enumerate()
                .map(|(i, (kind, session, run, minute))| {
                    let template = &kinds[kind];
                    let session = ["a", "b"].get(session).copied();
                    let run = ["r1", "r2"].get(run).copied();
                    let payload: Value = serde_json::from_str(template.payload.get()).unwrap();
                    envelope(i as u64 + 1, minute, session, run, &template.event_type, payload)
                })
                .collect()
        },
    )
}

fn incremental_equals_rebuild<P: Projection>(projection: &P, log: &[Envelope], cut: usize) -> bool
where
    P::State: PartialEq + std::fmt::Debug,
{
    let events: Vec<AuditEvent> = log.iter().map(|e| decode(e).unwrap()).collect();
    let views: Vec<EnvelopeRef<'_>> = log.iter().map(EnvelopeRef::from).collect();
    let recorded = || views.iter().zip(&events).map(|(envelope, event)| Recorded { envelope, event });
    let mut rebuilt = P::State::default();
    fold(projection, &mut rebuilt, recorded());
    let cut = cut.min(log.len());
    let mut incremental = P::State::default();
    fold(projection, &mut incremental, recorded().take(cut));
    fold(projection, &mut incremental, recorded().skip(cut));
    rebuilt == incremental
}

proptest! {
    #[test]
    fn rebuilding_from_seq_1_equals_folding_a_prefix_then_the_rest(log in arbitrary_log(), cut in 0..41usize) {
        prop_assert!(incremental_equals_rebuild(&Approvals, &log, cut));
        prop_assert!(incremental_equals_rebuild(&Denials, &log, cut));
        prop_assert!(incremental_equals_rebuild(&SpawnTrees, &log, cut));
        prop_assert!(incremental_equals_rebuild(&FanOutRuns, &log, cut));
        prop_assert!(incremental_equals_rebuild(&Violations, &log, cut));
        prop_assert!(incremental_equals_rebuild(&Decisions, &log, cut));
        let timeline = Timeline { session: "a".into() };
        prop_assert!(incremental_equals_rebuild(&timeline, &log, cut));
    }
}

/// A projection that keeps the default `wants`: it is offered every event.
struct CountAll;

impl Projection for CountAll {
    type State = u64;

    fn apply(&self, state: &mut u64, _: Recorded<'_>) {
        *state += 1;
    }
}

#[test]
fn by_default_a_projection_wants_every_event() {
    let events = [
        envelope(1, 0, None, None, "operator_note", json!({"message": "a"})),
        envelope(2, 1, Some("s"), None, "operator_note", json!({"message": "b"})),
    ];
    let decoded: Vec<AuditEvent> = events.iter().map(|e| decode(e).unwrap()).collect();
    let views: Vec<EnvelopeRef<'_>> = events.iter().map(EnvelopeRef::from).collect();
    let mut count = 0;
    fold(
        &CountAll,
        &mut count,
        views.iter().zip(&decoded).map(|(envelope, event)| Recorded { envelope, event }),
    );
    assert_eq!(count, 2);
}

fn hook_spawn(tool_use_id: &str, caller: Option<&str>, ids: &[(&str, &str)], decision: &str) -> Value {
    let failure = (decision == "deny")
        .then(|| json!({"stage": "gate: environment", "code": "env_not_enabled", "reason": "r"}));
    json!({
        "tool_use_id": tool_use_id, "tool_name": "spawn", "agent_id": caller, "persona": "main",
        "subagent_type": ids.last().map(|(_, t)| *t).unwrap_or("x"), "decision": decision,
        "first_failure": failure, "gate": gate(decision, "main", Some("GATE-1"), None, None),
        "lineage": {"passed": true, "code": null, "reason": "ok", "pair": null},
        "lineage_agents": agents(ids), "result_path": null,
    })
}

fn hook_started(agent_id: &str, agent_type: &str, tool_use_id: Option<&str>, parent: Option<&str>) -> Value {
    json!({"agent_id": agent_id, "agent_type": agent_type, "tool_use_id": tool_use_id, "parent": parent,
           "depth": tool_use_id.map(|_| 1), "snapshot": true})
}

/// A harness session as the hook records it: two allowed spawns and their starts (one
/// nested), a denied spawn, an untracked start, a denied tool call and a blocked stop.
fn hook_log() -> Vec<Envelope> {
    let s = Some("cc");
    let kinds: Vec<(&str, Value)> = vec![
        ("subagent_spawn_evaluated", hook_spawn("t1", None, &[("main", "main"), ("t1", "planner")], "allow")),
        ("subagent_started", hook_started("a1", "planner", Some("t1"), None)),
        (
            "subagent_spawn_evaluated",
            hook_spawn("t2", Some("a1"), &[("main", "main"), ("a1", "planner"), ("t2", "coder")], "allow"),
        ),
        ("subagent_started", hook_started("a2", "coder", Some("t2"), Some("a1"))),
        ("subagent_spawn_evaluated", hook_spawn("t3", None, &[("main", "main"), ("t3", "shell")], "deny")),
        ("subagent_started", hook_started("rogue", "coder", None, None)),
        (
            "hook_tool_evaluated",
            json!({"tool_name": "shell", "tool_use_id": "t4", "agent_id": "rogue", "agent_type": "coder",
                   "target": null, "decision": "deny",
                   "failure": {"stage": "identity", "code": "agent_untracked", "reason": "r"}}),
        ),
        (
            "subagent_stopped",
            json!({"agent_id": "a2", "agent_type": "coder", "decision": "deny",
                   "failures": [{"stage": "guardrails", "code": "protected_path_changed", "reason": "r"}],
                   "changed_files": ["okrs/a.md"], "reverted": true, "result_path": null, "result": null,
                   "stop_hook_active": false}),
        ),
    ];
    kinds
        .into_iter()
        .enumerate()
        .map(|(i, (kind, payload))| envelope(i as u64 + 1, 1, s, None, kind, payload))
        .collect()
}

#[test]
fn hook_decisions_are_counted_and_each_agent_is_one_node() {
    let log = hook_log();
    let decisions = replay(&Decisions, &log);
    assert_eq!(
        (decisions.total.allow, decisions.total.deny),
        (2, 3),
        "2 spawns allowed; a spawn, a tool call, a stop denied"
    );
    let denials = replay(&Denials, &log);
    assert_eq!(denials.denials, 3);
    assert_eq!(denials.by_gate.get("environment"), Some(&1));
    assert_eq!((denials.by_layer.get("identity"), denials.by_layer.get("guardrails")), (Some(&1), Some(&1)));
    assert_eq!(denials.by_code.get("agent_untracked"), Some(&1));
    assert_eq!(denials.by_persona.get("coder"), Some(&2), "the tool call and the stop, by agent type");

    let tree = &replay(&SpawnTrees, &log).sessions["cc"];
    let ids: Vec<&str> = tree.agents.keys().map(String::as_str).collect();
    assert_eq!(
        ids,
        ["a1", "a2", "main", "rogue", "t3"],
        "one node per agent; the denied spawn stays under its call"
    );
    assert_eq!(tree.children("main").map(|(id, _)| id.as_str()).collect::<Vec<_>>(), ["a1", "t3"]);
    assert_eq!(tree.children("a1").map(|(id, _)| id.as_str()).collect::<Vec<_>>(), ["a2"]);
    assert_eq!(tree.agents["a1"].tool_use_id.as_deref(), Some("t1"));
    assert_eq!((tree.agents["a2"].spawn_depth, tree.agents["a2"].checks), (2, 1));
    assert!(tree.agents["rogue"].untracked && tree.agents["rogue"].parent.is_none());
    assert!(!tree.agents["a1"].untracked);
}
