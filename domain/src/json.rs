//! Strict JSON: a duplicated object key is an error, not a silent last-one-wins (G-5).
//!
//! `{"contextSealed": false, "contextSealed": true}` is ambiguous: one reader may keep the
//! first value and another the last. The parser here sees every key, reports the duplicate by
//! its JSON pointer, and also refuses nesting deeper than [`MAX_DEPTH`].

use std::collections::BTreeSet;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

use crate::code::Code;

/// The deepest nesting of arrays and objects accepted.
pub const MAX_DEPTH: usize = 64;

/// Why a text is not acceptable JSON.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StrictJsonError {
    /// Not JSON.
    #[error("invalid JSON at line {line}, column {column}: {why}")]
    Syntax {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What the parser said.
        why: String,
    },
    /// An object declares the same key twice.
    #[error("duplicate key at `{pointer}`")]
    DuplicateKey {
        /// RFC 6901 pointer of the duplicated member.
        pointer: String,
    },
    /// Nested deeper than [`MAX_DEPTH`].
    #[error("nested deeper than {MAX_DEPTH} levels at `{pointer}`")]
    TooDeep {
        /// Where the limit was passed.
        pointer: String,
    },
}

impl StrictJsonError {
    /// The stable code (X-1).
    pub fn code(&self) -> Code {
        match self {
            StrictJsonError::Syntax { .. } => Code::JsonSyntax,
            StrictJsonError::DuplicateKey { .. } => Code::DuplicateKey,
            StrictJsonError::TooDeep { .. } => Code::JsonTooDeep,
        }
    }
}

/// Parses `text` as one JSON value, refusing duplicate keys and deep nesting.
pub fn parse_strict(text: &str) -> Result<Value, StrictJsonError> {
    parse(text, None)
}

/// A member an object declared again: where (its RFC 6901 pointer) and the value it was given
/// that time.
#[derive(Clone, Debug, PartialEq)]
pub struct Duplicate {
    /// The pointer of the duplicated member.
    pub pointer: String,
    /// The value of this later declaration.
    pub value: Value,
}

/// Parses `text` like [`parse_strict`], but a duplicated key does not stop it: each later
/// declaration is returned beside the value (which keeps the first), so a validator can
/// report the duplicate and still every other problem (R-4, R-30). Syntax errors and deep
/// nesting still refuse the text.
pub fn parse_with_duplicates(text: &str) -> Result<(Value, Vec<Duplicate>), StrictJsonError> {
    let mut duplicates = Vec::new();
    let value = parse(text, Some(&mut duplicates))?;
    Ok((value, duplicates))
}

fn parse(text: &str, duplicates: Option<&mut Vec<Duplicate>>) -> Result<Value, StrictJsonError> {
    let mut found = None;
    let mut path = Vec::new();
    let mut de = serde_json::Deserializer::from_str(text);
    let parsed = ValueSeed { path: &mut path, found: &mut found, duplicates }
        .deserialize(&mut de)
        .and_then(|v| de.end().map(|()| v));
    parsed.map_err(|e| {
        found.unwrap_or_else(|| StrictJsonError::Syntax {
            line: e.line(),
            column: e.column(),
            why: e.to_string(),
        })
    })
}

/// One RFC 6901 pointer segment: `~` as `~0`, `/` as `~1`.
pub fn pointer_segment(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

fn pointer(path: &[String]) -> String {
    path.iter().map(|segment| format!("/{}", pointer_segment(segment))).collect()
}

/// A JSON value's type, for messages: `null`, `a boolean`, `an integer`, `a fraction`,
/// `a string`, `an array`, `an object`.
pub fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_u64() || n.is_i64() => "an integer",
        Value::Number(_) => "a fraction",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

struct ValueSeed<'a> {
    path: &'a mut Vec<String>,
    found: &'a mut Option<StrictJsonError>,
    /// `Some`: duplicates are collected here instead of refused.
    duplicates: Option<&'a mut Vec<Duplicate>>,
}

impl ValueSeed<'_> {
    /// A seed for a value inside this one, sharing its path, error and duplicates.
    fn child(&mut self) -> ValueSeed<'_> {
        ValueSeed {
            path: &mut *self.path,
            found: &mut *self.found,
            duplicates: self.duplicates.as_deref_mut(),
        }
    }
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl ValueSeed<'_> {
    fn fail<E: serde::de::Error>(self, error: StrictJsonError) -> E {
        let message = error.to_string();
        *self.found = Some(error);
        E::custom(message)
    }

    fn enter<E: serde::de::Error>(&mut self) -> Result<(), E> {
        if self.path.len() >= MAX_DEPTH {
            let error = StrictJsonError::TooDeep { pointer: pointer(self.path) };
            let message = error.to_string();
            *self.found = Some(error);
            return Err(E::custom(message));
        }
        Ok(())
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Value, E> {
        Number::from_f64(v).map(Value::Number).ok_or_else(|| E::custom("a number JSON cannot hold"))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<Value, A::Error> {
        self.enter()?;
        let mut items = Vec::new();
        loop {
            self.path.push(items.len().to_string());
            let item = seq.next_element_seed(self.child())?;
            self.path.pop();
            match item {
                Some(item) => items.push(item),
                None => return Ok(Value::Array(items)),
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<Value, A::Error> {
        self.enter()?;
        let mut seen = BTreeSet::new();
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            self.path.push(key.clone());
            if !seen.insert(key.clone()) {
                let at = pointer(self.path);
                if self.duplicates.is_none() {
                    return Err(self.fail(StrictJsonError::DuplicateKey { pointer: at }));
                }
                let value = map.next_value_seed(self.child())?;
                self.path.pop();
                if let Some(duplicates) = self.duplicates.as_deref_mut() {
                    duplicates.push(Duplicate { pointer: at, value });
                }
                continue;
            }
            let value = map.next_value_seed(self.child())?;
            self.path.pop();
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn type_names_say_what_a_value_is_for_reasons() {
        let table = [
            ("null", "null"),
            ("true", "a boolean"),
            ("7", "an integer"),
            ("-7", "an integer"),
            ("1.5", "a fraction"),
            ("\"x\"", "a string"),
            ("[]", "an array"),
            ("{}", "an object"),
        ];
        for (text, name) in table {
            let value: Value = serde_json::from_str(text).unwrap();
            assert_eq!(type_name(&value), name, "{text}");
        }
    }

    fn pointer_of(text: &str) -> String {
        match parse_strict(text) {
            Err(StrictJsonError::DuplicateKey { pointer }) => pointer,
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn duplicates_are_found_at_any_depth_by_pointer() {
        assert_eq!(pointer_of(r#"{"a":1,"a":2}"#), "/a");
        assert_eq!(
            pointer_of(r#"{"opts":{"g":{"contextSealed":false,"contextSealed":true}}}"#),
            "/opts/g/contextSealed"
        );
        assert_eq!(pointer_of(r#"{"a":[{"k":1},{"k":1,"k":2}]}"#), "/a/1/k");
        assert_eq!(pointer_of(r#"{"x/y~z":{"p":1,"p":1}}"#), "/x~1y~0z/p");
        assert_eq!(parse_strict(r#"{"a":1,"a":2}"#).unwrap_err().code(), "duplicate_key");
    }

    #[test]
    fn duplicates_can_be_collected_instead_of_refused() {
        let (value, duplicates) =
            parse_with_duplicates(r#"{"a":1,"b":{"c":2,"c":[3]},"a":"x","a":null}"#).unwrap();
        assert_eq!(value, serde_json::json!({"a": 1, "b": {"c": 2}}), "the first declaration is kept");
        let found: Vec<(&str, &Value)> = duplicates.iter().map(|d| (d.pointer.as_str(), &d.value)).collect();
        assert_eq!(
            found,
            [("/b/c", &serde_json::json!([3])), ("/a", &serde_json::json!("x")), ("/a", &Value::Null)]
        );
        assert!(matches!(parse_with_duplicates(r#"{"a":1,"a":"#), Err(StrictJsonError::Syntax { .. })));
        let deep = format!("{{\"a\":1,\"a\":{}{}}}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(matches!(parse_with_duplicates(&deep), Err(StrictJsonError::TooDeep { .. })));
    }

    #[test]
    fn nesting_is_limited() {
        let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(parse_strict(&ok).is_ok());
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        assert!(matches!(parse_strict(&deep), Err(StrictJsonError::TooDeep { .. })));
    }

    #[test]
    fn syntax_errors_say_where() {
        for bad in ["", "{", "{} x", "{'a': 1}", "[1,]", "nul"] {
            let err = parse_strict(bad).unwrap_err();
            assert_eq!(err.code(), "json_syntax", "{bad:?}: {err}");
        }
        assert!(matches!(parse_strict("{\n\"a\" 1}"), Err(StrictJsonError::Syntax { line: 2, .. })));
    }

    fn any_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(|n| Value::Number(n.into())),
            any::<u64>().prop_map(|n| Value::Number(n.into())),
            (-1e9f64..1e9).prop_map(|f| Number::from_f64(f).map_or(Value::Null, Value::Number)),
            ".*".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 64, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::btree_map(".*", inner, 0..6)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn documents_without_duplicates_parse_as_serde_json_does(value in any_json()) {
            let text = serde_json::to_string(&value).unwrap();
            prop_assert_eq!(parse_strict(&text), Ok(serde_json::from_str::<Value>(&text).unwrap()));
        }

        #[test]
        fn never_panics(text in ".{0,200}") {
            let _ = parse_strict(&text);
        }
    }
}
