//! The matching under the tool rules (T-4 … T-7): glob segments and paths, Bash command
//! patterns. Every function is linear or bounded by pattern × text, so
//! no rule and no call can make a decision slow.

/// A piece of a command pattern: literal text, or `*` (any text, spaces included).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Piece {
    Text(String),
    Any,
}

pub(super) fn glob_segment(pattern: &[String], segment: &str) -> bool {
    pattern.first().is_some_and(|p| wildcard(p.as_bytes(), segment.as_bytes()))
}

/// Segment-wise match with `**` as zero or more segments.
pub(super) fn glob_path(pattern: &[String], path: &[String]) -> bool {
    match pattern.split_first() {
        None => path.is_empty(),
        Some((first, rest)) if first == "**" => {
            (0..=path.len()).any(|skip| path.get(skip..).is_some_and(|tail| glob_path(rest, tail)))
        }
        Some((first, rest)) => match path.split_first() {
            Some((segment, tail)) => wildcard(first.as_bytes(), segment.as_bytes()) && glob_path(rest, tail),
            None => false,
        },
    }
}

/// `*` (any run of characters) and `?` (one character) within one segment: the linear
/// algorithm that backtracks only to the last `*`, so no pattern costs more than
/// pattern × text steps.
pub(super) fn wildcard(pattern: &[u8], text: &[u8]) -> bool {
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        let here = utf8_len(text.get(t).copied().unwrap_or(0));
        match pattern.get(p) {
            Some(b'*') => {
                star = Some((p, t));
                p += 1;
            }
            Some(b'?') => {
                t += here;
                p += 1;
            }
            Some(&c) if text.get(t) == Some(&c) => {
                p += 1;
                t += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    // Let the `*` take one more character (never half of one).
                    let next = st + utf8_len(text.get(st).copied().unwrap_or(0));
                    star = Some((sp, next));
                    p = sp + 1;
                    t = next;
                }
                None => return false,
            },
        }
    }
    pattern.get(p..).is_some_and(|rest| rest.iter().all(|&c| c == b'*'))
}

pub(super) fn utf8_len(first: u8) -> usize {
    match first {
        0xf0.. => 4,
        0xe0.. => 3,
        0xc0.. => 2,
        _ => 1,
    }
}

/// Characters with which one Bash call runs more than the one command a pattern names (T-6).
pub(super) const SHELL_OPERATORS: [&str; 8] = [";", "&", "|", "`", "$(", ">", "<", "\n"];

/// Characters with which the shell changes a command's words before the command sees
/// them (`~`, `$`, braces, globs, a backslash), quoted or not. The client the rules are held
/// against grants no such command under a pattern rule, not even one that spells it out
/// (`Bash(touch ~/x)`); Warden grants it under the bare `Bash` alone, `Bash(*)` included
/// (T-15) (T-4).
pub(super) const EXPANSIONS: [char; 9] = ['$', '~', '{', '}', '*', '?', '[', ']', '\\'];

/// A Bash command as the rules see it: trimmed of ASCII spaces only (a Unicode space around
/// it is text the client does not take at face value, T-24), one command whose words the shell
/// does not expand, taken at face value and running no other command (T-22 … T-24), or `None`
/// (T-4, T-6).
pub(super) fn single_command(command: &str) -> Option<String> {
    let command = command.trim_matches(|c: char| c.is_ascii_whitespace());
    let compound = SHELL_OPERATORS.iter().any(|op| command.contains(op))
        || command.chars().any(|c| c.is_control() || EXPANSIONS.contains(&c))
        || super::shell_forms::beyond_patterns(command).is_some();
    (!compound).then(|| command.to_owned())
}

/// Only `*` is special, so the first literal is a prefix, the last a suffix, and those between
/// are found leftmost in order: linear, however many `*` a rule has.
pub(super) fn pieces_match(pieces: &[Piece], text: &str) -> bool {
    if !pieces.contains(&Piece::Any) {
        return match pieces {
            [] => text.is_empty(),
            [Piece::Text(literal)] => literal == text,
            _ => false,
        };
    }
    let (mut pieces, mut rest) = (pieces, text);
    if let Some((Piece::Text(first), tail)) = pieces.split_first() {
        let Some(after) = rest.strip_prefix(first.as_str()) else { return false };
        (pieces, rest) = (tail, after);
    }
    if let Some((Piece::Text(last), head)) = pieces.split_last() {
        let Some(before) = rest.strip_suffix(last.as_str()) else { return false };
        (pieces, rest) = (head, before);
    }
    for piece in pieces {
        if let Piece::Text(literal) = piece {
            let Some(at) = rest.find(literal.as_str()) else { return false };
            rest = rest.get(at + literal.len()..).unwrap_or_default();
        }
    }
    true
}

/// The first bytes (at most eight) that every command a pattern matches starts with, packed in
/// a word: a necessary condition a rule set checks with one comparison before it matches the
/// pattern itself, so that a call is matched only against the few rules that could grant it
/// (T-12). [`Lead::ANY`] (no byte known) admits every command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Lead {
    /// The bytes, little-endian, zero past `len`.
    word: u64,
    /// The bits of `word` that hold them.
    mask: u64,
    /// How many bytes, 0 to 8.
    len: usize,
}

impl Lead {
    /// No byte known: every command is admitted.
    pub(super) const ANY: Lead = Lead { word: 0, mask: 0, len: 0 };

    /// The first (at most eight) bytes of `text`.
    pub(super) fn of(text: &str) -> Lead {
        let bytes = text.as_bytes();
        let len = bytes.len().min(8);
        let mut word = [0_u8; 8];
        for (to, from) in word.iter_mut().zip(bytes) {
            *to = *from;
        }
        let mask = if len >= 8 { u64::MAX } else { (1_u64 << (8 * len)) - 1 };
        Lead { word: u64::from_le_bytes(word), mask, len }
    }

    /// The bytes every text matched by `pieces` starts with (its first literal's, when it
    /// starts with one).
    pub(super) fn of_pieces(pieces: &[Piece]) -> Lead {
        match pieces.first() {
            Some(Piece::Text(first)) => Lead::of(first),
            Some(Piece::Any) | None => Lead::ANY,
        }
    }

    /// The bytes both leads require: their common first bytes.
    pub(super) fn common(self, other: Lead) -> Lead {
        let differ = (self.word ^ other.word) | (self.mask ^ other.mask);
        // Bytes are equal, and in both, up to the first that differs.
        let same = if differ == 0 { self.len } else { (differ.trailing_zeros() / 8) as usize };
        let len = same.min(self.len).min(other.len);
        let mask = if len >= 8 { u64::MAX } else { (1_u64 << (8 * len)) - 1 };
        Lead { word: self.word & mask, mask, len }
    }

    /// Whether a text whose lead is `text` may start with these bytes (`text` is
    /// [`Lead::of`] the text: its first eight bytes, or all of a shorter one).
    pub(super) fn admits(self, text: Lead) -> bool {
        text.len >= self.len && text.word & self.mask == self.word
    }
}
