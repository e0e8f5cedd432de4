//! A verdict's stored shape: today's JSON reads and writes byte for byte; the shapes X-30
//! refuses are refused.

use super::*;

#[test]
fn the_stored_shape_reads_and_writes_back_byte_for_byte() {
    let rows = [
        (r#"{"passed":true,"code":null,"reason":"ok"}"#, Verdict::pass("ok")),
        (
            r#"{"passed":false,"code":"env_not_enabled","reason":"unset"}"#,
            Verdict::fail(Code::EnvNotEnabled, "unset"),
        ),
        (
            r#"{"passed":false,"code":"a_code_from_the_future","reason":"kept"}"#,
            Verdict::fail(Code::Other("a_code_from_the_future".into()), "kept"),
        ),
    ];
    for (json, verdict) in rows {
        let read: Verdict = serde_json::from_str(json).unwrap();
        assert_eq!(read, verdict, "{json}");
        assert_eq!(serde_json::to_string(&read).unwrap(), json);
    }
}

#[test]
fn x_30_a_pass_with_a_code_or_a_failure_without_one_is_refused() {
    let rows = [
        (
            r#"{"passed":true,"code":"env_not_enabled","reason":"r"}"#,
            "passed carries the code `env_not_enabled`",
        ),
        (r#"{"passed":false,"code":null,"reason":"r"}"#, "failed carries no code"),
        (r#"{"passed":false,"reason":"r"}"#, "failed carries no code"),
        (r#"{"passed":true,"code":null,"reason":"r","extra":1}"#, "unknown field"),
        (r#"{"passed":true,"code":null}"#, "missing field"),
    ];
    for (json, why) in rows {
        let err = serde_json::from_str::<Verdict>(json).unwrap_err().to_string();
        assert!(err.contains(why), "{json}: {err}");
    }
}

#[test]
fn accessors_follow_the_variant() {
    let pass = Verdict::pass("fine");
    assert!(pass.passed() && pass.code().is_none() && pass.reason() == "fine");
    let fail = Verdict::fail(Code::DepthExceeded, "deep");
    assert!(!fail.passed());
    assert_eq!(fail.code(), Some(&Code::DepthExceeded));
    assert_eq!(Verdict::from(Failed::new(Code::DepthExceeded, "deep")), fail);
}

#[test]
fn a_static_pass_does_not_allocate() {
    assert!(matches!(Verdict::pass("static"), Verdict::Pass { reason: Cow::Borrowed(_) }));
}
