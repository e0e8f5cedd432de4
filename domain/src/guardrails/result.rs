//! `result.json`, strictly (R-4): `schema_version` exactly `"1.0"`, the five fields and no
//! others, `summary` and `kr_impact_claim` non-empty strings, `proposed_changes` and
//! `kr_targets` arrays of non-empty strings (possibly empty arrays). Every problem is reported
//! with its JSON pointer, not just the first; duplicate keys are refused.
//!
//! Beyond the spec (fail closed): strings that are only whitespace (or characters that show
//! nothing, R-31) count as empty, and array
//! members must be non-empty strings too — an empty proposed change says nothing. The file may
//! be at most [`MAX_RESULT_BYTES`] long (the application enforces it when reading).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::json::{Duplicate, StrictJsonError, parse_with_duplicates, pointer_segment, type_name};
use crate::verdict::Code;

/// The only schema version accepted.
pub const SCHEMA_VERSION: &str = "1.0";

/// The largest `result.json` read: 1 MiB.
pub const MAX_RESULT_BYTES: u64 = 1024 * 1024;

/// Every code a problem can carry (X-1), besides the strict-JSON codes (`json_syntax`,
/// `json_too_deep`, `duplicate_key`).
pub const RESULT_CODES: [Code; 6] = [
    Code::NotObject,
    Code::WrongVersion,
    Code::WrongType,
    Code::EmptyString,
    Code::UnknownField,
    Code::MissingField,
];

const STRINGS: [&str; 2] = ["summary", "kr_impact_claim"];
const ARRAYS: [&str; 2] = ["proposed_changes", "kr_targets"];
const FIELDS: [&str; 5] = ["schema_version", "summary", "proposed_changes", "kr_targets", "kr_impact_claim"];

/// One problem: where (RFC 6901 pointer; `""` is the whole document), which rule, why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Problem {
    /// Where.
    pub pointer: String,
    /// Stable code (X-1).
    pub code: Code,
    /// Why.
    pub message: String,
}

/// The verdict on one `result.json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResultValidation {
    /// No problems.
    pub valid: bool,
    /// Every problem, in document order (missing fields last).
    pub problems: Vec<Problem>,
}

impl ResultValidation {
    /// The verdict on a `result.json` that could not be read (R-7): invalid, with why.
    pub fn unreadable(message: String) -> ResultValidation {
        ResultValidation { valid: false, problems: vec![problem("", Code::ResultUnreadable, message)] }
    }

    /// This verdict once it could not be recorded: invalid, whatever it was, with why
    /// (`audit_unavailable`) after its other problems.
    pub fn unrecorded(mut self, error: &str) -> ResultValidation {
        self.valid = false;
        self.problems.push(problem(
            "",
            Code::AuditUnavailable,
            format!("the verdict could not be recorded: {error}"),
        ));
        self
    }
}

fn problem(pointer: impl Into<String>, code: Code, message: impl Into<String>) -> Problem {
    Problem { pointer: pointer.into(), code, message: message.into() }
}

/// Validates the text of a `result.json`.
///
/// R-30: a duplicated key does not hide the file's other problems. Each later declaration is a
/// `duplicate_key` problem at its pointer, listed first; a duplicated top-level member's later
/// value is checked like the first (its problems follow its `duplicate_key`); then every problem
/// of the document, the first declaration of each member standing. Only text that is not JSON
/// at all (or nested too deep) is refused whole, with one problem.
pub fn validate_result(text: &str) -> ResultValidation {
    let problems = match parse_with_duplicates(text) {
        Err(e) => {
            let pointer = match &e {
                StrictJsonError::DuplicateKey { pointer } => pointer.clone(),
                StrictJsonError::Syntax { .. } | StrictJsonError::TooDeep { .. } => String::new(),
            };
            vec![problem(pointer, e.code(), e.to_string())]
        }
        Ok((value, duplicates)) => {
            let mut problems = Vec::new();
            for Duplicate { pointer, value: later } in duplicates {
                let key = top_level_key(&pointer).filter(|_| value.is_object());
                let message = StrictJsonError::DuplicateKey { pointer: pointer.clone() }.to_string();
                problems.push(problem(pointer, Code::DuplicateKey, message));
                if let Some(key) = key {
                    check_member(&key, &later, &mut problems);
                }
            }
            problems.extend(check(&value));
            problems
        }
    };
    ResultValidation { valid: problems.is_empty(), problems }
}

/// The member a one-segment pointer names (`/a~1b` is `a/b`); `None` deeper down.
fn top_level_key(pointer: &str) -> Option<String> {
    let segment = pointer.strip_prefix('/')?;
    (!segment.contains('/')).then(|| segment.replace("~1", "/").replace("~0", "~"))
}

fn check(value: &Value) -> Vec<Problem> {
    let Value::Object(fields) = value else {
        return vec![problem(
            "",
            Code::NotObject,
            format!("result.json is {}, expected an object", type_name(value)),
        )];
    };
    let mut problems = Vec::new();
    for (key, value) in fields {
        check_member(key, value, &mut problems);
    }
    for field in FIELDS.into_iter().filter(|f| !fields.contains_key(*f)) {
        problems.push(problem(format!("/{field}"), Code::MissingField, format!("{field} is required")));
    }
    problems
}

/// The problems of one top-level member.
fn check_member(key: &str, value: &Value, problems: &mut Vec<Problem>) {
    {
        let pointer = format!("/{}", pointer_segment(key));
        match key {
            "schema_version" => match value {
                Value::String(v) if v == SCHEMA_VERSION => {}
                Value::String(v) => problems.push(problem(
                    pointer,
                    Code::WrongVersion,
                    format!("schema_version is `{v}`, expected `1.0`"),
                )),
                other => problems.push(problem(
                    pointer,
                    Code::WrongType,
                    format!("schema_version is {}, expected the string `1.0`", type_name(other)),
                )),
            },
            k if STRINGS.contains(&k) => match value {
                Value::String(s) if !crate::unicode::is_blank(s) => {}
                Value::String(_) => {
                    problems.push(problem(pointer, Code::EmptyString, format!("{k} is empty")))
                }
                other => problems.push(problem(
                    pointer,
                    Code::WrongType,
                    format!("{k} is {}, expected a string", type_name(other)),
                )),
            },
            k if ARRAYS.contains(&k) => match value {
                Value::Array(items) => {
                    for (i, item) in items.iter().enumerate() {
                        let at = format!("{pointer}/{i}");
                        match item {
                            Value::String(s) if !crate::unicode::is_blank(s) => {}
                            Value::String(_) => {
                                problems.push(problem(at, Code::EmptyString, format!("{k}[{i}] is empty")))
                            }
                            other => problems.push(problem(
                                at,
                                Code::WrongType,
                                format!("{k}[{i}] is {}, expected a string", type_name(other)),
                            )),
                        }
                    }
                }
                other => problems.push(problem(
                    pointer,
                    Code::WrongType,
                    format!("{k} is {}, expected an array", type_name(other)),
                )),
            },
            _ => problems.push(problem(
                pointer,
                Code::UnknownField,
                format!("`{}` is not a result.json field", key.escape_debug()),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const VALID: &str = r#"{"schema_version":"1.0","summary":"Did it","proposed_changes":["a","b"],
        "kr_targets":["kr-123"],"kr_impact_claim":"+3% with evidence"}"#;

    fn codes(text: &str) -> Vec<(String, String)> {
        let problems = validate_result(text).problems;
        for p in &problems {
            let known = RESULT_CODES.contains(&p.code)
                || ["json_syntax", "json_too_deep", "duplicate_key"].contains(&p.code.as_ref());
            assert!(known, "`{}` is not in RESULT_CODES", p.code);
        }
        problems.into_iter().map(|p| (p.pointer, p.code.to_string())).collect()
    }

    /// A verdict that could not be read or recorded is invalid, saying why (R-7).
    #[test]
    fn a_result_unread_or_unrecorded_is_invalid() {
        let unread = ResultValidation::unreadable("`r.json`: no such file".into());
        assert!(!unread.valid);
        assert_eq!(codes_of(&unread), ["result_unreadable"]);
        let valid = validate_result(VALID);
        assert!(valid.valid);
        let unrecorded = valid.unrecorded("disk full");
        assert!(!unrecorded.valid, "a valid verdict unrecorded is invalid");
        assert_eq!(codes_of(&unrecorded), ["audit_unavailable"]);
        assert!(
            unrecorded.problems.iter().any(|p| p.message == "the verdict could not be recorded: disk full")
        );
        let both = ResultValidation::unreadable("x".into()).unrecorded("y");
        assert_eq!(codes_of(&both), ["result_unreadable", "audit_unavailable"], "its problems kept, first");
    }

    fn codes_of(validation: &ResultValidation) -> Vec<String> {
        validation.problems.iter().map(|p| p.code.to_string()).collect()
    }

    fn with(field: &str, value: &str) -> String {
        let mut v: serde_json::Map<String, Value> = serde_json::from_str(VALID).unwrap();
        v.insert(field.into(), serde_json::from_str(value).unwrap());
        serde_json::to_string(&v).unwrap()
    }

    #[test]
    fn the_spec_example_and_empty_arrays_are_valid() {
        assert!(validate_result(VALID).valid);
        assert!(validate_result(&with("proposed_changes", "[]")).valid);
        assert!(validate_result(&with("kr_targets", "[]")).valid);
    }

    #[test]
    fn each_rule_has_its_pointer_and_code() {
        let table: [(&str, &str, &str, &str); 16] = [
            ("schema_version", r#""1.1""#, "/schema_version", "wrong_version"),
            ("schema_version", "1.0", "/schema_version", "wrong_type"),
            ("schema_version", r#"" 1.0""#, "/schema_version", "wrong_version"),
            ("summary", r#""""#, "/summary", "empty_string"),
            ("summary", r#""   ""#, "/summary", "empty_string"),
            ("summary", r#""\u200b\ufeff \u2060""#, "/summary", "empty_string"),
            ("kr_targets", r#"["\u00ad"]"#, "/kr_targets/0", "empty_string"),
            ("summary", "null", "/summary", "wrong_type"),
            ("kr_impact_claim", "42", "/kr_impact_claim", "wrong_type"),
            ("proposed_changes", r#""a""#, "/proposed_changes", "wrong_type"),
            ("proposed_changes", r#"["a", 1]"#, "/proposed_changes/1", "wrong_type"),
            ("proposed_changes", r#"["a", null]"#, "/proposed_changes/1", "wrong_type"),
            ("kr_targets", r#"[[]]"#, "/kr_targets/0", "wrong_type"),
            ("kr_targets", r#"[""]"#, "/kr_targets/0", "empty_string"),
            ("extra", "1", "/extra", "unknown_field"),
            ("a/b~c", "1", "/a~1b~0c", "unknown_field"),
        ];
        for (field, value, pointer, code) in table {
            assert_eq!(
                codes(&with(field, value)),
                [(pointer.to_owned(), code.to_owned())],
                "{field}: {value}"
            );
        }
    }

    #[test]
    fn every_problem_is_reported_not_just_the_first() {
        let all = codes(r#"{"schema_version":1,"summary":"","proposed_changes":{},"extra":true}"#);
        let pointers: Vec<&str> = all.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(
            pointers,
            ["/extra", "/proposed_changes", "/schema_version", "/summary", "/kr_targets", "/kr_impact_claim"]
        );
    }

    #[test]
    fn malformed_documents_are_refused_whole() {
        for (text, code) in [
            ("", "json_syntax"),
            ("[]", "not_object"),
            ("null", "not_object"),
            (&format!("{VALID} trailing"), "json_syntax"),
        ] {
            let result = validate_result(text);
            assert!(!result.valid);
            assert_eq!(result.problems.first().map(|p| p.code.as_ref()), Some(code), "{text}");
        }
    }

    #[test]
    fn a_duplicate_key_is_one_problem_among_all_the_others() {
        // Before, the duplicate hid the wrong version, the empty and missing fields and
        // the bad second value (R-30).
        let text = r#"{"schema_version":"2.0","summary":"a","summary":"","proposed_changes":[""],
            "kr_targets":[],"extra":1}"#;
        assert_eq!(
            codes(text),
            [
                ("/summary", "duplicate_key"),
                ("/summary", "empty_string"),
                ("/extra", "unknown_field"),
                ("/proposed_changes/0", "empty_string"),
                ("/schema_version", "wrong_version"),
                ("/kr_impact_claim", "missing_field"),
            ]
            .map(|(p, c)| (p.to_owned(), c.to_owned()))
        );
        // Deeper duplicates are named too; a valid document with a member repeated, valid both
        // times, is still invalid.
        let nested = VALID.replacen(r#""summary":"Did it""#, r#""summary":{"k":1,"k":2}"#, 1);
        assert_eq!(
            codes(&nested),
            [("/summary/k", "duplicate_key"), ("/summary", "wrong_type")]
                .map(|(p, c)| (p.to_owned(), c.to_owned()))
        );
        let repeated = VALID.replacen(r#""summary":"Did it""#, r#""summary":"Did it","summary":"Did it""#, 1);
        assert_eq!(codes(&repeated), [("/summary".to_owned(), "duplicate_key".to_owned())]);
        let escaped = codes(r#"{"a/b":1,"a/b":2}"#);
        assert_eq!(
            escaped.get(..3),
            Some(
                &[("/a~1b", "duplicate_key"), ("/a~1b", "unknown_field"), ("/a~1b", "unknown_field")]
                    .map(|(p, c)| (p.to_owned(), c.to_owned()))[..]
            )
        );
    }
}
