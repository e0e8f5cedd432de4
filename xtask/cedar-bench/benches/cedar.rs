//! The domain gate against Cedar's `is_authorized` on the same policy (issue 20, X-60, X-61),
//! both in one run; `cargo xtask bench cedar` prints the medians side by side.
//!
//! `cedar_pre_parsed`, everything parsed before the clock starts:
//! - `domain_every_candidate`: `evaluate(&inputs)` on the domain gate bench's inputs
//!   (`domain/benches/support/gate_inputs.rs`, included below: exactly `gate/pre_parsed`): the
//!   six gates, four candidates checked, the report with its reasons and the delegation built.
//! - `cedar_every_candidate`: `Authorizer::is_authorized(&request, &policy_set, &entities)` once
//!   for each of the same four candidates (Cedar answers one resource per call): the requests,
//!   the policy set and the entities already built.
//! - `domain_one_candidate` / `cedar_one_candidate`: the same for a request that names one
//!   subagent (`"subagents": ["PREPARATION"]`): one `evaluate`, one `is_authorized`.
//!
//! `cedar_from_text`, from the texts, the policies held parsed as a server holds them:
//! - `domain_every_candidate`: what `gate/parse_and_evaluate` does: the request's JSON read
//!   strictly (`Request::from_json`), the persona's Markdown file and the four subagents' files
//!   parsed (`read_persona`, `read_agent`), then `evaluate`.
//! - `cedar_every_candidate`: the same request text read with the same strict parser
//!   (`parse_strict`), Cedar's context built from it (with the `approvalRef` record Cedar
//!   cannot compute: its length, blankness and control characters) by
//!   `Context::from_json_value`, the entities (the persona and the four subagents, as JSON)
//!   parsed by `Entities::from_json_str`, one `Request::new` per candidate, `is_authorized`
//!   on each, and the allowed names collected.
//! - `domain_one_candidate` / `cedar_one_candidate`: the same for the one-subagent request
//!   (the domain reads one subagent file; Cedar's entities hold the persona and that one).

use std::hint::black_box;

use agentwarden_domain::governance::evaluate;
use criterion::{Criterion, criterion_group, criterion_main};
use xtask_cedar_bench::case::Case;
use xtask_cedar_bench::cedar_side::{Parsed, Pep, entities_json, policy};
use xtask_cedar_bench::domain_side::{Texts, delegated};

#[path = "../../../domain/benches/support/gate_inputs.rs"]
mod gate_inputs;
use gate_inputs::{REQUEST, agent_files, parse_all};

fn or_exit<T>(result: Result<T, String>) -> T {
    result.unwrap_or_else(|e| {
        eprintln!("cedar bench: {e}");
        std::process::exit(2)
    })
}

fn cedar(c: &mut Criterion) {
    let pep = or_exit(Pep::new(&policy()));
    let (every, one) = (Case::bench(), Case::one_candidate());
    let files = agent_files();
    let inputs = parse_all(&files);
    let one_texts = Texts::of(&one);
    let one_inputs = one_texts.parse();
    let (every_parsed, one_parsed) = (or_exit(Parsed::of(&pep, &every)), or_exit(Parsed::of(&pep, &one)));
    let (every_entities, one_entities) = (entities_json(&every), entities_json(&one));

    // The bench must measure the allows it says, on both sides.
    let same = |domain: Vec<String>, cedar: Vec<String>, want: &[&str]| {
        let mut want: Vec<String> = want.iter().map(|n| (*n).to_owned()).collect();
        want.sort();
        if domain != want || cedar != want {
            eprintln!(
                "cedar bench: expected {want:?}, the domain delegates {domain:?}, Cedar allows {cedar:?}"
            );
            std::process::exit(2);
        }
    };
    same(delegated(&inputs), pep.allowed(&every_parsed.requests, &every_parsed.entities), &every.expect);
    same(delegated(&one_inputs), pep.allowed(&one_parsed.requests, &one_parsed.entities), &one.expect);
    same(delegated(&inputs), or_exit(pep.from_text(REQUEST, every.switch, &every_entities)), &every.expect);

    let mut group = c.benchmark_group("cedar_pre_parsed");
    group.bench_function("domain_every_candidate", |b| b.iter(|| evaluate(black_box(&inputs))));
    group.bench_function("cedar_every_candidate", |b| {
        b.iter(|| {
            for request in black_box(&every_parsed.requests) {
                black_box(pep.is_authorized(request, &every_parsed.entities));
            }
        })
    });
    group.bench_function("domain_one_candidate", |b| b.iter(|| evaluate(black_box(&one_inputs))));
    group.bench_function("cedar_one_candidate", |b| {
        b.iter(|| {
            for request in black_box(&one_parsed.requests) {
                black_box(pep.is_authorized(request, &one_parsed.entities));
            }
        })
    });
    group.finish();

    let mut group = c.benchmark_group("cedar_from_text");
    group.bench_function("domain_every_candidate", |b| b.iter(|| evaluate(&parse_all(black_box(&files)))));
    group.bench_function("cedar_every_candidate", |b| {
        b.iter(|| pep.from_text(black_box(REQUEST), every.switch, black_box(&every_entities)))
    });
    group.bench_function("domain_one_candidate", |b| b.iter(|| evaluate(&black_box(&one_texts).parse())));
    group.bench_function("cedar_one_candidate", |b| {
        b.iter(|| pep.from_text(black_box(&one.request), one.switch, black_box(&one_entities)))
    });
    group.finish();
}

criterion_group!(benches, cedar);
criterion_main!(benches);
