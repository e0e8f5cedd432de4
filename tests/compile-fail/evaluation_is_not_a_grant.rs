//! expect: E0308 | expected `Option<DelegationGrant>`, found `Option<Delegation>`
//! The domain's evaluation, reached through the facade's re-export, yields what is delegated,
//! never the grant: nothing was read through ports and nothing was recorded.
pub fn forge(inputs: &agentwarden::governance::GateInputs) -> Option<agentwarden::DelegationGrant> {
    agentwarden::governance::evaluate(inputs).into_parts().1
}
