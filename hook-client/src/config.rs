//! What the hook client needs of the configuration: which file it is (the server must decide
//! with the same one, V-3) and `[server] uid` (which may only agree with the installed line's
//! `--server-uid`, V-12, V-49).
//!
//! V-53: the client reads only that. The file is found as every command finds it (N-1: the
//! working directory upward, stopping after the repository's root), canonicalized, and parsed
//! as TOML; `[server]`, when present, must be a table and its `uid` a user id. A file that
//! cannot be read or parsed, or a `uid` that is not a user id, refuses the hook here
//! (`config_invalid`, exit 2): it cannot say which server to trust. Everything else the file
//! says is read by the server, which decides with this very file or refuses (V-3): a file the
//! server cannot use is exit 2 there, as here.

use std::path::{Path, PathBuf};

use agentwarden_domain::code::Code;
use agentwarden_protocol::ClientError;

/// The configuration's name in a project.
pub const CONFIG_FILE: &str = "agentwarden.toml";

/// The canonical path of the configuration `path` names (or the project's, found from the
/// working directory upward as every command finds it, N-1), `None` when there is none. The
/// error's code is [`Code::ConfigInvalid`].
pub fn config_file(path: Option<&Path>) -> Result<Option<PathBuf>, ClientError> {
    let found;
    let path = match path {
        Some(path) => path,
        None => {
            let here = std::env::current_dir().map_err(|e| {
                invalid(format!("`{CONFIG_FILE}`: cannot read the working directory to look for it: {e}"))
            })?;
            match discover_from(&here)? {
                Some(discovered) => {
                    found = discovered;
                    found.as_path()
                }
                None => return Ok(None),
            }
        }
    };
    std::fs::canonicalize(path).map(Some).map_err(|e| invalid(format!("`{}`: {e}", path.display())))
}

/// A configuration that cannot be used: the hook is refused, it cannot say which server to
/// trust (V-53).
fn invalid(reason: String) -> ClientError {
    ClientError::new(Code::ConfigInvalid, reason)
}

/// The configuration in `start` (an absolute directory) or its nearest parent that has one; the
/// search stops after the first directory that holds `.git`, and at the root. Anything by that
/// name is the configuration (never skipped for one further up).
fn discover_from(start: &Path) -> Result<Option<PathBuf>, ClientError> {
    let exists = |path: &Path| match std::fs::symlink_metadata(path) {
        Ok(_) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(invalid(format!(
            "`{}`: cannot look for the project's configuration here: {e}",
            path.display()
        ))),
    };
    for dir in start.ancestors() {
        let candidate = dir.join(CONFIG_FILE);
        if exists(&candidate)? {
            return Ok(Some(candidate));
        }
        if exists(&dir.join(".git"))? {
            return Ok(None);
        }
    }
    Ok(None)
}

/// The largest configuration read (the application's bound on every file it decides with).
const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// `[server] uid` of the configuration at `path` (none: no file), read strictly (V-53).
pub fn configured_uid(path: Option<&Path>) -> Result<Option<u32>, ClientError> {
    let Some(path) = path else { return Ok(None) };
    let refused = |why: String| invalid(format!("`{}`: {why}", path.display()));
    uid_in(&read_config(path).map_err(refused)?).map_err(refused)
}

/// The configuration's text, read as every file an agent can touch is read (U-1, U-3): by
/// descriptor, never through a link at its name (`O_NOFOLLOW`), never waiting on a FIFO
/// (`O_NONBLOCK`), a regular file only (checked on the descriptor), at most
/// [`MAX_CONFIG_BYTES`].
fn read_config(path: &Path) -> Result<String, String> {
    use rustix::fs::{FileType, Mode, OFlags};
    use std::io::Read;
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let fd = rustix::fs::open(path, flags, Mode::empty()).map_err(|e| match e {
        rustix::io::Errno::LOOP => "it is a symbolic link, not a regular file".to_owned(),
        e => std::io::Error::from(e).to_string(),
    })?;
    let stat = rustix::fs::fstat(&fd).map_err(|e| std::io::Error::from(e).to_string())?;
    if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile {
        return Err("it is not a regular file".to_owned());
    }
    let mut bytes = Vec::new();
    std::fs::File::from(fd).take(MAX_CONFIG_BYTES + 1).read_to_end(&mut bytes).map_err(|e| e.to_string())?;
    if u64::try_from(bytes.len()).unwrap_or(u64::MAX) > MAX_CONFIG_BYTES {
        return Err(format!("it is larger than {MAX_CONFIG_BYTES} bytes"));
    }
    String::from_utf8(bytes).map_err(|_| "it is not UTF-8".to_owned())
}

/// `[server] uid` in a configuration's text.
fn uid_in(text: &str) -> Result<Option<u32>, String> {
    let table: toml::Table = toml::from_str(text).map_err(|e| e.message().to_owned())?;
    let server = match table.get("server") {
        None => return Ok(None),
        Some(toml::Value::Table(server)) => server,
        Some(_) => return Err("`server` is not a table".to_owned()),
    };
    match server.get("uid") {
        None => Ok(None),
        Some(toml::Value::Integer(uid)) => {
            u32::try_from(*uid).map(Some).map_err(|_| format!("`[server] uid = {uid}` is not a user id"))
        }
        Some(other) => Err(format!("`[server] uid` is a {}, not a user id", other.type_str())),
    }
}

/// The user the server must run as: the command line's `--server-uid`, and the configuration's
/// `[server] uid`, which may only agree with it (V-12, V-49).
pub fn server_uid(line: Option<u32>, configured: Option<u32>) -> Result<Option<u32>, ClientError> {
    match (line, configured) {
        (Some(line), Some(configured)) if line != configured => Err(invalid(format!(
            "`[server] uid = {configured}` in the configuration disagrees with the installed line's \
             `--server-uid {line}`; the installed line names the server (run `warden init claude-code \
             --server` again, or put the configuration back)"
        ))),
        (line, configured) => Ok(line.or(configured)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_uid_is_read_strictly_and_nothing_else_is_judged() {
        type Row<'a> = (&'a str, Result<Option<u32>, ()>, &'a str);
        let rows: [Row<'_>; 10] = [
            ("", Ok(None), "an empty file"),
            ("[server]\nsocket = \"s\"\n", Ok(None), "no uid"),
            ("[server]\nsocket = \"s\"\nuid = 998\n", Ok(Some(998)), "a uid"),
            ("[claude_code]\nmain_persona = \"m\"\n[server]\nuid = 0\n", Ok(Some(0)), "root"),
            ("[nonsense]\nx = 1\n", Ok(None), "the rest is the server's to judge (V-53)"),
            ("[server]\nuid = -1\n", Err(()), "negative"),
            ("[server]\nuid = 4294967296\n", Err(()), "over u32"),
            ("[server]\nuid = \"998\"\n", Err(()), "a string"),
            ("server = 1\n", Err(()), "not a table"),
            ("[server]\nuid = 1\nuid = 2\n", Err(()), "a key declared twice"),
        ];
        for (text, expected, why) in rows {
            assert_eq!(uid_in(text).map_err(|_| ()), expected, "{why}");
        }
        assert!(uid_in("[server\n").is_err(), "not TOML");
    }

    /// The configuration is read by descriptor: a FIFO planted at its name is refused
    /// at once (never waited on), so is a link at its name and a file over the bound; the
    /// regular file is read (U-1, U-3).
    #[test]
    fn only_a_regular_file_of_bounded_size_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = |name: &str| dir.path().join(name);
        std::fs::write(path("agentwarden.toml"), "[server]\nuid = 7\n").unwrap();
        assert_eq!(configured_uid(Some(&path("agentwarden.toml"))), Ok(Some(7)));
        rustix::fs::mknodat(
            rustix::fs::CWD,
            path("fifo.toml"),
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        std::os::unix::fs::symlink(path("agentwarden.toml"), path("link.toml")).unwrap();
        let big = "# x\n".repeat(300_000);
        std::fs::write(path("big.toml"), big).unwrap();
        for (name, why) in [
            ("fifo.toml", "not a regular file"),
            ("link.toml", "symbolic link"),
            ("big.toml", "larger than"),
            ("missing.toml", "No such file"),
        ] {
            let refused = configured_uid(Some(&path(name))).unwrap_err();
            assert_eq!(refused.code, Code::ConfigInvalid, "{name}");
            assert!(refused.to_string().starts_with("config_invalid: `"), "{name}: {refused}");
            assert!(refused.reason.contains(why), "{name}: {refused}");
        }
    }

    #[test]
    fn the_configuration_may_only_agree_with_the_line() {
        assert_eq!(server_uid(Some(1), Some(1)), Ok(Some(1)));
        assert_eq!(server_uid(Some(1), None), Ok(Some(1)));
        assert_eq!(server_uid(None, Some(2)), Ok(Some(2)));
        assert_eq!(server_uid(None, None), Ok(None));
        let refused = server_uid(Some(1), Some(2)).unwrap_err();
        assert_eq!(refused.code, Code::ConfigInvalid);
        assert!(refused.to_string().starts_with("config_invalid: `[server] uid = 2`"), "{refused}");
    }

    #[test]
    fn the_project_configuration_is_found_upward_and_not_past_the_repository() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        assert_eq!(discover_from(&root.join("a/b")).unwrap(), None, "none in the repository");
        std::fs::write(dir.path().join(CONFIG_FILE), "").unwrap();
        assert_eq!(discover_from(&root.join("a/b")).unwrap(), None, "not past the repository's root");
        std::fs::write(root.join(CONFIG_FILE), "").unwrap();
        assert_eq!(discover_from(&root.join("a/b")).unwrap(), Some(root.join(CONFIG_FILE)));
    }
}
