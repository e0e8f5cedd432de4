//! expect: E0599 | no function or associated item named `new`
//! The grant has no constructor a consumer can call.
pub fn forge(delegation: agentwarden::governance::Delegation) -> agentwarden::DelegationGrant {
    agentwarden::DelegationGrant::new(delegation)
}
