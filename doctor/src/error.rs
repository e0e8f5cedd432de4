//! The errors of `warden init`'s steps whatever the harness, by cause (issue 49 item 4, X-97,
//! what `init` refuses before it writes, why `[guardrails] protected` cannot be added to,
//! a file the guard must protect that lies outside the project. A leaf of the crate, so that
//! `init`, `install` and `guarded` share them without depending on each other.

use std::path::PathBuf;

use agentwarden::ConfigError;
use agentwarden::files::UntrustedError;
use agentwarden_protocol::hook_line::BudgetError;

/// Why `warden init HARNESS` refuses before it writes (its words say "nothing written" where a
/// file was to be read or edited), or why a write failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InitError {
    /// No project found from here upward (N-1).
    #[error(transparent)]
    NoProject(Box<ConfigError>),
    /// The project's directory cannot be made canonical.
    #[error("`{}`: {source}", project.display())]
    Project { project: PathBuf, source: std::io::Error },
    /// `--server` cannot be made absolute.
    #[error("--server: {0}")]
    Server(#[source] std::io::Error),
    /// The hook line's time budget leaves no room (H-10).
    #[error("refused: {0}")]
    Budget(#[source] BudgetError),
    /// This binary cannot be found.
    #[error("cannot find this binary: {0}")]
    NoBinary(#[source] std::io::Error),
    /// `--warden` names no usable binary.
    #[error("`{}` is not a usable warden binary: {source}", exe.display())]
    Binary { exe: PathBuf, source: std::io::Error },
    /// The project has no configuration; `guide` says how to write one.
    #[error("there is no `{}`; write it first (see {guide}), nothing written", config.display())]
    NoConfig { config: PathBuf, guide: &'static str },
    /// The configuration does not load.
    #[error("{0}; nothing written")]
    Config(#[source] Box<ConfigError>),
    /// A file the guard must protect lies outside the project (H-12).
    #[error("{0}; nothing written")]
    Outside(#[source] OutsideProject),
    /// `[guardrails] protected` cannot be added to (H-12).
    #[error("`{}`: {source}; nothing written", config.display())]
    Protect { config: PathBuf, source: ProtectError },
    /// A directory a file goes in cannot be made.
    #[error("`{}`: {source}", dir.display())]
    MakeDir { dir: PathBuf, source: std::io::Error },
    /// A file cannot be read by descriptor (U-1).
    #[error("cannot read {0}; nothing written")]
    Unreadable(#[source] UntrustedError),
    /// A file cannot be written by descriptor (U-4).
    #[error("cannot write {0}")]
    Unwritable(#[source] UntrustedError),
}

/// Why `[guardrails] protected` cannot be added to: the configuration is not TOML, or the key
/// is not what Warden writes into.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProtectError {
    /// The configuration is not TOML.
    #[error(transparent)]
    Toml(Box<toml_edit::TomlError>),
    /// `guardrails` is not a table.
    #[error("`guardrails` is not a table")]
    NotATable,
    /// `guardrails.protected` is not an array.
    #[error("`guardrails.protected` is not an array")]
    NotAnArray,
    /// `guardrails.protected` holds something other than a string.
    #[error("`guardrails.protected` holds a non-string")]
    NonString,
}

/// A file the guard must protect of itself that lies outside the project (H-12): it cannot be
/// protected there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{what} `{}` is outside the project `{}`: the guard cannot protect it; move it into the project",
    path.display(),
    project.display()
)]
pub struct OutsideProject {
    /// What the file is, in the harness's or the configuration's words.
    pub what: &'static str,
    /// The file.
    pub path: PathBuf,
    /// The project's root.
    pub project: PathBuf,
}
