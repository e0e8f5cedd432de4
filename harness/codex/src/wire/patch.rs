//! The files a Codex `apply_patch` call writes, read from its patch text, strictly (C-5).
//!
//! Codex's patch format (its tool's grammar, 0.169.0):
//!
//! ```text
//! *** Begin Patch
//! *** Add File: PATH        followed by one or more `+` lines
//! *** Delete File: PATH
//! *** Update File: PATH     optionally `*** Move to: PATH`, then `@@` / ` ` / `+` / `-` lines
//!                           and an optional `*** End of File`
//! *** End Patch
//! ```
//!
//! Warden needs only the paths, but reads the whole text by that grammar so that no file Codex
//! would write escapes it: anything else — a header it does not know, a line of a hunk that is
//! none of the forms above, a path with surrounding white space, a carriage return, a NUL, text
//! after the end — is a [`PatchError`], and the call is refused (C-5). Codex applies a patch
//! only when it parses, so a text Warden reads and Codex also reads names the same files.

/// Why a patch text is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PatchError {
    /// The text does not start with `*** Begin Patch`.
    #[error("the patch does not start with `*** Begin Patch`")]
    NoBegin,
    /// The text does not end with `*** End Patch`.
    #[error("the patch does not end with `*** End Patch`")]
    NoEnd,
    /// No file between the begin and the end.
    #[error("the patch changes no file")]
    Empty,
    /// A line that is not what the grammar allows where it stands.
    #[error("line {line} of the patch is not a patch line: `{seen}`")]
    Line {
        /// Its number, from 1.
        line: usize,
        /// The line, cut at 80 characters.
        seen: String,
    },
    /// A path Warden will not guess at: empty, with white space around it, or a NUL.
    #[error("line {line} of the patch names a path Warden cannot read exactly: `{seen}`")]
    Path {
        /// Its number, from 1.
        line: usize,
        /// The path, cut at 80 characters.
        seen: String,
    },
    /// A carriage return: Codex reads its lines otherwise than Warden would.
    #[error("the patch holds a carriage return")]
    CarriageReturn,
}

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const ADD: &str = "*** Add File: ";
const DELETE: &str = "*** Delete File: ";
const UPDATE: &str = "*** Update File: ";
const MOVE: &str = "*** Move to: ";
const END_OF_FILE: &str = "*** End of File";

fn cut(text: &str) -> String {
    text.chars().take(80).collect::<String>().escape_debug().to_string()
}

fn path(line: usize, text: &str) -> Result<String, PatchError> {
    let exact = !text.is_empty() && text.trim() == text && !text.contains('\0');
    if exact { Ok(text.to_owned()) } else { Err(PatchError::Path { line, seen: cut(text) }) }
}

/// Where the reader stands.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    /// After a header line or the begin: a file's header must follow (or, once one was read,
    /// the end).
    Header,
    /// In an added file: `+` lines.
    Add {
        /// At least one `+` line was read.
        lines: bool,
    },
    /// In an updated file: change lines.
    Update {
        /// `*** Move to:` is still allowed (right after the header).
        may_move: bool,
        /// `*** End of File` was read: only a header or the end may follow.
        ended: bool,
    },
}

/// The files `patch` writes (adds, deletes, updates, and moves to), in the order it names
/// them; each as written in the patch (relative to the call's working directory, or absolute).
pub fn patch_paths(patch: &str) -> Result<Vec<String>, PatchError> {
    if patch.contains('\r') {
        return Err(PatchError::CarriageReturn);
    }
    let mut lines = patch.trim().lines().enumerate().map(|(i, l)| (i + 1, l));
    match lines.next() {
        Some((_, BEGIN)) => {}
        _ => return Err(PatchError::NoBegin),
    }
    let mut paths = Vec::new();
    let mut state = State::Header;
    let mut ended = false;
    for (number, line) in lines {
        if ended {
            return Err(PatchError::Line { line: number, seen: cut(line) });
        }
        let refused = || PatchError::Line { line: number, seen: cut(line) };
        // A header ends any hunk; an added file needs a line first.
        let may_end_hunk = !matches!(state, State::Add { lines: false });
        if line == END {
            if !may_end_hunk || paths.is_empty() {
                return Err(if paths.is_empty() { PatchError::Empty } else { refused() });
            }
            ended = true;
            continue;
        }
        if let Some(rest) = line.strip_prefix(ADD) {
            if !may_end_hunk {
                return Err(refused());
            }
            paths.push(path(number, rest)?);
            state = State::Add { lines: false };
            continue;
        }
        if let Some(rest) = line.strip_prefix(DELETE) {
            if !may_end_hunk {
                return Err(refused());
            }
            paths.push(path(number, rest)?);
            state = State::Header;
            continue;
        }
        if let Some(rest) = line.strip_prefix(UPDATE) {
            if !may_end_hunk {
                return Err(refused());
            }
            paths.push(path(number, rest)?);
            state = State::Update { may_move: true, ended: false };
            continue;
        }
        state = match state {
            State::Header => return Err(refused()),
            State::Add { .. } if line.starts_with('+') => State::Add { lines: true },
            State::Add { .. } => return Err(refused()),
            State::Update { may_move: true, .. } if line.starts_with(MOVE) => {
                let rest = line.get(MOVE.len()..).unwrap_or_default();
                paths.push(path(number, rest)?);
                State::Update { may_move: false, ended: false }
            }
            State::Update { ended: true, .. } => return Err(refused()),
            State::Update { .. } if line == END_OF_FILE => State::Update { may_move: false, ended: true },
            // Any other line that looks like a header is one Warden does not know.
            State::Update { .. } if line.trim_start().starts_with("***") => return Err(refused()),
            State::Update { .. }
                if line.is_empty()
                    || line == "@@"
                    || line.starts_with("@@ ")
                    || line.starts_with(['+', '-', ' ']) =>
            {
                State::Update { may_move: false, ended: false }
            }
            State::Update { .. } => return Err(refused()),
        };
    }
    if !ended {
        return Err(if paths.is_empty() { PatchError::Empty } else { PatchError::NoEnd });
    }
    Ok(paths)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn every_file_a_patch_writes_is_named() {
        let rows: [(&str, &[&str], &str); 6] = [
            ("*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n", &["a.txt"], "an added file"),
            ("*** Begin Patch\n*** Delete File: okrs/q4.md\n*** End Patch", &["okrs/q4.md"], "a deletion"),
            (
                "*** Begin Patch\n*** Update File: src/a.rs\n*** Move to: okrs/q4.md\n@@\n-a\n+b\n*** End Patch\n",
                &["src/a.rs", "okrs/q4.md"],
                "a move names its destination too",
            ),
            (
                "*** Begin Patch\n*** Add File: a\n+x\n*** Update File: /abs/b\n@@ fn main\n ctx\n-old\n+new\n\n*** End of File\n*** Delete File: c\n*** End Patch\n",
                &["a", "/abs/b", "c"],
                "three hunks, an absolute path, context and end of file",
            ),
            (
                "\n  *** Begin Patch\n*** Delete File: a\n*** End Patch\n\n",
                &["a"],
                "white space around the text",
            ),
            ("*** Begin Patch\n*** Update File: a\n*** End Patch\n", &["a"], "an update without lines"),
        ];
        for (patch, paths, why) in rows {
            assert_eq!(patch_paths(patch), Ok(paths.iter().map(|p| (*p).to_owned()).collect()), "{why}");
        }
    }

    #[test]
    fn anything_outside_the_grammar_is_refused() {
        let rows: [(&str, &str); 16] = [
            ("", "empty"),
            ("*** Add File: a\n+x\n*** End Patch", "no begin"),
            ("*** Begin Patch\n*** Add File: a\n+x\n", "no end"),
            ("*** Begin Patch\n*** End Patch", "no file"),
            ("*** Begin Patch\n*** Add File: a\n*** End Patch", "an added file without a line"),
            ("*** Begin Patch\n*** Add File: a\nx\n*** End Patch", "an added line without `+`"),
            ("*** Begin Patch\n*** Add File:  okrs/a\n+x\n*** End Patch", "a path with a leading space"),
            ("*** Begin Patch\n*** Delete File: okrs/a \n*** End Patch", "a path with a trailing space"),
            ("*** Begin Patch\n*** Delete File: \n*** End Patch", "an empty path"),
            ("*** Begin Patch\n*** Delete File: a\0b\n*** End Patch", "a NUL"),
            ("*** Begin Patch\r\n*** Delete File: a\r\n*** End Patch\r\n", "carriage returns"),
            ("*** Begin Patch\n *** Delete File: okrs/a\n*** End Patch", "an indented header"),
            ("*** Begin Patch\n*** Copy File: a\n*** End Patch", "a header Warden does not know"),
            (
                "*** Begin Patch\n*** Update File: a\n@@\n*** Rename: b\n*** End Patch",
                "an unknown header in a hunk",
            ),
            ("*** Begin Patch\n*** Update File: a\n@@\nx\n*** End Patch", "a change line without its sign"),
            (
                "*** Begin Patch\n*** Delete File: a\n*** End Patch\n*** Delete File: okrs/a",
                "text after the end",
            ),
        ];
        for (patch, why) in rows {
            assert!(patch_paths(patch).is_err(), "{why}: {:?}", patch_paths(patch));
        }
    }

    proptest! {
        /// Any text: an answer, never a panic; and a patch read names at least one file.
        #[test]
        fn any_text_is_read_or_refused(text in "(?s).{0,400}") {
            if let Ok(paths) = patch_paths(&text) {
                prop_assert!(!paths.is_empty());
            }
        }

        /// Any headers built from the grammar name exactly their files.
        #[test]
        fn a_built_patch_names_its_files(names in proptest::collection::vec("[a-z]{1,8}(/[a-z]{1,8}){0,2}", 1..6)) {
            let mut text = String::from("*** Begin Patch\n");
            for (i, name) in names.iter().enumerate() {
                match i % 3 {
                    0 => text.push_str(&format!("*** Add File: {name}\n+line\n")),
                    1 => text.push_str(&format!("*** Delete File: {name}\n")),
                    _ => text.push_str(&format!("*** Update File: {name}\n@@\n-a\n+b\n")),
                }
            }
            text.push_str("*** End Patch\n");
            prop_assert_eq!(patch_paths(&text), Ok(names));
        }
    }
}
