//! A sed script a pattern rule may grant (T-23): only commands that print, delete, quit,
//! substitute or transliterate, with addresses that are line numbers or regular expressions.
//! `e`, `w`, `W`, `r`, `R` and the `e` and `w` flags of `s` run or write something else; the
//! text, label and branch commands are refused too (deliberately stricter: Warden does not read
//! where their text ends).

use super::shell_words::Word;

/// Commands of one letter that neither run nor write anything.
const PLAIN: &str = "pdqQ=nNPDgGhHxlz";

/// Flags of `s` that neither run nor write anything.
const PLAIN_FLAGS: &str = "gpiImM0123456789";

/// Whether every sed script among `args` (the words after `sed`) is plain: each `-e SCRIPT`,
/// `--expression=SCRIPT`, or without them the first word that is not an option.
pub(super) fn plain_sed_script(args: &[&Word]) -> bool {
    let mut scripts: Vec<&str> = Vec::new();
    let mut operands: Vec<&str> = Vec::new();
    let mut expression = false;
    let mut words = args.iter().map(|w| w.text.as_str());
    let mut options_end = false;
    while let Some(word) = words.next() {
        if options_end || !word.starts_with('-') || word == "-" {
            operands.push(word);
        } else if word == "--" {
            options_end = true;
        } else if word == "-e" || word == "--expression" {
            expression = true;
            match words.next() {
                Some(script) => scripts.push(script),
                None => return false,
            }
        } else if let Some(script) = word.strip_prefix("--expression=") {
            expression = true;
            scripts.push(script);
        } else if word == "-l" || word == "--line-length" {
            words.next();
        } else if let Some(cluster) = word.strip_prefix('-').filter(|c| !c.starts_with('-')) {
            // A cluster may end with `e` (its script the next word); an `e` inside takes the
            // rest of the cluster as its script: refused rather than read.
            match cluster.find('e') {
                Some(at) if at + 1 == cluster.len() => {
                    expression = true;
                    match words.next() {
                        Some(script) => scripts.push(script),
                        None => return false,
                    }
                }
                Some(_) => return false,
                None => {}
            }
        }
    }
    if !expression {
        match operands.first() {
            Some(script) => scripts.push(script),
            None => return true,
        }
    }
    scripts.iter().all(|script| plain_script(script))
}

/// Whether one script holds only plain commands.
fn plain_script(script: &str) -> bool {
    let chars: Vec<char> = script.chars().collect();
    let mut at = 0;
    loop {
        while chars.get(at).is_some_and(|c| *c == ' ' || *c == ';') {
            at += 1;
        }
        if at >= chars.len() {
            return true;
        }
        let Some(after) = address(&chars, at) else { return false };
        at = after;
        if chars.get(at) == Some(&',') {
            let Some(after) = address(&chars, at + 1) else { return false };
            at = after;
        }
        while chars.get(at).is_some_and(|c| *c == ' ' || *c == '!') {
            at += 1;
        }
        match chars.get(at) {
            Some('s') => match delimited(&chars, at + 1, 2) {
                Some(after) => {
                    at = after;
                    while chars.get(at).is_some_and(|c| PLAIN_FLAGS.contains(*c)) {
                        at += 1;
                    }
                }
                None => return false,
            },
            Some('y') => match delimited(&chars, at + 1, 2) {
                Some(after) => at = after,
                None => return false,
            },
            Some(c) if PLAIN.contains(*c) => at += 1,
            _ => return false,
        }
        // A command ends at `;`, a space before one, or the end.
        while chars.get(at) == Some(&' ') {
            at += 1;
        }
        match chars.get(at) {
            None | Some(';') => {}
            Some(_) => return false,
        }
    }
}

/// The end of an optional address at `at`: a line number, `+N` after a comma, or `/REGEX/`
/// with its `I` or `M`.
fn address(chars: &[char], at: usize) -> Option<usize> {
    let mut at = at;
    match chars.get(at) {
        Some('/') => {
            at = delimited(chars, at, 1)?;
            while chars.get(at).is_some_and(|c| *c == 'I' || *c == 'M') {
                at += 1;
            }
        }
        _ => {
            if chars.get(at) == Some(&'+') {
                at += 1;
            }
            while chars.get(at).is_some_and(char::is_ascii_digit) {
                at += 1;
            }
        }
    }
    Some(at)
}

/// The end of `parts` delimited parts starting with the delimiter at `at` (`/a/b/` is two parts
/// after `s`): the line holds no backslash (T-4), so a delimiter is never escaped.
fn delimited(chars: &[char], at: usize, parts: usize) -> Option<usize> {
    let delimiter = *chars.get(at)?;
    if delimiter == ' ' || delimiter == ';' || delimiter.is_ascii_alphanumeric() {
        return None;
    }
    let mut at = at + 1;
    for _ in 0..parts {
        let next = chars.get(at..)?.iter().position(|c| *c == delimiter)?;
        at += next + 1;
    }
    Some(at)
}
