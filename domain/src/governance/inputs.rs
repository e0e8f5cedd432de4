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
    /// The text, or why there is none, as `"{described} does not exist"` or
    /// `"{described} {why}"` (e.g. described = "request file `r.json`").
    pub fn into_text(self, described: &str) -> Result<String, String> {
        match self {
            FileRead::Text(text) => Ok(text),
            FileRead::Missing => Err(format!("{described} does not exist")),
            FileRead::Unreadable(why) => Err(format!("{described} {why}")),
        }
    }
}
