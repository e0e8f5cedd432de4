//! The codes' table and their serde: every known code round-trips through its string, an
//! unknown one is kept byte for byte, and the table is consistent.

use std::collections::HashSet;

use super::*;

#[test]
fn every_known_code_round_trips_through_its_string() {
    for code in Code::ALL {
        let json = serde_json::to_string(code).unwrap();
        assert_eq!(json, format!("\"{}\"", code.as_str()));
        let back: Code = serde_json::from_str(&json).unwrap();
        assert_eq!(&back, code, "{json}");
        assert_eq!(Code::parse(code.as_str()), *code);
        assert_eq!(code.to_string(), code.as_str());
    }
}

#[test]
fn an_unknown_code_is_kept_as_written() {
    for text in ["lineage_denied", "a_code_from_the_future", "", "Not Snake", "é\u{0}\"\\"] {
        let json = serde_json::to_string(text).unwrap();
        let code: Code = serde_json::from_str(&json).unwrap();
        assert_eq!(code, Code::Other(text.to_owned()));
        assert_eq!(serde_json::to_string(&code).unwrap(), json, "written back unchanged");
        assert_eq!(Code::parse(text), code);
        assert_eq!(Code::from(text.to_owned()), code);
    }
    assert!(serde_json::from_str::<Code>("1").is_err(), "a code is a string");
}

#[test]
fn the_table_is_consistent() {
    let mut seen = HashSet::new();
    for code in Code::ALL {
        let text = code.as_str();
        assert!(seen.insert(text), "`{text}` is declared twice");
        assert!(
            !text.is_empty()
                && text.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
            "`{text}` is not snake_case"
        );
        assert!(!matches!(code, Code::Other(_)));
        assert!(!code.usages().is_empty(), "`{text}` is documented nowhere");
        for usage in code.usages() {
            assert!(!usage.meaning.is_empty() && !usage.meaning.contains('|'), "`{text}`: {usage:?}");
        }
    }
    assert!(Code::ALL.len() > 100, "only {} codes", Code::ALL.len());
}

#[test]
fn the_rendered_file_lists_every_code() {
    let doc = render_markdown();
    for code in Code::ALL {
        assert!(doc.contains(&format!("| `{code}` |")), "`{code}` is not rendered");
    }
}
