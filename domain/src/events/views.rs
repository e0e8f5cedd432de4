//! Which of the catalogue's events each capability's fold reads: a recorded [`AuditEvent`] as
//! the sessions' records ([`SessionsEvent`]) and the human records ([`ApprovalsEvent`]) see it.
//! The folds name only their own events, so that no capability names the catalogue.

use super::catalogue::AuditEvent;
use crate::governance::ApprovalsEvent;
use crate::sessions::SessionsEvent;

impl<'a> From<&'a AuditEvent> for ApprovalsEvent<'a> {
    fn from(event: &'a AuditEvent) -> Self {
        match event {
            AuditEvent::ContextSealed(e) => ApprovalsEvent::Sealed(e),
            AuditEvent::ApprovalGranted(e) => ApprovalsEvent::Granted(e),
            AuditEvent::ApprovalRevoked(e) => ApprovalsEvent::Revoked(e),
            _ => ApprovalsEvent::Other,
        }
    }
}

impl<'a> From<&'a AuditEvent> for SessionsEvent<'a> {
    fn from(event: &'a AuditEvent) -> Self {
        match event {
            AuditEvent::SpawnEvaluated(e) => SessionsEvent::Spawn(e),
            AuditEvent::SubagentStarted(e) => SessionsEvent::Started(e),
            AuditEvent::SubagentStopped(e) => SessionsEvent::Stopped(e),
            AuditEvent::SessionQuarantined(e) => SessionsEvent::Quarantined(e),
            AuditEvent::SessionReleased(e) => SessionsEvent::Released(e),
            other => match ApprovalsEvent::from(other) {
                ApprovalsEvent::Other => SessionsEvent::Other,
                human => SessionsEvent::Human(human),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::OperatorNote;

    /// Each fold sees its own events, and only those: the rest move only the head.
    #[test]
    fn each_fold_sees_its_own_events() {
        let note = AuditEvent::OperatorNote(OperatorNote { message: "n".to_owned() });
        assert_eq!(SessionsEvent::from(&note), SessionsEvent::Other);
        assert_eq!(ApprovalsEvent::from(&note), ApprovalsEvent::Other);
        let revoked = AuditEvent::ApprovalRevoked(crate::governance::ApprovalRevoked {
            approval_ref: None,
            by: None,
            signature: None,
        });
        let AuditEvent::ApprovalRevoked(inner) = &revoked else { unreachable!() };
        assert_eq!(ApprovalsEvent::from(&revoked), ApprovalsEvent::Revoked(inner));
        assert_eq!(SessionsEvent::from(&revoked), SessionsEvent::Human(ApprovalsEvent::Revoked(inner)));
    }
}
