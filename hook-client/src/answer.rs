//! The server's answer to a hook request, read back into the Claude Code answer (V-52, X-40).
//!
//! The wire carries the decision and its reason; the client renders it. It accepts exactly
//! the five answers — `proceed` without a reason, `deny`, `block` or `failed` each with a reason
//! that is not blank (X-41), `rewrite` with a reason and the input the call runs with (H-62) —
//! and an `error` (exit 2 with its code and reason). Anything else — a reason beside `proceed`,
//! a blank or missing one, an input beside any decision but `rewrite`, a `rewrite` without one,
//! another kind of answer — is exit 2
//! (`server_answer_invalid`), never a pass (V-6). X-74: the failures are a [`ClientError`], the
//! code typed, until the hook renders one as its failure (`CODE: reason`).

use agentwarden_domain::code::Code;
use agentwarden_domain::sessions::{HookAnswer, HookReason};
use agentwarden_protocol::{Answer, ClientError, HookDecision};

/// The hook answer a server's `answer` stands for, or why there is none: the server's `error`
/// (its code), or `server_answer_invalid`.
pub fn checked(answer: Answer) -> Result<HookAnswer, ClientError> {
    let invalid = |why: &str| Err(ClientError::new(Code::ServerAnswerInvalid, why));
    match answer {
        Answer::Hook { decision, code, reason, tool_input } => {
            let reason = reason.as_deref().map(|r| HookReason::parse(r).ok_or(r));
            match (decision, tool_input) {
                (HookDecision::Rewrite, None) => return invalid("`rewrite` without an input"),
                (HookDecision::Rewrite, Some(tool_input)) => {
                    return match reason {
                        Some(Ok(reason)) => Ok(HookAnswer::Rewrite { input: tool_input, reason }),
                        Some(Err(_)) => invalid("`rewrite` with a blank reason"),
                        None => invalid("`rewrite` without a reason"),
                    };
                }
                (_, Some(_)) => return invalid(&format!("an input beside `{}`", name(decision))),
                (_, None) => {}
            }
            // A code beside a failure only; a failure without one is not a failure's frame (X-93).
            let code = match (decision, code) {
                (HookDecision::Failed, Some(code)) => code,
                (HookDecision::Failed, None) => return invalid("`failed` without a code"),
                (_, Some(_)) => return invalid(&format!("a code beside `{}`", name(decision))),
                (_, None) => Code::InternalError,
            };
            match (decision, reason) {
                (HookDecision::Proceed, None) => Ok(HookAnswer::Proceed),
                (HookDecision::Proceed, Some(_)) => invalid("a reason beside `proceed`"),
                (_, None) => invalid(&format!("`{}` without a reason", name(decision))),
                (_, Some(Err(_))) => invalid(&format!("`{}` with a blank reason", name(decision))),
                (HookDecision::Deny, Some(Ok(reason))) => Ok(HookAnswer::Deny { reason }),
                (HookDecision::Block, Some(Ok(reason))) => Ok(HookAnswer::Block { reason }),
                (HookDecision::Failed, Some(Ok(reason))) => Ok(HookAnswer::Failed { code, reason }),
                (HookDecision::Rewrite, Some(Ok(_))) => invalid("`rewrite` without an input"),
            }
        }
        Answer::Error { code, reason } => Err(ClientError::new(code, reason)),
        Answer::Status { .. }
        | Answer::Decided { .. }
        | Answer::Checkpoint { .. }
        | Answer::InclusionProof { .. }
        | Answer::ConsistencyProof { .. } => invalid("another kind of answer to a hook request"),
    }
}

fn name(decision: HookDecision) -> &'static str {
    match decision {
        HookDecision::Proceed => "proceed",
        HookDecision::Deny => "deny",
        HookDecision::Block => "block",
        HookDecision::Failed => "failed",
        HookDecision::Rewrite => "rewrite",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use agentwarden_claude_code::wire::Rendering;
    use agentwarden_protocol::Outcome;

    fn hook(decision: HookDecision, reason: Option<&str>) -> Answer {
        let code = (decision == HookDecision::Failed).then_some(Code::StoreCorrupt);
        Answer::Hook { decision, code, reason: reason.map(str::to_owned), tool_input: None }
    }

    fn input() -> serde_json::Map<String, serde_json::Value> {
        serde_json::json!({"command": "'/w' 'v1' 'ls'", "timeout": 5})
            .as_object()
            .cloned()
            .unwrap_or_default()
    }

    /// A rewrite is printed only with a reason and an input; an input beside any other decision
    /// is refused (H-62, X-40).
    #[test]
    fn a_rewrite_frame_is_read_exactly() {
        let with = |decision, reason: Option<&str>| Answer::Hook {
            decision,
            code: None,
            reason: reason.map(str::to_owned),
            tool_input: Some(input()),
        };
        assert_eq!(checked(with(HookDecision::Rewrite, Some("r"))), Ok(HookAnswer::rewrite(input(), "r")));
        let refused = [
            (with(HookDecision::Rewrite, None), "a rewrite without a reason"),
            (with(HookDecision::Rewrite, Some(" ")), "a rewrite with a blank reason"),
            (hook(HookDecision::Rewrite, Some("r")), "a rewrite without an input"),
            (with(HookDecision::Proceed, None), "an input beside proceed"),
            (with(HookDecision::Deny, Some("r")), "an input beside deny"),
            (with(HookDecision::Failed, Some("r")), "an input beside failed"),
        ];
        for (frame, why) in refused {
            assert_eq!(checked(frame).map_err(|e| e.code), Err(Code::ServerAnswerInvalid), "{why}");
        }
    }

    /// A frame the server sends is printed only when it is exactly one answer (X-40, V-52).
    #[test]
    fn only_a_well_formed_hook_answer_is_printed() {
        let accepted = [
            (hook(HookDecision::Proceed, None), HookAnswer::Proceed),
            (hook(HookDecision::Deny, Some("r")), HookAnswer::deny("r")),
            (hook(HookDecision::Block, Some("r")), HookAnswer::block("r")),
            (hook(HookDecision::Failed, Some("x")), HookAnswer::failed(Code::StoreCorrupt, "x")),
        ];
        for (frame, answer) in accepted {
            assert_eq!(checked(frame), Ok(answer));
        }
        // The server's error keeps its code (X-74); the hook prints it as `CODE: reason`.
        let error = checked(Answer::error(Code::RequestInvalid, "r")).unwrap_err();
        assert_eq!(error, ClientError::new(Code::RequestInvalid, "r"));
        assert_eq!(error.to_string(), "request_invalid: r");
        // The frame, why it is refused.
        let refused: [(Answer, &str); 11] = [
            (
                Answer::Hook {
                    decision: HookDecision::Failed,
                    code: None,
                    reason: Some("r".into()),
                    tool_input: None,
                },
                "a failure without its code",
            ),
            (
                Answer::Hook {
                    decision: HookDecision::Deny,
                    code: Some(Code::StoreCorrupt),
                    reason: Some("r".into()),
                    tool_input: None,
                },
                "a code beside a deny",
            ),
            (hook(HookDecision::Proceed, Some("r")), "a reason beside proceed"),
            (hook(HookDecision::Proceed, Some("")), "even a blank one"),
            (hook(HookDecision::Deny, None), "a deny without a reason"),
            (hook(HookDecision::Block, None), "a block without a reason"),
            (hook(HookDecision::Failed, None), "a failure without a reason"),
            (hook(HookDecision::Failed, Some("")), "an empty reason"),
            (hook(HookDecision::Deny, Some(" \n\t")), "a blank reason"),
            (Answer::Decided { outcome: Box::new(Outcome::SealShow { seal: None }) }, "a command's answer"),
            (
                Answer::Status {
                    pid: 1,
                    store: String::new(),
                    head_seq: 0,
                    head_hash: String::new(),
                    uptime_ms: 0,
                    requests_served: 0,
                    export: None,
                    witnesses: None,
                },
                "a status",
            ),
        ];
        for (frame, why) in refused {
            let error = checked(frame).unwrap_err();
            assert_eq!(error.code, Code::ServerAnswerInvalid, "{why}");
            let answer = HookAnswer::failed(error.code.clone(), error.reason.clone());
            assert_eq!(answer.exit_code(), agentwarden_claude_code::wire::HOOK_FAILED, "{why}");
            assert!(
                answer.stderr().is_some_and(|r| r.starts_with("server_answer_invalid: ")),
                "{why}: {answer:?}"
            );
        }
    }
}
