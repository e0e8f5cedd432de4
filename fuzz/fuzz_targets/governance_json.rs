//! Governance metadata alone: arbitrary text as `opts.subagentGovernance` of an otherwise valid
//! request, through the whole gate. Never a panic, and never an allow unless an independent
//! reference holds on the text: the request is JSON with no duplicated key at any depth (G-5),
//! `contextSealed` and `pipelineRunApproved` are exactly `true`, and `approvalRef` is usable.
#![no_main]

mod reference;

use std::fmt;

use agentwarden_domain::governance::{Decision, FileRead};
use libfuzzer_sys::fuzz_target;
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

const PERSONA: &str = "---\nsubagents: [PREPARATION]\n---\n";
const AGENT: &str = "---\nAGENT_TYPE: 2\n---\n";

/// Deserializes to whether no object in the document repeats a key: written apart from the
/// domain's strict parser so that the two can disagree.
struct NoDuplicates(bool);

impl<'de> Deserialize<'de> for NoDuplicates {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(Check)
    }
}

struct Check;

impl<'de> Visitor<'de> for Check {
    type Value = NoDuplicates;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("JSON")
    }

    fn visit_bool<E>(self, _: bool) -> Result<NoDuplicates, E> {
        Ok(NoDuplicates(true))
    }
    fn visit_i64<E>(self, _: i64) -> Result<NoDuplicates, E> {
        Ok(NoDuplicates(true))
    }
    fn visit_u64<E>(self, _: u64) -> Result<NoDuplicates, E> {
        Ok(NoDuplicates(true))
    }
    fn visit_f64<E>(self, _: f64) -> Result<NoDuplicates, E> {
        Ok(NoDuplicates(true))
    }
    fn visit_str<E>(self, _: &str) -> Result<NoDuplicates, E> {
        Ok(NoDuplicates(true))
    }
    fn visit_unit<E>(self) -> Result<NoDuplicates, E> {
        Ok(NoDuplicates(true))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<NoDuplicates, A::Error> {
        let mut clean = true;
        while let Some(NoDuplicates(ok)) = seq.next_element()? {
            clean &= ok;
        }
        Ok(NoDuplicates(clean))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<NoDuplicates, A::Error> {
        let mut keys = Vec::new();
        let mut clean = true;
        while let Some(key) = map.next_key::<String>()? {
            clean &= !keys.contains(&key);
            keys.push(key);
            clean &= map.next_value::<NoDuplicates>()?.0;
        }
        Ok(NoDuplicates(clean))
    }
}

fn reference_allows(text: &str) -> bool {
    let Ok(NoDuplicates(true)) = serde_json::from_str::<NoDuplicates>(text) else { return false };
    serde_json::from_str::<Value>(text).is_ok_and(|request| reference::allows(&request))
}

fuzz_target!(|data: &[u8]| {
    let Ok(governance) = std::str::from_utf8(data) else { return };
    let text = format!(
        r#"{{"persona":"MANAGER","subagents":["PREPARATION"],"opts":{{"subagentGovernance":{governance}}}}}"#
    );
    let report = reference::gate(&text, PERSONA, |name| {
        if name == "PREPARATION" { FileRead::Text(AGENT.into()) } else { FileRead::Missing }
    });
    if report.decision == Decision::Allow {
        assert!(reference_allows(&text), "allowed without every gate's check: {governance}");
        assert!(report.gates.iter().all(|g| g.verdict.passed()));
    }
});
