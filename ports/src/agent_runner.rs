//! Running the agent a guarded run watches (`warden guard run`, R-1 … R-3).

use std::path::Path;

use agentwarden_domain::fact::FactError;
use async_trait::async_trait;

/// Runs an agent in a workspace and says how it ended.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait AgentRunner: Send + Sync {
    /// Runs the agent with `root` as its working directory, to its end. `Ok(Some(code))`: it
    /// exited with `code`; `Ok(None)`: a signal ended it; `Err`: it could not be started (the
    /// reason, a fact handed to the guard's decision, X-98). Whatever it returns, the caller
    /// checks the protected paths afterwards.
    async fn run_agent(&self, root: &Path) -> Result<Option<i32>, FactError>;
}
