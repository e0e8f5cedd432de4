//! Another process holding the embedded store's lock, as an agent with the user's shell can
//! (`flock -x DB sleep N`).

use std::path::Path;
use std::process::{Child, Command};

/// Holds the lock on the store at `store` (its sled `db` file) until [`unlock`]: `flock -x`
/// with a `sleep` that outlives any test, returned once a non-blocking `flock` fails.
pub(crate) fn lock_store(store: &Path) -> Child {
    let db = store.join("db");
    assert!(db.exists(), "the store exists");
    let mut child = Command::new("flock").args(["-x", "-F"]).arg(&db).args(["sleep", "65"]).spawn().unwrap();
    // Wait until the lock is held: a non-blocking flock fails while it is.
    let held = (0..200).any(|_| {
        let probe = Command::new("flock").args(["-n", "-x"]).arg(&db).arg("true").status().unwrap();
        if probe.success() {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        !probe.success()
    });
    if !held {
        child.kill().unwrap();
        child.wait().unwrap();
    }
    assert!(held, "the lock was never taken");
    child
}

/// Ends the holder `lock_store` started (`-F`: flock runs `sleep` itself, so killing it frees
/// the lock).
pub(crate) fn unlock(mut holder: Child) {
    holder.kill().unwrap();
    holder.wait().unwrap();
}
