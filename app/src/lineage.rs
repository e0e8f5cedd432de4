//! The lineage use cases: check a lineage, authorize a tool call. Each reads its request, asks
//! the domain, appends one event (`lineage_checked`, `tool_call_authorized`) with every verdict,
//! and only then answers. Any failure — unreadable request, missing manifests, a store that
//! cannot record — is a deny with a reason.

use std::path::Path;

use agentwarden_domain::audit::{Correlation, CorrelationId, Head};
use agentwarden_domain::events::{AuditEvent, LineageChecked, ToolCallAuthorized};
use agentwarden_domain::lineage::{
    AgentIdentifier, Authorization, LineageRequest, LineageVerdict, Manifests, RECORDED_LINEAGE_MAX,
    ToolCallRequest, authorize, lineage_digest, refuse, walk,
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

    /// The text of a request file (at most [`MAX_INPUT_BYTES`], read as every untrusted file);
    /// one that cannot be read is the decision's reason (`request_unreadable`), never an error.
    pub async fn read_request(&self, path: &Path) -> Result<String, Failed> {
        let described = format!("request file `{}`", path.display());
        self.files
            .read_text(path, MAX_INPUT_BYTES)
            .await
            .into_text(&described)
            .map_err(|e| unreadable(e.to_string()))
    }

    fn correlation(session: Option<String>) -> Correlation {
        Correlation { session: session.and_then(|s| CorrelationId::new(s).ok()), ..Correlation::default() }
    }

    /// The project root as tool-call requests read paths against it (T-8): absolute, or empty
    /// when it cannot be made so (then no path is read, and no path rule grants).
    pub fn request_root(&self) -> String {
        std::path::absolute(&self.config.root).map(|p| p.to_string_lossy().into_owned()).unwrap_or_default()
    }

    /// May this chain of agents exist? `request` is the lineage as read
    /// ([`LineageRequest::from_json`]), or why it could not be (a deny, recorded); the
    /// configured manifests decide. One `lineage_checked` event, then the answer.
    pub async fn check_lineage(&self, request: Result<LineageRequest, Failed>) -> LineageOutcome {
        let manifests = self.manifests();
        let (result, lineage, session) = match (request, manifests) {
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

    /// May this agent use this tool? `request` is the call as read
    /// ([`ToolCallRequest::from_json`] against [`Warden::request_root`]), or why it could not
    /// be (a deny, recorded); the configured manifests decide, layer by layer. One
    /// `tool_call_authorized` event, then the answer.
    pub async fn authorize_tool_call(
        &self,
        request: Result<ToolCallRequest, Failed>,
    ) -> AuthorizationOutcome {
        let manifests = self.manifests();
        let (authorization, request) = match (request, manifests) {
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
