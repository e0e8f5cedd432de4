//! X-1: every code the crate can emit is listed in `docs/codes.md`.

use agentwarden::audit::Actor;
use agentwarden::{StoreError, WardenError};

#[test]
fn every_emitted_code_is_documented() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/codes.md"))
        .unwrap_or_else(|e| panic!("docs/codes.md: {e}"));
    let store_errors = [
        StoreError::Conflict { expected: 0, actual: 1 },
        StoreError::EmptyBatch,
        StoreError::AlreadyWritten { key: String::new() },
        StoreError::Locked { path: String::new(), waited_ms: 0 },
        StoreError::Missing { path: String::new() },
        StoreError::Corrupt { seq: 0, why: String::new() },
        StoreError::Poisoned { reason: String::new() },
        StoreError::Unavailable { reason: String::new() },
    ];
    let invalid = Actor::new("").map(|_| ()).unwrap_err();
    let mut codes: Vec<&str> = store_errors.iter().map(StoreError::code).collect();
    codes.push(WardenError::Event(String::new()).code());
    codes.push(WardenError::Invalid(invalid).code());
    codes.push(WardenError::Incomplete { missing: String::new() }.code());
    let hook_inputs = ["", "{", r#"{}"#, r#"{"session_id":"s","hook_event_name":"SubagentStop"}"#];
    let hook_codes: Vec<&str> = hook_inputs
        .iter()
        .filter_map(|text| agentwarden::claude_code::parse_hook_input(text).err())
        .map(|e| e.code())
        .collect();
    assert_eq!(hook_codes.len(), hook_inputs.len(), "each input is refused");
    codes.extend(hook_codes);
    codes.push(agentwarden::claude_code::InputError::TooLarge.code());
    codes.push(agentwarden::claude_code::InputError::UnsafeId { field: "session_id" }.code());
    codes.push(
        agentwarden::claude_code::InputError::Invalid { field: "f", seen: String::new(), expected: "" }
            .code(),
    );
    let chain_break =
        agentwarden::audit::ChainBreak { seq: 1, why: agentwarden::audit::BreakKind::HashMismatch };
    codes.push(WardenError::Broken(chain_break).code());
    let unknown = agentwarden::audit::DecodeError::UnknownType { event_type: String::new() };
    codes.push(WardenError::Undecodable { seq: 1, error: unknown }.code());
    use agentwarden::governance::SignatureCode;
    for code in [
        SignatureCode::Missing,
        SignatureCode::Malformed,
        SignatureCode::WrongNamespace,
        SignatureCode::WrongHead,
        SignatureCode::SignerNotAllowed,
        SignatureCode::Invalid,
        SignatureCode::SignersUnavailable,
        SignatureCode::KeyRotationRefused,
    ] {
        codes.push(code.as_str());
    }
    for code in codes {
        assert!(doc.contains(&format!("| `{code}` |")), "`{code}` is not listed in docs/codes.md");
    }
}
