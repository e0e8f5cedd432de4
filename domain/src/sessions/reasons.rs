//! What the hook says when it refuses: the texts of its failures, in words the harness's user
//! can act on (N-7), each naming the stage, the code and the command that mends it.

use super::events::HookFailure;
use crate::verdict::Code;

impl HookFailure {
    /// A failure at `stage` with its code and reason.
    pub fn new(stage: impl Into<String>, code: Code, reason: impl Into<String>) -> HookFailure {
        HookFailure { stage: stage.into(), code, reason: reason.into() }
    }

    /// A decision whose event could not be appended (`audit`, `audit_unavailable`): an allow
    /// that the log does not hold is not given.
    pub fn unrecorded(error: impl std::fmt::Display) -> HookFailure {
        HookFailure::new(
            "audit",
            Code::AuditUnavailable,
            format!("the decision could not be recorded: {error}"),
        )
    }

    /// The failure as the hook's deny or block says it: `Agent Warden denied this at STAGE
    /// (CODE): REASON`.
    pub fn describe(&self) -> String {
        format!("Agent Warden denied this at {} ({}): {}", self.stage, self.code, self.reason)
    }
}

/// The reason every tool call of a quarantined session is denied with (H-28), given the
/// quarantine's code and reason.
pub fn quarantine_reason(session: &str, code: &str, reason: &str) -> String {
    format!(
        "Agent Warden denied this at quarantine (session_quarantined): session `{session}` is quarantined \
         ({code}: {reason}); nothing more runs in it until a human checks the workspace and runs \
         `warden release --session {session}` outside the session"
    )
}

/// The reason of a stop answered exit 2 because the store could not be opened; the
/// session is quarantined by its marker (H-28).
pub fn quarantined_without_store(why: &str, session: &str) -> String {
    format!(
        "{why}; session `{session}` is quarantined until a human runs `warden release --session {session}`"
    )
}

/// The reason a shell command that runs `warden VERB` is refused (K-11).
pub fn human_verb_reason(verb: &str) -> String {
    format!(
        "Agent Warden denied this at human_verb (human_verb_denied): the command runs `warden {verb}`, \
         which only a human runs, from their own terminal"
    )
}

/// A harness's user never writes `contextSealed` or `pipelineRunApproved`: the hook
/// builds them from the records. A gate that fails because there is no seal or no approval says
/// so, and names the command a human runs (outside the session) to give one; the code and the
/// spec's reason stay, after it (N-7).
pub fn in_user_terms(gate: &str, code: &str, reason: &str) -> String {
    let absent = matches!(code, "not_boolean_true" | "field_missing" | "metadata_missing");
    match gate {
        "context_sealed" if absent => format!(
            "no seal is in force: a human seals the context from their own terminal with `warden seal` \
             in the project ({reason})"
        ),
        "pipeline_run_approved" | "approval_ref" if absent => format!(
            "no approval is active: a human approves the run from their own terminal with \
             `warden approve --ref REF` in the project ({reason})"
        ),
        _ => with_fix(code, reason),
    }
}

/// A failure of the records (an approval that is not active or does not cover the spawn, a
/// sealed file that changed) with the command a human runs to mend it, after the reason (N-7).
pub fn with_fix(code: &str, reason: &str) -> String {
    match code {
        "approval_not_recorded" | "approval_revoked" | "approval_expired" => {
            format!("{reason}; a human approves the run from their own terminal: `warden approve --ref REF`")
        }
        "approval_out_of_scope" => format!(
            "{reason}; a human approves it with a scope that covers it: \
             `warden approve --ref REF --scope persona:NAME --scope subagent:NAME`"
        ),
        "sealed_file_changed" => {
            format!(
                "{reason}; if the change is wanted, a human seals again from their own terminal: `warden seal`"
            )
        }
        _ => reason.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_absent_seal_or_approval_and_a_failed_record_name_the_command_that_mends_them() {
        let said = in_user_terms("context_sealed", "not_boolean_true", "contextSealed is boolean false");
        assert!(said.starts_with("no seal is in force") && said.contains("`warden seal`"), "{said}");
        let said = in_user_terms("pipeline_run_approved", "not_boolean_true", "r");
        assert!(said.starts_with("no approval is active") && said.contains("`warden approve --ref REF`"));
        for code in ["approval_not_recorded", "approval_revoked", "approval_expired", "approval_out_of_scope"]
        {
            let said = in_user_terms("approval_ref", code, "approval `X` was revoked (seq 4)");
            assert!(
                said.starts_with("approval `X` was revoked") && said.contains("`warden approve --ref REF"),
                "{said}"
            );
        }
        assert!(in_user_terms("context_sealed", "sealed_file_changed", "r").contains("`warden seal`"));
        assert_eq!(in_user_terms("environment", "env_not_enabled", "r"), "r", "other reasons unchanged");
    }

    #[test]
    fn a_failure_is_described_with_its_stage_and_code() {
        let f = HookFailure::new("gate: context_sealed", Code::SealNotRecorded, "none");
        assert_eq!(
            f.describe(),
            "Agent Warden denied this at gate: context_sealed (seal_not_recorded): none"
        );
        let unrecorded = HookFailure::unrecorded("disk full");
        assert_eq!((unrecorded.stage.as_str(), &unrecorded.code), ("audit", &Code::AuditUnavailable));
        assert!(
            unrecorded.describe().contains("audit (audit_unavailable): the decision could not be recorded")
        );
        let q = quarantine_reason("s1", "revert_failed", "r");
        assert!(q.contains("session `s1` is quarantined (revert_failed: r)"), "{q}");
        assert!(q.contains("`warden release --session s1`"), "{q}");
        assert!(human_verb_reason("seal").contains("runs `warden seal`"));
    }
}
