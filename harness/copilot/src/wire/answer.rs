//! The kernel's answer as Copilot CLI reads it from a Claude-style hook (H-65, H-68): the bytes
//! Claude Code reads, which Copilot 1.0.102 was seen to obey the same way.
//!
//! - [`HookAnswer::Proceed`]: exit 0, nothing printed; the call runs, the stop ends.
//! - [`HookAnswer::Deny`]: exit 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse",
//!   "permissionDecision":"deny","permissionDecisionReason":REASON}}`; Copilot refuses the call
//!   and hands the model `Denied by preToolUse hook: REASON`.
//! - [`HookAnswer::Block`]: exit 0, `{"decision":"block","reason":REASON}`; Copilot prompts the
//!   agent again with the reason (`Stop`, `SubagentStop`).
//! - [`HookAnswer::Failed`]: exit 2, the reason on stderr; Copilot refuses the call (it hands
//!   the model only `hook exited with code 2`).
//! - [`HookAnswer::Rewrite`]: never asked of Copilot (no call is handed to the launcher, H-68);
//!   were it, rendered as a deny naming `confinement_unavailable` (X-79).
//!
//! [`read_back`] takes exactly these renderings and nothing looser (X-40).

use agentwarden_domain::sessions::{HookAnswer, HookReason, Rendered};
use serde_json::Value;

/// Exit code of a hook that could not decide: Copilot refuses the call.
pub const HOOK_FAILED: u8 = 2;

/// The reason a rewrite is denied with (X-79).
const NO_REWRITE: &str = "confinement_unavailable: Warden does not hand Copilot CLI a replaced input, so the call cannot run confined (H-68)";

/// Why a rendering is not one of [`HookAnswer`]'s (X-40).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RenderingError {
    /// An exit code other than 0 and 2.
    #[error("exit code {0}, not 0 or 2")]
    ExitCode(u8),
    /// Exit 2 without a reason on stderr, or a blank one.
    #[error("exit 2 without a reason")]
    NoReason,
    /// Exit 2 with something on stdout.
    #[error("exit 2 with output on stdout")]
    StdoutWithExit2,
    /// Exit 0 with something on stderr.
    #[error("exit 0 with a reason on stderr")]
    StderrWithExit0,
    /// Exit 0 with a stdout that is not exactly a deny or a block as Warden renders them.
    #[error("its stdout is not exactly a deny or a block as Warden renders them")]
    Stdout,
}

/// A JSON string as `serde_json` writes it.
fn string(reason: &HookReason) -> String {
    Value::String(reason.as_str().to_owned()).to_string()
}

fn deny_line(reason: &HookReason) -> String {
    format!(
        r#"{{"hookSpecificOutput":{{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":{}}}}}"#,
        string(reason)
    )
}

fn block_line(reason: &HookReason) -> String {
    format!(r#"{{"decision":"block","reason":{}}}"#, string(reason))
}

/// `answer` as Copilot reads it.
pub fn render(answer: &HookAnswer) -> Rendered {
    let (exit_code, stdout, stderr) = match answer {
        HookAnswer::Proceed => (0, None, None),
        HookAnswer::Deny { reason } => (0, Some(deny_line(reason)), None),
        HookAnswer::Rewrite { .. } => (0, Some(deny_line(&HookReason::new(NO_REWRITE))), None),
        HookAnswer::Block { reason } => (0, Some(block_line(reason)), None),
        HookAnswer::Failed { .. } => (HOOK_FAILED, None, answer.failure()),
    };
    Rendered { exit_code, stdout, stderr }
}

/// The answer whose rendering is exactly (`exit_code`, `stdout`, `stderr`), or why there is
/// none: exit 0 with nothing; exit 0 with exactly a deny's or a block's line; exit 2 with a
/// reason that is not blank and nothing on stdout (X-40).
pub fn read_back(
    exit_code: u8,
    stdout: Option<&str>,
    stderr: Option<&str>,
) -> Result<HookAnswer, RenderingError> {
    match (exit_code, stdout, stderr) {
        (0, _, Some(_)) => Err(RenderingError::StderrWithExit0),
        (0, None, None) => Ok(HookAnswer::Proceed),
        (0, Some(text), None) => from_stdout(text),
        (HOOK_FAILED, Some(_), _) => Err(RenderingError::StdoutWithExit2),
        (HOOK_FAILED, None, reason) => {
            reason.and_then(HookAnswer::failed_from_text).ok_or(RenderingError::NoReason)
        }
        (other, _, _) => Err(RenderingError::ExitCode(other)),
    }
}

/// A deny's or a block's line, read back; refused unless it renders to the same bytes.
fn from_stdout(text: &str) -> Result<HookAnswer, RenderingError> {
    let value: Value = serde_json::from_str(text).map_err(|_| RenderingError::Stdout)?;
    let deny = value.pointer("/hookSpecificOutput/permissionDecisionReason").and_then(Value::as_str);
    let block = value.get("reason").and_then(Value::as_str);
    let answer = match (deny, block) {
        (Some(reason), None) => {
            HookAnswer::Deny { reason: HookReason::parse(reason).ok_or(RenderingError::Stdout)? }
        }
        (None, Some(reason)) => {
            HookAnswer::Block { reason: HookReason::parse(reason).ok_or(RenderingError::Stdout)? }
        }
        _ => return Err(RenderingError::Stdout),
    };
    match render(&answer).stdout {
        Some(rendered) if rendered == text => Ok(answer),
        _ => Err(RenderingError::Stdout),
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use agentwarden_domain::code::Code;

    /// The bytes Copilot was seen to obey, for each answer.
    #[test]
    fn each_answer_renders_the_bytes_copilot_reads() {
        let deny = render(&HookAnswer::deny("no \"seal\""));
        assert_eq!(
            (deny.exit_code, deny.stdout.as_deref(), deny.stderr.as_deref()),
            (
                0,
                Some(
                    r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no \"seal\""}}"#
                ),
                None
            )
        );
        let block = render(&HookAnswer::block("go on"));
        assert_eq!(block.stdout.as_deref(), Some(r#"{"decision":"block","reason":"go on"}"#));
        let failed = render(&HookAnswer::failed(Code::StoreUnavailable, "store"));
        assert_eq!(
            (failed.exit_code, failed.stdout, failed.stderr.as_deref()),
            (2, None, Some("store_unavailable: store"))
        );
        assert_eq!(render(&HookAnswer::Proceed), Rendered { exit_code: 0, stdout: None, stderr: None });
    }

    /// A rewrite is never a proceed: a deny naming `confinement_unavailable` (X-79, H-68).
    #[test]
    fn a_rewrite_is_denied() {
        let input = serde_json::json!({"command": "echo"}).as_object().cloned().unwrap_or_default();
        let rendered = render(&HookAnswer::rewrite(input, "confined"));
        let read = read_back(rendered.exit_code, rendered.stdout.as_deref(), rendered.stderr.as_deref());
        assert!(
            matches!(&read, Ok(HookAnswer::Deny { reason }) if reason.as_str().starts_with("confinement_unavailable")),
            "{read:?}"
        );
    }

    /// Only the exact renderings read back.
    #[test]
    fn only_the_exact_renderings_read_back() {
        let deny = render(&HookAnswer::deny("r")).stdout.unwrap_or_default();
        let refused = [
            (0, Some(format!("{deny}\n")), None, "a trailing newline"),
            (0, Some(deny.replace("deny", "allow")), None, "an allow"),
            (0, Some(r#"{"decision":"block","reason":" "}"#.to_owned()), None, "a blank reason"),
            (0, Some(r#"{"reason":"r","decision":"block"}"#.to_owned()), None, "another order"),
            (0, None, Some("x".to_owned()), "stderr beside exit 0"),
            (2, Some(deny.clone()), Some("r".to_owned()), "stdout beside exit 2"),
            (2, None, Some("  ".to_owned()), "exit 2 without a reason"),
            (1, None, Some("r".to_owned()), "exit 1"),
        ];
        for (exit_code, stdout, stderr, why) in refused {
            assert!(read_back(exit_code, stdout.as_deref(), stderr.as_deref()).is_err(), "{why}");
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
        /// Render, then read back: the same answer, whatever its reason holds.
        #[test]
        fn a_rendered_answer_reads_back_as_itself(answer in any_answer()) {
            let rendered = render(&answer);
            let read = read_back(rendered.exit_code, rendered.stdout.as_deref(), rendered.stderr.as_deref());
            prop_assert_eq!(read, Ok(answer));
        }
    }
}
