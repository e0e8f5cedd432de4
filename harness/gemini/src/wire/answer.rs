//! The kernel's answer as Gemini CLI reads it: every answer but a rewrite as M-1 renders it (the
//! exit code and stderr, [`agentwarden_protocol::exit_two`]), and [`HookAnswer::Rewrite`] as a
//! `BeforeTool` allow with a replaced input (M-29): exit 0, nothing on stderr, and on stdout
//! exactly `{"decision":"allow","systemMessage":REASON,"hookSpecificOutput":{"hookEventName":
//! "BeforeTool","tool_input":INPUT}}`, the whole input so that Gemini's merge keeps nothing of
//! the model's that Warden did not judge (`tests/tests/gemini_real/rewrite.rs`). [`read_back`]
//! takes exactly these renderings and nothing looser.

use agentwarden_domain::sessions::{HookAnswer, Rendered};
use agentwarden_protocol::exit_two::{self, RewriteLine};

/// Why a rendering is not one of [`HookAnswer`]'s (M-1, M-29).
pub use exit_two::RewriteRenderingError as RenderingError;

/// Gemini's line for a rewrite (M-29).
const REWRITE: RewriteLine = RewriteLine {
    line: |input, reason| {
        format!(
            r#"{{"decision":"allow","systemMessage":{reason},"hookSpecificOutput":{{"hookEventName":"BeforeTool","tool_input":{input}}}}}"#
        )
    },
    input_at: "/hookSpecificOutput/tool_input",
    reason_at: "/systemMessage",
};

/// `answer` as Gemini reads it.
pub fn render(answer: &HookAnswer) -> Rendered {
    REWRITE.render(answer)
}

/// The answer whose rendering is exactly (`exit_code`, `stdout`, `stderr`), or why there is
/// none (M-1, M-29): a stdout is read only beside exit 0 and no stderr, and only as a rewrite
/// whose line renders again to the same bytes.
pub fn read_back(
    exit_code: u8,
    stdout: Option<&str>,
    stderr: Option<&str>,
) -> Result<HookAnswer, RenderingError> {
    REWRITE.read_back(exit_code, stdout, stderr)
}

#[cfg(test)]
mod tests {
    use agentwarden_domain::code::Code;
    use agentwarden_domain::sessions::HookReason;
    use proptest::prelude::*;
    use serde_json::json;
    use serde_json::{Map, Value};

    use super::*;

    fn rewrite() -> HookAnswer {
        let input = json!({"command": "'/usr/bin/warden-confine' 'v1;…' 'echo a'", "description": "d"});
        HookAnswer::rewrite(input.as_object().cloned().unwrap_or_default(), "confined to src/")
    }

    /// The bytes of M-29 exactly, and M-1's for every other answer.
    #[test]
    fn a_rewrite_is_geminis_allow_with_the_whole_input() {
        let rendered = render(&rewrite());
        assert_eq!(rendered.exit_code, 0);
        assert_eq!(rendered.stderr, None);
        assert_eq!(
            rendered.stdout.as_deref(),
            Some(
                r#"{"decision":"allow","systemMessage":"confined to src/","hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"command":"'/usr/bin/warden-confine' 'v1;…' 'echo a'","description":"d"}}}"#
            )
        );
        for answer in [
            HookAnswer::Proceed,
            HookAnswer::deny("no"),
            HookAnswer::block("b"),
            HookAnswer::failed(Code::InternalError, "f"),
        ] {
            assert_eq!(render(&answer), exit_two::render(&answer), "{answer:?}");
        }
    }

    /// Only the exact rendering reads back (M-29).
    #[test]
    fn only_the_exact_rewrite_reads_back() {
        let exact = render(&rewrite()).stdout.unwrap_or_default();
        assert_eq!(read_back(0, Some(&exact), None), Ok(rewrite()));
        let refused = [
            (0, Some(exact.replace(r#""decision":"allow","#, "")), None, "no decision"),
            (0, Some(exact.replace(r#""allow""#, r#""ask""#)), None, "ask: Gemini asks the user"),
            (0, Some(exact.replace("BeforeTool", "AfterTool")), None, "another event"),
            (0, Some(exact.replace("confined to src/", " ")), None, "a blank reason"),
            (0, Some(format!("{exact}\n")), None, "a trailing newline"),
            (0, Some(exact.replace(r#"{"decision""#, r#"{"continue":true,"decision""#)), None, "another key"),
            (0, Some(exact.replace(r#""description":"d""#, r#""description":"d","description":"e""#)), None, "a duplicate key"),
            (0, Some(r#"{"decision":"allow","systemMessage":"r","hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":"echo"}}"#.to_owned()), None, "an input that is not an object"),
            (0, Some(exact.clone()), Some("x".to_owned()), "stderr beside it"),
            (2, Some(exact.clone()), Some("Agent Warden denied this: r".to_owned()), "exit 2 beside it"),
        ];
        for (exit_code, stdout, stderr, why) in refused {
            assert!(read_back(exit_code, stdout.as_deref(), stderr.as_deref()).is_err(), "{why}");
        }
    }

    fn any_answer() -> impl Strategy<Value = HookAnswer> {
        let reason = "(?s).{0,64}";
        let input = proptest::collection::btree_map("[a-z_]{1,8}", "(?s).{0,32}", 0..4);
        prop_oneof![
            Just(HookAnswer::Proceed),
            reason.prop_map(HookAnswer::deny),
            reason.prop_map(HookAnswer::block),
            ("[a-z_]{1,16}", reason)
                .prop_map(|(code, reason)| HookAnswer::failed(Code::parse(&code), reason)),
            (input, "(?s).{1,64}").prop_filter_map("a reason that is not blank", |(input, reason)| {
                let map: Map<String, Value> = input.into_iter().map(|(k, v)| (k, Value::String(v))).collect();
                HookReason::parse(&reason).map(|_| HookAnswer::rewrite(map, reason))
            }),
        ]
    }

    proptest! {
        /// Render, then read back: the same answer, whatever its reason and input hold.
        #[test]
        fn a_rendered_answer_reads_back_as_itself(answer in any_answer()) {
            let rendered = render(&answer);
            let read = read_back(rendered.exit_code, rendered.stdout.as_deref(), rendered.stderr.as_deref());
            prop_assert_eq!(read, Ok(answer));
        }
    }
}
