//! Putting protected paths back.

use std::path::Path;

use agentwarden_domain::fact::FactError;
use agentwarden_domain::guardrails::{TreeDiff, TreeManifest};
use async_trait::async_trait;

/// Reverts changes to protected paths.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait Restorer: Send + Sync {
    /// Puts the paths of `diff` back as `before` had them — modified and removed entries
    /// restored, added entries removed — touching nothing else. `Err` says what could not be
    /// reverted (a fact handed to the guard's decision, X-98); the caller verifies the result
    /// with a new snapshot either way.
    async fn restore(&self, root: &Path, before: &TreeManifest, diff: &TreeDiff) -> Result<(), FactError>;
}
