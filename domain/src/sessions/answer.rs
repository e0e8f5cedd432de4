//! The kernel's answer to a harness's hook event, typed (issue 22): the five things Warden ever
//! says about a session's event, whatever harness asked.
//!
//! - [`HookAnswer::Proceed`]: nothing to say; the harness's own flow goes on.
//! - [`HookAnswer::Rewrite`]: the tool call runs, with the input Warden hands back in place of
//!   the one sent: an agent's shell call under the confinement launcher (issue 50, H-61).
//! - [`HookAnswer::Deny`]: the tool call does not run; the reason is shown to the model.
//! - [`HookAnswer::Block`]: the agent's stop is refused; it goes on, told why.
//! - [`HookAnswer::Failed`]: Warden could not decide; the harness must deny the call or block
//!   the stop (H-1). It carries the failure's [`Code`] as a field beside its reason; only a
//!   harness's renderer composes the two into text ([`HookAnswer::failure`], `code: reason`),
//!   and a rendering read back gives the code back typed ([`HookAnswer::failed_from_text`],
//!   X-93).
//!
//! Nothing else is representable: no failure without a reason (X-41). How each answer is said in
//! a harness's protocol (its bytes, its exit codes), and the strict reading back of a rendering
//! (X-40), belong to that harness's integration.

use std::fmt;

use crate::code::Code;

/// The reason of an answer: never blank (X-41).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct HookReason(String);

impl HookReason {
    /// What a blank reason is replaced with (X-41).
    pub const MISSING: &'static str = "internal_error: the hook gave no reason";

    /// `text`, or [`HookReason::MISSING`] when it is empty or only white space (X-41).
    pub fn new(text: impl Into<String>) -> HookReason {
        let text = text.into();
        if text.trim().is_empty() { HookReason(HookReason::MISSING.to_owned()) } else { HookReason(text) }
    }

    /// `text` as a reason, or `None` when it is blank: what a rendering read back must give.
    pub fn parse(text: &str) -> Option<HookReason> {
        (!text.trim().is_empty()).then(|| HookReason(text.to_owned()))
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for HookReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for HookReason {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

/// What Warden answers a hook event (see the module's doc).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HookAnswer {
    /// Nothing to say: the call runs (through the harness's own permission flow), the stop
    /// ends.
    Proceed,
    /// The tool call runs with `input` in place of the input the harness sent: the whole
    /// input, every field the harness sent kept but the one Warden replaced. Given only where
    /// the harness's own rules would let the call run as sent (H-61); the harness renders it as
    /// its allow with a replaced input.
    Rewrite {
        /// The input the tool runs with.
        input: serde_json::Map<String, serde_json::Value>,
        /// What Warden did, in one line (shown to the user, never blank).
        reason: HookReason,
    },
    /// The tool call does not run; the reason is shown to the model.
    Deny {
        /// Why.
        reason: HookReason,
    },
    /// The stop is refused: the agent goes on, told why.
    Block {
        /// Why.
        reason: HookReason,
    },
    /// Warden could not decide: the harness denies the call or blocks the stop.
    Failed {
        /// What failed: the stable code (X-1), never spliced into the reason (X-93).
        code: Code,
        /// Why, in one line, without the code.
        reason: HookReason,
    },
}

impl HookAnswer {
    /// [`HookAnswer::Proceed`], by the name the facade has always given it.
    pub const fn silent() -> HookAnswer {
        HookAnswer::Proceed
    }

    /// A deny of the tool call.
    pub fn deny(reason: impl Into<String>) -> HookAnswer {
        HookAnswer::Deny { reason: HookReason::new(reason) }
    }

    /// A deny of the tool call for the cause `code`, said `code: reason`: the one place a deny's
    /// code is composed into its text, so that a caller passes the code as a value (X-96).
    pub fn deny_for(code: &Code, reason: impl fmt::Display) -> HookAnswer {
        HookAnswer::deny(format!("{code}: {reason}"))
    }

    /// A block of the stop.
    pub fn block(reason: impl Into<String>) -> HookAnswer {
        HookAnswer::Block { reason: HookReason::new(reason) }
    }

    /// A failure: Warden could not decide, for the cause `code` (X-93).
    pub fn failed(code: Code, reason: impl Into<String>) -> HookAnswer {
        HookAnswer::Failed { code, reason: HookReason::new(reason) }
    }

    /// The failure a rendered failure's text stands for: `code: reason`, the code a snake_case
    /// word (a code this version does not know is kept, X-30), the reason not blank. `None` for
    /// any other text: a rendering without its code is not a failure's (X-93).
    pub fn failed_from_text(text: &str) -> Option<HookAnswer> {
        let (code, reason) = text.split_once(": ")?;
        let word = !code.is_empty()
            && code.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
        let reason = HookReason::parse(reason)?;
        word.then(|| HookAnswer::Failed { code: Code::parse(code), reason })
    }

    /// A failure as a harness prints it, `code: reason` (the one place the two are composed,
    /// X-93), if it is one.
    pub fn failure(&self) -> Option<String> {
        match self {
            HookAnswer::Failed { code, reason } => Some(format!("{code}: {reason}")),
            HookAnswer::Proceed
            | HookAnswer::Rewrite { .. }
            | HookAnswer::Deny { .. }
            | HookAnswer::Block { .. } => None,
        }
    }

    /// The code of a failure, if it is one.
    pub fn failure_code(&self) -> Option<&Code> {
        match self {
            HookAnswer::Failed { code, .. } => Some(code),
            HookAnswer::Proceed
            | HookAnswer::Rewrite { .. }
            | HookAnswer::Deny { .. }
            | HookAnswer::Block { .. } => None,
        }
    }

    /// A rewrite of the call's input (H-61).
    pub fn rewrite(
        input: serde_json::Map<String, serde_json::Value>,
        reason: impl Into<String>,
    ) -> HookAnswer {
        HookAnswer::Rewrite { input, reason: HookReason::new(reason) }
    }

    /// Whether the call runs: a proceed or a rewrite.
    pub fn lets_run(&self) -> bool {
        matches!(self, HookAnswer::Proceed | HookAnswer::Rewrite { .. })
    }

    /// The reason of a deny, a block or a failure (a failure's without its code).
    pub fn reason(&self) -> Option<&HookReason> {
        match self {
            HookAnswer::Proceed | HookAnswer::Rewrite { .. } => None,
            HookAnswer::Deny { reason }
            | HookAnswer::Block { reason }
            | HookAnswer::Failed { reason, .. } => Some(reason),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No answer gives a blank reason; the constructors say that one was missing (X-41).
    #[test]
    fn a_blank_reason_is_replaced_never_rendered_blank() {
        for blank in ["", " ", "\n\t"] {
            for answer in [
                HookAnswer::failed(Code::InternalError, blank),
                HookAnswer::deny(blank),
                HookAnswer::block(blank),
            ] {
                assert_eq!(answer.reason().map(HookReason::as_str), Some(HookReason::MISSING), "{answer:?}");
            }
        }
        assert_eq!(HookReason::parse(" "), None);
        assert_eq!(HookReason::parse("r").map(|r| r.to_string()), Some("r".to_owned()));
    }

    /// A failure carries its code as a field; only its rendering composes `code: reason`, and
    /// reading that text back gives the same code and reason (X-93).
    #[test]
    fn a_failure_carries_its_code_typed_and_reads_back_from_its_text() {
        let failed = HookAnswer::failed(Code::StoreCorrupt, "the chain does not verify: x");
        assert_eq!(failed.failure_code(), Some(&Code::StoreCorrupt));
        assert_eq!(failed.reason().map(HookReason::as_str), Some("the chain does not verify: x"));
        assert_eq!(failed.failure().as_deref(), Some("store_corrupt: the chain does not verify: x"));
        assert_eq!(failed.failure().as_deref().and_then(HookAnswer::failed_from_text), Some(failed));
        let newer = HookAnswer::failed_from_text("code_of_later: r");
        assert_eq!(
            newer.as_ref().and_then(HookAnswer::failure_code),
            Some(&Code::Other("code_of_later".to_owned()))
        );
        for refused in ["no code here", ": r", "Store: r", "store_corrupt: ", "store_corrupt:r", "a b: r"] {
            assert_eq!(HookAnswer::failed_from_text(refused), None, "{refused:?}");
        }
    }
}
