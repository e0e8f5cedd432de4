//! The reference check shared by the gate targets, written apart from the gate: what an allow
//! needs to be true of the request as plain JSON.

use serde_json::Value;

/// An allow needs persona `MANAGER`, `contextSealed` and `pipelineRunApproved` exactly `true`,
/// and a usable `approvalRef` (non-blank, at most 256 characters, no control character).
pub fn allows(request: &Value) -> bool {
    let Some(meta) = request.pointer("/opts/subagentGovernance").and_then(Value::as_object) else {
        return false;
    };
    let reference = meta.get("approvalRef").and_then(Value::as_str);
    request.get("persona").and_then(Value::as_str) == Some("MANAGER")
        && meta.get("contextSealed") == Some(&Value::Bool(true))
        && meta.get("pipelineRunApproved") == Some(&Value::Bool(true))
        && reference.is_some_and(|r| {
            !r.trim().is_empty() && r.chars().count() <= 256 && !r.chars().any(char::is_control)
        })
}
