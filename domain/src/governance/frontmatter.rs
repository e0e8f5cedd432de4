//! Instruction files: YAML frontmatter in a strict subset, and the body header (G-3).
//!
//! A persona's `subagents` and a subagent's `AGENT_TYPE` decide what may run, so this parser
//! accepts only what it can read without guessing, and keeps scalars as written: `2`, `"2"`,
//! `2.0` and `02` stay four different things for the gate to judge.
//!
//! - The file may start with one UTF-8 BOM; CRLF is read as LF; trailing whitespace is ignored.
//! - Frontmatter exists iff the first line is `---`; it ends at the next `---` (or `...`).
//!   Text before a `---` block that looks like frontmatter, and a second block right after the
//!   first, are errors: both are ways to hide declarations.
//! - The YAML subset: top-level `key: value` lines with unique keys; values are plain,
//!   'single' or "double" quoted scalars, one-line flow lists `[a, "b"]`, or block lists of
//!   `- item` lines under an empty `key:`; full-line and trailing ` #` comments. Anything else —
//!   nested mappings, flow mappings, anchors, aliases, tags, block scalars, multi-line scalars,
//!   tabs for indentation — is [`ParseError::UnsupportedYaml`], never a guess.
//! - The body header (G-3) is the leading run of `KEY: VALUE` lines of the body (after blank
//!   lines), ending at the first blank line, heading, or other line.

use std::fmt;

use crate::code::Code;

/// A scalar as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scalar {
    /// The text: unquoted and unescaped for quoted scalars, trimmed and without comment for
    /// plain ones.
    pub text: String,
    /// How it was written.
    pub style: ScalarStyle,
}

/// How a scalar was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScalarStyle {
    /// Unquoted.
    Plain,
    /// `'…'`.
    SingleQuoted,
    /// `"…"`.
    DoubleQuoted,
}

/// A value: a scalar, or a list of scalars.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// One scalar. An empty `key:` with no list under it is an empty plain scalar (YAML null).
    Scalar(Scalar),
    /// A flow or block list.
    List(Vec<Scalar>),
}

/// Keys and values in file order; keys are unique. Two mappings are equal when their keys and
/// values are, wherever in the file they stand.
#[derive(Clone, Debug, Default)]
pub struct Mapping {
    entries: Vec<(String, Value, usize)>,
}

impl PartialEq for Mapping {
    fn eq(&self, other: &Self) -> bool {
        self.iter().eq(other.iter())
    }
}

impl Eq for Mapping {}

impl Mapping {
    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.entries.iter().find(|(k, _, _)| k == key).map(|(_, v, _)| v)
    }

    /// Keys and values, in file order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.entries.iter().map(|(k, v, _)| (k.as_str(), v))
    }

    /// How many keys.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// No keys at all.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The 1-based line where `key` is declared.
    pub fn line_of(&self, key: &str) -> Option<usize> {
        self.entries.iter().find(|(k, _, _)| k == key).map(|(_, _, line)| *line)
    }

    fn insert(&mut self, key: &str, value: Value, line: usize) -> Result<(), ParseError> {
        if let Some(first_line) = self.line_of(key) {
            return Err(ParseError::DuplicateKey { key: key.to_owned(), line, first_line });
        }
        self.entries.push((key.to_owned(), value, line));
        Ok(())
    }
}

/// A parsed instruction file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InstructionFile {
    /// The frontmatter, if the file has one.
    pub frontmatter: Option<Mapping>,
    /// The body header (G-3); empty if the body has none.
    pub header: Mapping,
}

/// Why an instruction file cannot be read. Every variant names its 1-based line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// The frontmatter block has no closing `---`.
    #[error("line {line}: the frontmatter is not closed by `---`")]
    Unterminated {
        /// Where it opens.
        line: usize,
    },
    /// Text comes before a `---` block that looks like frontmatter.
    #[error("line {line}: text before a frontmatter block")]
    TextBeforeFrontmatter {
        /// Where the hidden block opens.
        line: usize,
    },
    /// A second frontmatter block right after the first.
    #[error("line {line}: a second frontmatter block")]
    SecondFrontmatter {
        /// Where it opens.
        line: usize,
    },
    /// A key declared twice.
    #[error("line {line}: `{key}` is declared again (first on line {first_line})")]
    DuplicateKey {
        /// The key.
        key: String,
        /// The second declaration.
        line: usize,
        /// The first.
        first_line: usize,
    },
    /// YAML outside the accepted subset.
    #[error("line {line}: unsupported YAML: {what}")]
    UnsupportedYaml {
        /// Where.
        line: usize,
        /// What construct.
        what: &'static str,
    },
    /// A quoted scalar without its closing quote, or with an escape this parser does not know.
    #[error("line {line}: unterminated or malformed quoted scalar")]
    UnterminatedQuote {
        /// Where.
        line: usize,
    },
    /// A line that is not `key: value`, a list item, a comment or blank.
    #[error("line {line}: not a `key: value` line")]
    InvalidLine {
        /// Where.
        line: usize,
    },
}

impl ParseError {
    /// The stable code.
    pub fn code(&self) -> Code {
        match self {
            ParseError::Unterminated { .. } => Code::FrontmatterUnterminated,
            ParseError::TextBeforeFrontmatter { .. } => Code::TextBeforeFrontmatter,
            ParseError::SecondFrontmatter { .. } => Code::SecondFrontmatter,
            ParseError::DuplicateKey { .. } => Code::DuplicateKey,
            ParseError::UnsupportedYaml { .. } => Code::UnsupportedYaml,
            ParseError::UnterminatedQuote { .. } => Code::UnterminatedQuote,
            ParseError::InvalidLine { .. } => Code::InvalidLine,
        }
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// A line of the file: its 1-based number and its text without the line ending and trailing
/// whitespace.
type Line<'a> = (usize, &'a str);

/// Parses an instruction file.
pub fn parse_instruction_file(text: &str) -> Result<InstructionFile, ParseError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let lines: Vec<Line<'_>> =
        text.split('\n').map(str::trim_end).enumerate().map(|(i, l)| (i + 1, l)).collect();
    let (frontmatter, body) = match lines.split_first() {
        Some(((_, "---"), rest)) => {
            let close = rest.iter().position(|(_, l)| *l == "---" || *l == "...");
            let Some(close) = close else { return Err(ParseError::Unterminated { line: 1 }) };
            let (yaml, after) = rest.split_at(close);
            let body = after.get(1..).unwrap_or_default();
            if let Some((line, "---")) = body.iter().find(|(_, l)| !l.is_empty()).copied() {
                return Err(ParseError::SecondFrontmatter { line });
            }
            (Some(parse_yaml(yaml)?), body)
        }
        _ => {
            let hidden = lines.windows(2).find(|pair| match pair {
                [(_, "---"), (_, next)] => mapping_key(next).is_some(),
                _ => false,
            });
            if let Some([(line, _), _]) = hidden {
                return Err(ParseError::TextBeforeFrontmatter { line: *line });
            }
            (None, lines.as_slice())
        }
    };
    Ok(InstructionFile { frontmatter, header: parse_header(body)? })
}

/// `key` if `line` starts with a top-level `key:` followed by a space or the end of the line.
fn mapping_key(line: &str) -> Option<(&str, &str)> {
    let first = line.chars().next()?;
    if !(first.is_ascii_alphabetic() || first == '_') {
        return None;
    }
    let end = line.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))?;
    let (key, rest) = line.split_at(end);
    let rest = rest.strip_prefix(':')?;
    (rest.is_empty() || rest.starts_with([' ', '\t'])).then_some((key, rest))
}

fn unsupported(line: usize, what: &'static str) -> ParseError {
    ParseError::UnsupportedYaml { line, what }
}

fn parse_yaml(lines: &[Line<'_>]) -> Result<Mapping, ParseError> {
    let mut mapping = Mapping::default();
    let mut i = 0;
    while let Some(&(line, text)) = lines.get(i) {
        i += 1;
        let trimmed = text.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if text.starts_with('\t') {
            return Err(unsupported(line, "tab indentation"));
        }
        if text.starts_with(' ') {
            return Err(unsupported(line, "an indented line (a nested mapping or a multi-line scalar)"));
        }
        if trimmed.starts_with("- ") || trimmed == "-" {
            return Err(unsupported(line, "a list item without a key"));
        }
        if trimmed.starts_with("? ") {
            return Err(unsupported(line, "a complex key"));
        }
        let Some((key, rest)) = mapping_key(text) else { return Err(ParseError::InvalidLine { line }) };
        let rest = rest.trim();
        let value = if rest.is_empty() || rest.starts_with('#') {
            let (value, used) = block_list(lines.get(i..).unwrap_or_default())?;
            i += used;
            value
        } else {
            inline_value(rest, line)?
        };
        mapping.insert(key, value, line)?;
    }
    Ok(mapping)
}

/// The `- item` lines after an empty `key:`; returns the value and how many lines it used.
fn block_list(lines: &[Line<'_>]) -> Result<(Value, usize), ParseError> {
    let mut items = Vec::new();
    let mut used = 0;
    let mut indent = None;
    for &(line, text) in lines {
        let trimmed = text.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            used += 1;
            continue;
        }
        let this_indent = text.len() - trimmed.len();
        if text.get(..this_indent).is_some_and(|ws| ws.contains('\t')) {
            return Err(unsupported(line, "tab indentation"));
        }
        let item = if trimmed == "-" { Some("") } else { trimmed.strip_prefix("- ") };
        match item {
            Some(item) => {
                if *indent.get_or_insert(this_indent) != this_indent {
                    return Err(unsupported(line, "list items at different indentations"));
                }
                let item = item.trim();
                if item.starts_with("- ")
                    || item == "-"
                    || item.starts_with('[')
                    || mapping_key(item).is_some()
                {
                    return Err(unsupported(line, "a nested list or mapping in a list"));
                }
                items.push(scalar(item, line)?);
                used += 1;
            }
            None if this_indent > 0 => {
                return Err(unsupported(line, "an indented line (a nested mapping or a multi-line scalar)"));
            }
            None => break,
        }
    }
    // Blank and comment lines after the last item are counted as the list's: the mapping
    // would skip them anyway.
    let value = if items.is_empty() {
        Value::Scalar(Scalar { text: String::new(), style: ScalarStyle::Plain })
    } else {
        Value::List(items)
    };
    Ok((value, used))
}

/// A value on the key's own line: a flow list or a scalar (which refuses anchors, aliases,
/// tags and flow mappings itself).
fn inline_value(text: &str, line: usize) -> Result<Value, ParseError> {
    match text.chars().next() {
        Some('[') => flow_list(text, line),
        Some('|' | '>') => Err(unsupported(line, "a block scalar")),
        Some('%' | '@' | '`') => Err(unsupported(line, "a reserved indicator")),
        _ => scalar(text, line).map(Value::Scalar),
    }
}

/// Only a comment may follow a value.
fn only_comment_after(rest: &str, line: usize) -> Result<(), ParseError> {
    let rest = rest.trim_start();
    if rest.is_empty() || rest.starts_with('#') { Ok(()) } else { Err(ParseError::InvalidLine { line }) }
}

/// One scalar filling `text` (a trailing comment allowed).
fn scalar(text: &str, line: usize) -> Result<Scalar, ParseError> {
    match text.chars().next() {
        Some('"' | '\'') => {
            let (scalar, rest) = quoted(text, line)?;
            only_comment_after(rest, line)?;
            Ok(scalar)
        }
        Some('&') => Err(unsupported(line, "an anchor")),
        Some('*') => Err(unsupported(line, "an alias")),
        Some('!') => Err(unsupported(line, "a tag")),
        Some('{') => Err(unsupported(line, "a flow mapping")),
        _ => {
            let plain = text.find(" #").map_or(text, |at| text.get(..at).unwrap_or(text)).trim();
            if plain.contains(": ") || plain.ends_with(':') {
                return Err(unsupported(line, "`: ` inside a plain scalar"));
            }
            Ok(Scalar { text: plain.to_owned(), style: ScalarStyle::Plain })
        }
    }
}

/// A quoted scalar at the start of `text`; returns it and the text after the closing quote.
fn quoted(text: &str, line: usize) -> Result<(Scalar, &str), ParseError> {
    let bad = || ParseError::UnterminatedQuote { line };
    let mut chars = text.char_indices();
    let (_, quote) = chars.next().ok_or_else(bad)?;
    let mut out = String::new();
    while let Some((at, c)) = chars.next() {
        match (quote, c) {
            ('\'', '\'') => {
                if text.get(at + 1..).is_some_and(|r| r.starts_with('\'')) {
                    chars.next();
                    out.push('\'');
                } else {
                    let rest = text.get(at + 1..).unwrap_or_default();
                    return Ok((Scalar { text: out, style: ScalarStyle::SingleQuoted }, rest));
                }
            }
            ('"', '"') => {
                let rest = text.get(at + 1..).unwrap_or_default();
                return Ok((Scalar { text: out, style: ScalarStyle::DoubleQuoted }, rest));
            }
            ('"', '\\') => {
                let (_, escape) = chars.next().ok_or_else(bad)?;
                match escape {
                    '"' => out.push('"'),
                    '\\' => out.push('\\'),
                    '/' => out.push('/'),
                    'n' => out.push('\n'),
                    't' => out.push('\t'),
                    'r' => out.push('\r'),
                    'u' => {
                        let mut code = 0u32;
                        for _ in 0..4 {
                            let (_, digit) = chars.next().ok_or_else(bad)?;
                            code = code * 16 + digit.to_digit(16).ok_or_else(bad)?;
                        }
                        out.push(char::from_u32(code).ok_or_else(bad)?);
                    }
                    _ => return Err(bad()),
                }
            }
            _ => out.push(c),
        }
    }
    Err(bad())
}

/// `[a, "b", 'c']` on one line.
fn flow_list(text: &str, line: usize) -> Result<Value, ParseError> {
    let mut rest = text.get(1..).unwrap_or_default();
    let mut items = Vec::new();
    loop {
        rest = rest.trim_start();
        if let Some(after) = rest.strip_prefix(']') {
            only_comment_after(after, line)?;
            return Ok(Value::List(items));
        }
        let (item, after) = match rest.chars().next() {
            None => return Err(ParseError::InvalidLine { line }),
            Some('"' | '\'') => quoted(rest, line)?,
            Some('[' | '{') => return Err(unsupported(line, "a nested flow collection")),
            Some('&' | '*' | '!') => return Err(unsupported(line, "an anchor, alias or tag")),
            Some(_) => {
                let end = rest.find([',', ']', '[', '{', '}', '#']).unwrap_or(rest.len());
                let plain = rest.get(..end).unwrap_or_default().trim();
                if plain.is_empty() || rest.get(end..).is_some_and(|r| r.starts_with(['[', '{', '}', '#'])) {
                    return Err(ParseError::InvalidLine { line });
                }
                (
                    Scalar { text: plain.to_owned(), style: ScalarStyle::Plain },
                    rest.get(end..).unwrap_or_default(),
                )
            }
        };
        items.push(item);
        rest = after.trim_start();
        if let Some(after) = rest.strip_prefix(',') {
            rest = after;
        } else if !rest.starts_with(']') {
            return Err(ParseError::InvalidLine { line });
        }
    }
}

/// The body header: after leading blank lines, the run of `KEY: VALUE` lines.
fn parse_header(body: &[Line<'_>]) -> Result<Mapping, ParseError> {
    let mut header = Mapping::default();
    for &(line, text) in body.iter().skip_while(|(_, t)| t.is_empty()) {
        let Some((key, rest)) = header_key(text) else { break };
        let value = rest.trim();
        let scalar = if value.starts_with(['"', '\'']) {
            let (scalar, after) = quoted(value, line)?;
            if !after.trim().is_empty() {
                return Err(ParseError::InvalidLine { line });
            }
            scalar
        } else {
            Scalar { text: value.to_owned(), style: ScalarStyle::Plain }
        };
        header.insert(key, Value::Scalar(scalar), line)?;
    }
    Ok(header)
}

/// `KEY` (`[A-Za-z_][A-Za-z0-9_]*`) and the rest, for a `KEY: VALUE` header line.
fn header_key(text: &str) -> Option<(&str, &str)> {
    let first = text.chars().next()?;
    if !(first.is_ascii_alphabetic() || first == '_') {
        return None;
    }
    let end = text.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))?;
    let (key, rest) = text.split_at(end);
    let rest = rest.strip_prefix(':')?;
    (rest.is_empty() || rest.starts_with([' ', '\t'])).then_some((key, rest))
}

#[cfg(test)]
mod tests;
