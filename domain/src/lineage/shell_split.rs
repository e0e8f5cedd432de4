//! A shell command line split at its operators, read as text (T-21, T-31): the one reading of
//! the shell's operators, quotes and escapes that the subagent's compound-line check and every
//! agent's shell-line check share.

/// A line split at the shell's operators outside quotes.
pub(super) struct Split {
    /// The commands between operators, as written.
    pub(super) segments: Vec<String>,
    /// The targets of output redirections, quotes and escapes removed.
    pub(super) targets: Vec<String>,
    /// Whether a quote is left open at the end.
    pub(super) unclosed: bool,
}

/// `line` split at `;`, `&`, `|`, `<`, `>`, parentheses and newlines outside quotes and
/// escapes; the word after each output redirection (`>`, `>>`, `>|`, `&>`, `2>`) is a target.
pub(super) fn split(line: &str) -> Split {
    let mut segments: Vec<String> = Vec::new();
    let mut targets: Vec<String> = Vec::new();
    let mut segment = String::new();
    let mut quote: Option<char> = None;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match quote {
            Some(q) => {
                if c == q {
                    quote = None;
                } else if q == '"' && c == '\\' {
                    segment.push(c);
                    segment.extend(chars.next());
                    continue;
                }
                segment.push(c);
            }
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                segment.push(c);
            }
            None if c == '\\' => {
                segment.push(c);
                segment.extend(chars.next());
            }
            None if c == '>' => {
                segments.push(std::mem::take(&mut segment));
                while chars.next_if(|n| matches!(n, '>' | '|' | '&' | ' ' | '\t')).is_some() {}
                let mut target = String::new();
                let mut inner: Option<char> = None;
                while let Some(n) =
                    chars.next_if(|n| inner.is_some() || !(n.is_whitespace() || ";&|<>()".contains(*n)))
                {
                    match inner {
                        Some(q) if n == q => inner = None,
                        None if n == '\'' || n == '"' => inner = Some(n),
                        Some('"') if n == '\\' => target.extend(chars.next()),
                        // An unquoted backslash: the next character, as itself.
                        None if n == '\\' => target.extend(chars.next()),
                        _ => target.push(n),
                    }
                }
                targets.push(target);
            }
            None if ";&|<()\n".contains(c) => segments.push(std::mem::take(&mut segment)),
            None => segment.push(c),
        }
    }
    segments.push(segment);
    Split { segments, targets, unclosed: quote.is_some() }
}
