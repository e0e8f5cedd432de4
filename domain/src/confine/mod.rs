//! Confinement (issue 50, rulings E-1 … E-12): what a manifest grants an agent's shell, as the
//! operating system will enforce it. Warden's rules judge the command line; the command's
//! process tree then runs under a launcher that the kernel holds to a [`Confinement`]: writes
//! only beneath what the manifest's `Edit(…)` rules grant, a protected path never, reads where
//! its `Read(…)` rules say, no network without a `WebFetch` grant.
//!
//! The policy ([`confinement`]) is pure: the manifest's rules, the workspace, the session's
//! temporary directory, the protected paths and a [`Baseline`] in; the value out. What the
//! kernel cannot express (a glob in the middle of a path) is granted nothing and named in
//! [`Confinement::unenforced`], never widened (E-2). The mechanism (Landlock, namespaces) is
//! the launcher's (`confine/`), which reads the value as [`Confinement::encode`] writes it.

mod applied;
mod encode;
mod paths;
mod policy;
mod stack;

pub use crate::lineage::Applied;
pub use applied::{ConfineMode, Findings, MECHANISM, main_session_confinement, outcome};
pub use encode::{ENCODING_VERSION, Mode, shell_word};
pub use paths::beneath;
pub use policy::{Baseline, Place, confinement, lineage_confinement};

/// What the kernel holds a confined shell call to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Confinement {
    /// Directories (or files) beneath which the process tree may write, read and execute:
    /// absolute, lexically normal, none beneath another.
    pub write: Vec<String>,
    /// Where it may read and execute.
    pub read: Reads,
    /// Protected paths beneath a writable directory: read-only holes in it (E-4).
    pub read_only: Vec<String>,
    /// The network it may reach.
    pub network: Network,
    /// The session's temporary directory, which the launcher names in `TMPDIR` (E-12).
    pub temp: Option<String>,
    /// Held names (T-19), relative: where the launcher finds one at a place it looks (each
    /// write grant's top, the working directory and each directory above it up to its grant,
    /// and [`Confinement::held_at`]), it is a read-only hole, whatever it is; where there is
    /// none, nothing is carved (E-31).
    pub held: Vec<String>,
    /// Held names the launcher holds only where they are not a directory: a `.git` file, which
    /// would point git at another directory and its hooks (E-31).
    pub held_files: Vec<String>,
    /// More directories the launcher looks for held names in: the workspace root (E-31).
    pub held_at: Vec<String>,
    /// The rules the kernel cannot enforce as written, each with why: they grant the shell
    /// nothing (E-2).
    pub unenforced: Vec<String>,
}

/// Where a confined process may read (E-5).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Reads {
    /// Everywhere: the manifest names no read tool.
    #[default]
    All,
    /// Only beneath these (absolute, lexically normal, none beneath another).
    Beneath(Vec<String>),
}

/// What network a confined process may reach (E-6).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Network {
    /// None at all: no interface, no TCP.
    #[default]
    None,
    /// TCP to the web ports for these hosts (lower case); the kernel enforces the ports, not
    /// the hosts (E-6).
    Hosts(Vec<String>),
    /// TCP to the web ports for any host: a bare `WebFetch` rule.
    Any,
    /// Every network the user may reach, unconfined: the main session's shell alone
    /// ([`main_session_confinement`], E-35), held only to its protected paths and held names.
    /// No manifest grants it, and stacked with another it yields the other.
    All,
}

#[cfg(test)]
mod tests;
