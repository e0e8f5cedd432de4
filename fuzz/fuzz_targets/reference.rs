//! What the gate targets share: the gate run on a text with fixed files, and the reference
//! check, written apart from the gate, of what an allow needs to be true of the request.

use std::collections::BTreeMap;

use agentwarden_domain::governance::{
    EnvValue, FileRead, GateInputs, GateReport, PersonaReading, Request, candidates_to_read, evaluate,
    read_agent, read_persona,
};
use serde_json::Value;

/// An allow needs persona `MANAGER`, `contextSealed` and `pipelineRunApproved` exactly `true`,
/// and a usable `approvalRef` (non-blank, at most 256 characters, no control character).
pub fn allows(request: &Value) -> bool {
    let Some(meta) = request.pointer("/opts/subagentGovernance").and_then(Value::as_object) else {
        return false;
    };
    let reference = meta.get("approvalRef").and_then(Value::as_str);
    request.get("persona").and_then(Value::as_str) == Some("MANAGER")
        && meta.get("contextSealed") == Some(&Value::Bool(true))
        && meta.get("pipelineRunApproved") == Some(&Value::Bool(true))
        && reference.is_some_and(|r| {
            !r.trim().is_empty() && r.chars().count() <= 256 && !r.chars().any(char::is_control)
        })
}

/// The gate's report on `text` with the kill switch on, persona `MANAGER` declared by
/// `persona` (any other persona missing), and each candidate's file given by `agent`.
pub fn gate(text: &str, persona: &str, agent: impl Fn(&str) -> FileRead) -> GateReport {
    let request = Request::from_json(text);
    let persona = match &request.persona {
        Ok(raw) if raw == "MANAGER" => read_persona(raw, Some(&FileRead::Text(persona.into()))),
        Ok(raw) => read_persona(raw, Some(&FileRead::Missing)),
        Err(v) => PersonaReading::Invalid(v.clone()),
    };
    let agents: BTreeMap<_, _> = candidates_to_read(&request, &persona)
        .into_iter()
        .map(|name| {
            let file = agent(name.as_str());
            (name, read_agent(&file))
        })
        .collect();
    let inputs = GateInputs {
        env_var: "E".into(),
        env: EnvValue::Set("true".into()),
        request,
        persona,
        agents,
        recorded: None,
    };
    evaluate(&inputs).report
}
