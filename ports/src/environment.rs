//! The process environment, as the application sees it.

use agentwarden_domain::governance::EnvValue;

/// Reads environment variables.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
pub trait Environment: Send + Sync {
    /// The variable's exact value (no trimming), or why there is none.
    fn var(&self, name: &str) -> EnvValue;
}
