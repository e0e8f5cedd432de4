//! The kernel's answer as a harness that reads only an exit code and stderr takes it (Codex CLI,
//! C-1; Gemini CLI, M-1): exit 2 with the reason on stderr for every answer that stops
//! something, exit 0 with nothing for the rest; and the strict reading back of a rendering.
//!
//! Codex denies a `PreToolUse` on exit 2 with a reason on stderr, goes on with the reason as the
//! next prompt after a `SubagentStop` or `Stop` answered so, and runs the call on anything else:
//! exit 1 or 3, exit 2 with an empty stderr, a crash, a timeout (seen with 0.169.0, fails open);
//! Gemini CLI reads its `BeforeTool` the same way (seen with 0.61.0). So every answer but
//! [`HookAnswer::Proceed`] is exit 2 with a non-empty stderr, and nothing on stdout; the
//! stderr's first words say which answer it is, so that it reads back as exactly that one:
//!
//! - [`HookAnswer::Proceed`]: exit 0, nothing printed;
//! - [`HookAnswer::Deny`]: exit 2, `Agent Warden denied this: REASON`;
//! - [`HookAnswer::Block`]: exit 2, `Agent Warden blocked this stop: REASON`;
//! - [`HookAnswer::Failed`]: exit 2, `Agent Warden could not decide: CODE: REASON` (read back
//!   with its code typed, X-93);
//! - [`HookAnswer::Rewrite`]: this rendering has no field for a replaced input, so the call is
//!   denied (exit 2, `Agent Warden denied this: …`), never run as sent (X-79); a harness whose
//!   hook can replace an input renders the rewrite itself.

use agentwarden_domain::sessions::{HookAnswer, HookReason, Rendered};

/// Exit code of every answer that stops the call or the stop.
pub const HOOK_STOPS: u8 = 2;

/// The words a deny's stderr starts with.
pub const DENIED: &str = "Agent Warden denied this: ";
/// The words a block's stderr starts with.
pub const BLOCKED: &str = "Agent Warden blocked this stop: ";
/// The words a failure's stderr starts with.
pub const FAILED: &str = "Agent Warden could not decide: ";

/// Why a rendering is not one of [`HookAnswer`]'s (C-1).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RenderingError {
    /// An exit code other than 0 and 2.
    #[error("exit code {0}, not 0 or 2")]
    ExitCode(u8),
    /// Something on stdout.
    #[error("output on stdout")]
    Stdout,
    /// Exit 0 with something on stderr.
    #[error("exit 0 with a reason on stderr")]
    StderrWithExit0,
    /// Exit 2 without a reason that names its answer.
    #[error("exit 2 without a reason that says denied, blocked or could not decide")]
    NoReason,
}

/// `answer` as the harness reads it.
pub fn render(answer: &HookAnswer) -> Rendered {
    let stderr = match answer {
        HookAnswer::Proceed => None,
        HookAnswer::Deny { reason } => Some(format!("{DENIED}{reason}")),
        HookAnswer::Block { reason } => Some(format!("{BLOCKED}{reason}")),
        HookAnswer::Failed { .. } => answer.failure().map(|text| format!("{FAILED}{text}")),
        HookAnswer::Rewrite { .. } => Some(format!(
            "{DENIED}this hook's answer cannot replace the call's input, so the call cannot run confined (X-79)"
        )),
    };
    let exit_code = if stderr.is_some() { HOOK_STOPS } else { 0 };
    Rendered { exit_code, stdout: None, stderr }
}

/// The answer whose rendering is exactly (`exit_code`, `stdout`, `stderr`), or why there is
/// none: exit 0 with nothing, or exit 2 with nothing on stdout and a stderr that starts with one
/// of the answers' words followed by a reason that is not blank (C-1).
pub fn read_back(
    exit_code: u8,
    stdout: Option<&str>,
    stderr: Option<&str>,
) -> Result<HookAnswer, RenderingError> {
    if stdout.is_some() {
        return Err(RenderingError::Stdout);
    }
    match (exit_code, stderr) {
        (0, None) => Ok(HookAnswer::Proceed),
        (0, Some(_)) => Err(RenderingError::StderrWithExit0),
        (HOOK_STOPS, Some(text)) => {
            let parsed = |prefix: &str| text.strip_prefix(prefix).and_then(HookReason::parse);
            if let Some(reason) = parsed(DENIED) {
                Ok(HookAnswer::Deny { reason })
            } else if let Some(reason) = parsed(BLOCKED) {
                Ok(HookAnswer::Block { reason })
            } else if let Some(failed) = text.strip_prefix(FAILED).and_then(HookAnswer::failed_from_text) {
                Ok(failed)
            } else {
                Err(RenderingError::NoReason)
            }
        }
        (HOOK_STOPS, None) => Err(RenderingError::NoReason),
        (other, _) => Err(RenderingError::ExitCode(other)),
    }
}

/// Where a harness that answers by exit code and stderr takes a replaced input: one JSON line on
/// stdout beside exit 0 (Codex's `updatedInput` with `allow`, C-20; Gemini's `tool_input`,
/// M-29). `line` writes it from the input and the reason, each already a JSON value; `input_at`
/// and `reason_at` are the JSON pointers where it puts them.
#[derive(Debug)]
pub struct RewriteLine {
    /// The line for `(input, reason)`, each written as JSON.
    pub line: fn(&str, &str) -> String,
    /// Where the input is in the line (a JSON pointer).
    pub input_at: &'static str,
    /// Where the reason is in the line (a JSON pointer).
    pub reason_at: &'static str,
}

/// Why a rendering is not one of [`HookAnswer`]'s for a harness with a [`RewriteLine`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RewriteRenderingError {
    /// Not one of C-1's renderings.
    #[error(transparent)]
    ExitCodeAndStderr(#[from] RenderingError),
    /// Exit 0 with a stdout that is not exactly a rewrite's line.
    #[error("exit 0 with a stdout that is not exactly a confined call's allow")]
    Stdout,
}

impl RewriteLine {
    /// `answer` as the harness reads it: a rewrite as its line, every other answer as
    /// [`render`] writes it.
    pub fn render(&self, answer: &HookAnswer) -> Rendered {
        match answer {
            HookAnswer::Rewrite { input, reason } => Rendered {
                exit_code: 0,
                stdout: Some((self.line)(
                    &serde_json::Value::Object(input.clone()).to_string(),
                    &serde_json::Value::String(reason.as_str().to_owned()).to_string(),
                )),
                stderr: None,
            },
            HookAnswer::Proceed
            | HookAnswer::Deny { .. }
            | HookAnswer::Block { .. }
            | HookAnswer::Failed { .. } => render(answer),
        }
    }

    /// The answer whose rendering is exactly (`exit_code`, `stdout`, `stderr`), or why there is
    /// none: a stdout is read only beside exit 0 and no stderr, and only as a rewrite whose line
    /// renders again to the same bytes; everything else as [`read_back`] reads it.
    pub fn read_back(
        &self,
        exit_code: u8,
        stdout: Option<&str>,
        stderr: Option<&str>,
    ) -> Result<HookAnswer, RewriteRenderingError> {
        let (0, Some(text), None) = (exit_code, stdout, stderr) else {
            return Ok(read_back(exit_code, stdout, stderr)?);
        };
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|_| RewriteRenderingError::Stdout)?;
        let input = value
            .pointer(self.input_at)
            .and_then(serde_json::Value::as_object)
            .ok_or(RewriteRenderingError::Stdout)?;
        let reason = value
            .pointer(self.reason_at)
            .and_then(serde_json::Value::as_str)
            .and_then(HookReason::parse)
            .ok_or(RewriteRenderingError::Stdout)?;
        let answer = HookAnswer::Rewrite { input: input.clone(), reason };
        match self.render(&answer).stdout {
            Some(again) if again == text => Ok(answer),
            _ => Err(RewriteRenderingError::Stdout),
        }
    }
}

#[cfg(test)]
mod tests {
    use agentwarden_domain::code::Code;
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn each_answer_renders_the_bytes_the_harness_reads() {
        let rows: [(HookAnswer, u8, Option<&str>); 4] = [
            (HookAnswer::Proceed, 0, None),
            (HookAnswer::deny("no seal"), 2, Some("Agent Warden denied this: no seal")),
            (HookAnswer::block("okrs changed"), 2, Some("Agent Warden blocked this stop: okrs changed")),
            (
                HookAnswer::failed(Code::StoreCorrupt, "x"),
                2,
                Some("Agent Warden could not decide: store_corrupt: x"),
            ),
        ];
        for (answer, exit_code, stderr) in rows {
            let rendered = render(&answer);
            assert_eq!(rendered, Rendered { exit_code, stdout: None, stderr: stderr.map(str::to_owned) });
        }
    }

    /// Only the exact rendering of an answer reads back; whatever the harness would run the
    /// call on is refused (C-1).
    #[test]
    fn only_the_exact_rendering_of_an_answer_is_read_back() {
        /// Exit code, stdout, stderr, why it is refused.
        type Row<'a> = (u8, Option<&'a str>, Option<&'a str>, &'a str);
        let refused: [Row<'_>; 10] = [
            (1, None, Some("Agent Warden denied this: r"), "exit 1 runs the call"),
            (3, None, Some("Agent Warden denied this: r"), "exit 3 runs the call"),
            (2, None, None, "exit 2 without stderr runs the call"),
            (2, None, Some(""), "an empty stderr"),
            (2, None, Some("Agent Warden denied this:  \n"), "a blank reason"),
            (2, None, Some("denied"), "words of no answer"),
            (2, Some("{}"), Some("Agent Warden denied this: r"), "stdout beside it"),
            (0, None, Some("Agent Warden denied this: r"), "exit 0 with a reason"),
            (0, Some(""), None, "exit 0 with an empty stdout"),
            (0, Some(r#"{"decision":"block","reason":"r"}"#), None, "Claude Code's block"),
        ];
        for (exit_code, stdout, stderr, why) in refused {
            assert!(read_back(exit_code, stdout, stderr).is_err(), "{why}");
        }
    }

    fn any_answer() -> impl Strategy<Value = HookAnswer> {
        let reason = "(?s).{0,64}";
        prop_oneof![
            Just(HookAnswer::Proceed),
            reason.prop_map(HookAnswer::deny),
            reason.prop_map(HookAnswer::block),
            ("[a-z_]{1,16}", reason)
                .prop_map(|(code, reason)| HookAnswer::failed(Code::parse(&code), reason)),
        ]
    }

    proptest! {
        /// Render, then read back: the same answer, whatever its reason holds; and no
        /// answer but a proceed renders as anything the harness would run the call on (C-1).
        #[test]
        fn a_rendered_answer_reads_back_as_itself(answer in any_answer()) {
            let rendered = render(&answer);
            let read = read_back(rendered.exit_code, rendered.stdout.as_deref(), rendered.stderr.as_deref());
            prop_assert_eq!(read, Ok(answer.clone()));
            if answer != HookAnswer::Proceed {
                prop_assert_eq!(rendered.exit_code, HOOK_STOPS);
                prop_assert!(rendered.stderr.is_some_and(|s| !s.trim().is_empty()));
            }
        }
    }
}
