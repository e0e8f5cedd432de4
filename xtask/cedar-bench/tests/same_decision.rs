//! Both engines decide every case of the table alike, and as the case expects: the
//! subagents the domain delegates are the ones Cedar allows. So the bench compares one policy,
//! not two; a policy that dropped a check, or a domain gate that changed, fails here first.

use xtask_cedar_bench::case::{Case, DECLARED, table};
use xtask_cedar_bench::cedar_side::{CONDITIONS, Parsed, Pep, decide, policy, policy_text};
use xtask_cedar_bench::domain_side::{ENABLE as DOMAIN_ENABLE, Texts, agent_file, delegated, persona_file};

#[path = "../../../domain/benches/support/gate_inputs.rs"]
mod gate_inputs;

fn sorted(names: &[&str]) -> Vec<String> {
    let mut names: Vec<String> = names.iter().map(|n| (*n).to_owned()).collect();
    names.sort();
    names
}

#[test]
fn the_bench_case_is_the_domain_gate_benchs_inputs() {
    let case = Case::bench();
    assert_eq!(persona_file(&case.declares), gate_inputs::PERSONA);
    assert_eq!(DECLARED, gate_inputs::NAMES);
    assert_eq!(DOMAIN_ENABLE, gate_inputs::ENABLE);
    for (name, agent_type) in &case.agents {
        assert_eq!(agent_file(name, *agent_type), gate_inputs::agent_file(name));
    }
    let ours: serde_json::Value = serde_json::from_str(&case.request).unwrap();
    let theirs: serde_json::Value = serde_json::from_str(gate_inputs::REQUEST).unwrap();
    assert_eq!(ours, theirs);
    let texts = Texts::of(&case);
    let files = gate_inputs::agent_files();
    let bench = gate_inputs::parse_all(&files);
    assert_eq!(delegated(&texts.parse()), delegated(&bench));
    assert_eq!(format!("{:?}", texts.parse().request), format!("{:?}", bench.request));
    // And Cedar reads the domain bench's very request text.
    let pep = Pep::new(&policy()).unwrap();
    let entities = xtask_cedar_bench::cedar_side::entities_json(&case);
    assert_eq!(pep.from_text(gate_inputs::REQUEST, case.switch, &entities).unwrap(), sorted(&DECLARED));
}

#[test]
fn both_engines_decide_every_case_alike_and_as_expected() {
    let pep = Pep::new(&policy()).unwrap();
    let mut wrong = Vec::new();
    for case in table() {
        let want = sorted(&case.expect);
        let domain = delegated(&Texts::of(&case).parse());
        let cedar = decide(&pep, &case);
        if domain != want || cedar != want {
            wrong.push(format!("{}: expected {want:?}, domain {domain:?}, Cedar {cedar:?}", case.name));
        }
    }
    assert!(wrong.is_empty(), "the engines disagree:\n{}", wrong.join("\n"));
}

#[test]
fn the_table_has_allows_denies_and_partial_allows() {
    let cases = table();
    assert!(cases.iter().any(|c| c.expect.len() == 4));
    assert!(cases.iter().filter(|c| c.expect.is_empty()).count() >= 20);
    assert!(cases.iter().any(|c| !c.expect.is_empty() && c.expect.len() < c.declares.len()));
}

#[test]
fn pre_parsed_requests_decide_as_the_text_path_does() {
    let pep = Pep::new(&policy()).unwrap();
    for case in table() {
        let from_text = decide(&pep, &case);
        match Parsed::of(&pep, &case) {
            Ok(parsed) => {
                assert_eq!(pep.allowed(&parsed.requests, &parsed.entities), from_text, "{}", case.name)
            }
            Err(_) => assert!(from_text.is_empty(), "{}", case.name),
        }
    }
}

/// Every condition of the policy is needed: without it, some case of the table is decided
/// otherwise by Cedar. So the table exercises each check, and none is decorative.
#[test]
fn each_condition_of_the_policy_is_needed_by_some_case() {
    let cases = table();
    for (i, condition) in CONDITIONS.iter().enumerate() {
        let fewer: Vec<&str> =
            CONDITIONS.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, c)| *c).collect();
        let pep = Pep::new(&policy_text(&fewer)).unwrap();
        let changed = cases.iter().find(|case| decide(&pep, case) != sorted(&case.expect));
        assert!(changed.is_some(), "no case needs `{condition}`");
    }
}

#[test]
fn an_unparsable_policy_or_a_request_without_persona_is_an_error_not_an_allow() {
    assert!(Pep::new("permit (principal, action, resource) when { context.").is_err());
    let pep = Pep::new(&policy()).unwrap();
    let case = Case::bench();
    let entities = xtask_cedar_bench::cedar_side::entities_json(&case);
    assert!(pep.from_text("{\"opts\": {}}", Some("true"), &entities).is_err());
    assert!(pep.from_text("not json", Some("true"), &entities).is_err());
    assert!(pep.from_text(&case.request, Some("true"), "[{]").is_err());
}
