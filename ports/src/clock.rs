//! Time, as the application sees it.

use agentwarden_domain::audit::Timestamp;

/// A source of the current time. Tests use a fixed or stepping clock, so that the same inputs
/// give the same log.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
pub trait Clock: Send + Sync {
    /// Now.
    fn now(&self) -> Timestamp;
}
