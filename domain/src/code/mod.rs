//! Reason codes: every failed gate, layer, rule or check carries one [`Code`] beside its
//! human reason. The codes, and what each means where it appears, are one table
//! (`table.rs`); `docs/codes.md` is rendered from it ([`render_markdown`], `cargo xtask codes`).
//!
//! A code serializes as its snake_case string, exactly as when codes were strings, so recorded
//! events and their hashes do not change. A string this version does not know (a code read
//! back from a log written by another version) is kept as [`Code::Other`], byte for byte.

mod doc;
mod table;

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

pub use doc::render_markdown;
pub use table::Code;

/// A table of `docs/codes.md`: where a code is listed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Table {
    /// The event store's and the application's errors.
    Store,
    /// The subagent gate's gate failures.
    Gate,
    /// The subagent gate's candidate codes.
    Candidate,
    /// The instruction-file and strict-JSON parsers (named inside other codes' reasons).
    Parser,
    /// The lineage walk's rules.
    Lineage,
    /// The tool-call pipeline's layers.
    Layer,
    /// The lineage commands' loading of manifests.
    Loading,
    /// `result.json` problems.
    Result,
    /// A harness hook's input errors.
    HookInput,
    /// The resident service and its thin client.
    Server,
    /// A harness hook's decision failures.
    Decision,
}

/// One place a code appears, as `docs/codes.md` lists it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Usage {
    /// The table.
    pub table: Table,
    /// The table's middle column: what emits it, or the gate, layer or stage; empty in the
    /// tables without that column.
    pub at: &'static str,
    /// What it means there.
    pub meaning: &'static str,
}

/// Declares [`Code`] from the table: one variant per code, with its string and its usages.
macro_rules! codes {
    ($(
        $variant:ident = $text:literal {
            $( $table:ident ( $at:literal, $meaning:literal $(,)? ) ),+ $(,)?
        }
    )+) => {
        /// A stable snake_case reason code. Serialized as its string; a string this
        /// version does not know reads as [`Code::Other`] and is written back unchanged.
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum Code {
            $(
                #[doc = concat!("`", $text, "`:", $(" ", $meaning, ";"),+)]
                $variant,
            )+
            /// A code this version does not know, as read (from a log written by another
            /// version). Build codes with [`Code::parse`], which never puts a known code here.
            Other(String),
        }

        impl Code {
            /// Every known code, in the order of `docs/codes.md`.
            pub const ALL: &'static [Code] = &[$(Code::$variant),+];

            /// The snake_case string.
            pub fn as_str(&self) -> &str {
                match self {
                    $(Code::$variant => $text,)+
                    Code::Other(text) => text,
                }
            }

            /// Where the code appears and what it means there; none for [`Code::Other`].
            pub fn usages(&self) -> &'static [super::Usage] {
                match self {
                    $(Code::$variant => &[$(super::Usage {
                        table: super::Table::$table,
                        at: $at,
                        meaning: $meaning,
                    }),+],)+
                    Code::Other(_) => &[],
                }
            }

            /// The known code spelled `text`, if any.
            pub fn known(text: &str) -> Option<Code> {
                match text {
                    $($text => Some(Code::$variant),)+
                    _ => None,
                }
            }
        }
    };
}
use codes;

impl Code {
    /// The code spelled `text`: its variant, or [`Code::Other`] when this version does not
    /// know it.
    pub fn parse(text: &str) -> Code {
        Code::known(text).unwrap_or_else(|| Code::Other(text.to_owned()))
    }
}

impl From<&str> for Code {
    fn from(text: &str) -> Self {
        Code::parse(text)
    }
}

impl From<String> for Code {
    fn from(text: String) -> Self {
        Code::known(&text).unwrap_or(Code::Other(text))
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A code reads as its string, as when codes were strings (`Option<Code>::as_deref`).
impl std::ops::Deref for Code {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Code {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq<str> for Code {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Code {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl Serialize for Code {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Code {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Code;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a reason code (a string)")
            }

            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Code, E> {
                Ok(Code::parse(text))
            }

            fn visit_string<E: serde::de::Error>(self, text: String) -> Result<Code, E> {
                Ok(Code::from(text))
            }
        }
        deserializer.deserialize_str(Visitor)
    }
}

#[cfg(test)]
mod tests;
