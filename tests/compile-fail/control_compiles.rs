//! expect: ok
//! The control: the ways a consumer is meant to take compile against the same libraries, so a
//! failure above is the rule, not a broken harness.
pub async fn gate(warden: &agentwarden::Warden, request: &str) -> Option<agentwarden::DelegationGrant> {
    warden.evaluate_delegation(agentwarden::governance::Request::from_json(request)).await.grant
}

pub async fn note(warden: &agentwarden::Warden) {
    let note = agentwarden::events::OperatorNote { message: "maintenance".into() };
    let _ = warden.record(agentwarden::audit::Correlation::default(), &note).await;
}

pub fn delegated(inputs: &agentwarden_domain::governance::GateInputs) -> Vec<String> {
    let evaluation = agentwarden_domain::governance::evaluate(inputs);
    evaluation.delegation().map(|d| d.subagents().iter().map(|n| n.to_string()).collect()).unwrap_or_default()
}
