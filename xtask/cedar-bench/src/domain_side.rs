//! A [`Case`] as the domain gate sees it: the texts the application reads (the persona's and
//! the subagents' Markdown files, the request), parsed by the domain's own readers exactly as
//! `parse_all` of `domain/benches/support/gate_inputs.rs` does, then [`evaluate`]d.

use std::collections::BTreeMap;

use agentwarden_domain::governance::{
    EnvValue, FileRead, GateInputs, PersonaReading, Request, candidates_to_read, evaluate, read_agent,
    read_persona,
};

use crate::case::{AgentType, Case, PERSONA};

/// The kill switch's name, as in the domain's bench.
pub const ENABLE: &str = "AGENTWARDEN_ENABLE_SUBAGENTS";

/// What the application would have read for a case.
#[derive(Clone, Debug)]
pub struct Texts {
    /// The kill switch's value.
    pub switch: Option<String>,
    /// The persona's file ([`PERSONA`]'s; any other persona has none).
    pub persona: String,
    /// The subagents' files, by name.
    pub agents: BTreeMap<String, String>,
    /// The request.
    pub request: String,
}

/// A persona file declaring `declares`, in the bench's words.
pub fn persona_file(declares: &[&str]) -> String {
    format!(
        "---\nname: {PERSONA}\ndescription: Type 1 manager persona.\nAGENT_TYPE: 1\nsubagents: [{}]\n---\n\n\
         # Manager\n\nPlans and delegates.\n",
        declares.join(", ")
    )
}

/// A subagent's file saying `agent_type`, in the bench's words.
pub fn agent_file(name: &str, agent_type: AgentType) -> String {
    let agent_type = match agent_type {
        AgentType::Int(n) => n.to_string(),
        AgentType::Quoted(text) => format!("\"{text}\""),
    };
    format!(
        "---\nname: {name}\ndescription: A specialist.\n---\nAGENT_TYPE: {agent_type}\nAGENT_CLASS: TASK\n\n# {name}\n\nWork.\n"
    )
}

impl Texts {
    /// The case's files and request.
    pub fn of(case: &Case) -> Texts {
        Texts {
            switch: case.switch.map(str::to_owned),
            persona: persona_file(&case.declares),
            agents: case.agents.iter().map(|(n, t)| ((*n).to_owned(), agent_file(n, *t))).collect(),
            request: case.request.clone(),
        }
    }

    /// Parses everything, as the application does after reading the files (the steps of the
    /// domain bench's `parse_all`, the persona looked up by the request's name).
    pub fn parse(&self) -> GateInputs {
        let request = Request::from_json(&self.request);
        let persona = match &request.persona {
            Ok(raw) if raw == PERSONA => read_persona(raw, Some(&FileRead::Text(self.persona.clone()))),
            Ok(raw) => read_persona(raw, Some(&FileRead::Missing)),
            Err(v) => PersonaReading::Invalid(v.clone()),
        };
        let agents = candidates_to_read(&request, &persona)
            .into_iter()
            .map(|name| {
                let text = self.agents.get(name.as_str()).cloned().map_or(FileRead::Missing, FileRead::Text);
                (name, read_agent(&text))
            })
            .collect();
        GateInputs {
            env_var: ENABLE.into(),
            env: self.switch.clone().map_or(EnvValue::Unset, EnvValue::Set),
            request,
            persona,
            agents,
            recorded: None,
        }
    }
}

/// The subagents the domain delegates (empty on a deny), sorted.
pub fn delegated(inputs: &GateInputs) -> Vec<String> {
    let mut names = evaluate(inputs).report.delegated;
    names.sort();
    names
}
