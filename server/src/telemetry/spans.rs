//! Spans from the recorded audit events (V-62): each decision event becomes one span following
//! the OpenTelemetry GenAI semantic conventions, parented along the lineage. A function of the
//! events alone (and of what earlier events said about the lineage), with no I/O: the exporter
//! calls it on its own thread, after the events are durable.
//!
//! - A spawn decision (`subagent_spawn_evaluated`, and the gate's `delegation_evaluated`) is an
//!   `invoke_agent {type}` span; a tool call decision (`hook_tool_evaluated`,
//!   `tool_call_authorized`) an `execute_tool {tool}` span; the other decisions (a stop check, a
//!   blocked settings change, a lineage check) a span named after their event type.
//! - Attributes: `gen_ai.operation.name`, `gen_ai.agent.name`, `gen_ai.agent.id`,
//!   `gen_ai.tool.name`, `gen_ai.tool.call.id`, `gen_ai.conversation.id` (the session), and
//!   Warden's `warden.decision` (`allow`/`deny`), `warden.code` and `warden.reason` (a deny's
//!   first failure), `warden.audit.seq` and `warden.event_type`. A deny's span status is an
//!   error whose description is its code.
//! - One trace per session (its id a digest of the store and the session); a span's id is a
//!   digest of the store and the event's seq, so that it names one event of one log. A
//!   subagent's decisions are children of the span of the spawn that started it (matched by
//!   `subagent_started`, H-2); the main session's decisions, and those of an agent whose start
//!   this server has not seen (before a restart, or forgotten past [`REMEMBERED`] agents), are
//!   roots of the session's trace (V-63).
//! - The span's start and end are the event's `recorded_at`: the span is the decision, an
//!   instant; the agent's life is not a span (V-63).

use std::borrow::Cow;
use std::collections::{HashMap, VecDeque};
use std::time::{Duration, SystemTime};

use opentelemetry::trace::{SpanContext, SpanId, SpanKind, Status, TraceFlags, TraceId, TraceState};
use opentelemetry::{InstrumentationScope, KeyValue};
use opentelemetry_sdk::trace::{SpanData, SpanEvents, SpanLinks};

use agentwarden::observe::{AuditEvent, Code, Decision, Envelope, Timestamp};

/// How many spawns and agents the lineage remembers (each): past it the oldest are forgotten,
/// and their agents' decisions become roots (V-63).
pub(crate) const REMEMBERED: usize = 65_536;

/// The longest `warden.reason` exported, in bytes: the rest is in the audit log.
const REASON_MAX: usize = 1024;

/// What the earlier events said about the lineage: the span of each allowed spawn not yet
/// started (by session and tool call id), and the span of the spawn that started each agent (by
/// session and agent id).
#[derive(Debug)]
pub(crate) struct Lineage {
    store: String,
    scope: InstrumentationScope,
    spawns: Remembered,
    agents: Remembered,
}

impl Lineage {
    /// The lineage of the log `store` (its description, which only salts the ids).
    pub(crate) fn new(store: String) -> Lineage {
        let scope = InstrumentationScope::builder("agentwarden-server")
            .with_version(env!("CARGO_PKG_VERSION"))
            .build();
        Lineage { store, scope, spawns: Remembered::default(), agents: Remembered::default() }
    }

    /// The span of the event `envelope` records, if it records a decision; what it says about
    /// the lineage is remembered either way.
    pub(crate) fn span(&mut self, envelope: &Envelope) -> Option<SpanData> {
        let event = agentwarden::observe::decode(envelope).ok()?;
        let session = envelope.session.as_deref();
        let key = |id: &str| (session.unwrap_or_default().to_owned(), id.to_owned());
        let span_id = self.span_id(envelope.seq);
        let mut attributes = Vec::new();
        let (name, caller) = match &event {
            AuditEvent::SubagentStarted(started) => {
                if let Some(spawn) = started.tool_use_id.as_deref().and_then(|t| self.spawns.get(&key(t))) {
                    self.agents.insert(key(&started.agent_id), spawn);
                }
                return None;
            }
            AuditEvent::SpawnEvaluated(spawn) => {
                put(&mut attributes, "gen_ai.operation.name", "invoke_agent");
                put(&mut attributes, "gen_ai.agent.name", &spawn.subagent_type);
                put(&mut attributes, "gen_ai.tool.name", &spawn.tool_name);
                put(&mut attributes, "gen_ai.tool.call.id", &spawn.tool_use_id);
                put(&mut attributes, "warden.caller.persona", &spawn.persona);
                if let Some(agent) = &spawn.agent_id {
                    put(&mut attributes, "warden.caller.agent.id", agent);
                }
                if spawn.decision == Decision::Allow {
                    self.spawns.insert(key(&spawn.tool_use_id), span_id);
                }
                (format!("invoke_agent {}", spawn.subagent_type), spawn.agent_id.clone())
            }
            AuditEvent::DelegationEvaluated(report) => {
                let asked = report.requested.as_ref().map(|r| r.join(",")).unwrap_or_default();
                put(&mut attributes, "gen_ai.operation.name", "invoke_agent");
                put(&mut attributes, "gen_ai.agent.name", &asked);
                if let Some(persona) = &report.persona {
                    put(&mut attributes, "warden.caller.persona", persona);
                }
                (format!("invoke_agent {asked}"), None)
            }
            AuditEvent::HookToolEvaluated(tool) => {
                put(&mut attributes, "gen_ai.operation.name", "execute_tool");
                put(&mut attributes, "gen_ai.tool.name", &tool.tool_name);
                if let Some(id) = &tool.tool_use_id {
                    put(&mut attributes, "gen_ai.tool.call.id", id);
                }
                if let Some(agent) = &tool.agent_id {
                    put(&mut attributes, "gen_ai.agent.id", agent);
                }
                if let Some(agent_type) = &tool.agent_type {
                    put(&mut attributes, "gen_ai.agent.name", agent_type);
                }
                (format!("execute_tool {}", tool.tool_name), tool.agent_id.clone())
            }
            AuditEvent::ToolCallAuthorized(tool) => {
                // The tool's name, not the call's specifier: `Read`, never `Read(README.md)`, so a
                // span's name and `gen_ai.tool.name` carry no path (the GenAI conventions' name).
                let spec = tool.tool.as_deref().unwrap_or_default();
                let name = spec.split_once('(').map_or(spec, |(name, _)| name).to_owned();
                put(&mut attributes, "gen_ai.operation.name", "execute_tool");
                put(&mut attributes, "gen_ai.tool.name", &name);
                if let Some(agent) = &tool.agent {
                    put(&mut attributes, "gen_ai.agent.id", &agent.id);
                    put(&mut attributes, "gen_ai.agent.name", agent.agent_type.as_str());
                }
                if tool.shadow {
                    attributes.push(KeyValue::new("warden.shadow", true));
                }
                (format!("execute_tool {name}"), tool.agent.as_ref().map(|a| a.id.clone()))
            }
            AuditEvent::SubagentStopped(stop) => {
                put(&mut attributes, "gen_ai.agent.id", &stop.agent_id);
                put(&mut attributes, "gen_ai.agent.name", &stop.agent_type);
                (format!("subagent_stopped {}", stop.agent_type), Some(stop.agent_id.clone()))
            }
            other => {
                other.decision()?;
                (other.event_type().to_owned(), None)
            }
        };
        let decision = event.decision()?;
        let failure = failure(&event);
        let code = failure.map(|(code, _)| code.to_string());
        if let Some(session) = session {
            put(&mut attributes, "gen_ai.conversation.id", session);
        }
        put(&mut attributes, "warden.event_type", &envelope.event_type);
        put(&mut attributes, "warden.decision", decision_text(decision));
        if let Some(code) = &code {
            put(&mut attributes, "warden.code", code);
        }
        if decision == Decision::Deny
            && let Some((_, reason)) = failure
        {
            put(&mut attributes, "warden.reason", truncated(reason, REASON_MAX));
        }
        attributes.push(KeyValue::new("warden.audit.seq", i64::try_from(envelope.seq).unwrap_or(i64::MAX)));
        let parent = caller.and_then(|agent| self.agents.get(&key(&agent))).unwrap_or(SpanId::INVALID);
        let trace_id = match session {
            Some(session) => self.trace_id(&["session", session]),
            None => self.trace_id(&["seq", &envelope.seq.to_string()]),
        };
        let at = time(envelope.recorded_at);
        Some(SpanData {
            span_context: SpanContext::new(
                trace_id,
                span_id,
                TraceFlags::SAMPLED,
                false,
                TraceState::default(),
            ),
            parent_span_id: parent,
            parent_span_is_remote: false,
            span_kind: SpanKind::Internal,
            name: Cow::Owned(name),
            start_time: at,
            end_time: at,
            attributes,
            dropped_attributes_count: 0,
            events: SpanEvents::default(),
            links: SpanLinks::default(),
            status: match (decision, code) {
                (Decision::Allow, _) => Status::Unset,
                (Decision::Deny, code) => Status::error(code.unwrap_or_else(|| "deny".to_owned())),
            },
            instrumentation_scope: self.scope.clone(),
        })
    }

    fn trace_id(&self, parts: &[&str]) -> TraceId {
        let digest = self.digest("trace", parts);
        let mut bytes = [0_u8; 16];
        bytes.copy_from_slice(digest.get(..16).unwrap_or(&[1; 16]));
        if bytes == [0; 16] {
            bytes[15] = 1;
        }
        TraceId::from_bytes(bytes)
    }

    fn span_id(&self, seq: u64) -> SpanId {
        let digest = self.digest("span", &[&seq.to_string()]);
        let mut bytes = [0_u8; 8];
        bytes.copy_from_slice(digest.get(..8).unwrap_or(&[1; 8]));
        if bytes == [0; 8] {
            bytes[7] = 1;
        }
        SpanId::from_bytes(bytes)
    }

    /// BLAKE3 of `kind`, the store and `parts`, each length-prefixed (no two lists collide).
    fn digest(&self, kind: &str, parts: &[&str]) -> [u8; 32] {
        let mut hasher = blake3::Hasher::new();
        for part in [kind, self.store.as_str()].iter().chain(parts) {
            hasher.update(&(part.len() as u64).to_be_bytes());
            hasher.update(part.as_bytes());
        }
        *hasher.finalize().as_bytes()
    }
}

/// The first failure a decision event records: its code and reason.
fn failure(event: &AuditEvent) -> Option<(&Code, &str)> {
    match event {
        AuditEvent::SpawnEvaluated(e) => e.first_failure.as_ref().map(|f| (&f.code, f.reason.as_str())),
        AuditEvent::HookToolEvaluated(e) => e.failure.as_ref().map(|f| (&f.code, f.reason.as_str())),
        AuditEvent::SubagentStopped(e) => e.failures.first().map(|f| (&f.code, f.reason.as_str())),
        AuditEvent::SessionStopped(e) => e.failures.first().map(|f| (&f.code, f.reason.as_str())),
        AuditEvent::SessionEnded(e) => e.failures.first().map(|f| (&f.code, f.reason.as_str())),
        AuditEvent::ConfigChangeBlocked(e) => Some((&e.failure.code, e.failure.reason.as_str())),
        AuditEvent::ToolCallAuthorized(e) => {
            e.authorization.first_failure.as_ref().map(|f| (&f.code, f.reason.as_ref()))
        }
        AuditEvent::DelegationEvaluated(e) => e.first_failure.as_ref().map(|f| (&f.code, f.reason.as_ref())),
        AuditEvent::LineageChecked(e) => {
            e.result.verdict.code().map(|c| (c, e.result.verdict.reason().as_ref()))
        }
        _ => None,
    }
}

fn put(attributes: &mut Vec<KeyValue>, key: &'static str, value: &str) {
    attributes.push(KeyValue::new(key, value.to_owned()));
}

fn decision_text(decision: Decision) -> &'static str {
    match decision {
        Decision::Allow => "allow",
        Decision::Deny => "deny",
    }
}

/// `text` cut to at most `max` bytes, at a character boundary.
fn truncated(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.get(..end).unwrap_or_default()
}

fn time(at: Timestamp) -> SystemTime {
    let millis = u64::try_from(at.unix_millis()).unwrap_or(0);
    SystemTime::UNIX_EPOCH + Duration::from_millis(millis)
}

/// A map that forgets its oldest entries past [`REMEMBERED`].
#[derive(Debug, Default)]
struct Remembered {
    spans: HashMap<(String, String), SpanId>,
    order: VecDeque<(String, String)>,
}

impl Remembered {
    fn get(&self, key: &(String, String)) -> Option<SpanId> {
        self.spans.get(key).copied()
    }

    fn insert(&mut self, key: (String, String), span: SpanId) {
        if self.spans.insert(key.clone(), span).is_none() {
            self.order.push_back(key);
        }
        while self.order.len() > REMEMBERED {
            if let Some(old) = self.order.pop_front() {
                self.spans.remove(&old);
            }
        }
    }
}
