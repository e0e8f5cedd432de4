//! The gate's bench inputs — one persona, four subagent files and a request that is an allow —
//! shared by the domain's gate bench and the facade bench in `app/benches/facade_gate.rs`
//! (included there by `#[path]`), so that both measure the same inputs.

use std::collections::BTreeMap;

use agentwarden_domain::governance::{
    EnvValue, FileRead, GateInputs, PersonaReading, Request, candidates_to_read, read_agent, read_persona,
};

pub(crate) const PERSONA: &str = "---\nname: MANAGER\ndescription: Type 1 manager persona.\nAGENT_TYPE: 1\n\
subagents: [PREPARATION, 4_DOCUMENTS, REVIEW, PUBLISH]\n---\n\n# Manager\n\nPlans and delegates.\n";
pub(crate) const NAMES: [&str; 4] = ["PREPARATION", "4_DOCUMENTS", "REVIEW", "PUBLISH"];
pub(crate) const REQUEST: &str = r#"{"persona":"MANAGER","opts":{"subagentGovernance":{"contextSealed":true,
"pipelineRunApproved":true,"approvalRef":"GATE-2026-02-21-001","approvedBy":"ryan"}},"session":"s","turn":"t"}"#;
pub(crate) const ENABLE: &str = "AGENTWARDEN_ENABLE_SUBAGENTS";

pub(crate) fn agent_file(name: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: A specialist.\n---\nAGENT_TYPE: 2\nAGENT_CLASS: TASK\n\n# {name}\n\nWork.\n"
    )
}

/// Every agent file, by name.
pub(crate) fn agent_files() -> BTreeMap<&'static str, String> {
    NAMES.iter().map(|n| (*n, agent_file(n))).collect()
}

/// Parses everything, as the application does after reading the files.
pub(crate) fn parse_all(files: &BTreeMap<&str, String>) -> GateInputs {
    let request = Request::from_json(REQUEST);
    let persona = match &request.persona {
        Ok(raw) => read_persona(raw, Some(&FileRead::Text(PERSONA.to_owned()))),
        Err(v) => PersonaReading::Invalid(v.clone()),
    };
    let agents = candidates_to_read(&request, &persona)
        .into_iter()
        .map(|name| {
            let text = files.get(name.as_str()).cloned().map_or(FileRead::Missing, FileRead::Text);
            (name, read_agent(&text))
        })
        .collect();
    GateInputs {
        env_var: ENABLE.into(),
        env: EnvValue::Set("true".into()),
        request,
        persona,
        agents,
        recorded: None,
    }
}
