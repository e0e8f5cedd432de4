//! Why a fact a harness reported was refused ([`FactError`]), named without reaching the domain
//!

pub use agentwarden_domain::fact::FactError;
