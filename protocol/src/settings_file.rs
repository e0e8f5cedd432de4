//! Why a harness's own settings or configuration file cannot be read or merged, by cause
//! (issue 49 item 4, X-97): shared by the integrations' `setup`, whose files differ in format
//! (JSON, TOML) but fail in the same few ways. Each message says what was seen as the refusals
//! always have; the caller adds which file.

/// Why a harness's settings file cannot be read or merged. More causes may come with
/// another harness's file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SettingsError {
    /// The text is not of its format (`JSON`, `TOML`).
    #[error("is not valid {format}: {detail}")]
    NotValid {
        /// The format.
        format: &'static str,
        /// The parser's reason.
        detail: String,
    },
    /// A configuration whose text is not of its format, said as a finding.
    #[error("a configuration that is not valid {format} ({detail})")]
    NotValidConfiguration {
        /// The format.
        format: &'static str,
        /// The parser's reason.
        detail: String,
    },
    /// The text is not plain JSON; `advice` says what Warden does not do with it, if anything.
    #[error("not plain JSON ({detail}){advice}")]
    NotPlainJson {
        /// The parser's reason.
        detail: String,
        /// What follows the reason (empty, or `; …`).
        advice: &'static str,
    },
    /// The parser's reason alone.
    #[error("{detail}")]
    Unreadable {
        /// The parser's reason.
        detail: String,
    },
    /// The text is JSON but not an object.
    #[error("{what} is not a JSON object")]
    NotAnObject {
        /// What the text is (`the settings`, `the file`).
        what: &'static str,
    },
    /// A key holds another shape than the one the harness reads.
    #[error("`{key}` is not {expected}")]
    Shape {
        /// The key, dotted from the top.
        key: String,
        /// What it must be (`an object`, `a list`, `a table`, …).
        expected: &'static str,
    },
    /// A group under an event holds its hooks in another shape than a list.
    #[error("a `hooks.{event}` group's `hooks` is not a list")]
    GroupNotAList {
        /// The event.
        event: String,
    },
    /// A list that must hold strings holds something else.
    #[error("`{key}` holds a non-string")]
    NonString {
        /// The key of the list.
        key: String,
    },
    /// A value that must be a string is not one.
    #[error("a `{key}` that is not a string")]
    NotAString {
        /// The key.
        key: String,
    },
    /// The merged value cannot be written as text.
    #[error("{detail}")]
    Encode {
        /// The encoder's reason.
        detail: String,
    },
}
