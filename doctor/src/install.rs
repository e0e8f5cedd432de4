//! What `warden init HARNESS` writes and says, once the line to install is known (N-14): each
//! harness crate's `setup::install` reads the harness's own files through the reader it is
//! handed and answers with an [`Installing`]; the command line writes the files by descriptor
//! (U-4), in order, and prints. Nothing is written when the harness refuses. Here too what a
//! harness's install is handed: its own options as its `init` subcommand parsed them
//! ([`InitOptions`]) and the line the command line prepared ([`Prepared`], N-19).

use std::path::{Path, PathBuf};

use agentwarden::Config;

use crate::error::InitError;

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
pub type Read<'a> = &'a mut dyn FnMut(&Path, &Path) -> Result<Option<String>, InitError>;

/// Why a harness's `init` writes nothing (N-14): a file it reads that cannot be read or is not
/// what Warden writes into, a place it cannot find, hooks not Warden's where it would write.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InstallError {
    /// A file cannot be read (the reader's reason).
    #[error(transparent)]
    Read(#[from] InitError),
    /// The harness's own file is not what Warden writes into: why, in the harness's words.
    #[error("`{}`: {reason}; nothing written", file.display())]
    File {
        file: PathBuf,
        #[source]
        reason: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The harness's settings file is not a JSON object.
    #[error("`{}` is not a JSON object; nothing written", file.display())]
    NotAnObject { file: PathBuf },
    /// The merged settings cannot be encoded.
    #[error("cannot encode the settings: {0}")]
    Encode(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// The harness's home or user folder cannot be found: `what` is missing, `fix` says how
    /// to name it.
    #[error("no {what}: {fix}")]
    NoPlace { what: &'static str, fix: &'static str },
    /// The file Warden would write holds hooks that are not Warden's (a hand-written one).
    #[error("`{}` holds hooks that are not Warden's; move them to another file, nothing written", file.display())]
    ForeignHooks { file: PathBuf },
}

impl InstallError {
    /// `file` is not what Warden writes into, for `reason`.
    pub fn file(file: &Path, reason: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> InstallError {
        InstallError::File { file: file.to_path_buf(), reason: reason.into() }
    }
}

/// How `warden init HARNESS` says what it added to `[guardrails] protected`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Protecting {
    /// `` `[guardrails] protected` += A, B ``.
    #[default]
    Appended,
    /// `` added to `[guardrails] protected` in FILE: A, B `` (Claude Code's words).
    InFile,
}

/// What every harness's `init` has before it writes anything: made by `init`'s
/// `Prepared::prepare`, handed to the harness's [`InitOptions::install`].
#[derive(Debug)]
pub struct Prepared {
    /// The project's root, canonical.
    pub project: PathBuf,
    /// Its `agentwarden.toml`.
    pub config_path: PathBuf,
    /// The configuration with the guard's own files protected, when any was added.
    pub new_config: String,
    /// The files added to `[guardrails] protected`.
    pub added: Vec<String>,
    /// The guard's own files.
    pub own: Vec<String>,
    /// The line's deadline, in milliseconds.
    pub deadline: u64,
    /// The lock wait, in milliseconds.
    pub lock_ms: u64,
    /// The hook line.
    pub command: String,
    /// The `warden` binary, and the configuration as loaded (Claude Code's deny rules name both).
    pub exe: PathBuf,
    /// The configuration as loaded.
    pub config: Config,
    /// Whether the line asks a server.
    pub served: bool,
    /// The hook client beside `warden` the line runs, when there is one (V-34).
    pub hook_binary: Option<PathBuf>,
}

/// `warden init NAME`'s subcommand, named `name`, with the options of the harness's `A` (what
/// each harness's [`Integration::init_command`](crate::Integration::init_command) returns, N-19).
pub fn init_command<A: clap::Args>(name: &'static str) -> clap::Command {
    A::augment_args(clap::Command::new(name))
}

/// What that subcommand parsed into `matches`, as the harness's `A` (each harness's
/// [`Integration::init_options`](crate::Integration::init_options), N-19).
pub fn init_options<A: clap::FromArgMatches + InitOptions + 'static>(
    matches: &clap::ArgMatches,
) -> Result<Box<dyn InitOptions>, clap::Error> {
    Ok(Box::new(A::from_arg_matches(matches)?))
}

/// The options of `warden init NAME` every harness takes, in the same words: where the project
/// is and which `warden` its hooks run. Each harness's options flatten them first (N-19).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct InitPlaces {
    /// The project's root directory [default: the nearest directory, from here upward, with an
    /// `agentwarden.toml` (N-1), else this one].
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// The `warden` binary the hook runs (default: this one).
    #[arg(long, value_name = "PATH")]
    pub warden: Option<PathBuf>,
}

/// What `warden init NAME` was given, as the harness's own subcommand parsed it
/// ([`Integration::init_command`](crate::Integration::init_command)): the options every harness
/// takes, and the harness's install with its own (N-14, N-19).
pub trait InitOptions: std::fmt::Debug {
    /// The options every harness's `init` takes ([`InitPlaces`]).
    fn places(&self) -> &InitPlaces;
    /// `--project`: the project's root directory, else the project found from here upward (N-1).
    fn project(&self) -> Option<&Path> {
        self.places().project.as_deref()
    }
    /// `--warden`: the `warden` binary the hooks run, else this one.
    fn warden(&self) -> Option<&Path> {
        self.places().warden.as_deref()
    }
    /// `--timeout`: the harness's timeout for each hook call, in seconds.
    fn timeout(&self) -> u64;
    /// What the harness writes and says for the `prepared` line, its files read through `read`;
    /// `Err` says why nothing is written.
    fn install(&self, prepared: &Prepared, read: Read<'_>) -> Result<Installing, InstallError>;
}
