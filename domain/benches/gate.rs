//! Subagent-gate benches (issue targets: ≤ 2 µs median on pre-parsed inputs; ≤ 50 µs including
//! the parsing of one persona and four subagent files held in memory).

use std::collections::BTreeMap;
use std::hint::black_box;

use agentwarden_domain::governance::{
    EnvValue, FileRead, GateInputs, PersonaReading, candidates_to_read, evaluate, parse_request, read_agent,
    read_persona,
};
use criterion::{Criterion, criterion_group, criterion_main};

const PERSONA: &str = "---\nname: MANAGER\ndescription: Type 1 manager persona.\nAGENT_TYPE: 1\n\
subagents: [PREPARATION, 4_DOCUMENTS, REVIEW, PUBLISH]\n---\n\n# Manager\n\nPlans and delegates.\n";
const NAMES: [&str; 4] = ["PREPARATION", "4_DOCUMENTS", "REVIEW", "PUBLISH"];
const REQUEST: &str = r#"{"persona":"MANAGER","opts":{"subagentGovernance":{"contextSealed":true,
"pipelineRunApproved":true,"approvalRef":"GATE-2026-02-21-001","approvedBy":"ryan"}},"session":"s","turn":"t"}"#;

fn agent_file(name: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: A specialist.\n---\nAGENT_TYPE: 2\nAGENT_CLASS: TASK\n\n# {name}\n\nWork.\n"
    )
}

/// Parses everything, as the application does after reading the files.
fn parse_all(files: &BTreeMap<&str, String>) -> GateInputs {
    let request = parse_request(REQUEST);
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
        env_var: "AGENTWARDEN_ENABLE_SUBAGENTS".into(),
        env: EnvValue::Set("true".into()),
        request,
        persona,
        agents,
        recorded: None,
    }
}

fn gate(c: &mut Criterion) {
    let files: BTreeMap<&str, String> = NAMES.iter().map(|n| (*n, agent_file(n))).collect();
    let inputs = parse_all(&files);
    assert_eq!(evaluate(&inputs).report.delegated.len(), 4, "the bench must measure an allow");
    let mut group = c.benchmark_group("gate");
    group.bench_function("pre_parsed", |b| b.iter(|| evaluate(black_box(&inputs))));
    group.bench_function("parse_and_evaluate", |b| b.iter(|| evaluate(&parse_all(black_box(&files)))));
    group.finish();
}

criterion_group!(benches, gate);
criterion_main!(benches);
