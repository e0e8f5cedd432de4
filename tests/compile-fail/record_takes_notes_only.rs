//! expect: E0308 | expected `&OperatorNote`, found `&AuditEvent`
//! `Warden::record` takes an operator's note: an `approval_granted` (or any decision's event)
//! cannot be forged through the facade.
pub async fn forge(warden: &agentwarden::Warden, event: &agentwarden::events::AuditEvent) {
    let _ = warden.record(agentwarden::audit::Correlation::default(), event).await;
}
