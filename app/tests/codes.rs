//! Every code the crate can emit is a [`Code`] variant, and `docs/codes.md` is rendered
//! from the variants' table: it fails here when it is stale (`cargo xtask codes` writes it).

use agentwarden::WardenError;
use agentwarden::audit::Actor;
use agentwarden::code::Code;
use agentwarden::store::StoreError;

const STALE: &str = "docs/codes.md is stale: run `cargo xtask codes`";

#[test]
fn docs_codes_md_is_rendered_from_the_code_enum() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/codes.md");
    let rendered = agentwarden::code::render_markdown();
    if std::env::var_os("AGENTWARDEN_WRITE_CODES").is_some() {
        std::fs::write(path, &rendered).unwrap_or_else(|e| panic!("docs/codes.md: {e}"));
        return;
    }
    let doc = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("docs/codes.md: {e}"));
    assert!(doc == rendered, "{STALE}");
}

#[test]
fn every_emitted_code_is_a_documented_variant() {
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
    let mut codes: Vec<Code> = store_errors.iter().map(StoreError::code).collect();
    codes.push(WardenError::Event(String::new()).code());
    codes.push(WardenError::Invalid(invalid).code());
    codes.push(WardenError::Incomplete { missing: String::new() }.code());
    // Each way a harness integration refuses an input (their parsers are tested in their crates).
    codes.push(agentwarden::sessions::InputError::Empty.code());
    codes.push(agentwarden::sessions::InputError::Json(String::new()).code());
    codes.push(agentwarden::sessions::InputError::Missing("session_id").code());
    codes.push(agentwarden::sessions::InputError::TooLarge.code());
    codes.push(agentwarden::sessions::InputError::UnsafeId { field: "session_id" }.code());
    codes.push(
        agentwarden::sessions::InputError::Invalid { field: "f", seen: String::new(), expected: "" }.code(),
    );
    let chain_break =
        agentwarden::audit::ChainBreak { seq: 1, why: agentwarden::audit::BreakKind::HashMismatch };
    codes.push(WardenError::Broken(chain_break).code());
    let unknown = agentwarden::events::DecodeError::UnknownType { event_type: String::new() };
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
        assert_eq!(Code::from(code).as_str(), code.as_str());
        codes.push(code.into());
    }
    let doc = agentwarden::code::render_markdown();
    for code in codes {
        assert!(!matches!(code, Code::Other(_)), "`{code}` is not a variant");
        assert!(!code.usages().is_empty(), "`{code}` has no documentation");
        assert!(doc.contains(&format!("| `{code}` |")), "`{code}` is not listed in docs/codes.md");
    }
}
