//! Names of personas and subagents: plain identifiers, never paths.
//!
//! A name becomes part of a file name (`AGENT_{name}.md`), so anything that could steer a path
//! — `..`, `/`, `\`, an absolute path, NUL, a control character, an empty string — is not a
//! name, and is denied before any file is touched.

use std::fmt;

use serde::Serialize;

/// The longest name accepted.
pub const MAX_NAME_LEN: usize = 64;

/// A persona or subagent name: 1 to 64 characters from `[A-Za-z0-9_-]`, not starting with `-`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct Name(String);

/// Why a string is not a [`Name`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{shown} is not a plain name (1 to {MAX_NAME_LEN} of A-Z a-z 0-9 _ -, not starting with -)")]
pub struct InvalidName {
    shown: String,
}

impl Name {
    /// Validates a name.
    pub fn new(raw: &str) -> Result<Name, InvalidName> {
        if Name::is_valid(raw) { Ok(Name(raw.to_owned())) } else { Err(InvalidName { shown: show(raw) }) }
    }

    /// Whether `raw` is a valid name, without allocating.
    pub fn is_valid(raw: &str) -> bool {
        !raw.is_empty()
            && raw.len() <= MAX_NAME_LEN
            && !raw.starts_with('-')
            && raw.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl<'de> serde::Deserialize<'de> for Name {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        Name::new(&raw).map_err(serde::de::Error::custom)
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Quotes user text for a reason: backticks, control and invisible (default-ignorable)
/// characters escaped, at most 64 characters.
pub(crate) fn show(raw: &str) -> String {
    let mut out = String::from("`");
    for (i, c) in raw.chars().enumerate() {
        if i == 64 {
            out.push('…');
            break;
        }
        if c.is_control() || crate::unicode::is_default_ignorable(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out.push('`');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_identifiers_are_names() {
        for ok in ["PREPARATION", "4_DOCUMENTS", "code-reviewer", "a", &"x".repeat(64)] {
            assert!(Name::new(ok).is_ok(), "{ok}");
        }
    }

    #[test]
    fn anything_path_like_is_not_a_name() {
        for bad in [
            "",
            "..",
            "../x",
            "a/b",
            "/etc/passwd",
            "a\\b",
            "a\0b",
            "a\nb",
            "-rf",
            "a.md",
            "a b",
            "é",
            &"x".repeat(65),
        ] {
            assert!(Name::new(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn shown_text_is_quoted_escaped_and_truncated() {
        assert_eq!(show("a\nb"), "`a\\nb`");
        assert_eq!(show(&"y".repeat(100)).chars().count(), 64 + 3);
    }
}
