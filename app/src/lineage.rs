//! The lineage use cases: check a lineage, authorize a tool call. Each reads its request, asks
//! the domain, appends one event (`lineage_checked`, `tool_call_authorized`) with every verdict,
//! and only then answers. Any failure — unreadable request, missing manifests, a store that
//! cannot record — is a deny with a reason.

use std::path::Path;

use agentwarden_domain::audit::{
    AuditEvent, Correlation, CorrelationId, Head, LineageChecked, ToolCallAuthorized,
};
use agentwarden_domain::lineage::{
    AgentIdentifier, Authorization, LineageVerdict, Manifests, RECORDED_LINEAGE_MAX, authorize,
    lineage_digest, parse_lineage_request, parse_tool_call, refuse, walk,
};
use agentwarden_domain::verdict::{Code, Decision, Failed};
use serde::Serialize;

use crate::MAX_INPUT_BYTES;
use crate::config::ConfigError;
use crate::manifests::load_manifests;
use crate::warden::Warden;

/// A lineage check's answer.
#[derive(Debug, Serialize)]
pub struct LineageOutcome {
    /// Allow or deny.
    pub decision: Decision,
    /// The walker's verdict (or why the request or manifests could not be used).
    pub result: LineageVerdict,
    /// Where the decision was recorded; `None` if it could not be (and then it is a deny).
    pub audit: Option<Head>,
}

/// A tool-call authorization's answer.
#[derive(Debug, Serialize)]
pub struct AuthorizationOutcome {
    /// Every layer and the decision.
    #[serde(flatten)]
    pub authorization: Authorization,
    /// Where the decision was recorded; `None` if it could not be (and then it is a deny).
    pub audit: Option<Head>,
}

fn recorded(lineage: &[AgentIdentifier]) -> Option<Vec<AgentIdentifier>> {
    (lineage.len() <= RECORDED_LINEAGE_MAX).then(|| lineage.to_vec())
}

impl Warden {
    /// The manifests named by the configuration.
    pub fn manifests(&self) -> Result<Manifests, ConfigError> {
        load_manifests(&self.config.lineage.manifests)
    }

    async fn request_text(&self, path: &Path) -> Result<String, Failed> {
        let described = format!("request file `{}`", path.display());
        self.files.read_text(path, MAX_INPUT_BYTES).await.into_text(&described).map_err(unreadable)
    }

    fn correlation(session: Option<String>) -> Correlation {
        Correlation { session: session.and_then(|s| CorrelationId::new(s).ok()), ..Correlation::default() }
    }

    /// Checks the lineage in the file at `path` against the configured manifests.
    pub async fn check_lineage_file(&self, path: &Path) -> LineageOutcome {
        let text = self.request_text(path).await;
        let manifests = self.manifests();
        self.check_lineage(text, manifests).await
    }

    /// Checks a lineage request's text against `manifests`.
    pub async fn check_lineage(
        &self,
        text: Result<String, Failed>,
        manifests: Result<Manifests, ConfigError>,
    ) -> LineageOutcome {
        let parsed = text.and_then(|t| parse_lineage_request(&t));
        let (result, lineage, session) = match (parsed, manifests) {
            (Err(failed), _) => (LineageVerdict { verdict: failed.into(), pair: None }, Vec::new(), None),
            (Ok(request), Err(e)) => (
                LineageVerdict { verdict: no_manifests(&e).into(), pair: None },
                request.lineage,
                request.session,
            ),
            (Ok(request), Ok(manifests)) => {
                (walk(&request.lineage, &manifests), request.lineage, request.session)
            }
        };
        let decision = if result.verdict.passed() { Decision::Allow } else { Decision::Deny };
        let event = LineageChecked {
            decision,
            result: result.clone(),
            lineage_length: lineage.len(),
            lineage_digest: lineage_digest(&lineage),
            lineage: recorded(&lineage),
        };
        match self
            .record_event(Self::correlation(session), &AuditEvent::LineageChecked(Box::new(event)))
            .await
        {
            Ok(appended) => LineageOutcome { decision, result, audit: Some(appended.head) },
            Err(e) => LineageOutcome {
                decision: Decision::Deny,
                result: LineageVerdict {
                    verdict: audit_unavailable(&e.to_string()).into(),
                    pair: result.pair,
                },
                audit: None,
            },
        }
    }

    /// Authorizes the tool call in the file at `path` against the configured manifests.
    pub async fn authorize_file(&self, path: &Path) -> AuthorizationOutcome {
        let text = self.request_text(path).await;
        let manifests = self.manifests();
        self.authorize_tool_call(text, manifests).await
    }

    /// Authorizes a tool-call request's text against `manifests`.
    pub async fn authorize_tool_call(
        &self,
        text: Result<String, Failed>,
        manifests: Result<Manifests, ConfigError>,
    ) -> AuthorizationOutcome {
        // T-8: paths in the call's input are read against the project root; a root that cannot
        // be made absolute reads as no path, which no path rule grants.
        let root = std::path::absolute(&self.config.root)
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default();
        let parsed = text.and_then(|t| parse_tool_call(&t, &root));
        let (authorization, request) = match (parsed, manifests) {
            (Err(failed), _) => (refuse(&failed), None),
            (Ok(request), Err(e)) => (refuse(&no_manifests(&e)), Some(request)),
            (Ok(request), Ok(manifests)) => (authorize(&request.call, &manifests), Some(request)),
        };
        let lineage = request.as_ref().map(|r| r.call.lineage.as_slice()).unwrap_or_default();
        let event = ToolCallAuthorized::new(
            request.as_ref().map(|r| r.call.agent.clone()),
            request.as_ref().map(|r| r.call.tool.to_string()),
            authorization.clone(),
            lineage,
            false,
        );
        let session = request.and_then(|r| r.session);
        match self
            .record_event(Self::correlation(session), &AuditEvent::ToolCallAuthorized(Box::new(event)))
            .await
        {
            Ok(appended) => AuthorizationOutcome { authorization, audit: Some(appended.head) },
            Err(e) => AuthorizationOutcome {
                authorization: refuse(&audit_unavailable(&e.to_string())),
                audit: None,
            },
        }
    }
}

fn unreadable(reason: String) -> Failed {
    Failed::new(Code::RequestUnreadable, reason)
}

fn no_manifests(e: &ConfigError) -> Failed {
    Failed::new(Code::ManifestsUnavailable, format!("manifests: {e}"))
}

fn audit_unavailable(why: &str) -> Failed {
    Failed::new(Code::AuditUnavailable, format!("the decision could not be recorded: {why}"))
}
