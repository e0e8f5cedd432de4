//! The server's answer to a hook request, read back into the Claude Code answer (V-52, X-40).
//!
//! The wire carries the decision and its reason; the client renders it. It accepts exactly
//! the four answers — `proceed` without a reason, `deny`, `block` or `failed` each with a reason
//! that is not blank (X-41) — and an `error` (exit 2 with its code and reason). Anything else —
//! a reason beside `proceed`, a blank or missing one, another kind of answer — is exit 2
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
        Answer::Hook { decision, reason } => {
            let reason = reason.as_deref().map(|r| HookReason::parse(r).ok_or(r));
            match (decision, reason) {
                (HookDecision::Proceed, None) => Ok(HookAnswer::Proceed),
                (HookDecision::Proceed, Some(_)) => invalid("a reason beside `proceed`"),
                (_, None) => invalid(&format!("`{}` without a reason", name(decision))),
                (_, Some(Err(_))) => invalid(&format!("`{}` with a blank reason", name(decision))),
                (HookDecision::Deny, Some(Ok(reason))) => Ok(HookAnswer::Deny { reason }),
                (HookDecision::Block, Some(Ok(reason))) => Ok(HookAnswer::Block { reason }),
                (HookDecision::Failed, Some(Ok(reason))) => Ok(HookAnswer::Failed { reason }),
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
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use agentwarden_claude_code::wire::Rendering;
    use agentwarden_protocol::Outcome;

    fn hook(decision: HookDecision, reason: Option<&str>) -> Answer {
        Answer::Hook { decision, reason: reason.map(str::to_owned) }
    }

    /// A frame the server sends is printed only when it is exactly one answer (X-40, V-52).
    #[test]
    fn only_a_well_formed_hook_answer_is_printed() {
        let accepted = [
            (hook(HookDecision::Proceed, None), HookAnswer::Proceed),
            (hook(HookDecision::Deny, Some("r")), HookAnswer::deny("r")),
            (hook(HookDecision::Block, Some("r")), HookAnswer::block("r")),
            (hook(HookDecision::Failed, Some("store_corrupt: x")), HookAnswer::failed("store_corrupt: x")),
        ];
        for (frame, answer) in accepted {
            assert_eq!(checked(frame), Ok(answer));
        }
        // The server's error keeps its code (X-74); the hook prints it as `CODE: reason`.
        let error = checked(Answer::error(Code::RequestInvalid, "r")).unwrap_err();
        assert_eq!(error, ClientError::new(Code::RequestInvalid, "r"));
        assert_eq!(error.to_string(), "request_invalid: r");
        // The frame, why it is refused.
        let refused: [(Answer, &str); 9] = [
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
            let answer = HookAnswer::failed(error.to_string());
            assert_eq!(answer.exit_code(), agentwarden_claude_code::wire::HOOK_FAILED, "{why}");
            assert!(
                answer.stderr().is_some_and(|r| r.starts_with("server_answer_invalid: ")),
                "{why}: {answer:?}"
            );
        }
    }
}
