//! The socket's lock and the socket itself (V-9): one server per socket; a live socket is
//! refused, a stale one replaced, anything else at the path refused, never removed.

use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};

use rustix::fs::{Mode, OFlags};
use tokio::net::UnixListener;

/// Takes `PATH.lock` (V-9): one server per socket.
pub(crate) fn lock(socket: &Path) -> Result<std::fs::File, String> {
    let mut name = socket.as_os_str().to_owned();
    name.push(".lock");
    let path = PathBuf::from(name);
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create `{}`: {e}", dir.display()))?;
    }
    // Mode 0600, also when it was there before: `flock` works on a descriptor opened for
    // reading, so a lock file others can read is one they can hold to keep the server down.
    // Opened `O_NOFOLLOW` and checked on the descriptor (U-1): a link or a FIFO planted at the
    // name is refused, and the mode is set on what was opened (`fchmod`), never on a link's target.
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let file = rustix::fs::open(&path, flags, Mode::from_raw_mode(0o600))
        .map_err(std::io::Error::from)
        .and_then(|fd| {
            let file = std::fs::File::from(fd);
            if !file.metadata()?.is_file() {
                return Err(std::io::Error::other("not a regular file"));
            }
            rustix::fs::fchmod(&file, Mode::from_raw_mode(0o600))?;
            Ok(file)
        })
        .map_err(|e| format!("cannot open `{}`: {e}", path.display()))?;
    rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive).map_err(|_| {
        format!(
            "refused: another `warden serve` holds `{}`; stop it first (`warden status --server {}`)",
            path.display(),
            socket.display()
        )
    })?;
    Ok(file)
}

/// Binds the socket (V-9): a live one is refused, a stale one replaced, anything else refused.
pub(crate) fn bind(socket: &Path, mode: u32) -> Result<UnixListener, String> {
    match std::fs::symlink_metadata(socket) {
        Ok(meta) if meta.file_type().is_socket() => match std::os::unix::net::UnixStream::connect(socket) {
            Ok(_) => {
                return Err(format!(
                    "refused: a server already answers at `{}`; stop it first",
                    socket.display()
                ));
            }
            Err(_) => {
                tracing::info!(socket = %socket.display(), "replacing a stale socket");
                std::fs::remove_file(socket)
                    .map_err(|e| format!("cannot remove the stale socket `{}`: {e}", socket.display()))?;
            }
        },
        Ok(_) => {
            return Err(format!(
                "refused: `{}` exists and is not a socket; remove it or choose another --socket",
                socket.display()
            ));
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(format!("cannot check `{}`: {e}", socket.display())),
    }
    let listener = std::os::unix::net::UnixListener::bind(socket)
        .and_then(|l| l.set_nonblocking(true).map(|()| l))
        .map_err(|e| format!("cannot listen on `{}`: {e}", socket.display()))?;
    std::fs::set_permissions(socket, std::fs::Permissions::from_mode(mode))
        .map_err(|e| format!("cannot set the mode of `{}`: {e}", socket.display()))?;
    UnixListener::from_std(listener).map_err(|e| format!("cannot listen on `{}`: {e}", socket.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_or_a_fifo_planted_at_the_lock_is_refused_and_its_target_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "keep").unwrap();
        std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o644)).unwrap();
        let socket = dir.path().join("warden.sock");
        std::os::unix::fs::symlink(&victim, dir.path().join("warden.sock.lock")).unwrap();
        assert!(lock(&socket).is_err(), "a link at the lock's name is not followed");
        let mode = std::fs::metadata(&victim).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o644, "the link's target keeps its mode");

        let fifo_socket = dir.path().join("other.sock");
        let made = std::process::Command::new("mkfifo").arg(dir.path().join("other.sock.lock")).status();
        assert!(made.unwrap().success());
        assert!(lock(&fifo_socket).is_err(), "a FIFO at the lock's name is refused, never waited on");

        let good = dir.path().join("good.sock");
        let held = lock(&good).unwrap();
        assert_eq!(held.metadata().unwrap().permissions().mode() & 0o777, 0o600);
    }
}
