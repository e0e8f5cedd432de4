//! A decision as every answer carries it ([`Decision`]), and a request that could not be read
//! ([`Failed`]), named without reaching the domain.

pub use agentwarden_domain::verdict::{Decision, Failed};
