//! The namespaces a confined call runs in (E-11): a user namespace (so that root inside is not
//! root outside, and so that an unprivileged user may do the rest), a mount namespace whose
//! read-only binds carve the protected holes into the write grants (E-4: Landlock only adds
//! rights, so a hole beneath a writable directory needs a mount), and, with no network granted,
//! a network namespace with no interface (E-6).

use std::path::{Path, PathBuf};

use rustix::fs::{StatVfsMountFlags, statvfs};
use rustix::mount::{MountFlags, MountPropagationFlags, mount_bind, mount_change, mount_remount};
use rustix::thread::UnshareFlags;

use crate::policy::{Network, Policy};

/// Enters the new namespaces, maps the caller's own user and group into them, and carves the
/// holes. `Err` says which step the kernel refused.
pub(crate) fn enter(policy: &Policy) -> Result<(), String> {
    let uid = rustix::process::geteuid().as_raw();
    let gid = rustix::process::getegid().as_raw();
    let cwd = std::env::current_dir().map_err(|e| format!("cannot read the working directory: {e}"))?;
    let mut flags = UnshareFlags::NEWUSER | UnshareFlags::NEWNS;
    if policy.network == Network::None {
        flags |= UnshareFlags::NEWNET;
    }
    // The one `unshare` flag that is not safe is `CLONE_FILES` (another thread's descriptors),
    // which this never passes, in a process with one thread.
    #[expect(deprecated, reason = "rustix's safe `unshare` is deprecated for CLONE_FILES alone")]
    rustix::thread::unshare(flags).map_err(|e| format!("no user namespace: {e}"))?;
    // The caller's own identity only: an unprivileged user may map no other, and root inside
    // is root of nothing outside (E-11).
    write_proc_self("setgroups", "deny")?;
    write_proc_self("uid_map", &format!("{uid} {uid} 1"))?;
    write_proc_self("gid_map", &format!("{gid} {gid} 1"))?;
    mount_change("/", MountPropagationFlags::PRIVATE | MountPropagationFlags::REC)
        .map_err(|e| format!("cannot make the mounts private: {e}"))?;
    carve(policy)?;
    // The working directory was entered before the holes were mounted, and a path relative to
    // it would be looked up beneath them: entered again, it is looked up through them (E-4).
    std::env::set_current_dir(&cwd).map_err(|e| format!("cannot enter {} again: {e}", cwd.display()))
}

/// Writes `text` to `name` in this process's own procfs directory, by descriptor: `/proc`
/// opened as a directory without following a link and checked to be procfs, then the file opened
/// beneath it with nothing created and checked to be procfs too. A file mounted or linked in its
/// place (by an agent that runs the launcher inside a mount namespace of its own) is refused,
/// never written (E-11).
fn write_proc_self(name: &str, text: &str) -> Result<(), String> {
    use rustix::fs::{Mode, OFlags, PROC_SUPER_MAGIC, fstatfs, open, openat};
    let path = format!("/proc/self/{name}");
    let failed = |e: rustix::io::Errno| format!("cannot write {path}: {e}");
    let procfs = |fd: &std::os::fd::OwnedFd| fstatfs(fd).is_ok_and(|s| s.f_type == PROC_SUPER_MAGIC);
    let flags = OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::RDONLY;
    let proc = open("/proc", flags, Mode::empty()).map_err(failed)?;
    if !procfs(&proc) {
        return Err(format!("cannot write {path}: `/proc` is not procfs"));
    }
    let flags = OFlags::WRONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NOCTTY;
    let file = openat(&proc, format!("self/{name}"), flags, Mode::empty()).map_err(failed)?;
    if !procfs(&file) {
        return Err(format!("cannot write {path}: it is not procfs"));
    }
    let written = rustix::io::write(&file, text.as_bytes()).map_err(failed)?;
    if written != text.len() {
        return Err(format!("cannot write {path}: {written} of {} bytes written", text.len()));
    }
    Ok(())
}

/// Makes each hole read-only, and pins every directory between it and its write grant so
/// that none can be renamed or removed (a mount point cannot be): else the agent would move
/// the protected tree aside and make a new one in its place (E-4). A hole that does not exist,
/// or has a symbolic link on the way to it (a link cannot be a mount point, and the agent may
/// replace it), is carved at its nearest existing real ancestor instead: narrower, never wider.
/// A protected file with another hard link refuses: the other name would write it.
///
/// Every pin is bound before any hole, and a hole beneath another is left to it: a bind over a
/// directory hides the mounts beneath it, and would make a hole below writable again.
fn carve(policy: &Policy) -> Result<(), String> {
    let mut targets: Vec<(PathBuf, &Path)> = Vec::new();
    for hole in &policy.read_only {
        // Landlock grants nothing beneath a grant that does not exist: no hole is needed there.
        let Some(grant) = policy.write.iter().find(|w| hole.starts_with(w) && w.exists()) else { continue };
        targets.push((place(hole, grant)?, grant));
    }
    let outer: Vec<(PathBuf, &Path)> = targets
        .iter()
        .filter(|(t, _)| !targets.iter().any(|(other, _)| other != t && t.starts_with(other)))
        .cloned()
        .collect();
    let mut pins: Vec<&Path> = outer
        .iter()
        .flat_map(|(target, grant)| {
            target.ancestors().skip(1).take_while(move |a| a != grant && a.starts_with(grant))
        })
        .collect();
    pins.sort_by_key(|pin| (pin.components().count(), pin.to_path_buf()));
    pins.dedup();
    for pin in pins {
        mount_bind(pin, pin).map_err(|e| mount_failed("pin", pin, e))?;
    }
    for (target, _) in &outer {
        read_only(target)?;
    }
    Ok(())
}

/// Where `hole`, beneath the existing write grant `grant`, is carved: itself, or its nearest
/// existing real ancestor.
fn place(hole: &Path, grant: &Path) -> Result<PathBuf, String> {
    let mut target: PathBuf = hole.to_path_buf();
    while target != grant && !is_real(&target) {
        target = match target.parent() {
            Some(parent) => parent.to_path_buf(),
            None => return Err(format!("cannot place the hole {}", hole.display())),
        };
    }
    let meta = std::fs::metadata(&target).map_err(|e| format!("cannot read {}: {e}", target.display()))?;
    if meta.is_file() && std::os::unix::fs::MetadataExt::nlink(&meta) > 1 {
        return Err(format!("the protected file {} has another hard link", target.display()));
    }
    Ok(target)
}

/// Binds `target` onto itself read-only.
fn read_only(target: &Path) -> Result<(), String> {
    mount_bind(target, target).map_err(|e| mount_failed("bind", target, e))?;
    // A remount keeps the flags an unprivileged namespace may not drop (nosuid, nodev, …).
    let kept = statvfs(target).map_err(|e| mount_failed("read the flags of", target, e))?.f_flag;
    let mut flags = MountFlags::BIND | MountFlags::RDONLY;
    for (vfs, mount) in [
        (StatVfsMountFlags::NOSUID, MountFlags::NOSUID),
        (StatVfsMountFlags::NODEV, MountFlags::NODEV),
        (StatVfsMountFlags::NOEXEC, MountFlags::NOEXEC),
        (StatVfsMountFlags::NOATIME, MountFlags::NOATIME),
        (StatVfsMountFlags::NODIRATIME, MountFlags::NODIRATIME),
        (StatVfsMountFlags::RELATIME, MountFlags::RELATIME),
    ] {
        if kept.contains(vfs) {
            flags |= mount;
        }
    }
    mount_remount(target, flags, "").map_err(|e| mount_failed("make read-only", target, e))
}

/// Exists, and is its own real path: no symbolic link on the way to it, which the agent could
/// replace after the hole is carved.
fn is_real(path: &Path) -> bool {
    std::fs::canonicalize(path).is_ok_and(|real| real == path)
}

fn mount_failed(what: &str, path: &Path, e: rustix::io::Errno) -> String {
    format!("cannot {what} {}: {e}", path.display())
}

#[cfg(test)]
mod tests {
    use super::write_proc_self;

    /// A name procfs does not have is refused, and nothing is created in its place (no
    /// `O_CREAT`): the launcher writes only files the kernel made (E-11).
    #[test]
    fn a_procfs_name_that_is_not_there_is_refused_never_created() {
        let refused = write_proc_self("agentwarden-no-such-file", "x").unwrap_err();
        assert!(refused.starts_with("cannot write /proc/self/agentwarden-no-such-file"), "{refused}");
        assert!(!std::path::Path::new("/proc/self/agentwarden-no-such-file").exists());
    }
}
