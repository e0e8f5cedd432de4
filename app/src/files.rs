//! The files Warden decides with, as the seal sees them: how large one may be, the digest that
//! fingerprints what was read (with its permission bits), and the key that names it relative to
//! the workspace root. The configuration, the manifests, the records and the gate all name and
//! fingerprint files alike, and none of them needs another to do it.

use std::path::Path;

use agentwarden_domain::governance::FileRead;

/// How a caller above the facade reads, lists and writes a file the agent may have touched, as
/// Warden itself does: by descriptor, a regular file only, never through a link at its last
/// name, bounded in size, and written whole through a random temporary name (U-4); a listing
/// names each entry's [`FileType`]. A folder the system manages may be listed through its links
/// ([`list_dir_followed`]). The command line, doctor, the witness and the harness crates reach
/// files through these, not through the adapters.
pub use agentwarden_adapters::untrusted::{
    FileType, UntrustedError, list_dir, list_dir_followed, open_for_write, read_text, write_atomic,
};

/// Instruction files and requests larger than this are unreadable (and so denied).
pub const MAX_INPUT_BYTES: u64 = 1024 * 1024;

/// BLAKE3 (hex) of what a read returned, `None` if nothing could be read. U-15: with the
/// permission bits read from the same descriptor, they follow as ` mode 0NNNN`, so a `chmod`
/// of a sealed file breaks the seal, naming it (a seal made before this digest changes too:
/// seal again).
pub(crate) fn digest(read: &FileRead, mode: Option<u32>) -> Option<String> {
    match read {
        FileRead::Text(text) => Some(text_digest(text, mode)),
        FileRead::Missing | FileRead::Unreadable(_) => None,
    }
}

/// [`digest`] of a text that was read.
pub(crate) fn text_digest(text: &str, mode: Option<u32>) -> String {
    let hex = blake3::hash(text.as_bytes()).to_hex();
    match mode {
        Some(mode) => format!("{hex} mode {mode:05o}"),
        None => hex.to_string(),
    }
}

/// `path` relative to `root`, with `/` separators (a seal's key).
pub(crate) fn key(root: &Path, path: &Path) -> String {
    let relative = path.strip_prefix(root).unwrap_or(path);
    // Written into one string: the gate keys every file it reads.
    let mut key = String::with_capacity(relative.as_os_str().len());
    for part in relative.components().filter(|c| !matches!(c, std::path::Component::CurDir)) {
        if !key.is_empty() {
            key.push('/');
        }
        key.push_str(&part.as_os_str().to_string_lossy());
    }
    key
}

#[cfg(test)]
mod tests {
    /// A seal's key: relative to the root, `/`-separated, `.` dropped; a path outside the root
    /// is kept whole.
    #[test]
    fn keys_are_relative_and_slash_separated() {
        use std::path::Path;
        let root = Path::new("/p");
        assert_eq!(super::key(root, Path::new("/p/.hidden/agents/AGENT_A.md")), ".hidden/agents/AGENT_A.md");
        assert_eq!(super::key(root, Path::new("/p/./a/./b")), "a/b");
        assert_eq!(super::key(root, Path::new("/etc/hosts")), "//etc/hosts");
        assert_eq!(super::key(Path::new("."), Path::new("./agentwarden.toml")), "agentwarden.toml");
    }
}
