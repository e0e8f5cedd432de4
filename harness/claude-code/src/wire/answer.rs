//! The kernel's answer as Claude Code reads it (issue 22, X-40, X-41): the exact bytes each of
//! the four [`HookAnswer`]s becomes in Claude Code's hooks protocol, and the strict reading back
//! of a rendering.
//!
//! - [`HookAnswer::Proceed`]: exit 0, nothing printed; Claude Code's own flow goes on.
//! - [`HookAnswer::Deny`]: exit 0, a `PreToolUse` `permissionDecision: "deny"` with its reason.
//! - [`HookAnswer::Block`]: exit 0, a `SubagentStop` `{"decision":"block","reason":…}`.
//! - [`HookAnswer::Failed`]: exit 2, the reason on stderr; Claude Code denies the call or
//!   blocks the stop (H-1).
//! - [`HookAnswer::Rewrite`]: exit 0, a `PreToolUse` `permissionDecision: "allow"` with its reason
//!   and the whole replaced input as `updatedInput`, which Claude Code runs in place of the input
//!   sent (seen with 2.1.330, in the main session and in a subagent; H-61, H-62).
//!
//! No exit 1 (which would let the call run), no stdout of any other text. The resident service
//! sends an answer as its rendering (`exit_code`, `stdout`, `stderr`);
//! [`Rendering::from_rendering`] reads a rendering back and accepts exactly the renderings of
//! the four shapes (X-40).

use std::borrow::Cow;

use agentwarden_domain::sessions::{HookAnswer, HookReason};
use serde::Deserialize;
use serde_json::Value;

/// Exit code of a hook that could not decide: Claude Code denies the tool call or blocks the
/// stop.
pub const HOOK_FAILED: u8 = 2;

/// `PreToolUse`'s deny as read back: only its reason; the rest of its bytes are checked by
/// rendering it again (X-40).
#[derive(Deserialize)]
struct DenyOutput<'a> {
    #[serde(rename = "hookSpecificOutput", borrow)]
    hook_specific_output: PermissionDecision<'a>,
}

#[derive(Deserialize)]
struct PermissionDecision<'a> {
    #[serde(borrow, rename = "permissionDecisionReason")]
    reason: Cow<'a, str>,
}

/// `PreToolUse`'s allow with a replaced input as read back: its reason and input; the rest of
/// its bytes are checked by rendering it again (X-40).
#[derive(Deserialize)]
struct RewriteOutput<'a> {
    #[serde(rename = "hookSpecificOutput", borrow)]
    hook_specific_output: Rewritten<'a>,
}

#[derive(Deserialize)]
struct Rewritten<'a> {
    #[serde(borrow, rename = "permissionDecision")]
    decision: Cow<'a, str>,
    #[serde(borrow, rename = "permissionDecisionReason")]
    reason: Cow<'a, str>,
    #[serde(rename = "updatedInput")]
    input: serde_json::Map<String, Value>,
}

/// `SubagentStop`'s block as read back, the same way.
#[derive(Deserialize)]
struct BlockOutput<'a> {
    #[serde(borrow)]
    reason: Cow<'a, str>,
}

/// Why a rendering is not one of [`HookAnswer`]'s (X-40).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RenderingError {
    /// An exit code other than 0 and 2.
    #[error("exit code {0}, not 0 or 2")]
    ExitCode(u8),
    /// Exit 2 without a failure on stderr (`code: reason`), or with a blank reason.
    #[error("exit 2 without a reason")]
    NoReason,
    /// Exit 2 with something on stdout.
    #[error("exit 2 with output on stdout")]
    StdoutWithExit2,
    /// Exit 0 with something on stderr.
    #[error("exit 0 with a reason on stderr")]
    StderrWithExit0,
    /// Exit 0 with a stdout that is not exactly a deny, a block or a rewrite as Warden renders
    /// them.
    #[error("its stdout is not exactly a deny, a block or a rewrite as Warden renders them: `{0}`")]
    Stdout(String),
}

/// The longest piece of a refused stdout quoted in a [`RenderingError`].
const QUOTED: usize = 120;

/// `text` cut at [`QUOTED`] characters, escaped so that the reason stays one line.
fn quoted(text: &str) -> String {
    let cut = match text.char_indices().nth(QUOTED) {
        Some((at, _)) => text.get(..at).unwrap_or_default(),
        None => text,
    };
    let ellipsis = if cut.len() < text.len() { "…" } else { "" };
    format!("{}{ellipsis}", cut.escape_debug())
}

/// A [`HookAnswer`] in Claude Code's hooks protocol: its exit code, its stdout and its stderr,
/// and the one way back from them. Bring it into scope to write `answer.exit_code()`.
pub trait Rendering: Sized {
    /// The exit code: [`HOOK_FAILED`] for a failure, else 0.
    fn exit_code(&self) -> u8;

    /// The one line of JSON printed on stdout (without its newline), if any: a deny or a block.
    fn stdout(&self) -> Option<String>;

    /// The failure printed on stderr (after `warden: `) with exit 2, if any: `code: reason`,
    /// composed here from the failure's fields (X-93).
    fn stderr(&self) -> Option<String>;

    /// The answer whose rendering is exactly (`exit_code`, `stdout`, `stderr`), or why
    /// there is none. Exit 0 with nothing; exit 0 with exactly a deny's or a block's line (the
    /// bytes [`Rendering::stdout`] gives, so no other key, order, spacing or escape); exit 2
    /// with a reason that is not blank. Anything else — exit 1, output beside a failure, a
    /// reason beside an exit 0 — is refused (X-40).
    fn from_rendering(
        exit_code: u8,
        stdout: Option<&str>,
        stderr: Option<&str>,
    ) -> Result<Self, RenderingError>;
}

impl Rendering for HookAnswer {
    fn exit_code(&self) -> u8 {
        match self {
            HookAnswer::Failed { .. } => HOOK_FAILED,
            HookAnswer::Proceed
            | HookAnswer::Rewrite { .. }
            | HookAnswer::Deny { .. }
            | HookAnswer::Block { .. } => 0,
        }
    }

    fn stdout(&self) -> Option<String> {
        // A JSON string as `serde_json` writes it (what `json!` wrote before the answer was
        // typed); the rest is fixed text, in the order Claude Code's reference gives it.
        let string = |reason: &HookReason| Value::String(reason.as_str().to_owned()).to_string();
        match self {
            HookAnswer::Proceed | HookAnswer::Failed { .. } => None,
            HookAnswer::Deny { reason } => Some(format!(
                r#"{{"hookSpecificOutput":{{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":{}}}}}"#,
                string(reason)
            )),
            HookAnswer::Block { reason } => {
                Some(format!(r#"{{"decision":"block","reason":{}}}"#, string(reason)))
            }
            HookAnswer::Rewrite { input, reason } => Some(format!(
                r#"{{"hookSpecificOutput":{{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":{},"updatedInput":{}}}}}"#,
                string(reason),
                Value::Object(input.clone())
            )),
        }
    }

    fn stderr(&self) -> Option<String> {
        self.failure()
    }

    fn from_rendering(
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
}

/// A deny's or a block's line, read back; refused unless it renders to the same bytes.
fn from_stdout(text: &str) -> Result<HookAnswer, RenderingError> {
    let refused = || RenderingError::Stdout(quoted(text));
    let rewrite = serde_json::from_str::<RewriteOutput<'_>>(text)
        .ok()
        .filter(|r| r.hook_specific_output.decision == "allow");
    let answer = if let Some(rewrite) = rewrite {
        let Rewritten { reason, input, .. } = rewrite.hook_specific_output;
        HookAnswer::Rewrite { input, reason: HookReason::parse(&reason).ok_or_else(refused)? }
    } else if let Ok(deny) = serde_json::from_str::<DenyOutput<'_>>(text) {
        let reason = deny.hook_specific_output.reason;
        HookAnswer::Deny { reason: HookReason::parse(&reason).ok_or_else(refused)? }
    } else if let Ok(block) = serde_json::from_str::<BlockOutput<'_>>(text) {
        HookAnswer::Block { reason: HookReason::parse(&block.reason).ok_or_else(refused)? }
    } else {
        return Err(refused());
    };
    match answer.stdout() {
        Some(rendered) if rendered == text => Ok(answer),
        _ => Err(refused()),
    }
}

#[cfg(test)]
mod tests {
    use agentwarden_domain::code::Code;
    use proptest::prelude::*;

    use super::*;

    fn from(exit_code: u8, stdout: Option<&str>, stderr: Option<&str>) -> Result<HookAnswer, RenderingError> {
        HookAnswer::from_rendering(exit_code, stdout, stderr)
    }

    #[test]
    fn each_answer_renders_the_bytes_claude_code_reads() {
        let rows: [(HookAnswer, u8, Option<&str>, Option<&str>); 4] = [
            (HookAnswer::Proceed, 0, None, None),
            (
                HookAnswer::deny("no \"seal\"\n"),
                0,
                Some(
                    r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no \"seal\"\n"}}"#,
                ),
                None,
            ),
            (HookAnswer::block("a\nb"), 0, Some(r#"{"decision":"block","reason":"a\nb"}"#), None),
            (HookAnswer::failed(Code::StoreCorrupt, "x"), HOOK_FAILED, None, Some("store_corrupt: x")),
        ];
        for (answer, exit_code, stdout, stderr) in rows {
            assert_eq!(answer.exit_code(), exit_code, "{answer:?}");
            assert_eq!(answer.stdout().as_deref(), stdout, "{answer:?}");
            assert_eq!(answer.stderr().as_deref(), stderr, "{answer:?}");
            assert_eq!(answer.stdout(), untyped_line(&answer), "the bytes of before");
        }
    }

    /// The client accepts exactly the renderings of the four answers (X-40).
    #[test]
    fn only_the_exact_rendering_of_an_answer_is_read_back() {
        let deny = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"r"}}"#;
        let block = r#"{"decision":"block","reason":"r"}"#;
        let deny_and_newline = format!("{deny}\n");
        let accepted: [(u8, Option<&str>, Option<&str>, HookAnswer); 4] = [
            (0, None, None, HookAnswer::Proceed),
            (0, Some(deny), None, HookAnswer::deny("r")),
            (0, Some(block), None, HookAnswer::block("r")),
            (2, None, Some("store_corrupt: x"), HookAnswer::failed(Code::StoreCorrupt, "x")),
        ];
        for (exit_code, stdout, stderr, answer) in accepted {
            assert_eq!(from(exit_code, stdout, stderr), Ok(answer));
        }
        /// Exit code, stdout, stderr, why it is refused.
        type Row<'a> = (u8, Option<&'a str>, Option<&'a str>, &'a str);
        let refused: [Row<'_>; 22] = [
            (1, None, None, "exit 1 would let the call run"),
            (1, None, Some("r"), "exit 1 with a reason"),
            (3, None, Some("r"), "exit 3"),
            (255, Some(deny), None, "exit 255 with a deny"),
            (2, None, None, "exit 2 without a reason"),
            (2, None, Some(""), "an empty reason"),
            (2, None, Some(" \n"), "a blank reason"),
            (2, Some(deny), Some("r"), "exit 2 with a deny beside it"),
            (0, None, Some("r"), "exit 0 with a reason"),
            (0, Some(deny), Some("r"), "a deny with a stderr"),
            (0, Some("allow"), None, "stdout not JSON"),
            (0, Some("[1]"), None, "stdout not an object"),
            (0, Some("{}"), None, "an empty object: no decision"),
            (0, Some("{}\n{}"), None, "two lines"),
            (0, Some(r#"{"decision":"approve","reason":"r"}"#), None, "a block's shape, another decision"),
            (0, Some(r#"{"decision":"block","reason":""}"#), None, "a block without a reason"),
            (0, Some(r#"{"decision":"block","reason":"r","continue":false}"#), None, "a key more"),
            (0, Some(r#"{"reason":"r","decision":"block"}"#), None, "another order"),
            (0, Some(r#"{"decision": "block","reason":"r"}"#), None, "another spacing"),
            (
                0,
                Some(
                    r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"r"}}"#,
                ),
                None,
                "a deny's shape that allows",
            ),
            (
                0,
                Some(
                    r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","permissionDecision":"deny","permissionDecisionReason":"r"}}"#,
                ),
                None,
                "a deny of another event",
            ),
            (0, Some(&deny_and_newline), None, "a deny and a newline: not the line as rendered"),
        ];
        for (exit_code, stdout, stderr, why) in refused {
            assert!(from(exit_code, stdout, stderr).is_err(), "{why}");
        }
    }

    /// A rewrite is the allow with `updatedInput` Claude Code runs (H-61, H-62), read back only
    /// as Warden renders it (X-40).
    #[test]
    fn a_rewrite_renders_an_allow_with_the_whole_input_and_reads_back_exactly() {
        let input: serde_json::Map<String, Value> = serde_json::from_str(
            r#"{"command":"'/w' 'v1' 'ls'","description":"d","run_in_background":true,"timeout":5}"#,
        )
        .unwrap();
        let answer = HookAnswer::rewrite(input, "confined");
        let line = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"confined","updatedInput":{"command":"'/w' 'v1' 'ls'","description":"d","run_in_background":true,"timeout":5}}}"#;
        assert_eq!((answer.exit_code(), answer.stdout().as_deref(), answer.stderr()), (0, Some(line), None));
        assert_eq!(from(0, Some(line), None), Ok(answer));
        let refused = [
            line.replace(r#""allow""#, r#""ask""#),
            line.replace(r#""confined""#, r#""""#),
            line.replace(r#""updatedInput":{"#, r#""updatedInput":{"extra":1,"#),
            line.replace(r#""hookEventName":"PreToolUse","#, ""),
            line.replace(r#""timeout":5}"#, r#""timeout":5},"continue":true"#),
            line.replace(r#"{"command""#, r#"{ "command""#),
            line.replace(r#""timeout":5"#, r#""timeout":05"#),
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"r","updatedInput":[]}}"#.to_owned(),
        ];
        for text in refused {
            assert!(from(0, Some(&text), None).is_err(), "{text}");
        }
    }

    #[test]
    fn a_refused_stdout_is_quoted_truncated() {
        let long = "x".repeat(1000);
        let Err(RenderingError::Stdout(quoted)) = from(0, Some(&long), None) else {
            unreachable!("a long non-JSON stdout is refused");
        };
        assert_eq!(quoted.chars().count(), QUOTED + 1);
        let Err(RenderingError::Stdout(quoted)) = from(0, Some("{}\n{}"), None) else {
            panic!("two objects are refused");
        };
        assert_eq!(quoted, "{}\\n{}", "one line");
    }

    fn any_answer() -> impl Strategy<Value = HookAnswer> {
        // Any text: quotes, backslashes, newlines, control characters, blank.
        let reason = "(?s).{0,64}";
        prop_oneof![
            Just(HookAnswer::Proceed),
            reason.prop_map(HookAnswer::deny),
            reason.prop_map(HookAnswer::block),
            ("[a-z_]{1,16}", reason)
                .prop_map(|(code, reason)| HookAnswer::failed(Code::parse(&code), reason)),
            (reason, reason, proptest::option::of(0u32..100_000)).prop_map(|(command, reason, timeout)| {
                let mut input = serde_json::Map::new();
                input.insert("command".into(), Value::String(command));
                if let Some(t) = timeout {
                    input.insert("timeout".into(), Value::from(t));
                }
                HookAnswer::rewrite(input, reason)
            }),
        ]
    }

    /// The line as the facade wrote it before the answer was typed (`json!`, then `to_string`).
    fn untyped_line(answer: &HookAnswer) -> Option<String> {
        let json = match answer {
            HookAnswer::Proceed | HookAnswer::Failed { .. } => return None,
            HookAnswer::Deny { reason } => serde_json::json!({"hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": reason.as_str(),
            }}),
            HookAnswer::Block { reason } => {
                serde_json::json!({"decision": "block", "reason": reason.as_str()})
            }
            HookAnswer::Rewrite { input, reason } => serde_json::json!({"hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "allow",
                "permissionDecisionReason": reason.as_str(),
                "updatedInput": input,
            }}),
        };
        Some(json.to_string())
    }

    proptest! {
        /// Render, then read back: the same answer, whatever its reason holds; and the
        /// bytes are the ones Claude Code got before the answer was typed (X-40).
        #[test]
        fn a_rendered_answer_reads_back_as_itself(answer in any_answer()) {
            let stdout = answer.stdout();
            let read = <HookAnswer as Rendering>::from_rendering(answer.exit_code(), stdout.as_deref(), answer.stderr().as_deref());
            prop_assert_eq!(read, Ok(answer.clone()));
            prop_assert_eq!(&stdout, &untyped_line(&answer));
            if let Some(line) = stdout {
                prop_assert!(!line.contains('\n'));
            }
        }
    }
}
