//! A fact the shell could not establish, handed to a pure decision (issue 49 item 4, X-98): the
//! log that could not be appended to, the snapshot a guard could not be checked against, the
//! manifests that could not be read, the launcher or the kernel that could not be probed, a
//! revert or a command that could not run. The decision that takes it chooses the failure's
//! [`Code`](crate::code::Code) (an unrecorded decision is `audit_unavailable`, a guard that could
//! not run fails its stop): the fact carries only why, as a value of its own, never a bare
//! `String` in a public signature.

use std::fmt;

/// Why a fact handed to a decision could not be established: one line, the cause as the shell
/// saw it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FactError {
    reason: String,
}

impl FactError {
    /// The failure, for `reason`.
    pub fn new(reason: impl Into<String>) -> FactError {
        FactError { reason: reason.into() }
    }

    /// Why, in one line.
    pub fn reason(&self) -> &str {
        &self.reason
    }
}

impl fmt::Display for FactError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.reason)
    }
}

impl std::error::Error for FactError {}

impl From<String> for FactError {
    fn from(reason: String) -> FactError {
        FactError { reason }
    }
}

impl From<&str> for FactError {
    fn from(reason: &str) -> FactError {
        FactError::new(reason)
    }
}
