//! The kernel's answer to a harness's hook event, typed (issue 22): the five things Warden ever
//! says about a session's event, whatever harness asked.
//!
//! - [`HookAnswer::Proceed`]: nothing to say; the harness's own flow goes on.
//! - [`HookAnswer::Rewrite`]: the tool call runs, with the input Warden hands back in place of
//!   the one sent: an agent's shell call under the confinement launcher (issue 50, H-61).
//! - [`HookAnswer::Deny`]: the tool call does not run; the reason is shown to the model.
//! - [`HookAnswer::Block`]: the agent's stop is refused; it goes on, told why.
//! - [`HookAnswer::Failed`]: Warden could not decide; the harness must deny the call or block
//!   the stop (H-1).
//!
//! Nothing else is representable: no failure without a reason (X-41). How each answer is said in
//! a harness's protocol (its bytes, its exit codes), and the strict reading back of a rendering
//! (X-40), belong to that harness's integration.

use std::fmt;

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
        /// Why, in one line.
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

    /// A block of the stop.
    pub fn block(reason: impl Into<String>) -> HookAnswer {
        HookAnswer::Block { reason: HookReason::new(reason) }
    }

    /// A failure: Warden could not decide.
    pub fn failed(reason: impl Into<String>) -> HookAnswer {
        HookAnswer::Failed { reason: HookReason::new(reason) }
    }

    /// The reason of a failure, if it is one.
    pub fn failure(&self) -> Option<&str> {
        match self {
            HookAnswer::Failed { reason } => Some(reason.as_str()),
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

    /// The reason of a deny, a block or a failure.
    pub fn reason(&self) -> Option<&HookReason> {
        match self {
            HookAnswer::Proceed | HookAnswer::Rewrite { .. } => None,
            HookAnswer::Deny { reason } | HookAnswer::Block { reason } | HookAnswer::Failed { reason } => {
                Some(reason)
            }
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
            for answer in [HookAnswer::failed(blank), HookAnswer::deny(blank), HookAnswer::block(blank)] {
                assert_eq!(answer.reason().map(HookReason::as_str), Some(HookReason::MISSING), "{answer:?}");
            }
        }
        assert_eq!(HookReason::parse(" "), None);
        assert_eq!(HookReason::parse("r").map(|r| r.to_string()), Some("r".to_owned()));
    }
}
