//! A one-command Bash line read as the shell would split it into words, and the text a pattern
//! rule does not take at face value (T-24): characters the client distrusts, over-long words and
//! lines, and shell grammar Warden does not read (`(`, `)`, `!`, zsh's `=word`, an unclosed
//! quote). The line reaching here already holds no operator, control character nor expansion
//! (T-4, T-6): quotes are the only thing left to remove.

/// The longest word, in bytes as written, a pattern rule grants (T-24).
pub(super) const MAX_WORD_LEN: usize = 255;

/// The longest command, in bytes, a pattern rule grants (T-24).
pub(super) const MAX_COMMAND_LEN: usize = 10_000;

/// Characters that change the grammar when unquoted: a subshell or function `( … )`, a
/// pipeline's negation or history `!` (T-24).
const GRAMMAR: [char; 3] = ['(', ')', '!'];

/// One word of a command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Word {
    /// The word as the command receives it: quotes removed.
    pub(super) text: String,
}

/// Whether a pattern rule may read `c` at face value: printable ASCII, or a letter or digit
/// of another script that shows as itself. Unicode spaces (no-break, ideographic, line and
/// paragraph separators), invisible and bidi characters, symbols and marks are not (T-24).
pub(super) fn face_value_char(c: char) -> bool {
    match c {
        ' '..='~' => true,
        _ if c.is_ascii() => false,
        _ => c.is_alphanumeric() && !c.is_whitespace() && !crate::unicode::is_default_ignorable(c),
    }
}

/// The words of `command` with quotes removed, or why a pattern rule cannot take it at face
/// value (T-24): a character outside [`face_value_char`], a command over [`MAX_COMMAND_LEN`]
/// or a word over [`MAX_WORD_LEN`] bytes, an unclosed quote, an unquoted `(`, `)` or `!`, or a
/// word that starts with an unquoted `=` (zsh's path expansion).
pub(super) fn words(command: &str) -> Result<Vec<Word>, &'static str> {
    if command.len() > MAX_COMMAND_LEN {
        return Err("a command over 10 000 bytes");
    }
    if !command.chars().all(face_value_char) {
        return Err("a character the client does not take at face value");
    }
    let mut words = Vec::new();
    let mut current: Option<(Word, usize)> = None;
    let mut quote: Option<char> = None;
    for c in command.chars() {
        match quote {
            Some(open) if c == open => quote = None,
            Some(_) => {}
            None if c == ' ' => {
                if let Some((word, _)) = current.take() {
                    words.push(word);
                }
                continue;
            }
            None if c == '\'' || c == '"' => quote = Some(c),
            None if GRAMMAR.contains(&c) => return Err("an unquoted `(`, `)` or `!`"),
            None if c == '=' && current.is_none() => return Err("a word that starts with `=`"),
            None => {}
        }
        let (word, raw) = current.get_or_insert_with(|| (Word { text: String::new() }, 0));
        *raw += c.len_utf8();
        if *raw > MAX_WORD_LEN {
            return Err("a word over 255 bytes");
        }
        let is_quote = (c == '\'' || c == '"') && (quote == Some(c) || quote.is_none());
        if !is_quote {
            word.text.push(c);
        }
    }
    if quote.is_some() {
        return Err("an unclosed quote");
    }
    words.extend(current.map(|(word, _)| word));
    Ok(words)
}
