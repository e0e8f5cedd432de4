//! A case both engines decide: what the kill switch, the persona's file, the subagents' files
//! and the request say, in terms each side renders into its own inputs
//! ([`crate::domain_side`], [`crate::cedar_side`]), and which subagents should be delegated.
//! [`table`] holds the bench's allow case, its one-candidate variant, and a deny (or partial
//! allow) for every check of the gate.

use serde_json::{Value, json};

/// The persona of every case, and the subagents its file declares in the bench.
pub const PERSONA: &str = "MANAGER";
/// The subagents the bench's persona declares, in its file's order.
pub const DECLARED: [&str; 4] = ["PREPARATION", "4_DOCUMENTS", "REVIEW", "PUBLISH"];
/// The approval reference of the bench's request.
pub const APPROVAL_REF: &str = "GATE-2026-02-21-001";

/// How a subagent's file declares `AGENT_TYPE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AgentType {
    /// A plain integer: `AGENT_TYPE: 2` (Cedar: a `Long`).
    Int(i64),
    /// A quoted string: `AGENT_TYPE: "2"` (Cedar: a `String`).
    Quoted(&'static str),
}

/// One situation and what the gate should make of it.
#[derive(Clone, Debug)]
pub struct Case {
    /// What it shows, for failure messages.
    pub name: &'static str,
    /// The kill switch's value; `None`: unset.
    pub switch: Option<&'static str>,
    /// The subagents the persona's file declares (an empty list: it declares none).
    pub declares: Vec<&'static str>,
    /// The subagents that have a file, and the `AGENT_TYPE` it says; a name not here has none.
    pub agents: Vec<(&'static str, AgentType)>,
    /// The request's text: the same bytes reach both engines.
    pub request: String,
    /// What should be delegated (the domain) and allowed (Cedar), in any order; empty: deny.
    pub expect: Vec<&'static str>,
}

impl Case {
    /// The bench's case: the inputs of `domain/benches/support/gate_inputs.rs` (the test
    /// checks that the domain's rendering of it is exactly those), an allow of all four.
    pub fn bench() -> Case {
        Case {
            name: "bench: every declared subagent, all gates pass",
            switch: Some("true"),
            declares: DECLARED.to_vec(),
            agents: DECLARED.iter().map(|n| (*n, AgentType::Int(2))).collect(),
            request: request(None, governance()),
            expect: DECLARED.to_vec(),
        }
    }

    /// The bench's one-candidate case: the same, with `"subagents": ["PREPARATION"]`.
    pub fn one_candidate() -> Case {
        Case {
            name: "one requested subagent, all gates pass",
            request: request(Some(&["PREPARATION"]), governance()),
            expect: vec!["PREPARATION"],
            ..Case::bench()
        }
    }

    /// The subagents the request names (`None`: it names none, so every declared one), read
    /// loosely: set-up only, never timed.
    pub fn requested(&self) -> Option<Vec<String>> {
        let value: Value = serde_json::from_str(&self.request).ok()?;
        let names = value.get("subagents")?.as_array()?;
        Some(names.iter().filter_map(|n| n.as_str().map(str::to_owned)).collect())
    }

    /// The subagents a Cedar deployment loads as entities for this request: each one asked
    /// about (those the request names or, naming none, all the persona declares) that has a
    /// file. The domain reads fewer: only those the persona declares (`candidates_to_read`);
    /// for the bench's two cases the two are the same.
    pub fn candidate_files(&self) -> Vec<(&'static str, AgentType)> {
        let requested = self.requested();
        self.agents
            .iter()
            .filter(|(name, _)| match &requested {
                Some(requested) => requested.iter().any(|n| n == name),
                None => self.declares.contains(name),
            })
            .copied()
            .collect()
    }
}

/// The bench's governance metadata.
pub fn governance() -> Value {
    json!({
        "contextSealed": true,
        "pipelineRunApproved": true,
        "approvalRef": APPROVAL_REF,
        "approvedBy": "ryan",
    })
}

/// A request for [`PERSONA`] with this metadata and, if given, these subagents.
pub fn request(subagents: Option<&[&str]>, governance: Value) -> String {
    let mut request = json!({"persona": PERSONA, "opts": {"subagentGovernance": governance}});
    if let (Some(names), Some(fields)) = (subagents, request.as_object_mut()) {
        fields.insert("subagents".to_owned(), json!(names));
    }
    if let Some(fields) = request.as_object_mut() {
        fields.insert("session".to_owned(), json!("s"));
        fields.insert("turn".to_owned(), json!("t"));
    }
    request.to_string()
}

/// The bench's metadata with `field` set to `value` (`None`: removed).
fn with(field: &str, value: Option<Value>) -> Value {
    let mut metadata = governance();
    if let Some(fields) = metadata.as_object_mut() {
        match value {
            Some(value) => fields.insert(field.to_owned(), value),
            None => fields.remove(field),
        };
    }
    metadata
}

/// Every case: the two the bench measures, then one for each check of the gate.
pub fn table() -> Vec<Case> {
    let bench = Case::bench;
    let deny = |name, request: String| Case { name, request, expect: Vec::new(), ..bench() };
    let metadata = |name, field: &str, value: Option<Value>| deny(name, request(None, with(field, value)));
    let sealed_twice = request(None, governance()).replacen(
        "\"contextSealed\":true",
        "\"contextSealed\":false,\"contextSealed\":true",
        1,
    );
    let types = |name, agent: &'static str, t: AgentType, expect: Vec<&'static str>| {
        let agents = DECLARED.iter().map(|n| (*n, if *n == agent { t } else { AgentType::Int(2) })).collect();
        Case { name, agents, expect, ..bench() }
    };
    let others = vec!["4_DOCUMENTS", "REVIEW", "PUBLISH"];
    let mut cases = vec![
        bench(),
        Case::one_candidate(),
        Case { name: "kill switch unset", switch: None, expect: Vec::new(), ..bench() },
        Case { name: "kill switch `TRUE`", switch: Some("TRUE"), expect: Vec::new(), ..bench() },
        Case { name: "kill switch `true `", switch: Some("true "), expect: Vec::new(), ..bench() },
        deny("no governance metadata", json!({"persona": PERSONA, "session": "s"}).to_string()),
        deny("metadata is not an object", request(None, json!(true))),
        deny("opts is not an object", json!({"persona": PERSONA, "opts": [1]}).to_string()),
        metadata("contextSealed is the string `true`", "contextSealed", Some(json!("true"))),
        metadata("contextSealed is 1", "contextSealed", Some(json!(1))),
        metadata("contextSealed missing", "contextSealed", None),
        metadata("pipelineRunApproved is false", "pipelineRunApproved", Some(json!(false))),
        metadata("pipelineRunApproved is [true]", "pipelineRunApproved", Some(json!([true]))),
        metadata("pipelineRunApproved missing", "pipelineRunApproved", None),
        metadata("approvalRef missing", "approvalRef", None),
        metadata("approvalRef is a number", "approvalRef", Some(json!(42))),
        metadata("approvalRef is empty", "approvalRef", Some(json!(""))),
        metadata("approvalRef is blank", "approvalRef", Some(json!(" \u{200b}\u{3000}\u{feff}"))),
        metadata("approvalRef is 257 characters", "approvalRef", Some(json!("é".repeat(257)))),
        metadata("approvalRef holds a control character", "approvalRef", Some(json!("GATE\u{7}-1"))),
        metadata("approvalRef holds a C1 control", "approvalRef", Some(json!("GATE\u{85}-1"))),
        deny("a duplicate key (G-5)", sealed_twice),
        deny(
            "persona unknown",
            json!({"persona": "STRANGER", "opts": {"subagentGovernance": governance()}}).to_string(),
        ),
        deny(
            "persona not a string",
            json!({"persona": 5, "opts": {"subagentGovernance": governance()}}).to_string(),
        ),
        deny(
            "subagents is not a list",
            json!({"persona": PERSONA, "subagents": "REVIEW", "opts": {"subagentGovernance": governance()}})
                .to_string(),
        ),
        deny("an undeclared subagent", request(Some(&["OUTSIDER"]), governance())),
        Case {
            name: "an undeclared subagent with a file saying AGENT_TYPE 2",
            agents: vec![("PREPARATION", AgentType::Int(2)), ("OUTSIDER", AgentType::Int(2))],
            request: request(Some(&["OUTSIDER"]), governance()),
            expect: Vec::new(),
            ..bench()
        },
        Case { name: "the persona declares none", declares: Vec::new(), expect: Vec::new(), ..bench() },
        Case {
            name: "no subagent has AGENT_TYPE 2",
            agents: DECLARED.iter().map(|n| (*n, AgentType::Int(1))).collect(),
            expect: Vec::new(),
            ..bench()
        },
    ];
    cases.extend([
        Case {
            name: "approvalRef of exactly 256 characters",
            request: request(None, with("approvalRef", Some(json!("é".repeat(256))))),
            ..bench()
        },
        Case {
            name: "approvedBy and an unknown field of odd types are warnings only",
            request: request(None, {
                let mut m = with("approvedBy", Some(Value::Null));
                if let Some(fields) = m.as_object_mut() {
                    fields.insert("ticket".to_owned(), json!(1.5));
                }
                m
            }),
            ..bench()
        },
        Case {
            name: "one declared, one undeclared",
            request: request(Some(&["PREPARATION", "OUTSIDER"]), governance()),
            expect: vec!["PREPARATION"],
            ..bench()
        },
        Case {
            name: "a path-like name beside a declared one",
            request: request(Some(&["../x", "REVIEW", "REVIEW"]), governance()),
            expect: vec!["REVIEW"],
            ..bench()
        },
        Case {
            name: "one subagent has no file",
            agents: DECLARED.iter().skip(1).map(|n| (*n, AgentType::Int(2))).collect(),
            expect: others.clone(),
            ..bench()
        },
        types("AGENT_TYPE 3", "PREPARATION", AgentType::Int(3), others.clone()),
        types("AGENT_TYPE \"2\"", "PREPARATION", AgentType::Quoted("2"), others),
    ]);
    cases
}
