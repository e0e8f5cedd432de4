//! The namespaces a confined call runs in (E-11): a user namespace (so that root inside is not
//! root outside, and so that an unprivileged user may do the rest), a mount namespace whose
//! read-only binds carve the protected holes into the write grants (E-4: Landlock only adds
//! rights, so a hole beneath a writable directory needs a mount). No network namespace: with
//! no network granted, Landlock refuses every TCP bind and connect and the socket filter every
//! other IP socket, and a new network namespace cost more than a millisecond a call (E-33).

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use rustix::fs::{FileType, StatVfsMountFlags, fstat, fstatvfs};
use rustix::io::Errno;
use rustix::mount::{
    MountFlags, MountPropagationFlags, MoveMountFlags, OpenTreeFlags, mount_change, mount_remount,
    move_mount, open_tree,
};
use rustix::thread::UnshareFlags;

use crate::open::{self, Grants, Opened};
use crate::policy::Policy;

/// Enters the new namespaces, maps the caller's own user and group into them, opens the grants
/// there and carves the holes (E-29). The grants, opened. `Err` says which step the kernel
/// refused.
pub(crate) fn enter(policy: &Policy) -> Result<Grants, String> {
    let uid = rustix::process::geteuid().as_raw();
    let gid = rustix::process::getegid().as_raw();
    let cwd = std::env::current_dir().map_err(|e| format!("cannot read the working directory: {e}"))?;
    let flags = UnshareFlags::NEWUSER | UnshareFlags::NEWNS;
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
    // Opened in the new mount namespace: a mount moves only within its own.
    let mut grants = open::grants(policy)?;
    let narrowed = carve(policy, &grants.write)?;
    grants.beside = beside(&narrowed)?;
    grants.narrowed = narrowed;
    // The working directory was entered before the holes were mounted, and a path relative to
    // it would be looked up beneath them: entered again, it is looked up through them (E-4).
    std::env::set_current_dir(&cwd).map_err(|e| format!("cannot enter {} again: {e}", cwd.display()))?;
    Ok(grants)
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
/// the protected tree aside and make a new one in its place (E-4). A protected path that does
/// not exist (or has a file on the way to it) cannot be made: each directory from its grant's
/// top down to its nearest existing ancestor refuses the creation of entries and keeps every
/// other right, and is returned so that Landlock is told (E-34). A hole that has a symbolic
/// link on the way to it (a link cannot be a mount point, and the agent may replace it), or a
/// held name missing below its first segment, is carved at its nearest existing real ancestor
/// instead: narrower, never wider. A protected file with another hard link refuses: the other
/// name would write it.
///
/// All of it by descriptor (E-29): each name from the grant down is opened beneath its opened
/// parent with no link followed, checked on the descriptor, and bound from and onto the
/// descriptor, so that a name the agent swaps for a link meanwhile moves nothing. Each
/// directory is pinned once, before anything beneath it, and what is beneath is opened through
/// the pin: a bind over a directory would hide the mounts beneath it and make a hole below
/// writable again. A hole beneath another is left to it.
fn carve(policy: &Policy, grants: &[Opened]) -> Result<Vec<Opened>, String> {
    let mut trees: Vec<(&Opened, Node)> = Vec::new();
    for hole in &policy.read_only {
        // The outermost write grant the hole is beneath; none that exists, no hole is needed:
        // Landlock grants nothing beneath a grant it could not open.
        let Some(grant) =
            grants.iter().filter(|g| hole.starts_with(&g.path)).min_by_key(|g| g.path.components().count())
        else {
            continue;
        };
        let relative =
            hole.strip_prefix(&grant.path).map_err(|_| format!("cannot place {}", hole.display()))?;
        insert(&mut trees, grant, relative, true);
    }
    held(policy, grants, &mut trees)?;
    let mut narrowed = Vec::new();
    for (grant, tree) in &trees {
        match carve_beneath(&grant.fd, tree, &grant.path, &mut narrowed)? {
            Carved::Whole => read_only(&grant.fd, &grant.path)?,
            Carved::Create => {
                let fd =
                    grant.fd.try_clone().map_err(|e| format!("cannot keep {}: {e}", grant.path.display()))?;
                narrowed.push(Opened { path: grant.path.clone(), fd });
            }
            Carved::Done => {}
        }
    }
    Ok(narrowed)
}

/// The most entries a directory that refuses creation may hold (E-34): each directory among
/// them takes a Landlock rule of its own, and a directory with more refuses the call (E-9).
pub(crate) const MOST_ENTRIES: usize = 4096;

/// The directories directly beneath each of the `narrowed` ones that are not narrowed
/// themselves, each opened beneath its parent with no link followed: each takes the write
/// grant's full rights by a rule of its own, since a full rule on a narrowed directory would
/// give creation back beneath it (Landlock's rights are the union of the rules on a file's
/// ancestors, E-34). A link or another kind of file takes no rule; a name gone meanwhile
/// neither (narrower). More than [`MOST_ENTRIES`] entries in one directory refuses.
fn beside(narrowed: &[Opened]) -> Result<Vec<Opened>, String> {
    let mut beside = Vec::new();
    for dir in narrowed {
        let entries = rustix::fs::Dir::new(
            open::directory_beneath(&dir.fd, Path::new("."))
                .map_err(|e| mount_failed("list", &dir.path, e))?,
        )
        .map_err(|e| mount_failed("list", &dir.path, e))?;
        let mut count = 0usize;
        for entry in entries {
            let entry = entry.map_err(|e| mount_failed("list", &dir.path, e))?;
            let name = OsStr::from_bytes(entry.file_name().to_bytes());
            if name == "." || name == ".." {
                continue;
            }
            count += 1;
            if count > MOST_ENTRIES {
                return Err(format!(
                    "{} holds more than {MOST_ENTRIES} entries on the way to a missing protected path",
                    dir.path.display()
                ));
            }
            let path = dir.path.join(name);
            if narrowed.iter().any(|n| n.path == path) {
                continue;
            }
            let fd = match open::beneath(&dir.fd, name) {
                Ok(fd) => fd,
                Err(Errno::NOENT | Errno::LOOP | Errno::NOTDIR) => continue,
                Err(e) => return Err(mount_failed("open", &path, e)),
            };
            if open::kind(&fd)? == FileType::Directory {
                beside.push(Opened { path, fd });
            }
        }
    }
    Ok(beside)
}

/// Adds `relative`, beneath `grant`, to the holes.
/// `protected`: a protected path, which refuses creation on its way where it is missing
/// (E-34), not a held name.
fn insert<'g>(trees: &mut Vec<(&'g Opened, Node)>, grant: &'g Opened, relative: &Path, protected: bool) {
    let at = match trees.iter().position(|(g, _)| std::ptr::eq(*g, grant)) {
        Some(at) => at,
        None => {
            trees.push((grant, Node::default()));
            trees.len() - 1
        }
    };
    if let Some((_, tree)) = trees.get_mut(at) {
        tree.insert(relative.iter().map(OsStr::to_os_string).collect(), protected);
    }
}

/// Adds the held names that exist to the holes (E-31). They are looked for at each write
/// grant's top, in the working directory and each directory above it up to its grant, and at
/// each further place the policy names (the workspace root): where the tools a human runs
/// next (git, a shell, direnv, npm, the harnesses) read them. Deeper ones are not looked for:
/// a walk of the whole tree would cost what the tree costs on every call; the hook holds them
/// for the file tools at any depth.
///
/// A held name is looked up by descriptor beneath its grant, following no link. One that is
/// there is a hole, whatever it is (a link on the way too: carving makes its directory
/// read-only); a held file only where it is not a directory; a name of more than one segment
/// once its first is a directory, what is missing below it carved at its nearest ancestor, so
/// that a `.git` without `hooks` is read-only whole rather than open to a new hook. One that is not there is not
/// carved: nothing can be mounted on a name that does not exist, and making it would write the
/// user's tree; a confined shell may create it (named in `confinement.md`). Should it vanish
/// before it is carved, its directory is made read-only instead (E-4).
fn held<'g>(
    policy: &Policy,
    grants: &'g [Opened],
    trees: &mut Vec<(&'g Opened, Node)>,
) -> Result<(), String> {
    if policy.held.is_empty() && policy.held_files.is_empty() {
        return Ok(());
    }
    let cwd = std::env::current_dir().map_err(|e| format!("cannot read the working directory: {e}"))?;
    for grant in grants {
        if open::kind(&grant.fd)? != FileType::Directory {
            continue;
        }
        let mut places: Vec<PathBuf> = vec![PathBuf::new()];
        if let Ok(below) = cwd.strip_prefix(&grant.path) {
            places.extend(below.ancestors().map(Path::to_path_buf));
        }
        places.extend(
            policy.held_at.iter().filter_map(|at| at.strip_prefix(&grant.path).ok()).map(Path::to_path_buf),
        );
        places.sort();
        places.dedup();
        for place in &places {
            // One listing of the place, its names folded to ASCII lower case: on a directory
            // that folds case, `.GIT` is what git opens as `.git`.
            let listed = match listing(&grant.fd, place) {
                Ok(listed) => listed,
                Err(Errno::NOENT | Errno::NOTDIR | Errno::LOOP) => continue,
                Err(e) => return Err(mount_failed("list", &grant.path.join(place), e)),
            };
            let names =
                policy.held.iter().map(|n| (n, false)).chain(policy.held_files.iter().map(|n| (n, true)));
            for (name, file_only) in names {
                // A name of more than one segment (`.git/hooks`) is held once its first is a
                // directory: what is missing below it is carved at its nearest ancestor (E-4).
                let mut segments = name.iter();
                let Some(wanted) = segments.next() else { continue };
                let deeper = segments.next().is_some();
                let rest: PathBuf = name.iter().skip(1).collect();
                for entry in listed.iter().filter(|(folded, _)| *folded == wanted.to_ascii_lowercase()) {
                    let first = place.join(&entry.1);
                    let relative = first.join(&rest);
                    match open::beneath_path(&grant.fd, &first) {
                        Ok(fd) if (file_only || deeper) && open::kind(&fd)? == FileType::Directory => {
                            if deeper {
                                insert(trees, grant, &relative, false);
                            }
                        }
                        Ok(_) if deeper => {}
                        Ok(_) | Err(Errno::LOOP) => insert(trees, grant, &relative, false),
                        Err(Errno::NOENT | Errno::NOTDIR) => {}
                        Err(e) => return Err(mount_failed("look for", &grant.path.join(&first), e)),
                    }
                }
            }
        }
    }
    Ok(())
}

/// The names in the directory `place` beneath `dir` (opened following no link), each with
/// its ASCII lower-case fold.
fn listing(dir: &OwnedFd, place: &Path) -> Result<Vec<(OsString, OsString)>, Errno> {
    let place = if place.as_os_str().is_empty() { Path::new(".") } else { place };
    let mut names = Vec::new();
    for entry in rustix::fs::Dir::new(open::directory_beneath(dir, place)?)? {
        let name = OsStr::from_bytes(entry?.file_name().to_bytes()).to_os_string();
        names.push((name.to_ascii_lowercase(), name));
    }
    Ok(names)
}

/// The holes beneath one directory, by name.
#[derive(Debug, Default)]
struct Node {
    /// This name is a hole: what is beneath it is its.
    hole: bool,
    /// Every hole here and beneath is a protected path (not a held name): where missing, its
    /// way refuses creation rather than being made read-only (E-34).
    protected: bool,
    children: BTreeMap<OsString, Node>,
}

impl Node {
    fn insert(&mut self, names: Vec<OsString>, protected: bool) {
        let mut node = self;
        for name in names {
            if node.hole {
                node.protected &= protected;
                return;
            }
            node = node.children.entry(name).or_default();
        }
        // A name that is both a held name and a protected path (or holds both beneath) is
        // carved as a held name: read-only where missing below its first segment.
        node.protected = protected && node.all_protected();
        node.hole = true;
        node.children.clear();
    }

    /// Whether every hole here and beneath is a protected path (true where there is none).
    fn all_protected(&self) -> bool {
        if self.hole { self.protected } else { self.children.values().all(Node::all_protected) }
    }
}

/// What is left to the caller once the holes beneath a directory are carved.
#[derive(Debug, PartialEq, Eq)]
enum Carved {
    /// Nothing.
    Done,
    /// A hole could not be carved where it is: the whole directory must be read-only.
    Whole,
    /// A protected path beneath is missing: the directory must refuse the creation of
    /// entries (E-34).
    Create,
}

/// Carves `node`'s holes beneath the directory `dir` (`at` for messages), adding to
/// `narrowed` each directory beneath `dir` that must refuse creation (E-34).
fn carve_beneath(
    dir: &OwnedFd,
    node: &Node,
    at: &Path,
    narrowed: &mut Vec<Opened>,
) -> Result<Carved, String> {
    let mut create = false;
    for (name, child) in &node.children {
        let path = at.join(name);
        let fd = match open::beneath(dir, name) {
            Ok(fd) => fd,
            // A protected path not there: nothing may be made on its way (E-34).
            Err(Errno::NOENT | Errno::NOTDIR) if child.all_protected() => {
                create = true;
                continue;
            }
            // Not there, a link, or a name on the way that is not a directory.
            Err(Errno::NOENT | Errno::LOOP | Errno::NOTDIR) => return Ok(Carved::Whole),
            Err(e) => return Err(mount_failed("open", &path, e)),
        };
        let kind = open::kind(&fd)?;
        if child.hole {
            match kind {
                FileType::Directory => {}
                FileType::RegularFile => {
                    let links = fstat(&fd).map_err(|e| mount_failed("read", &path, e))?.st_nlink;
                    if links > 1 {
                        return Err(format!("the protected file {} has another hard link", path.display()));
                    }
                }
                // A link, a device, a socket: its directory is read-only instead.
                _ => return Ok(Carved::Whole),
            }
            read_only(&fd, &path)?;
        } else {
            if kind == FileType::RegularFile && child.all_protected() {
                // A file on the way: it may be removed, and nothing made in its place (E-34).
                create = true;
                continue;
            }
            if kind != FileType::Directory {
                return Ok(Carved::Whole);
            }
            let pin = bind(&fd, &path)?;
            match carve_beneath(&pin, child, &path, narrowed)? {
                Carved::Whole => read_only(&pin, &path)?,
                Carved::Create => {
                    narrowed.push(Opened { path, fd: pin });
                    create = true;
                }
                Carved::Done => {}
            }
        }
    }
    Ok(if create { Carved::Create } else { Carved::Done })
}

/// Binds what `target` names onto itself, from the descriptor onto the descriptor: the new
/// mount, whose root is what is now looked up there.
fn bind(target: &OwnedFd, path: &Path) -> Result<OwnedFd, String> {
    let tree = open_tree(
        target,
        "",
        OpenTreeFlags::OPEN_TREE_CLONE | OpenTreeFlags::OPEN_TREE_CLOEXEC | OpenTreeFlags::AT_EMPTY_PATH,
    )
    .map_err(|e| mount_failed("clone", path, e))?;
    move_mount(
        &tree,
        "",
        target,
        "",
        MoveMountFlags::MOVE_MOUNT_F_EMPTY_PATH | MoveMountFlags::MOVE_MOUNT_T_EMPTY_PATH,
    )
    .map_err(|e| mount_failed("bind", path, e))?;
    Ok(tree)
}

/// Binds what `target` names onto itself read-only. The remount names the new mount through
/// this process's own descriptor link (`mount(2)` takes no descriptor); whatever that name
/// resolved to, the mount is read back by its descriptor afterwards and must be read-only.
fn read_only(target: &OwnedFd, path: &Path) -> Result<(), String> {
    let tree = bind(target, path)?;
    // A remount keeps the flags an unprivileged namespace may not drop (nosuid, nodev, …).
    let kept = fstatvfs(&tree).map_err(|e| mount_failed("read the flags of", path, e))?.f_flag;
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
    mount_remount(format!("/proc/self/fd/{}", tree.as_raw_fd()), flags, "")
        .map_err(|e| mount_failed("make read-only", path, e))?;
    let now = fstatvfs(&tree).map_err(|e| mount_failed("read the flags of", path, e))?.f_flag;
    if !now.contains(StatVfsMountFlags::RDONLY) {
        return Err(format!("cannot make read-only {}: the mount is still writable", path.display()));
    }
    Ok(())
}

fn mount_failed(what: &str, path: &Path, e: rustix::io::Errno) -> String {
    format!("cannot {what} {}: {e}", path.display())
}

#[cfg(test)]
mod tests {
    use super::{Node, write_proc_self};

    /// A hole is protected (creation refused on its way where missing, E-34) only when every
    /// hole it takes in was inserted as a protected path, in any order.
    #[test]
    fn a_hole_is_protected_only_when_all_it_holds_is() {
        let names = |p: &str| p.split('/').map(std::ffi::OsString::from).collect::<Vec<_>>();
        // (insertions, `a` protected)
        let table: [(&[(&str, bool)], bool); 5] = [
            (&[("a", true)], true),
            (&[("a/b/x", true), ("a", true)], true),
            (&[("a/b/x", false), ("a", true)], false),
            (&[("a", true), ("a/b", false)], false),
            (&[("a", false), ("a", true)], false),
        ];
        for (insertions, expected) in table {
            let mut root = Node::default();
            for (path, protected) in insertions {
                root.insert(names(path), *protected);
            }
            assert_eq!(root.all_protected(), expected, "{insertions:?}");
        }
    }

    /// A name procfs does not have is refused, and nothing is created in its place (no
    /// `O_CREAT`): the launcher writes only files the kernel made (E-11).
    #[test]
    fn a_procfs_name_that_is_not_there_is_refused_never_created() {
        let refused = write_proc_self("agentwarden-no-such-file", "x").unwrap_err();
        assert!(refused.starts_with("cannot write /proc/self/agentwarden-no-such-file"), "{refused}");
        assert!(!std::path::Path::new("/proc/self/agentwarden-no-such-file").exists());
    }
}
