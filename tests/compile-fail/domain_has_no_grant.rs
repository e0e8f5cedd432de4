//! expect: E0432 | no `DelegationGrant` in `governance`
//! The domain crate offers no grant at all: what it decides is a `Delegation`, not a
//! permission.
pub use agentwarden_domain::governance::DelegationGrant;
