//! The gate itself: every gate evaluated in the fixed order of G-1, candidates checked (G-8),
//! and the decision combined in one exhaustive `match` that defaults to deny.

use std::borrow::Cow;
use std::collections::BTreeMap;

use super::agent::AgentReading;
use super::inputs::EnvValue;
use super::metadata;
use super::names::{Name, show};
use super::persona::PersonaReading;
use super::report::{CandidateResult, Code, Decision, Failure, Gate, GateReport, GateResult, Stage, Verdict};
use super::request::Request;

/// Everything the gate needs, read by the application and parsed by this module's readers.
#[derive(Clone, Debug)]
pub struct GateInputs {
    /// The kill-switch variable's name (G-2).
    pub env_var: String,
    /// Its value.
    pub env: EnvValue,
    /// The request.
    pub request: Request,
    /// The persona, read with [`super::read_persona`].
    pub persona: PersonaReading,
    /// The candidate subagents' files, read with [`super::read_agent`], for the names
    /// [`candidates_to_read`] returned.
    pub agents: BTreeMap<Name, AgentReading>,
    /// The recorded seal and approvals to check against (G-20, G-21); `None`: the spec's gate,
    /// on the metadata alone.
    pub recorded: Option<super::Recorded>,
}

/// What the gate allows to delegate: the persona, the subagents, the approval in force. Only
/// [`evaluate`] builds one, and only on an allow. It is the decision's content, not the
/// permission to act on it: that is `agentwarden::DelegationGrant`, which only a `Warden` hands
/// out, once the decision's event is durable (G-10, X-20).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delegation {
    persona: Name,
    subagents: Vec<Name>,
    approval_ref: String,
}

impl Delegation {
    /// The persona that delegates.
    pub fn persona(&self) -> &Name {
        &self.persona
    }

    /// The subagents that may be injected, never empty.
    pub fn subagents(&self) -> &[Name] {
        &self.subagents
    }

    /// The human approval in force.
    pub fn approval_ref(&self) -> &str {
        &self.approval_ref
    }
}

/// The gate's answer: the report, and what is delegated only on allow.
#[derive(Debug)]
pub struct Evaluation {
    /// What was found.
    pub report: GateReport,
    delegation: Option<Delegation>,
}

impl Evaluation {
    /// What is delegated, if the decision is allow.
    pub fn delegation(&self) -> Option<&Delegation> {
        self.delegation.as_ref()
    }

    /// Splits into the report and what is delegated.
    pub fn into_parts(self) -> (GateReport, Option<Delegation>) {
        (self.report, self.delegation)
    }

    /// The records could not be read (G-22, G-23: the store cannot be used): a deny whose first
    /// failure is `audit`, whatever else failed — no other answer could have been an allow.
    /// The other gates' failures follow it, in evaluation order.
    pub fn records_unavailable(self, code: Code, reason: impl Into<String>) -> GateReport {
        let mut report = self.audit_failed(code, reason);
        if let Some(audit) = report.failures.pop() {
            report.first_failure = Some(audit.clone());
            report.failures.insert(0, audit);
        }
        report
    }

    /// The decision could not be recorded: an allow becomes a deny (G-10), the delegation is
    /// dropped, and the failure is named at the `audit` stage.
    pub fn audit_failed(self, code: Code, reason: impl Into<String>) -> GateReport {
        let mut report = self.report;
        report.decision = Decision::Deny;
        report.delegated.clear();
        for candidate in &mut report.candidates {
            if candidate.delegated {
                candidate.delegated = false;
                candidate.code = Some(code.clone());
                candidate.reason = Cow::Borrowed("not delegated: the decision could not be recorded");
            }
        }
        let failure = Failure { gate: Stage::Audit, code, reason: Cow::Owned(reason.into()) };
        report.first_failure.get_or_insert_with(|| failure.clone());
        report.failures.push(failure);
        report
    }
}

/// The candidates a request asks for: the names it lists (duplicates dropped), or else every
/// subagent the persona declares. Raw strings: some may not be valid names.
pub fn candidate_names<'a>(request: &'a Request, persona: &'a PersonaReading) -> Vec<&'a str> {
    match (&request.requested, persona) {
        (Ok(Some(names)), _) => {
            let mut unique: Vec<&str> = Vec::with_capacity(names.len());
            for name in names {
                if !unique.contains(&name.as_str()) {
                    unique.push(name);
                }
            }
            unique
        }
        (Ok(None), PersonaReading::Valid(p)) => p.declared.iter().map(Name::as_str).collect(),
        (Ok(None), PersonaReading::Invalid(_)) | (Err(_), _) => Vec::new(),
    }
}

/// The declared name equal to `raw`, if the persona declares it.
/// What a persona declares, for a reason about a name it does not (N-6: an unknown name is told
/// what exists): `; it declares `a`, `b`` (the first eight), or nothing for an invalid persona.
fn declares(persona: &PersonaReading) -> String {
    match persona {
        PersonaReading::Valid(p) if p.declared.is_empty() => "; it declares none".to_owned(),
        PersonaReading::Valid(p) => {
            let names: Vec<String> = p.declared.iter().take(8).map(|n| show(n.as_str())).collect();
            let more = if p.declared.len() > 8 { ", …" } else { "" };
            format!("; it declares {}{more}", names.join(", "))
        }
        PersonaReading::Invalid(_) => String::new(),
    }
}

fn declared<'a>(persona: &'a PersonaReading, raw: &str) -> Option<&'a Name> {
    match persona {
        PersonaReading::Valid(p) => p.declared.iter().find(|d| d.as_str() == raw),
        PersonaReading::Invalid(_) => None,
    }
}

/// The candidate files the application should read: valid names the persona declares. No other
/// name reaches the file system.
pub fn candidates_to_read(request: &Request, persona: &PersonaReading) -> Vec<Name> {
    candidate_names(request, persona).into_iter().filter_map(|raw| declared(persona, raw)).cloned().collect()
}

fn environment(var: &str, value: &EnvValue) -> Verdict {
    match value {
        EnvValue::Set(v) if v == "true" => Verdict::pass("the kill switch is `true`"),
        EnvValue::Set(v) => {
            Verdict::fail(Code::EnvNotEnabled, format!("{var} is {}, expected exactly `true`", show(v)))
        }
        EnvValue::Unset => Verdict::fail(Code::EnvNotEnabled, format!("{var} is not set, expected `true`")),
        EnvValue::NotUnicode => Verdict::fail(Code::EnvNotEnabled, format!("{var} is not valid Unicode")),
    }
}

fn persona_gate(persona: &PersonaReading) -> Verdict {
    match persona {
        PersonaReading::Valid(_) => Verdict::pass("the persona declares subagents"),
        PersonaReading::Invalid(verdict) => verdict.clone(),
    }
}

/// One global gate's outcome per field: adding a gate adds a field, and the destructuring in
/// [`decide`] stops compiling until the new gate is combined.
struct Gates {
    environment: Verdict,
    persona_allowlist: Verdict,
    metadata_presence: Verdict,
    context_sealed: Verdict,
    pipeline_run_approved: Verdict,
    approval_ref: Verdict,
}

/// The one place the decision is made. Default: deny.
fn decide(gates: &Gates, eligible: &[&Name]) -> Decision {
    let Gates {
        environment,
        persona_allowlist,
        metadata_presence,
        context_sealed,
        pipeline_run_approved,
        approval_ref,
    } = gates;
    match (
        environment.passed(),
        persona_allowlist.passed(),
        metadata_presence.passed(),
        context_sealed.passed(),
        pipeline_run_approved.passed(),
        approval_ref.passed(),
        eligible.is_empty(),
    ) {
        (true, true, true, true, true, true, false) => Decision::Allow,
        _ => Decision::Deny,
    }
}

/// Evaluates the gate. Pure: the same inputs give the same report.
pub fn evaluate(inputs: &GateInputs) -> Evaluation {
    let fields = metadata::presence(&inputs.request.metadata);
    let object = fields.as_ref().ok().copied();
    let (approval_verdict, approval_ref) = metadata::approval_ref(object);
    let sealed = metadata::boolean_true(object, "contextSealed", "contextSealed is true");
    let (context_sealed, approval_verdict) = match &inputs.recorded {
        None => (sealed, approval_verdict),
        Some(recorded) => {
            let persona = inputs.request.persona.as_deref().unwrap_or_default();
            let names = candidate_names(&inputs.request, &inputs.persona);
            let approval = recorded.approval(approval_verdict, approval_ref.as_deref(), persona, &names);
            (recorded.context_sealed(sealed), approval)
        }
    };
    let gates = Gates {
        environment: environment(&inputs.env_var, &inputs.env),
        persona_allowlist: persona_gate(&inputs.persona),
        metadata_presence: match &fields {
            Ok(_) => Verdict::pass("subagentGovernance is present"),
            Err(verdict) => verdict.clone(),
        },
        context_sealed,
        pipeline_run_approved: metadata::boolean_true(
            object,
            "pipelineRunApproved",
            "pipelineRunApproved is true",
        ),
        approval_ref: approval_verdict,
    };
    let extras = metadata::extras(object);

    let mut eligible: Vec<&Name> = Vec::new();
    let mut candidates = Vec::new();
    for raw in candidate_names(&inputs.request, &inputs.persona) {
        let (verdict, warnings) = match (Name::is_valid(raw), declared(&inputs.persona, raw)) {
            (false, _) => match Name::new(raw) {
                Err(e) => (Verdict::fail(Code::NameNotIdentifier, format!("subagent {e}")), Vec::new()),
                Ok(_) => (Verdict::fail(Code::InternalError, "name validation disagrees"), Vec::new()),
            },
            (true, None) => (
                Verdict::fail(
                    Code::NotDeclared,
                    format!("the persona does not declare {}{}", show(raw), declares(&inputs.persona)),
                ),
                Vec::new(),
            ),
            (true, Some(name)) => match inputs.agents.get(name) {
                None => (Verdict::fail(Code::AgentNotRegistered, format!("{name} was not read")), Vec::new()),
                Some(reading) => {
                    if reading.verdict.passed() {
                        eligible.push(name);
                    }
                    (reading.verdict.clone(), reading.warnings.clone())
                }
            },
        };
        candidates.push((raw, verdict, warnings));
    }

    let decision = decide(&gates, &eligible);
    let Gates {
        environment,
        persona_allowlist,
        metadata_presence,
        context_sealed,
        pipeline_run_approved,
        approval_ref: approval,
    } = gates;
    let results: Vec<GateResult> = Gate::ORDER
        .into_iter()
        .zip([
            environment,
            persona_allowlist,
            metadata_presence,
            context_sealed,
            pipeline_run_approved,
            approval,
        ])
        .map(|(gate, verdict)| GateResult { gate, verdict })
        .collect();
    let gates_passed = results.iter().all(|r| r.verdict.passed());
    let mut failures: Vec<Failure> = results
        .iter()
        .filter_map(|r| match &r.verdict {
            Verdict::Pass { .. } => None,
            Verdict::Fail { code, reason } => {
                Some(Failure { gate: Stage::Gate(r.gate), code: code.clone(), reason: reason.clone() })
            }
        })
        .collect();
    if gates_passed && eligible.is_empty() {
        let reason = if candidates.is_empty() {
            "no subagent was requested".to_owned()
        } else {
            let why: Vec<String> = candidates
                .iter()
                .map(|(name, v, _)| format!("{}: {}", show(name), v.code().map_or("?", Code::as_str)))
                .collect();
            let undeclared = candidates.iter().any(|(_, v, _)| v.code() == Some(&Code::NotDeclared));
            let known = if undeclared { declares(&inputs.persona) } else { String::new() };
            format!("no candidate may be delegated ({}){known}", why.join(", "))
        };
        failures.push(Failure {
            gate: Stage::Candidates,
            code: Code::NoCandidateDelegated,
            reason: reason.into(),
        });
    }
    let allowed = decision == Decision::Allow;
    let candidates: Vec<CandidateResult> = candidates
        .into_iter()
        .map(|(name, verdict, warnings)| {
            let delegated = allowed && verdict.passed();
            let (code, reason) = match verdict {
                Verdict::Pass { reason } if delegated => (None, reason),
                Verdict::Pass { .. } => {
                    (Some(Code::GatesFailed), Cow::Borrowed("not delegated: a gate failed"))
                }
                Verdict::Fail { code, reason } => (Some(code), reason),
            };
            CandidateResult { name: name.to_owned(), delegated, code, reason, warnings }
        })
        .collect();

    let mut warnings = inputs.request.warnings.clone();
    warnings.extend(extras.warnings);
    let delegation = match (decision, &inputs.persona, &approval_ref) {
        (Decision::Allow, PersonaReading::Valid(p), Some(approval_ref)) => Some(Delegation {
            persona: p.name.clone(),
            subagents: eligible.iter().map(|n| (*n).clone()).collect(),
            approval_ref: approval_ref.clone(),
        }),
        _ => None,
    };
    // Belt and braces: an allow without everything a delegation needs is a deny.
    let decision = if delegation.is_some() { decision } else { Decision::Deny };
    let recorded = inputs.recorded.as_ref().map(|r| r.summary(approval_ref.as_deref()));
    let report = GateReport {
        decision,
        delegated: match decision {
            Decision::Allow => eligible.iter().map(|n| n.to_string()).collect(),
            Decision::Deny => Vec::new(),
        },
        persona: inputs.request.persona.as_ref().ok().cloned(),
        requested: inputs.request.requested.as_ref().ok().cloned().flatten(),
        env_var: inputs.env_var.clone(),
        gates: results,
        first_failure: failures.first().cloned(),
        failures,
        candidates,
        warnings,
        approval_ref,
        approved_by: extras.approved_by,
        unknown_fields: extras.unknown_fields,
        metadata_digest: inputs.request.metadata_digest.clone(),
        recorded,
    };
    Evaluation { report, delegation }
}
