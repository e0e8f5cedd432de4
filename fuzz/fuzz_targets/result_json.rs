//! `result.json` validation: never a panic; valid only if it is a JSON object with exactly the
//! five fields and `schema_version` exactly "1.0"; invalid always names a problem.
#![no_main]

use agentwarden_domain::guardrails::validate_result;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let validation = validate_result(text);
    if validation.valid {
        let value: Value = serde_json::from_str(text).expect("valid is JSON");
        let object = value.as_object().expect("valid is an object");
        assert_eq!(object.len(), 5);
        assert_eq!(object.get("schema_version"), Some(&Value::String("1.0".into())));
    } else {
        assert!(!validation.problems.is_empty());
    }
});
