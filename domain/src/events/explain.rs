//! One event in plain words: what was decided, which gates or layers passed or failed and why,
//! the approval in force, the lineage, and the digests of the inputs the decision saw.
//!
//! This is the pure half of `warden audit explain`: it reads one decoded event. Where the event
//! sits in the verified chain is the application's half — it verifies from seq 1 up to the
//! event before it explains anything, so a forged event is never explained.

use std::collections::BTreeMap;

use serde::Serialize;

use super::catalogue::{AuditEvent, PlanSummary};
use crate::audit::Envelope;
use crate::lineage::AgentIdentifier;
use crate::verdict::{Code, Decision, Verdict};

/// An event, explained.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Explanation {
    /// One sentence.
    pub summary: String,
    /// Allow or deny, for events that decide.
    pub decision: Option<Decision>,
    /// Every check the event records, in evaluation order.
    pub checks: Vec<Check>,
    /// The approval in force, for a subagent-gate evaluation.
    pub approval: Option<Approval>,
    /// The lineage, when the event recorded it.
    pub lineage: Option<Vec<AgentIdentifier>>,
    /// Digests of the inputs, by name (`metadata_digest`, `lineage_digest`, `result_digest`).
    pub digests: BTreeMap<&'static str, String>,
    /// Further facts, one per line: warnings, changed files, chunk failures.
    pub notes: Vec<String>,
}

/// One gate, layer, candidate or rule.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Check {
    /// What kind of check: `gate`, `candidate`, `layer`, `lineage`, `schema`.
    pub kind: &'static str,
    /// Its name.
    pub name: String,
    /// Did it pass?
    pub passed: bool,
    /// The failure's code.
    pub code: Option<Code>,
    /// Why.
    pub reason: String,
}

/// The approval a subagent-gate evaluation ran under (G-6).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Approval {
    /// The reference, when it passed its gate.
    pub approval_ref: Option<String>,
    /// Who approved, when named.
    pub approved_by: Option<String>,
}

fn check(kind: &'static str, name: impl Into<String>, verdict: &Verdict) -> Check {
    Check {
        kind,
        name: name.into(),
        passed: verdict.passed(),
        code: verdict.code().cloned(),
        reason: verdict.reason().to_string(),
    }
}

fn verb(decision: Decision) -> &'static str {
    match decision {
        Decision::Allow => "allowed",
        Decision::Deny => "denied",
    }
}

/// Explains one decoded event.
pub fn explain(envelope: &Envelope, event: &AuditEvent) -> Explanation {
    let mut explanation = Explanation {
        summary: summary(event),
        decision: event.decision(),
        checks: Vec::new(),
        approval: None,
        lineage: None,
        digests: BTreeMap::new(),
        notes: Vec::new(),
    };
    let _ = envelope;
    let x = &mut explanation;
    match event {
        AuditEvent::DelegationEvaluated(report) => gate_report(x, report),
        AuditEvent::SpawnEvaluated(e) => {
            gate_report(x, &e.gate);
            x.checks.push(check("lineage", "walk", &e.lineage.verdict));
            x.lineage = Some(e.lineage_agents.clone());
            x.notes.push(format!("tool call `{}` ({})", e.tool_use_id, e.tool_name));
            x.notes.push(match &e.agent_id {
                Some(agent) => format!("asked by subagent `{agent}` ({})", e.persona),
                None => format!("asked by the main session ({})", e.persona),
            });
            if let Some(f) = &e.first_failure {
                x.notes.push(format!("first failure: {} ({}): {}", f.stage, f.code, f.reason));
            }
            if let Some(path) = &e.result_path {
                x.notes.push(format!("asked for `{path}`"));
            }
        }
        AuditEvent::SubagentStarted(e) => x.notes.push(match (&e.tool_use_id, e.depth) {
            _ if e.repeated => {
                format!(
                    "subagent `{}` ({}) started again while running: replaced nothing (H-54)",
                    e.agent_id, e.agent_type
                )
            }
            (Some(tool), Some(depth)) => format!(
                "subagent `{}` ({}) matched spawn `{tool}` at depth {depth}, parent {}",
                e.agent_id,
                e.agent_type,
                e.parent.as_deref().unwrap_or("the main session")
            ),
            _ => format!("subagent `{}` ({}) matched no allowed spawn: untracked", e.agent_id, e.agent_type),
        }),
        AuditEvent::SubagentStopped(e) => stop_checks(x, &e.failures, &e.changed_files),
        AuditEvent::SessionStopped(e) => {
            stop_checks(x, &e.failures, &e.changed_files);
            if e.stop_hook_active {
                x.notes.push("a repeated stop: let through, the check made (H-46)".to_owned());
            }
        }
        AuditEvent::SessionEnded(e) => {
            stop_checks(x, &e.failures, &e.changed_files);
            if let Some(reason) = &e.reason {
                x.notes.push(format!("the harness said why it ended: `{reason}`"));
            }
        }
        AuditEvent::SessionStarted(e) => {
            stop_checks(x, &e.failures, &e.changed_files);
            x.notes.push(match (e.snapshot, e.kept) {
                (true, true) => {
                    "the snapshot of the session's first start was kept, and the paths compared with it (H-45, H-52)"
                        .to_owned()
                }
                (true, false) => "the protected paths were snapshotted for the session's stop".to_owned(),
                (false, true) => "the kept snapshot could not be checked against: quarantined".to_owned(),
                (false, false) => "no snapshot of the protected paths could be taken: quarantined".to_owned(),
            });
        }
        AuditEvent::HookToolEvaluated(e) => {
            if let Some(f) = &e.failure {
                x.checks.push(Check {
                    kind: "tool",
                    name: f.stage.clone(),
                    passed: false,
                    code: Some(f.code.clone()),
                    reason: f.reason.clone(),
                });
            }
            x.notes.push(format!("tool `{}`", e.tool_name));
            if let Some(target) = &e.target {
                x.notes.push(format!("target: {target}"));
            }
        }
        AuditEvent::SessionQuarantined(e) => x.notes.push(format!("quarantined ({}): {}", e.code, e.reason)),
        AuditEvent::ConfigChangeBlocked(e) => {
            x.checks.push(Check {
                kind: "config_change",
                name: e.failure.stage.clone(),
                passed: false,
                code: Some(e.failure.code.clone()),
                reason: e.failure.reason.clone(),
            });
            x.notes.push(format!("source: {}", e.source));
            if let Some(path) = &e.file_path {
                x.notes.push(format!("file: {path}"));
            }
        }
        AuditEvent::SessionReleased(_) | AuditEvent::HookInputRefused(_) => {}
        AuditEvent::ContextSealed(e) => {
            x.notes.extend(e.files.iter().map(|(path, digest)| format!("sealed: {path} {digest}")));
        }
        AuditEvent::ApprovalGranted(e) => {
            x.approval = Some(Approval {
                approval_ref: Some(e.approval_ref.clone()),
                approved_by: e.approved_by.clone(),
            });
            if let Some(expiry) = e.expires_at {
                x.notes.push(format!("expires at {expiry}"));
            }
            x.notes.extend(e.scope.personas.iter().map(|p| format!("scope: persona {p}")));
            x.notes.extend(e.scope.subagents.iter().map(|s| format!("scope: subagent {s}")));
        }
        AuditEvent::ApprovalRevoked(_) => {}
        AuditEvent::LineageChecked(e) => {
            x.checks.push(check("lineage", "walk", &e.result.verdict));
            x.lineage.clone_from(&e.lineage);
            x.digests.insert("lineage_digest", e.lineage_digest.clone());
            if let Some(pair) = e.result.pair {
                x.notes.push(format!("failing pair: agent {} → agent {} (0-based)", pair.parent, pair.child));
            }
        }
        AuditEvent::ToolCallAuthorized(e) => {
            x.checks.extend(
                e.authorization.layers.iter().map(|l| check("layer", snake_name(&l.name), &l.verdict)),
            );
            x.lineage.clone_from(&e.lineage);
            x.digests.insert("lineage_digest", e.lineage_digest.clone());
            // What the kernel was to enforce on the shell call (E-14).
            if let Some(applied) = &e.confinement {
                x.notes.push(format!("confinement: {}", applied.summary()));
                if let crate::lineage::Applied::Confined { digest, .. } = applied {
                    x.digests.insert("confinement_digest", digest.clone());
                }
            }
        }
        AuditEvent::ResultValidated(e) => {
            x.checks.extend(e.validation.problems.iter().map(|p| Check {
                kind: "schema",
                name: if p.pointer.is_empty() { "/".to_owned() } else { p.pointer.clone() },
                passed: false,
                code: Some(p.code.clone()),
                reason: p.message.clone(),
            }));
            if let Some(digest) = &e.digest {
                x.digests.insert("result_digest", digest.clone());
            }
        }
        AuditEvent::GuardrailViolation(v) => {
            x.notes.extend(v.details.changed_files.iter().map(|f| format!("changed: {f}")));
            if !v.details.revert_error.is_empty() {
                x.notes.push(format!("revert error: {}", v.details.revert_error));
            }
        }
        AuditEvent::FanOutPlanned(p) => x.notes.extend(p.warnings.iter().map(|w| format!("warning: {w}"))),
        AuditEvent::ChunkFinished(c) => {
            x.notes.extend(c.error.iter().map(|e| format!("error: {e}")));
            x.notes.extend(c.warnings.iter().map(|w| format!("warning: {w}")));
        }
        AuditEvent::FanOutMerged(m) => x.notes.extend(
            m.merged.test_results.failures.iter().map(|test| format!("failed test: {test}")).chain(
                m.merged
                    .failures
                    .iter()
                    .map(|f| format!("chunk {} {}: {}", f.chunk_index, snake_name(&f.status), f.error)),
            ),
        ),
        AuditEvent::OperatorNote(_) => {}
    }
    explanation
}

/// The gates and candidates of a subagent-gate report, the approval, and the records (issue 11)
/// it was checked against.
/// A stop's failed stages as checks, and each changed file as a note: a subagent's and the main
/// session's alike.
fn stop_checks(x: &mut Explanation, failures: &[crate::sessions::HookFailure], changed: &[String]) {
    x.checks.extend(failures.iter().map(|f| Check {
        kind: "stop",
        name: f.stage.clone(),
        passed: false,
        code: Some(f.code.clone()),
        reason: f.reason.clone(),
    }));
    x.notes.extend(changed.iter().map(|f| format!("changed: {f}")));
}

fn gate_report(x: &mut Explanation, report: &crate::governance::GateReport) {
    x.checks.extend(report.gates.iter().map(|g| check("gate", g.gate.as_str(), &g.verdict)));
    x.checks.extend(report.candidates.iter().map(|c| Check {
        kind: "candidate",
        name: c.name.clone(),
        passed: c.delegated,
        code: c.code.clone(),
        reason: c.reason.to_string(),
    }));
    x.approval =
        Some(Approval { approval_ref: report.approval_ref.clone(), approved_by: report.approved_by.clone() });
    if let Some(digest) = &report.metadata_digest {
        x.digests.insert("metadata_digest", digest.clone());
    }
    if let Some(recorded) = &report.recorded {
        x.notes.push(match recorded.seal_seq {
            Some(seq) => {
                format!("seal in force: seq {seq}; files compared: {}", recorded.files_checked.join(", "))
            }
            None => "no seal in force".to_owned(),
        });
        x.notes.push(match (recorded.approval_seq, recorded.approval_state) {
            (Some(seq), Some(state)) => format!("approval record: seq {seq}, {}", snake_name(&state)),
            _ => format!("approval record: none{}", if recorded.required { " (required)" } else { "" }),
        });
    }
    x.notes.extend(report.warnings.iter().map(|w| format!("warning: {w}")));
}

/// One sentence about an event.
pub fn summary(event: &AuditEvent) -> String {
    match event {
        AuditEvent::OperatorNote(note) => format!("operator note: {}", note.message),
        AuditEvent::DelegationEvaluated(r) => {
            let persona = r.persona.as_deref().unwrap_or("(unknown)");
            match (r.decision, &r.first_failure) {
                (Decision::Allow, _) => format!(
                    "persona `{persona}` allowed to delegate {} under approval `{}`{}",
                    list(&r.delegated),
                    r.approval_ref.as_deref().unwrap_or("-"),
                    r.approved_by.as_deref().map(|by| format!(" (approved by {by})")).unwrap_or_default()
                ),
                (Decision::Deny, Some(f)) => {
                    format!("persona `{persona}` denied at {} ({}): {}", f.gate.as_str(), f.code, f.reason)
                }
                (Decision::Deny, None) => format!("persona `{persona}` denied"),
            }
        }
        AuditEvent::LineageChecked(e) => {
            let why = e.result.verdict.code().map(|c| format!(" ({c}): {}", e.result.verdict.reason()));
            format!("lineage of {} agents {}{}", e.lineage_length, verb(e.decision), why.unwrap_or_default())
        }
        AuditEvent::ToolCallAuthorized(e) => {
            let agent = e.agent.as_ref().map_or_else(
                || "(unreadable request)".to_owned(),
                |a| format!("agent `{}` ({})", a.id, a.agent_type),
            );
            let tool = e.tool.as_deref().unwrap_or("?");
            let why =
                e.authorization.first_failure.as_ref().map(|f| {
                    format!(" at layer {} {} ({}): {}", f.layer, snake_name(&f.name), f.code, f.reason)
                });
            format!("{agent} {} tool `{tool}`{}", verb(e.authorization.decision), why.unwrap_or_default())
        }
        AuditEvent::ResultValidated(e) => format!(
            "result `{}` {} ({})",
            e.path,
            if e.validation.valid { "valid" } else { "invalid" },
            count(e.validation.problems.len(), "problem")
        ),
        AuditEvent::GuardrailViolation(v) => format!(
            "guardrail violation `{}` in run `{}` item `{}`: {} changed, {}",
            v.violation_type,
            v.details.run_id,
            v.details.item_id,
            list(&v.details.changed_files),
            if v.details.reverted { "reverted" } else { "NOT reverted" }
        ),
        AuditEvent::FanOutPlanned(p) => match &p.plan {
            PlanSummary::SingleAgent { reason } => {
                format!("phase `{}`: {} items on one agent ({reason})", p.phase, p.items)
            }
            PlanSummary::FanOut { strategy, chunk_sizes } => format!(
                "phase `{}`: {} items in {} chunks ({})",
                p.phase,
                p.items,
                chunk_sizes.len(),
                snake_name(strategy)
            ),
        },
        AuditEvent::ChunkFinished(c) => {
            let tests = c
                .test_results
                .as_ref()
                .map(|t| format!(": {} passed, {} failed, {} skipped", t.passed, t.failed, t.skipped));
            format!(
                "chunk {} {} in {} ms{}",
                c.chunk_index,
                snake_name(&c.status),
                c.elapsed_ms,
                tests.unwrap_or_default()
            )
        }
        AuditEvent::FanOutMerged(m) => {
            let t = &m.merged.test_results;
            format!(
                "phase `{}` merged {}: {} passed, {} failed, {} skipped",
                m.phase,
                snake_name(&m.merged.status),
                t.passed,
                t.failed,
                t.skipped
            )
        }
        AuditEvent::SpawnEvaluated(e) => {
            let who = e
                .agent_id
                .as_deref()
                .map_or_else(|| "the main session".to_owned(), |a| format!("subagent `{a}`"));
            let why = e.first_failure.as_ref().map(|f| format!(" at {} ({}): {}", f.stage, f.code, f.reason));
            format!(
                "{who} ({}) {} spawning `{}`{}",
                e.persona,
                verb(e.decision),
                e.subagent_type,
                why.unwrap_or_default()
            )
        }
        AuditEvent::SubagentStarted(e) => format!("subagent `{}` ({}) started", e.agent_id, e.agent_type),
        AuditEvent::SubagentStopped(e) => match e.decision {
            Decision::Allow => format!("subagent `{}` ({}) stopped", e.agent_id, e.agent_type),
            Decision::Deny => format!(
                "subagent `{}` ({}) blocked from stopping: {}",
                e.agent_id,
                e.agent_type,
                e.failures.iter().map(|f| f.code.as_str()).collect::<Vec<_>>().join(", ")
            ),
        },
        AuditEvent::SessionStarted(e) => match (e.snapshot, e.changed_files.is_empty()) {
            (true, true) => "the main session started".to_owned(),
            (true, false) => format!(
                "the main session started again, its protected paths {}: {}",
                if e.reverted { "put back" } else { "NOT put back" },
                e.changed_files.join(", ")
            ),
            (false, _) => "the main session started without a snapshot of its protected paths".to_owned(),
        },
        AuditEvent::SessionStopped(e) => match e.decision {
            Decision::Allow => "the main session stopped".to_owned(),
            Decision::Deny => format!(
                "the main session's stop {}: {}",
                if e.stop_hook_active { "let through after a block" } else { "blocked" },
                e.failures.iter().map(|f| f.code.as_str()).collect::<Vec<_>>().join(", ")
            ),
        },
        AuditEvent::SessionEnded(e) => match e.decision {
            Decision::Allow => "the main session ended".to_owned(),
            Decision::Deny => format!(
                "the main session ended, {}: {}",
                if e.reverted { "its protected paths put back" } else { "its protected paths NOT put back" },
                e.failures.iter().map(|f| f.code.as_str()).collect::<Vec<_>>().join(", ")
            ),
        },
        AuditEvent::ContextSealed(e) => format!(
            "context sealed{}: {} file(s)",
            e.by.as_deref().map(|b| format!(" by {b}")).unwrap_or_default(),
            e.files.len()
        ),
        AuditEvent::ApprovalGranted(e) => format!(
            "approval `{}` granted{}",
            e.approval_ref,
            e.approved_by.as_deref().map(|b| format!(" by {b}")).unwrap_or_default()
        ),
        AuditEvent::ApprovalRevoked(e) => match &e.approval_ref {
            Some(reference) => format!("approval `{reference}` revoked"),
            None => "every approval and the seal revoked".to_owned(),
        },
        AuditEvent::HookToolEvaluated(e) => {
            let who = e
                .agent_id
                .as_deref()
                .map_or_else(|| "the main session".to_owned(), |a| format!("subagent `{a}`"));
            let why = e.failure.as_ref().map(|f| format!(" at {} ({}): {}", f.stage, f.code, f.reason));
            format!("{who} {} using `{}`{}", verb(e.decision), e.tool_name, why.unwrap_or_default())
        }
        AuditEvent::SessionQuarantined(e) => format!("session quarantined ({}): {}", e.code, e.reason),
        AuditEvent::SessionReleased(e) => format!(
            "session released from quarantine{}",
            e.by.as_deref().map(|b| format!(" by {b}")).unwrap_or_default()
        ),
        AuditEvent::HookInputRefused(e) => format!("hook input refused ({}): {}", e.code, e.reason),
        AuditEvent::ConfigChangeBlocked(e) => format!(
            "settings change blocked ({}{})",
            e.source,
            e.file_path.as_deref().map(|p| format!(": {p}")).unwrap_or_default()
        ),
    }
}

/// "1 problem", "2 problems", "0 problems".
fn count(n: usize, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

fn list(names: &[String]) -> String {
    if names.is_empty() { "nothing".to_owned() } else { names.join(", ") }
}

/// The snake_case name a unit enum serialises to (`completed`, `round_robin`), for prose.
pub fn snake_name<T: Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(name)) => name,
        Ok(other) => other.to_string(),
        Err(_) => "?".to_owned(),
    }
}
