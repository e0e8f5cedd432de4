//! Loading agent manifests (spec 003) from TOML: one file, or every `*.toml` in a directory.
//!
//! ```toml
//! [agents.orchestrator]
//! can_spawn = ["coder", "researcher"]
//! max_spawn_depth = 3
//! tools = ["Read", "Grep", "Bash(npm test:*)", "Edit(src/**)", "mcp__github__*"]
//! ```
//!
//! Unknown keys, a negative or missing `max_spawn_depth`, an invalid type name, and an agent
//! type declared twice (in one file or across files) are load errors with file and line — never
//! a silent default (fail closed).

use std::path::{Path, PathBuf};

use agentwarden_adapters::untrusted;
use agentwarden_domain::lineage::{ManifestSet, Manifests};

use crate::config::ConfigError;

fn error(path: &Path, line: Option<usize>, message: impl Into<String>) -> ConfigError {
    ConfigError { path: path.display().to_string(), line, message: message.into() }
}

/// Adds `text` (the file `path`) to `set`: the domain's rules (issue 22), its error placed in
/// the file.
fn parse_into(path: &Path, text: &str, set: &mut ManifestSet) -> Result<(), ConfigError> {
    set.add_text(&path.display().to_string(), text).map_err(|e| error(path, e.line, e.message))
}

/// Parses one manifest file's text.
pub fn parse_manifests(path: &Path, text: &str) -> Result<Manifests, ConfigError> {
    let mut set = ManifestSet::new();
    parse_into(path, text, &mut set)?;
    Ok(set.into_manifests())
}

/// One manifest file as read for a decision: its path, and its text with the permission bits
/// read from the same descriptor — what a seal's digest covers (U-15, T-11).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestFile {
    /// The file.
    pub path: PathBuf,
    /// Its text.
    pub text: String,
    /// Its permission bits.
    pub mode: u32,
}

impl ManifestFile {
    /// Its digest as a seal records it: its text's BLAKE3 and its permission bits (U-15).
    pub fn digest(&self) -> String {
        crate::files::text_digest(&self.text, Some(self.mode))
    }
}

/// Reads `path`: a file, or every `*.toml` file in a directory (in name order), each once, by
/// descriptor, anchored at `root` when under it (U-2). A path that does not exist is an error:
/// without manifests every spawn would be denied, and saying so is clearer.
pub fn read_manifest_files(root: Option<&Path>, path: &Path) -> Result<Vec<ManifestFile>, ConfigError> {
    let read = |file: &Path| {
        let (bytes, mode) = untrusted::read_bytes_mode(root, file, crate::MAX_INPUT_BYTES)
            .map_err(|e| error(file, None, e.reason()))?;
        let text = String::from_utf8(bytes).map_err(|_| error(file, None, "is not valid UTF-8"))?;
        Ok(ManifestFile { path: file.to_owned(), text, mode })
    };
    // A manifest is read like an instruction file: a link (the path itself, or a file in
    // the directory) is refused, never followed; so is anything that is not a regular file (U-6).
    match untrusted::list_dir(root, path) {
        Ok(entries) => {
            let mut files = Vec::new();
            for (name, kind) in entries {
                let file = path.join(&name);
                if file.extension().is_none_or(|e| e != "toml") {
                    continue;
                }
                if kind != untrusted::FileType::RegularFile {
                    // A `*.toml` entry that is not a regular file is refused, not skipped.
                    return Err(error(
                        &file,
                        None,
                        format!("is {}, not a regular file", untrusted::kind_name(kind)),
                    ));
                }
                files.push(read(&file)?);
            }
            Ok(files)
        }
        Err(untrusted::UntrustedError::WrongKind { .. }) => Ok(vec![read(path)?]),
        Err(e) => Err(error(path, None, e.reason())),
    }
}

/// Parses manifest files read by [`read_manifest_files`]; a type declared in two of them is an
/// error naming both.
pub fn parse_manifest_files(files: &[ManifestFile]) -> Result<Manifests, ConfigError> {
    let mut set = ManifestSet::new();
    for file in files {
        parse_into(&file.path, &file.text, &mut set)?;
    }
    Ok(set.into_manifests())
}

/// The last manifests parsed, keyed by the BLAKE3 of exactly the bytes they were parsed
/// from (each file's path and seal digest — its text's BLAKE3 and mode — length-framed). The resident service decides every
/// subagent call with the manifests (T-11): it still reads every file, once, by descriptor,
/// and compares their digests with the seal, but parses them only when those bytes differ
/// from the last ones parsed. A file rewritten between two calls is other bytes, so another
/// key: it is parsed anew, and judged (and its digest compared with the seal) as read.
/// Shared by the clones of a Warden; only a successful parse is kept (V-36).
#[derive(Debug, Default)]
pub struct ParsedManifests {
    last: std::sync::Mutex<Option<(blake3::Hash, std::sync::Arc<Manifests>)>>,
}

impl ParsedManifests {
    /// [`parse_manifest_files`] of `files`, from the cache when these are the bytes last parsed.
    pub fn parse(&self, files: &[ManifestFile]) -> Result<std::sync::Arc<Manifests>, ConfigError> {
        let digests: Vec<String> = files.iter().map(ManifestFile::digest).collect();
        self.parse_digested(files, &digests)
    }

    /// [`ParsedManifests::parse`] given each file's [`ManifestFile::digest`], already taken
    /// for the comparison with the seal (T-11): the files are hashed once per decision.
    pub(crate) fn parse_digested(
        &self,
        files: &[ManifestFile],
        digests: &[String],
    ) -> Result<std::sync::Arc<Manifests>, ConfigError> {
        if digests.len() != files.len() {
            // Not the digests of these files: no key can be trusted, so no cache.
            return parse_manifest_files(files).map(std::sync::Arc::new);
        }
        let key = bytes_key(files, digests);
        if let Ok(guard) = self.last.lock()
            && let Some((last, manifests)) = guard.as_ref()
            && *last == key
        {
            return Ok(std::sync::Arc::clone(manifests));
        }
        let manifests = std::sync::Arc::new(parse_manifest_files(files)?);
        if let Ok(mut guard) = self.last.lock() {
            *guard = Some((key, std::sync::Arc::clone(&manifests)));
        }
        Ok(manifests)
    }
}

/// BLAKE3 over every file's path and digest (its text's BLAKE3 and its mode), each
/// length-prefixed (no two lists of files share a framing).
fn bytes_key(files: &[ManifestFile], digests: &[String]) -> blake3::Hash {
    let mut hasher = blake3::Hasher::new();
    hasher.update(&(files.len() as u64).to_le_bytes());
    for (file, digest) in files.iter().zip(digests) {
        let path = file.path.as_os_str().as_encoded_bytes();
        hasher.update(&(path.len() as u64).to_le_bytes());
        hasher.update(path);
        hasher.update(&(digest.len() as u64).to_le_bytes());
        hasher.update(digest.as_bytes());
    }
    hasher.finalize()
}

/// Reads and parses `path` (see [`read_manifest_files`]).
pub fn load_manifests(path: &Path) -> Result<Manifests, ConfigError> {
    parse_manifest_files(&read_manifest_files(None, path)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentwarden_domain::governance::Name;

    #[test]
    fn parses_the_documented_shape() {
        let text = "[agents.orchestrator]\ncan_spawn = [\"coder\"]\nmax_spawn_depth = 3\ntools = [\"read\"]\n\n\
                    [agents.coder]\nmax_spawn_depth = 0\n";
        let m = parse_manifests(Path::new("m.toml"), text).unwrap();
        let orchestrator = &m[&Name::new("orchestrator").unwrap()];
        assert_eq!(orchestrator.max_spawn_depth, 3);
        assert_eq!(orchestrator.can_spawn, [Name::new("coder").unwrap()]);
        assert!(m[&Name::new("coder").unwrap()].tools.is_empty());
    }

    #[test]
    fn bad_manifests_fail_with_file_and_line() {
        let cases = [
            ("[agents.a]\nmax_spawn_depth = 1\ncan_spawnn = []\n", 3),
            ("[agents.a]\nmax_spawn_depth = -1\n", 2),
            ("[agents.a]\nmax_spawn_depth = 1.5\n", 2),
            ("[agents.a]\ncan_spawn = [\"b\"]\n", 1),
            ("[agents.a]\nmax_spawn_depth = 1\n[agents.a]\nmax_spawn_depth = 2\n", 3),
            ("[agents.\"../x\"]\nmax_spawn_depth = 1\n", 1),
            ("[agents.a]\nmax_spawn_depth = 1\ncan_spawn = [\"\"]\n", 1),
            ("[agent.a]\nmax_spawn_depth = 1\n", 1),
            ("[agents.a]\nmax_spawn_depth = 1\ntools = [\n  \"Read\",\n  \"Bash(npm test\",\n]\n", 5),
            ("[agents.a]\nmax_spawn_depth = 1\ntools = [\"Edit(~/x)\"]\n", 3),
        ];
        for (text, line) in cases {
            let err = parse_manifests(Path::new("m.toml"), text).unwrap_err();
            assert_eq!(err.line, Some(line), "{text:?}: {err}");
        }
    }

    #[test]
    fn a_directory_merges_files_and_refuses_duplicates_across_them() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.toml"), "[agents.a]\nmax_spawn_depth = 1\n").unwrap();
        std::fs::write(dir.path().join("b.toml"), "[agents.b]\nmax_spawn_depth = 2\n").unwrap();
        std::fs::write(dir.path().join("notes.md"), "ignored").unwrap();
        assert_eq!(load_manifests(dir.path()).unwrap().len(), 2);
        std::fs::write(dir.path().join("c.toml"), "\n[agents.a]\nmax_spawn_depth = 1\n").unwrap();
        let err = load_manifests(dir.path()).unwrap_err();
        assert!(err.path.ends_with("c.toml") && err.line == Some(2), "{err}");
        assert!(err.message.contains("a.toml:1"), "{err}");
        assert!(load_manifests(&dir.path().join("missing.toml")).is_err());
    }

    /// The cache answers for the same bytes only; other bytes are parsed (and a parse
    /// that fails is an error, never the last good manifests) (V-36).
    #[test]
    fn parsed_manifests_follow_the_bytes() {
        let file =
            |text: &str| ManifestFile { path: PathBuf::from("m.toml"), text: text.to_owned(), mode: 0o644 };
        let cache = ParsedManifests::default();
        let a = [file("[agents.a]\nmax_spawn_depth = 1\n")];
        let first = cache.parse(&a).unwrap();
        assert!(std::sync::Arc::ptr_eq(&first, &cache.parse(&a).unwrap()), "the same bytes: from the cache");
        let b = [file("[agents.a]\nmax_spawn_depth = 2\n")];
        assert_eq!(cache.parse(&b).unwrap()[&Name::new("a").unwrap()].max_spawn_depth, 2);
        assert!(cache.parse(&[file("[agents.a]\n")]).is_err(), "a file that no longer parses");
        let moved = [ManifestFile { path: PathBuf::from("other.toml"), ..b[0].clone() }];
        assert!(!std::sync::Arc::ptr_eq(&cache.parse(&b).unwrap(), &cache.parse(&moved).unwrap()));
    }
}
