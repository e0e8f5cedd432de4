//! The governance metadata gates (G-4 … G-7): presence, `contextSealed`, `pipelineRunApproved`,
//! `approvalRef`, and the optional `approvedBy` and unknown fields.
//!
//! Types are strict: `contextSealed` must be JSON `true` — not `"true"`, `1`, `[true]` or
//! `{"value": true}`. `approvalRef` must be a string with a visible character (not only whitespace and
//! default-ignorable characters, G-24), at most
//! 256 characters, and no control characters. Every failure says what type and value it saw.

use serde_json::{Map, Value};

use super::names::show;
use super::report::{Code, Verdict};

/// The longest `approvalRef` accepted (G-4).
pub const MAX_APPROVAL_REF: usize = 256;

/// The fields the gate reads; any other is reported as unknown (G-7).
pub const KNOWN_FIELDS: [&str; 4] = ["contextSealed", "pipelineRunApproved", "approvalRef", "approvedBy"];

/// `opts.subagentGovernance` as the request carried it.
#[derive(Clone, Debug, PartialEq)]
pub enum Metadata {
    /// The request has no `opts.subagentGovernance`.
    Absent,
    /// The request, or the metadata in it, could not be read: `code` says why (e.g.
    /// `duplicate_key`, `request_invalid`).
    Unreadable {
        /// Stable code.
        code: Code,
        /// Human reason.
        reason: String,
    },
    /// The value found (any JSON type: the gate checks it).
    Present(Value),
}

/// The JSON type and value of `value`, for reasons: `string "true"`, `number 1`, `null`.
pub(crate) fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("boolean {b}"),
        Value::Number(n) => format!("number {n}"),
        Value::String(s) => format!("string {}", show(s)),
        Value::Array(a) => format!("array of {} element(s)", a.len()),
        Value::Object(o) => format!("object with {} field(s)", o.len()),
    }
}

/// The object to check, or why there is none.
pub(crate) fn presence(metadata: &Metadata) -> Result<&Map<String, Value>, Verdict> {
    match metadata {
        Metadata::Absent => Err(Verdict::fail(Code::MetadataMissing, "subagentGovernance field missing")),
        Metadata::Unreadable { code, reason } => Err(Verdict::fail(code.clone(), reason.clone())),
        Metadata::Present(Value::Object(map)) => Ok(map),
        Metadata::Present(other) => Err(Verdict::fail(
            Code::MetadataNotObject,
            format!("subagentGovernance is {}, expected an object", describe(other)),
        )),
    }
}

/// `field` must be JSON `true`; `passed` is the reason when it is.
pub(crate) fn boolean_true(
    fields: Option<&Map<String, Value>>,
    field: &str,
    passed: &'static str,
) -> Verdict {
    let Some(fields) = fields else {
        return Verdict::fail(Code::MetadataMissing, format!("{field} not checked: no governance metadata"));
    };
    match fields.get(field) {
        Some(Value::Bool(true)) => Verdict::pass(passed),
        Some(other) => Verdict::fail(
            Code::NotBooleanTrue,
            format!("{field} is {}, expected boolean true", describe(other)),
        ),
        None => Verdict::fail(Code::FieldMissing, format!("{field} missing, expected boolean true")),
    }
}

/// `approvalRef` must be a usable reference (G-4).
/// Whether `text` is a usable `approvalRef` (G-4): the gate's own check, for the commands that
/// record an approval, so that nothing is recorded that the gate would refuse.
pub fn check_approval_ref(text: &str) -> Verdict {
    let mut fields = Map::new();
    fields.insert("approvalRef".to_owned(), Value::String(text.to_owned()));
    approval_ref(Some(&fields)).0
}

pub(crate) fn approval_ref(fields: Option<&Map<String, Value>>) -> (Verdict, Option<String>) {
    let Some(fields) = fields else {
        return (
            Verdict::fail(Code::MetadataMissing, "approvalRef not checked: no governance metadata"),
            None,
        );
    };
    let text = match fields.get("approvalRef") {
        None => return (Verdict::fail(Code::ApprovalRefMissing, "approvalRef missing"), None),
        Some(Value::String(text)) => text,
        Some(other) => {
            let why = format!("approvalRef is {}, expected a non-empty string", describe(other));
            return (Verdict::fail(Code::ApprovalRefNotString, why), None);
        }
    };
    let len = text.chars().count();
    // Only whitespace and characters that show nothing (a zero-width space, a BOM …)
    // reads as empty to whoever checks the reference (G-24).
    let verdict = if crate::unicode::is_blank(text) {
        Verdict::fail(
            Code::ApprovalRefEmpty,
            format!("approvalRef is {}, expected a non-empty string", show(text)),
        )
    } else if len > MAX_APPROVAL_REF {
        Verdict::fail(
            Code::ApprovalRefTooLong,
            format!("approvalRef is {len} characters long, at most {MAX_APPROVAL_REF} are allowed"),
        )
    } else if text.chars().any(char::is_control) {
        Verdict::fail(
            Code::ApprovalRefControlCharacter,
            format!("approvalRef {} holds a control character", show(text)),
        )
    } else {
        return (Verdict::pass("approvalRef is a usable reference"), Some(text.clone()));
    };
    (verdict, None)
}

/// `approvedBy` (G-6) and unknown fields (G-7): never a gate, only warnings and records.
pub(crate) struct Extras {
    pub(crate) approved_by: Option<String>,
    pub(crate) unknown_fields: Vec<String>,
    pub(crate) warnings: Vec<String>,
}

pub(crate) fn extras(fields: Option<&Map<String, Value>>) -> Extras {
    let mut extras = Extras { approved_by: None, unknown_fields: Vec::new(), warnings: Vec::new() };
    let Some(fields) = fields else { return extras };
    match fields.get("approvedBy") {
        None => {}
        Some(Value::String(name)) => extras.approved_by = Some(name.clone()),
        Some(other) => extras
            .warnings
            .push(format!("approvedBy is {}, expected a string; not recorded as a name", describe(other))),
    }
    for key in fields.keys().filter(|k| !KNOWN_FIELDS.contains(&k.as_str())) {
        extras.unknown_fields.push(key.clone());
        extras.warnings.push(format!("unknown subagentGovernance field {} (recorded, ignored)", show(key)));
    }
    extras
}
