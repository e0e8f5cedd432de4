//! Which binary the installed hook line runs (`warden hook`'s default deadline is the
//! registry's, `super::integrations`). The line
//! itself, its fail-closed tail and its time budget are each harness's knowledge
//! (`agentwarden_claude_code::setup::line`, `agentwarden_codex::setup::line`, H-6, H-9, H-10);
//! here is only what lies on this machine: the resident service's hook client beside `warden`
//! (V-34).

use std::path::{Path, PathBuf};

/// The resident service's hook client, `warden-hook`, beside the `warden` binary at `exe`
/// (canonical), when it is there and is a file (V-34).
pub(super) fn client_binary(exe: &Path) -> Option<PathBuf> {
    let client = exe.with_file_name(CLIENT_BINARY);
    let client = std::fs::canonicalize(client).ok()?;
    std::fs::metadata(&client).is_ok_and(|m| m.is_file()).then_some(client)
}

/// The name of the resident service's hook client (V-34).
pub(super) const CLIENT_BINARY: &str = "warden-hook";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_client_binary_is_the_one_beside_warden_or_none() {
        let dir = tempfile::tempdir().unwrap();
        let warden = dir.path().join("warden");
        std::fs::write(&warden, "").unwrap();
        assert_eq!(client_binary(&warden), None, "none beside it: `warden hook` is installed");
        std::fs::create_dir(dir.path().join(CLIENT_BINARY)).unwrap();
        assert_eq!(client_binary(&warden), None, "a directory by that name is not a client");
        std::fs::remove_dir(dir.path().join(CLIENT_BINARY)).unwrap();
        std::fs::write(dir.path().join(CLIENT_BINARY), "").unwrap();
        let found = client_binary(&warden).unwrap();
        assert_eq!(found, std::fs::canonicalize(dir.path().join(CLIENT_BINARY)).unwrap());
    }
}
