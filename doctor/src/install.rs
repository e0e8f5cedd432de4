//! What `warden init HARNESS` writes and says, once the line to install is known (N-14): each
//! harness crate's `setup::install` reads the harness's own files through the reader it is
//! handed and answers with an [`Installing`]; the command line writes the files by descriptor
//! (U-4), in order, and prints. Nothing is written when the harness refuses.

use std::path::{Path, PathBuf};

/// One file `warden init` writes.
#[derive(Debug, PartialEq, Eq)]
pub struct FileWrite {
    /// The directory the write is anchored at (U-4): the project, or the harness's home.
    pub root: PathBuf,
    /// The file.
    pub path: PathBuf,
    /// Its new text.
    pub text: String,
    /// A directory to make first (with its parents), when there is one.
    pub make: Option<PathBuf>,
}

/// What `warden init HARNESS` writes, in order, and says.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Installing {
    /// The files, written in this order after the configuration.
    pub writes: Vec<FileWrite>,
    /// What was written where, said before the line and the deadline.
    pub said: Vec<String>,
    /// Said after the line, before its deadline (Claude Code: the client's note and its deny rules).
    pub noted: Vec<String>,
    /// How what was added to `[guardrails] protected` is said.
    pub protecting: Protecting,
    /// The last line: what the human does next.
    pub next: String,
}

/// A harness's file as text under a root (`None`: it does not exist), or why it cannot be read;
/// the command line's, by descriptor (U-1).
pub type Read<'a> = &'a mut dyn FnMut(&Path, &Path) -> Result<Option<String>, String>;

/// How `warden init HARNESS` says what it added to `[guardrails] protected`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Protecting {
    /// `` `[guardrails] protected` += A, B ``.
    #[default]
    Appended,
    /// `` added to `[guardrails] protected` in FILE: A, B `` (Claude Code's words).
    InFile,
}
