//! What the kernel answers, as a human reads it on the command line: short, one fact per line,
//! the most alarming first where there is one (`NOT reverted`, `DENIED`, `DENY`, `VIOLATION`).
//! Each renderer is a function from a use case's typed answer to text written to a `Write`, or
//! to the JSON object the command line prints with `--json` where it builds one by hand (a
//! serialized outcome is the facade's own type). The command line parses its arguments, asks, and
//! calls these; the exit code stays its own.
//!
//! Here: the investigations (`warden audit replay`, `explain`, `timeline`), the seal and the
//! approvals as `warden seal --show` and `warden approvals` list them; in the modules, each
//! command's answer: [`gate`], [`lineage`] (and `authorize`), [`guard`], [`result`] (all four
//! reached through [`outcome`], the decision commands' answer), [`fanout`],
//! [`tlog`] (the chain's verdict, checkpoints and proofs) and [`status`] (the server's).

pub mod fanout;
pub mod gate;
pub mod guard;
pub mod lineage;
pub mod outcome;
pub mod result;
pub mod status;
pub mod tlog;

use std::io::{Result, Write};

use agentwarden::audit::{Envelope, Hash};
use agentwarden::events::projections::{
    ApprovalsState, DecisionsState, DenialsState, FanOutState, ShadowState, SpawnTree, SpawnTreeState,
    TimelineEntry, ViolationsState, snake_name,
};
use agentwarden::events::{Explanation, PlanSummary};
use agentwarden::governance::{ApprovalRecord, ApprovalState, SealRecord};
use agentwarden_protocol::ListedApproval;
use serde::Serialize;

pub fn approvals(state: &ApprovalsState, out: &mut dyn Write) -> Result<()> {
    if state.by_ref.is_empty() {
        writeln!(out, "no delegation was evaluated under an approval reference")?;
    }
    for (reference, record) in &state.by_ref {
        let approvers: Vec<&str> = record.approved_by.iter().map(String::as_str).collect();
        let subagents: Vec<&str> = record.subagents.iter().map(String::as_str).collect();
        writeln!(
            out,
            "{reference}: {} allowed, {} denied; approved by {}; delegated {}",
            record.allowed,
            record.denied,
            if approvers.is_empty() { "(nobody named)".to_owned() } else { approvers.join(", ") },
            if subagents.is_empty() { "nothing".to_owned() } else { subagents.join(", ") },
        )?;
        for e in &record.evaluations {
            writeln!(
                out,
                "  seq {:<6} {}  session {}  persona {}  {}  {}",
                e.seq,
                e.recorded_at,
                e.session.as_deref().unwrap_or("-"),
                e.persona.as_deref().unwrap_or("-"),
                snake_name(&e.decision),
                e.delegated.join(", ")
            )?;
        }
    }
    writeln!(out, "evaluations without an approval reference: {}", state.without_ref)
}

fn counts(title: &str, map: &std::collections::BTreeMap<String, u64>, out: &mut dyn Write) -> Result<()> {
    writeln!(out, "{title}:")?;
    for (key, n) in map {
        writeln!(out, "  {key:<32} {n:>10}")?;
    }
    Ok(())
}

pub fn denials(state: &DenialsState, out: &mut dyn Write) -> Result<()> {
    writeln!(out, "denials: {}", state.denials)?;
    counts("by gate", &state.by_gate, out)?;
    counts("by layer", &state.by_layer, out)?;
    counts("by code", &state.by_code, out)?;
    counts("by persona", &state.by_persona, out)
}

fn tree(tree: &SpawnTree, out: &mut dyn Write) -> Result<()> {
    // Depth-first with an explicit stack: lineages can be long (L-8), recursion is not safe.
    let mut stack: Vec<(usize, &String)> = tree.roots().map(|(id, _)| (0, id)).collect();
    stack.reverse();
    let mut seen = std::collections::BTreeSet::new();
    while let Some((depth, id)) = stack.pop() {
        let Some(agent) = tree.agents.get(id) else { continue };
        if !seen.insert(id) {
            continue;
        }
        let mut line =
            format!("{}{id} ({}, depth {})", "  ".repeat(depth + 1), agent.agent_type, agent.spawn_depth);
        if agent.denied > 0 {
            line.push_str(&format!("  DENIED {} of {} checks", agent.denied, agent.checks));
        }
        if !agent.other_parents.is_empty() {
            let others: Vec<&str> = agent.other_parents.iter().map(String::as_str).collect();
            line.push_str(&format!("  also claimed by {}", others.join(", ")));
        }
        writeln!(out, "{line}")?;
        let children: Vec<_> = tree.children(id).map(|(child, _)| (depth + 1, child)).collect();
        stack.extend(children.into_iter().rev());
    }
    if tree.unrecorded > 0 {
        writeln!(out, "  (+{} lineages too long to record, by digest only)", tree.unrecorded)?;
    }
    Ok(())
}

pub fn spawn_trees(state: &SpawnTreeState, out: &mut dyn Write) -> Result<()> {
    for (session, t) in &state.sessions {
        writeln!(out, "session {session}")?;
        tree(t, out)?;
    }
    if !state.without_session.agents.is_empty() || state.without_session.unrecorded > 0 {
        writeln!(out, "without a session")?;
        tree(&state.without_session, out)?;
    }
    if state.sessions.is_empty() && state.without_session.agents.is_empty() {
        writeln!(out, "no lineage was recorded")?;
    }
    Ok(())
}

pub fn fan_out(state: &FanOutState, out: &mut dyn Write) -> Result<()> {
    if state.runs.is_empty() {
        writeln!(out, "no fan-out run was recorded")?;
    }
    for run in &state.runs {
        let plan = match &run.plan {
            None => "no plan recorded".to_owned(),
            Some(PlanSummary::SingleAgent { reason }) => format!("one agent ({reason})"),
            Some(PlanSummary::FanOut { strategy, chunk_sizes }) => {
                format!("{} chunks, {}", chunk_sizes.len(), snake_name(strategy))
            }
        };
        let merged = run.merged.as_ref().map_or("not merged".to_owned(), |m| {
            let t = &m.merged.test_results;
            format!(
                "merged {}: {} passed, {} failed, {} skipped",
                snake_name(&m.merged.status),
                t.passed,
                t.failed,
                t.skipped
            )
        });
        writeln!(
            out,
            "run {} phase {}: {} items, {plan}; {merged}",
            run.run.as_deref().unwrap_or("(unnamed)"),
            run.phase.as_deref().unwrap_or("?"),
            run.items.map_or("?".to_owned(), |n| n.to_string()),
        )?;
        // Each failed test by name, not only counted.
        for test in run.merged.iter().flat_map(|m| &m.merged.test_results.failures) {
            writeln!(out, "  failed: {test}")?;
        }
        for c in &run.chunks {
            let tests = c.outcome.test_results.as_ref().map_or(String::new(), |t| {
                format!(": {} passed, {} failed, {} skipped", t.passed, t.failed, t.skipped)
            });
            let error = c.outcome.error.as_deref().map_or(String::new(), |e| format!(" — {e}"));
            writeln!(
                out,
                "  chunk {} {}{tests}{error}",
                c.outcome.chunk_index,
                snake_name(&c.outcome.status)
            )?;
        }
    }
    Ok(())
}

pub fn violations(state: &ViolationsState, out: &mut dyn Write) -> Result<()> {
    writeln!(
        out,
        "violations: {} ({} reverted, {} NOT reverted)",
        state.total, state.reverted, state.not_reverted
    )?;
    for v in &state.violations {
        writeln!(
            out,
            "  seq {:<6} {}  run {}  item {}  {}  {}: {}{}",
            v.seq,
            v.recorded_at,
            v.run_id,
            v.item_id,
            v.violation_type,
            if v.reverted { "reverted" } else { "NOT reverted" },
            v.changed_files.join(", "),
            if v.revert_error.is_empty() { String::new() } else { format!(" — {}", v.revert_error) }
        )?;
    }
    Ok(())
}

pub fn decisions(state: &DecisionsState, out: &mut dyn Write) -> Result<()> {
    writeln!(out, "{:<26} {:>10} {:>10}", "HOUR (UTC)", "ALLOW", "DENY")?;
    for (hour, c) in &state.hours {
        writeln!(out, "{hour:<26} {:>10} {:>10}", c.allow, c.deny)?;
    }
    writeln!(out, "{:<26} {:>10} {:>10}", "total", state.total.allow, state.total.deny)
}

/// What enforcing the tool rules would have denied (T-10).
pub fn shadow(state: &ShadowState, out: &mut dyn Write) -> Result<()> {
    writeln!(out, "{} tool calls recorded in shadow mode; enforcing would deny:", state.calls)?;
    if state.would_deny.is_empty() {
        return writeln!(out, "  none");
    }
    writeln!(out, "{:<20} {:<40} {:<11} {:<22} {:>6}", "AGENT TYPE", "CALL", "LAYER", "CODE", "COUNT")?;
    for row in state.would_deny.values() {
        writeln!(
            out,
            "{:<20} {:<40} {:<11} {:<22} {:>6}",
            row.agent_type, row.tool, row.layer, row.code, row.count
        )?;
    }
    Ok(())
}

pub fn explanation(envelope: &Envelope, x: &Explanation, out: &mut dyn Write) -> Result<()> {
    writeln!(
        out,
        "event {}: {} v{}, recorded {} by {}",
        envelope.seq, envelope.event_type, envelope.event_version, envelope.recorded_at, envelope.actor
    )?;
    for (name, id) in [
        ("session", &envelope.session),
        ("turn", &envelope.turn),
        ("run", &envelope.run),
        ("item", &envelope.item),
    ] {
        if let Some(id) = id {
            writeln!(out, "{name}: {id}")?;
        }
    }
    let decision = x.decision.map_or("-".to_owned(), |d| snake_name(&d).to_uppercase());
    writeln!(out, "decision: {decision} — {}", x.summary)?;
    if !x.checks.is_empty() {
        writeln!(out, "checks:")?;
    }
    for c in &x.checks {
        let code = c.code.as_deref().map_or(String::new(), |code| format!(" ({code})"));
        writeln!(
            out,
            "  {} {} {}{code}: {}",
            if c.passed { "pass" } else { "FAIL" },
            c.kind,
            c.name,
            c.reason
        )?;
    }
    if let Some(a) = &x.approval {
        writeln!(
            out,
            "approval: {} approved by {}",
            a.approval_ref.as_deref().unwrap_or("(none in force)"),
            a.approved_by.as_deref().unwrap_or("(nobody named)")
        )?;
    }
    if let Some(lineage) = &x.lineage {
        let agents: Vec<String> =
            lineage.iter().map(|a| format!("{} ({}, depth {})", a.id, a.agent_type, a.spawn_depth)).collect();
        writeln!(out, "lineage: {}", agents.join(" → "))?;
    }
    for (name, digest) in &x.digests {
        writeln!(out, "input {name}: {digest}")?;
    }
    for note in &x.notes {
        writeln!(out, "{note}")?;
    }
    Ok(())
}

/// One entry of `warden audit timeline`, as a row: seq, time, type, decision, summary.
pub fn timeline_row(entry: &TimelineEntry, out: &mut dyn Write) -> Result<()> {
    let decision = entry.decision.map_or("-".to_owned(), |d| snake_name(&d));
    writeln!(
        out,
        "{:>6}  {}  {:<22}  {:<5}  {}",
        entry.seq, entry.recorded_at, entry.event_type, decision, entry.summary
    )
}

/// Where an explained event sits in the chain.
#[derive(Debug, Serialize)]
pub struct ChainPlace {
    /// Every event from `verified_from` to `verified_to` verified.
    pub verified_from: u64,
    /// The last event verified: the one explained.
    pub verified_to: u64,
    /// The log's head when the explanation was made.
    pub head: u64,
    /// The event's `prev_hash`.
    pub prev_hash: Hash,
    /// The event's hash.
    pub hash: Hash,
}

/// One event explained, with its place in the chain: `warden audit explain --json`.
#[derive(Debug, Serialize)]
pub struct Explained<'a> {
    /// The event's sequence number.
    pub seq: u64,
    /// Its type.
    pub event_type: &'a str,
    /// Its type's version.
    pub event_version: u32,
    /// When it was recorded.
    pub recorded_at: String,
    /// Who recorded it.
    pub actor: &'a str,
    /// Its session, turn, run and item, when it has them.
    pub session: Option<&'a str>,
    /// Its turn.
    pub turn: Option<&'a str>,
    /// Its run.
    pub run: Option<&'a str>,
    /// Its item.
    pub item: Option<&'a str>,
    /// What it says, in words.
    #[serde(flatten)]
    pub explanation: &'a Explanation,
    /// Where it sits in the chain.
    pub chain: ChainPlace,
}

impl<'a> Explained<'a> {
    /// `envelope`, explained as `explanation`, once every event from seq 1 to it verified in a
    /// log whose head is at `head`.
    pub fn new(envelope: &'a Envelope, explanation: &'a Explanation, head: u64) -> Self {
        Explained {
            seq: envelope.seq,
            event_type: &envelope.event_type,
            event_version: envelope.event_version,
            recorded_at: envelope.recorded_at.to_string(),
            actor: &envelope.actor,
            session: envelope.session.as_deref(),
            turn: envelope.turn.as_deref(),
            run: envelope.run.as_deref(),
            item: envelope.item.as_deref(),
            explanation,
            chain: ChainPlace {
                verified_from: 1,
                verified_to: envelope.seq,
                head,
                prev_hash: envelope.prev_hash,
                hash: envelope.hash,
            },
        }
    }

    /// `warden audit explain` in text: the explanation of `envelope` (the one explained), then
    /// its place in the chain.
    pub fn text(&self, envelope: &Envelope, out: &mut dyn Write) -> Result<()> {
        explanation(envelope, self.explanation, out)?;
        let (seq, chain) = (self.seq, &self.chain);
        writeln!(
            out,
            "chain: event {seq} of {} — verified from seq 1 to {seq}; prev_hash {}, hash {}",
            chain.head, chain.prev_hash, chain.hash
        )
    }
}

/// The seal in force, as `warden seal --show` prints it.
pub fn seal(seal: Option<&SealRecord>, out: &mut dyn Write) -> Result<()> {
    match seal {
        None => writeln!(out, "no seal in force")?,
        Some(seal) => {
            let by = seal.by.as_ref().map(|b| format!(" by {b}")).unwrap_or_default();
            writeln!(out, "sealed at seq {}{by}: {} file(s)", seal.seq, seal.files.len())?;
            for (path, digest) in &seal.files {
                writeln!(out, "  {digest}  {path}")?;
            }
        }
    }
    Ok(())
}

/// `warden approvals --json`: every approval with its state now, and the seal (its seq, who
/// sealed and how many files).
pub fn approvals_json(seal: Option<&SealRecord>, approvals: &[ListedApproval]) -> serde_json::Value {
    let list: Vec<serde_json::Value> =
        approvals.iter().map(|a| serde_json::json!({"record": a.record, "state": a.state})).collect();
    let seal = seal.map(|s| serde_json::json!({"seq": s.seq, "by": s.by, "files": s.files.len()}));
    serde_json::json!({"approvals": list, "seal": seal})
}

/// The seal and every approval with its state now, as `warden approvals` prints them.
pub fn approvals_now<'a>(
    seal: Option<&SealRecord>,
    approvals: &[(&'a ApprovalRecord, &'a ApprovalState)],
    out: &mut dyn Write,
) -> Result<()> {
    match seal {
        Some(seal) => writeln!(out, "seal: in force since seq {} ({} file(s))", seal.seq, seal.files.len())?,
        None => writeln!(out, "seal: none")?,
    }
    if approvals.is_empty() {
        writeln!(out, "no approvals recorded")?;
    }
    for (r, state) in approvals {
        let state = match &r.refused {
            Some(refused) => refused.code.as_str().to_owned(),
            None => format!("{state:?}").to_lowercase(),
        };
        let by = r.approved_by.as_deref().unwrap_or("-");
        let expires = r.expires_at.map_or_else(|| "never".to_owned(), |t| t.to_string());
        let personas =
            if r.scope.personas.is_empty() { "any".to_owned() } else { r.scope.personas.join(",") };
        let subagents =
            if r.scope.subagents.is_empty() { "any".to_owned() } else { r.scope.subagents.join(",") };
        writeln!(
            out,
            "{:<28} {state:<8} seq {:<6} by {by:<12} expires {expires}  personas {personas}  subagents {subagents}",
            r.approval_ref, r.seq
        )?;
    }
    Ok(())
}
