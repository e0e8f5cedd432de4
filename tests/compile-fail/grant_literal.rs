//! expect: E0451 | are private
//! A consumer cannot build a grant: its fields are private.
pub fn forge(
    delegation: agentwarden::governance::Delegation,
    audit: agentwarden::audit::Head,
) -> agentwarden::DelegationGrant {
    agentwarden::DelegationGrant { delegation, audit }
}
