//! What the application read, handed to the gate raw (ARCHITECTURE: the domain is strict about
//! types because it sees them as they were).

/// The kill-switch variable as read from the environment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EnvValue {
    /// Not set.
    Unset,
    /// Set, but not valid Unicode.
    NotUnicode,
    /// Set to this exact text (no trimming).
    Set(String),
}

/// An instruction file as read from its directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileRead {
    /// There is no such file.
    Missing,
    /// It exists but could not be read (permissions, not UTF-8, too large, not a file…).
    Unreadable(String),
    /// Its text.
    Text(String),
}

impl FileRead {
    /// The text, or why there is none, said `"{described} does not exist"` or
    /// `"{described} {why}"` (e.g. described = "request file `r.json`").
    pub fn into_text(self, described: &str) -> Result<String, FileReadError> {
        match self {
            FileRead::Text(text) => Ok(text),
            FileRead::Missing => Err(FileReadError::Missing { described: described.to_owned() }),
            FileRead::Unreadable(why) => {
                Err(FileReadError::Unreadable { described: described.to_owned(), why })
            }
        }
    }
}

/// Why a file read has no text, by cause: the file as the reader described it, and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FileReadError {
    /// There is no such file.
    #[error("{described} does not exist")]
    Missing {
        /// The file, as the reader described it (`request file `r.json``).
        described: String,
    },
    /// It exists but could not be read.
    #[error("{described} {why}")]
    Unreadable {
        /// The file, as the reader described it.
        described: String,
        /// Why, as the reader said it (`is not UTF-8`).
        why: String,
    },
}
