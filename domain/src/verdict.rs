//! A check's outcome, shared by every rule set: the subagent gate's gates and the enforcement
//! pipeline's layers both answer with a [`Verdict`].

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::json::{StrictJsonError, parse_strict};

/// A stable snake_case code: static when emitted, owned when read back from the log.
pub type Code = Cow<'static, str>;

/// Pass or fail, with a stable code on failure and a reason either way.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Verdict {
    /// Did it pass?
    pub passed: bool,
    /// The failure's stable code; `None` when it passed.
    pub code: Option<Code>,
    /// Why, in words (static when it never varies, so that a pass costs no allocation).
    pub reason: Cow<'static, str>,
}

/// A request's text as strict JSON, or the verdict on it: `duplicate_key` (the request is
/// ambiguous, G-5) or `request_invalid`.
pub(crate) fn strict_request(text: &str) -> Result<serde_json::Value, Verdict> {
    parse_strict(text).map_err(|e| match e {
        StrictJsonError::DuplicateKey { .. } => {
            Verdict::fail("duplicate_key", format!("request is ambiguous: {e}"))
        }
        _ => Verdict::fail("request_invalid", format!("request is not valid JSON: {e}")),
    })
}

impl Verdict {
    pub(crate) fn pass(reason: impl Into<Cow<'static, str>>) -> Self {
        Verdict { passed: true, code: None, reason: reason.into() }
    }

    pub(crate) fn fail(code: &'static str, reason: impl Into<Cow<'static, str>>) -> Self {
        Verdict { passed: false, code: Some(Cow::Borrowed(code)), reason: reason.into() }
    }
}

/// Allow or deny.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Go ahead.
    Allow,
    /// Do not; the caller goes on without it.
    Deny,
}
