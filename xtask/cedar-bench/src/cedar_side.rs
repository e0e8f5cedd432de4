//! A [`Case`] as Cedar sees it: the gate as one `permit` ([`policy`]), what the instruction
//! files say as Cedar entities (JSON), and the code in front of Cedar that turns the request's
//! text into a context and one `Request` per candidate ([`Pep`]). Any error on the way is a
//! deny: no request, no allow.

use cedar_policy::{
    Authorizer, Context, Decision, Entities, EntityId, EntityTypeName, EntityUid, EvalResult, PolicySet,
    Request, Response,
};
use serde_json::{Map, Value, json};

use agentwarden_domain::json::parse_strict;
use agentwarden_domain::unicode::is_blank;

use crate::case::{AgentType, Case, PERSONA};

/// The gate's conditions, one per check (the test removes each in turn and shows a case of
/// the table that then decides otherwise). Each `has` guards the access after it.
pub const CONDITIONS: [&str; 8] = [
    // The kill switch, exactly `true` (G-2).
    r#"(context has enableSubagents && context.enableSubagents == "true")"#,
    // The persona's allowlist: its file declares this subagent.
    "(principal has subagents && principal.subagents.contains(resource))",
    // The metadata is there, and `contextSealed` is the boolean `true` (G-4, G-5).
    "(context has governance && context.governance has contextSealed && \
     context.governance.contextSealed == true)",
    // `pipelineRunApproved` is the boolean `true`.
    "(context has governance && context.governance has pipelineRunApproved && \
     context.governance.pipelineRunApproved == true)",
    // `approvalRef` is a string (only then is `context.approvalRef` there) of ≤ 256 characters …
    "(context has approvalRef && context.approvalRef.chars <= 256)",
    // … with a visible character (G-24) …
    "!context.approvalRef.blank",
    // … and no control character.
    "!context.approvalRef.control",
    // The subagent's file says `AGENT_TYPE: 2`, the integer (G-3).
    "(resource has agentType && resource.agentType == 2)",
];

/// The policy set: one permit whose conditions are [`CONDITIONS`], all of them.
pub fn policy_text(conditions: &[&str]) -> String {
    format!(
        "@id(\"subagent-gate\")\npermit (\n    principal is Persona,\n    action == Action::\"delegate\",\n    \
         resource is Subagent\n)\nwhen {{\n    {}\n}};\n",
        conditions.join(" &&\n    ")
    )
}

/// The gate's policy, as text.
pub fn policy() -> String {
    policy_text(&CONDITIONS)
}

/// The one action.
const DELEGATE: (&str, &str) = ("Action", "delegate");

fn uid(type_name: &str, id: &str) -> Result<EntityUid, String> {
    let type_name: EntityTypeName =
        type_name.parse().map_err(|e| format!("entity type `{type_name}`: {e}"))?;
    Ok(EntityUid::from_type_name_and_id(type_name, EntityId::new(id)))
}

/// The entities of a case, as JSON: the persona (its allowlist as a set of `Subagent`s) and
/// every subagent asked about that has a file ([`Case::candidate_files`]), with the other
/// things those files say (name, description, `AGENT_CLASS`) so both sides read as much.
pub fn entities_json(case: &Case) -> String {
    let subagent = |name: &str| json!({"__entity": {"type": "Subagent", "id": name}});
    let mut entities = vec![json!({
        "uid": {"type": "Persona", "id": PERSONA},
        "attrs": {
            "name": PERSONA,
            "description": "Type 1 manager persona.",
            "agentType": 1,
            "subagents": case.declares.iter().map(|n| subagent(n)).collect::<Vec<_>>(),
        },
        "parents": [],
    })];
    for (name, agent_type) in case.candidate_files() {
        let agent_type = match agent_type {
            AgentType::Int(n) => json!(n),
            AgentType::Quoted(text) => json!(text),
        };
        entities.push(json!({
            "uid": {"type": "Subagent", "id": name},
            "attrs": {
                "name": name,
                "description": "A specialist.",
                "agentType": agent_type,
                "agentClass": "TASK",
            },
            "parents": [],
        }));
    }
    Value::Array(entities).to_string()
}

/// The code in front of Cedar (its policy enforcement point): the policies, held parsed as a
/// server holds them, and the steps from a request's text to Cedar's decisions.
#[derive(Debug)]
pub struct Pep {
    policies: PolicySet,
    authorizer: Authorizer,
}

impl Pep {
    /// Parses a policy set.
    pub fn new(policy: &str) -> Result<Pep, String> {
        let policies: PolicySet = policy.parse().map_err(|e| format!("the policy does not parse: {e}"))?;
        Ok(Pep { policies, authorizer: Authorizer::new() })
    }

    /// The context of a request (already read as JSON) under this kill switch: the switch's
    /// value, the governance fields the gate checks (`contextSealed`, `pipelineRunApproved`, as
    /// they are), and for a string `approvalRef` the record Cedar cannot compute itself:
    /// `{text, chars, blank, control}`. Fields the gate only records (`approvedBy`, unknown
    /// ones, `session`, `turn`) are left out: they never change the decision, and a `null` or a
    /// fraction in one would make Cedar refuse the whole context.
    pub fn context(request: &Value, switch: Option<&str>) -> Result<Context, String> {
        let mut context = Map::new();
        if let Some(switch) = switch {
            context.insert("enableSubagents".to_owned(), json!(switch));
        }
        let governance = request.get("opts").and_then(|o| o.get("subagentGovernance"));
        if let Some(Value::Object(fields)) = governance {
            let mut checked = Map::new();
            for field in ["contextSealed", "pipelineRunApproved"] {
                if let Some(value) = fields.get(field) {
                    checked.insert(field.to_owned(), value.clone());
                }
            }
            context.insert("governance".to_owned(), Value::Object(checked));
            if let Some(Value::String(text)) = fields.get("approvalRef") {
                context.insert(
                    "approvalRef".to_owned(),
                    json!({
                        "text": text,
                        "chars": text.chars().count(),
                        "blank": is_blank(text),
                        "control": text.chars().any(char::is_control),
                    }),
                );
            }
        }
        Context::from_json_value(Value::Object(context), None).map_err(|e| format!("context: {e}"))
    }

    /// One request per candidate: the subagents the request names (duplicates dropped), or
    /// else every one the persona's entity declares. A request without a persona's name is
    /// an error (a deny).
    pub fn requests(
        &self,
        request: &Value,
        context: &Context,
        entities: &Entities,
    ) -> Result<Vec<Request>, String> {
        let persona = match request.get("persona") {
            Some(Value::String(name)) => uid("Persona", name)?,
            _ => return Err("the request names no persona".to_owned()),
        };
        let mut candidates: Vec<EntityUid> = Vec::new();
        match request.get("subagents") {
            None => {
                if let Some(Some(Ok(EvalResult::Set(declared)))) =
                    entities.get(&persona).map(|p| p.attr("subagents"))
                {
                    candidates.extend(declared.iter().filter_map(|d| match d {
                        EvalResult::EntityUid(u) => Some(u.clone()),
                        _ => None,
                    }));
                }
            }
            Some(Value::Array(names)) => {
                for name in names {
                    let Value::String(name) = name else {
                        return Err("subagents holds a non-name".to_owned());
                    };
                    let candidate = uid("Subagent", name)?;
                    if !candidates.contains(&candidate) {
                        candidates.push(candidate);
                    }
                }
            }
            Some(_) => return Err("subagents is not a list".to_owned()),
        }
        let action = uid(DELEGATE.0, DELEGATE.1)?;
        candidates
            .into_iter()
            .map(|candidate| {
                Request::new(persona.clone(), action.clone(), candidate, context.clone(), None)
                    .map_err(|e| format!("request: {e}"))
            })
            .collect()
    }

    /// Cedar's answer to one request: `is_authorized` alone (what the pre-parsed bench times).
    pub fn is_authorized(&self, request: &Request, entities: &Entities) -> Response {
        self.authorizer.is_authorized(request, &self.policies, entities)
    }

    /// Whether Cedar allows `request`.
    pub fn allows(&self, request: &Request, entities: &Entities) -> bool {
        self.is_authorized(request, entities).decision() == Decision::Allow
    }

    /// The candidates Cedar allows, sorted (their ids).
    pub fn allowed(&self, requests: &[Request], entities: &Entities) -> Vec<String> {
        let mut names: Vec<String> = requests
            .iter()
            .filter(|r| self.allows(r, entities))
            .filter_map(|r| r.resource().map(|u| u.id().unescaped().to_owned()))
            .collect();
        names.sort();
        names
    }

    /// Everything from text (what the from-text bench times): the request read with the
    /// domain's strict parser (a duplicate key is refused, G-5), its context built, the entities
    /// parsed from JSON, one request per candidate, and `is_authorized` on each.
    pub fn from_text(
        &self,
        request: &str,
        switch: Option<&str>,
        entities: &str,
    ) -> Result<Vec<String>, String> {
        let request = parse_strict(request).map_err(|e| format!("request: {e}"))?;
        let context = Pep::context(&request, switch)?;
        let entities = Entities::from_json_str(entities, None).map_err(|e| format!("entities: {e}"))?;
        let requests = self.requests(&request, &context, &entities)?;
        Ok(self.allowed(&requests, &entities))
    }
}

/// What Cedar allows for a case, from its texts; an error is a deny (nothing allowed).
pub fn decide(pep: &Pep, case: &Case) -> Vec<String> {
    pep.from_text(&case.request, case.switch, &entities_json(case)).unwrap_or_default()
}

/// A case held parsed, for the pre-parsed bench: its entities and one request per candidate.
#[derive(Debug)]
pub struct Parsed {
    /// The entities.
    pub entities: Entities,
    /// One request per candidate.
    pub requests: Vec<Request>,
}

impl Parsed {
    /// Parses a case's texts the way [`Pep::from_text`] does.
    pub fn of(pep: &Pep, case: &Case) -> Result<Parsed, String> {
        let request = parse_strict(&case.request).map_err(|e| format!("request: {e}"))?;
        let context = Pep::context(&request, case.switch)?;
        let entities =
            Entities::from_json_str(&entities_json(case), None).map_err(|e| format!("entities: {e}"))?;
        let requests = pep.requests(&request, &context, &entities)?;
        Ok(Parsed { entities, requests })
    }
}
