//! What the CLI tests that run a second OS user share: making the user, and running a command
//! as it (`setpriv`). They need root, as CI runs them.

use std::process::Command;

/// `CMD` as `user` (`setpriv`, no supplementary groups).
pub(crate) fn as_user(user: &str, program: &str) -> Command {
    let mut command = Command::new("setpriv");
    command.args(["--reuid", user, "--regid", user, "--clear-groups", "--", program]);
    command.env_remove("CLAUDECODE").env_remove("AGENTWARDEN_SERVER");
    command
}

/// Makes the system user `name` when it is not there.
pub(crate) fn ensure_user(name: &str) {
    let known = Command::new("id").arg("-u").arg(name).output().unwrap();
    if !known.status.success() {
        let made = Command::new("useradd")
            .args(["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name])
            .output()
            .unwrap();
        assert!(made.status.success(), "useradd {name}: {}", String::from_utf8_lossy(&made.stderr));
    }
}

/// Whether this process runs as root.
pub(crate) fn is_root() -> bool {
    Command::new("id").arg("-u").output().is_ok_and(|o| o.stdout.starts_with(b"0\n"))
}
