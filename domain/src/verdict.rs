//! A check's outcome, shared by every rule set: the subagent gate's gates and the enforcement
//! pipeline's layers both answer with a [`Verdict`].

use std::borrow::Cow;

use serde::ser::SerializeStruct;
use serde::{Deserialize, Serialize, Serializer};

pub use crate::code::Code;
use crate::json::{StrictJsonError, parse_strict};

/// Pass, or fail with a stable code; a reason either way. A failure without a code, or a
/// pass with one, cannot be built (nor read back: X-30).
///
/// Stored as `{"passed": …, "code": …, "reason": …}` (`code` `null` on a pass), the shape it had
/// as a struct.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(try_from = "VerdictFields")]
pub enum Verdict {
    /// It passed.
    Pass {
        /// Why, in words (static when it never varies, so that a pass costs no allocation).
        reason: Cow<'static, str>,
    },
    /// It failed.
    Fail {
        /// The failure's stable code.
        code: Code,
        /// Why, in words.
        reason: Cow<'static, str>,
    },
}

/// A failure alone: what an operation that can only fail answers with (its `Err`), so that its
/// code is never in doubt. It becomes a [`Verdict::Fail`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failed {
    /// The stable code.
    pub code: Code,
    /// Why, in words.
    pub reason: Cow<'static, str>,
}

impl Failed {
    /// A failure with `code`, for `reason`.
    pub fn new(code: Code, reason: impl Into<Cow<'static, str>>) -> Self {
        Failed { code, reason: reason.into() }
    }
}

impl From<Failed> for Verdict {
    fn from(failed: Failed) -> Self {
        Verdict::Fail { code: failed.code, reason: failed.reason }
    }
}

/// A verdict's stored fields, as read: `passed` and `code` must agree.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct VerdictFields {
    passed: bool,
    code: Option<Code>,
    reason: Cow<'static, str>,
}

/// Why stored fields are not a verdict.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VerdictShapeError {
    /// `passed: true` with a code.
    #[error("a verdict that passed carries the code `{0}`: refused (X-30)")]
    PassWithCode(Code),
    /// `passed: false` without a code.
    #[error("a verdict that failed carries no code: refused (X-30)")]
    FailWithoutCode,
}

impl Verdict {
    /// A pass, for `reason`.
    pub(crate) fn pass(reason: impl Into<Cow<'static, str>>) -> Self {
        Verdict::Pass { reason: reason.into() }
    }

    /// A failure with `code`, for `reason`.
    pub(crate) fn fail(code: Code, reason: impl Into<Cow<'static, str>>) -> Self {
        Verdict::Fail { code, reason: reason.into() }
    }

    /// The verdict stored as these fields. A pass with a code, or a failure without one,
    /// was never written by Warden: it is refused, not repaired — read as a pass it could
    /// allow, read as a failure it would show a code the log does not hold. The event that
    /// holds it is undecodable.
    pub fn from_parts(
        passed: bool,
        code: Option<Code>,
        reason: Cow<'static, str>,
    ) -> Result<Self, VerdictShapeError> {
        match (passed, code) {
            (true, None) => Ok(Verdict::Pass { reason }),
            (false, Some(code)) => Ok(Verdict::Fail { code, reason }),
            (true, Some(code)) => Err(VerdictShapeError::PassWithCode(code)),
            (false, None) => Err(VerdictShapeError::FailWithoutCode),
        }
    }

    /// Did it pass?
    pub fn passed(&self) -> bool {
        matches!(self, Verdict::Pass { .. })
    }

    /// The failure's code; `None` when it passed.
    pub fn code(&self) -> Option<&Code> {
        match self {
            Verdict::Pass { .. } => None,
            Verdict::Fail { code, .. } => Some(code),
        }
    }

    /// Why, in words.
    pub fn reason(&self) -> &Cow<'static, str> {
        match self {
            Verdict::Pass { reason } | Verdict::Fail { reason, .. } => reason,
        }
    }
}

impl TryFrom<VerdictFields> for Verdict {
    type Error = VerdictShapeError;

    fn try_from(f: VerdictFields) -> Result<Self, Self::Error> {
        Verdict::from_parts(f.passed, f.code, f.reason)
    }
}

impl Serialize for Verdict {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut fields = serializer.serialize_struct("Verdict", 3)?;
        fields.serialize_field("passed", &self.passed())?;
        fields.serialize_field("code", &self.code())?;
        fields.serialize_field("reason", self.reason())?;
        fields.end()
    }
}

/// A request's text as strict JSON, or the failure on it: `duplicate_key` (the request is
/// ambiguous, G-5) or `request_invalid`.
pub(crate) fn strict_request(text: &str) -> Result<serde_json::Value, Failed> {
    parse_strict(text).map_err(|e| match e {
        StrictJsonError::DuplicateKey { .. } => {
            Failed::new(Code::DuplicateKey, format!("request is ambiguous: {e}"))
        }
        _ => Failed::new(Code::RequestInvalid, format!("request is not valid JSON: {e}")),
    })
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

#[cfg(test)]
mod tests;
