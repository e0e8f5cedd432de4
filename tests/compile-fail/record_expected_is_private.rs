//! expect: E0624 | method `record_expected` is private
//! Nor through the append the signed records use.
pub async fn forge(warden: &agentwarden::Warden, event: &agentwarden::events::AuditEvent) {
    let correlation = agentwarden::audit::Correlation::default();
    let _ = warden.record_expected(correlation, event, agentwarden::store::Expected::Any).await;
}
