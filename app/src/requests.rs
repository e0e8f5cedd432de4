//! The decision commands' use cases as a caller names their input, by a file (issue 49, item
//! 5): a gate's, a lineage's or a tool call's request read and decided in one call
//! ([`Warden::evaluate_delegation_at`], [`Warden::check_lineage_at`],
//! [`Warden::authorize_tool_call_at`]), a guard check's snapshot read ([`read_snapshot`]), and
//! what a caller names beside them: who asks ([`Actor`]) and under which ids ([`Correlation`]);
//! a snapshot refused names why ([`SnapshotError`], an [`UntrustedError`] when unreadable).
//! The server and direct mode (through the server's `decide`) answer every decision command
//! here, and read no file of their own for it.
//!
//! A request that cannot be read is the decision's reason, recorded, as in the use cases these
//! call; only a snapshot that cannot be read is a refusal, since a guard check without its
//! snapshot has nothing to compare.

use std::path::Path;

pub use agentwarden_adapters::untrusted::UntrustedError;
pub use agentwarden_domain::audit::{Actor, Correlation, CorrelationId};
use agentwarden_domain::governance::Request;
pub use agentwarden_domain::guardrails::TreeManifest;
use agentwarden_domain::lineage::{LineageRequest, ToolCallRequest};
use agentwarden_domain::sessions::Harness;

use crate::MAX_SNAPSHOT_BYTES;
use crate::gate::GateOutcome;
use crate::lineage::{AuthorizationOutcome, LineageOutcome};
use crate::warden::Warden;

/// Why a guard check's snapshot was refused: its message says which file and why.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    /// The file could not be read (missing, too large, not UTF-8, not a regular file, …).
    #[error("cannot read snapshot: {0}")]
    Unreadable(#[source] UntrustedError),
    /// The file is not a snapshot's JSON.
    #[error("`{path}` is not a snapshot: {why}")]
    Invalid {
        /// The file, as given.
        path: String,
        /// What the JSON reader said.
        #[source]
        why: serde_json::Error,
    },
}

/// The snapshot `guard snapshot` wrote at `path` (at most [`MAX_SNAPSHOT_BYTES`], read as every
/// untrusted file is): the manifest a guard check compares the tree with.
pub fn read_snapshot(path: &Path) -> Result<TreeManifest, SnapshotError> {
    let text = agentwarden_adapters::untrusted::read_text(None, path, MAX_SNAPSHOT_BYTES)
        .map_err(SnapshotError::Unreadable)?;
    serde_json::from_str(&text)
        .map_err(|why| SnapshotError::Invalid { path: path.display().to_string(), why })
}

impl Warden {
    /// [`Warden::evaluate_delegation`] of the gate request in the file `path`; a file that cannot
    /// be read is the deny's reason, recorded.
    pub async fn evaluate_delegation_at(&self, path: &Path) -> GateOutcome {
        let request = match self.read_request(path).await {
            Ok(text) => Request::from_json(&text),
            Err(why) => Request::unreadable(why),
        };
        self.evaluate_delegation(request).await
    }

    /// [`Warden::check_lineage`] of the lineage in the file `path`; a file that cannot be read
    /// or parsed is the deny's reason, recorded.
    pub async fn check_lineage_at(&self, path: &Path) -> LineageOutcome {
        let request = self.read_request(path).await;
        self.check_lineage(request.and_then(|text| LineageRequest::from_json(&text))).await
    }

    /// [`Warden::authorize_tool_call`] of the call in the file `path`, its input read as
    /// `harness` reads its calls (T-16) and its paths placed against [`Warden::request_root`] as
    /// the hook places them (T-17); a file that cannot be read or parsed is the deny's reason,
    /// recorded.
    pub async fn authorize_tool_call_at(&self, path: &Path, harness: &dyn Harness) -> AuthorizationOutcome {
        let root = self.request_root();
        let request = self.read_request(path).await;
        let read = |tool: &str, input: &serde_json::Value| harness.rules_as(tool, input);
        let paths = agentwarden_adapters::paths::LocalPaths;
        self.authorize_tool_call(
            request.and_then(|text| ToolCallRequest::from_json(&text, &root, read, &paths)),
        )
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_that_is_missing_or_not_json_is_refused_with_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing.json");
        let refused = read_snapshot(&missing).unwrap_err();
        assert!(matches!(refused, SnapshotError::Unreadable(_)), "{refused}");
        assert!(refused.to_string().starts_with("cannot read snapshot: "), "{refused}");

        let garbage = dir.path().join("garbage.json");
        std::fs::write(&garbage, "not json").unwrap();
        let refused = read_snapshot(&garbage).unwrap_err();
        assert!(
            refused.to_string().starts_with(&format!("`{}` is not a snapshot: ", garbage.display())),
            "{refused}"
        );
    }
}
