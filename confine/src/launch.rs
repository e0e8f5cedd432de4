//! The launcher's one use: `warden-confine CONFINEMENT COMMAND`. It confines itself, then
//! becomes `/bin/sh -c COMMAND`, the command byte for byte (E-8): the shell and everything it
//! starts inherit the confinement, which nothing they do can lift (E-7).

use std::ffi::OsString;
use std::os::unix::process::CommandExt;

use crate::policy::{Mode, Policy, PolicyError, decode};

/// The exit status when the launcher refuses (E-9): as `env` and `chroot` do, 125 says the
/// launcher failed and the command never ran.
pub const REFUSED: i32 = 125;

/// The shell every command runs in.
pub const SHELL: &str = "/bin/sh";

/// Runs the launcher with `args` (the program name first). Returns only when the command could
/// not be run: the exit status, a line on standard error saying why.
pub fn main_with(args: Vec<OsString>) -> i32 {
    let [_, confinement, command] = args.as_slice() else {
        eprintln!("warden-confine: usage: warden-confine CONFINEMENT COMMAND (two arguments)");
        return REFUSED;
    };
    let policy = match confinement.to_str().ok_or(PolicyError::NotUtf8).and_then(decode) {
        Ok(policy) => policy,
        Err(why) => {
            eprintln!("warden-confine: refused: {why}");
            return REFUSED;
        }
    };
    match confine(&policy) {
        Ok(_) => {}
        Err(why) if policy.mode == Mode::Recorded => {
            eprintln!("warden-confine: running UNCONFINED (mode recorded): {why}");
        }
        Err(why) => {
            eprintln!("warden-confine: refused: cannot confine: {why}");
            return REFUSED;
        }
    }
    let mut shell = std::process::Command::new(SHELL);
    shell.arg0("sh").arg("-c").arg(command);
    // The tools write their temporary files where the session may write (E-12).
    if let Some(temp) = &policy.temp {
        shell.env("TMPDIR", temp);
    }
    let error = shell.exec();
    eprintln!("warden-confine: cannot run {SHELL}: {error}");
    REFUSED
}

/// Why the launcher could not confine itself (E-9), by the mechanism that failed; each carries
/// the reason that mechanism's step gave, which names what it was doing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfineError {
    /// No-new-privileges could not be set.
    #[error("cannot set no-new-privileges: {0}")]
    NoNewPrivileges(#[source] rustix::io::Errno),
    /// The namespaces, their mounts or the holes (E-31).
    #[error("{0}")]
    Namespaces(String),
    /// Landlock (E-7).
    #[error("{0}")]
    Landlock(String),
    /// The socket filter (E-32, E-33).
    #[error("{0}")]
    Seccomp(String),
}

/// Confines this process as `policy` says: the namespaces and holes first (a Landlock domain
/// may no longer mount), then Landlock, which also sets no-new-privileges, then the socket
/// filter (E-32, E-33), which the main session's whole network goes without (E-35). What was
/// enforced.
pub fn confine(policy: &Policy) -> Result<String, ConfineError> {
    use crate::policy::Network;
    rustix::thread::set_no_new_privs(true).map_err(ConfineError::NoNewPrivileges)?;
    let grants = crate::namespace::enter(policy).map_err(ConfineError::Namespaces)?;
    let enforced = crate::rules::restrict(policy, &grants).map_err(ConfineError::Landlock)?;
    if policy.network == Network::All {
        return Ok(enforced);
    }
    crate::filter::restrict(policy.network != Network::None).map_err(ConfineError::Seccomp)?;
    Ok(format!("{enforced}, seccomp"))
}
