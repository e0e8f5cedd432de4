//! What `warden init HARNESS` does whatever the harness (N-14, N-17; issue 49 item 6): the
//! project, the `warden` binary and the configuration found, the guard's own files added to
//! `[guardrails] protected` (H-12), the hook line prepared (direct, or the client of the server
//! at `--server`, V-10, V-34, V-67), and, once the harness crate's `setup::install` has planned
//! its files ([`Installing`]), every file written by descriptor (U-4), the configuration first,
//! and what was done said. Any failure before the writes writes nothing; each refusal's text says
//! so. The command line parses the arguments, picks the harness and prints.
//!
//! H-12: when the configuration has no `protected` key, the list starts from the default
//! (`okrs`), so adding the guard's files drops nothing it protected before. The file is edited
//! with `toml_edit`: comments, order and formatting are kept.
//!
//! H-17: `.agentwarden/` is appended to the project's `.gitignore` when git does not ignore it
//! yet, so a subagent's `git add -A && git commit` cannot take the log into history.

use std::path::{Path, PathBuf};

use agentwarden::Config;
/// The project's configuration file, whose deny rule a harness writes (K-13).
pub use agentwarden::config::CONFIG_FILE;
use agentwarden::config::GuardrailsConfig;
use agentwarden::files::{self, UntrustedError};

pub use crate::error::{InitError, ProtectError};
pub use crate::install::{InitOptions, InitPlaces, InstallError, Prepared, init_command, init_options};
use crate::{Installing, Integration, Protecting, covered, in_git_work_tree, own_files_of, store_ignored};

/// The inputs of [`Prepared::prepare`]: the command line's, and the harness's words.
pub struct Preparing<'a> {
    /// `--project`, else the project found from here upward (N-1).
    pub project: Option<PathBuf>,
    /// `--warden`, else this binary.
    pub warden: Option<PathBuf>,
    /// `--server`: the socket the line's client asks.
    pub server: Option<PathBuf>,
    /// `--server-uid`: the user the line's server must run as (V-12, V-67).
    pub server_uid: Option<u32>,
    /// The lock wait, in milliseconds.
    pub lock_ms: u64,
    /// The harness's timeout for each hook call, in seconds.
    pub timeout: u64,
    /// The harness: its deadline, its line, its guide and its own files.
    pub harness: &'a dyn Integration,
    /// The resident service's hook client beside the `warden` binary, when there is one (V-34).
    pub client: fn(&Path) -> Option<PathBuf>,
}

impl std::fmt::Debug for Preparing<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Preparing")
            .field("project", &self.project)
            .field("warden", &self.warden)
            .field("server", &self.server)
            .field("harness", &self.harness.command())
            .finish_non_exhaustive()
    }
}

/// Making what `init` has before it writes, writing it, and saying what was done.
impl Prepared {
    /// The project, the binary, the deadline, the configuration with the harness's own files
    /// added to `[guardrails] protected`, and the hook line; a refusal's reason otherwise.
    pub fn prepare(args: Preparing<'_>) -> Result<Prepared, InitError> {
        let project = match args.project {
            Some(project) => project,
            None => agentwarden::config::project_root().map_err(|e| InitError::NoProject(Box::new(e)))?,
        };
        let project =
            std::fs::canonicalize(&project).map_err(|source| InitError::Project { project, source })?;
        let server =
            args.server.map(|socket| std::path::absolute(&socket)).transpose().map_err(InitError::Server)?;
        let harness = args.harness;
        let deadline = harness.deadline_for(args.timeout, args.lock_ms).map_err(InitError::Budget)?;
        let exe = match args.warden {
            Some(path) => path,
            None => std::env::current_exe().map_err(InitError::NoBinary)?,
        };
        let exe = std::fs::canonicalize(&exe).map_err(|source| InitError::Binary { exe, source })?;
        let config_path = project.join(CONFIG_FILE);
        let config_text = read_text(&project, &config_path)?
            .ok_or_else(|| InitError::NoConfig { config: config_path.clone(), guide: harness.guide() })?;
        let config = Config::load(Some(&config_path)).map_err(|e| InitError::Config(Box::new(e)))?;
        let (label, files) = harness.protected_files();
        let own = own_files_of(label, files, &project, &config).map_err(InitError::Outside)?;
        let (new_config, added) = protect(&config_text, &own)
            .map_err(|source| InitError::Protect { config: config_path.clone(), source })?;
        let hook_binary = server.as_ref().and_then(|_| (args.client)(&exe));
        // The line names the server and its user as the command line does (V-67).
        let server = server.as_deref().map(|socket| (socket, args.server_uid));
        let binary = hook_binary.as_deref().unwrap_or(&exe);
        let command = (harness.hook_line())(binary, &project, &config_path, args.lock_ms, deadline, server);
        let served = server.is_some();
        Ok(Prepared {
            project,
            config_path,
            new_config,
            added,
            own,
            deadline,
            lock_ms: args.lock_ms,
            command,
            exe,
            config,
            served,
            hook_binary,
        })
    }

    /// What `init` says once every file is written: what the harness wrote, the line, the
    /// harness's notes, the deadline, and what was added to `[guardrails] protected`.
    pub fn said(&self, installing: &Installing) -> Vec<String> {
        let mut lines = installing.said.clone();
        lines.push(format!("  command: {}", self.command));
        lines.extend(installing.noted.iter().cloned());
        lines.push(format!("  deadline: {} ms (lock wait {} ms)", self.deadline, self.lock_ms));
        let added = self.added.join(", ");
        lines.push(match (self.added.is_empty(), installing.protecting) {
            (true, _) => format!("`[guardrails] protected` already covers {}", self.own.join(", ")),
            (false, Protecting::Appended) => format!("`[guardrails] protected` += {added}"),
            (false, Protecting::InFile) => {
                format!("added to `[guardrails] protected` in {}: {added}", self.config_path.display())
            }
        });
        lines
    }

    /// Writes the configuration (when anything was added to it), then each of the harness's
    /// files in order, each directory it needs made first.
    pub fn write(&self, installing: &Installing) -> Result<(), InitError> {
        if !self.added.is_empty() {
            write_atomically(&self.project, &self.config_path, &self.new_config)?;
        }
        for write in &installing.writes {
            if let Some(dir) = &write.make {
                std::fs::create_dir_all(dir)
                    .map_err(|source| InitError::MakeDir { dir: dir.clone(), source })?;
            }
            write_atomically(&write.root, &write.path, &write.text)?;
        }
        Ok(())
    }
}

/// Reads a file an agent can touch, by descriptor (U-1): `None` when it does not exist.
pub fn read_text(project: &Path, path: &Path) -> Result<Option<String>, InitError> {
    match files::read_text(Some(project), path, agentwarden::MAX_INPUT_BYTES) {
        Ok(text) => Ok(Some(text)),
        Err(UntrustedError::Missing { .. }) => Ok(None),
        Err(e) => Err(InitError::Unreadable(e)),
    }
}

/// Writes `text` to `path` atomically, by descriptor, through a random temporary name (U-4).
pub fn write_atomically(project: &Path, path: &Path, text: &str) -> Result<(), InitError> {
    files::write_atomic(Some(project), path, text.as_bytes(), 0o644).map_err(InitError::Unwritable)
}

/// Adds `wanted` to `[guardrails] protected` in the TOML `text`, keeping everything else;
/// returns the new text and what was added.
pub fn protect(text: &str, wanted: &[String]) -> Result<(String, Vec<String>), ProtectError> {
    let mut document: toml_edit::DocumentMut = text.parse().map_err(|e| ProtectError::Toml(Box::new(e)))?;
    let guardrails = document.as_table_mut().entry("guardrails").or_insert_with(toml_edit::table);
    let guardrails = guardrails.as_table_like_mut().ok_or(ProtectError::NotATable)?;
    if guardrails.get("protected").is_none() {
        let defaults: toml_edit::Array = GuardrailsConfig::default().protected.iter().collect();
        guardrails.insert("protected", toml_edit::value(defaults));
    }
    let protected = guardrails
        .get_mut("protected")
        .and_then(toml_edit::Item::as_array_mut)
        .ok_or(ProtectError::NotAnArray)?;
    let mut present: Vec<String> = protected
        .iter()
        .map(|v| v.as_str().map(str::to_owned).ok_or(ProtectError::NonString))
        .collect::<Result<_, _>>()?;
    let mut added = Vec::new();
    for path in wanted {
        if !covered(&present, path) {
            protected.push(path.as_str());
            present.push(path.clone());
            added.push(path.clone());
        }
    }
    Ok((document.to_string(), added))
}

/// Appends `.agentwarden/` to the project's `.gitignore` when git does not ignore it yet (H-17);
/// returns what to say when it did.
pub fn ignore_store(project: &Path) -> Result<Option<String>, InitError> {
    if !(in_git_work_tree(project) && store_ignored(project) == Some(false)) {
        return Ok(None);
    }
    let gitignore = project.join(".gitignore");
    let mut existing = read_text(project, &gitignore)?.unwrap_or_default();
    if !existing.is_empty() && !existing.ends_with('\n') {
        existing.push('\n');
    }
    existing.push_str(".agentwarden/\n");
    write_atomically(project, &gitignore, &existing)?;
    Ok(Some(format!("added `.agentwarden/` to {}", gitignore.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `init` says after the files are written, in order: the harness's lines, the line,
    /// its notes, the deadline, then the protected paths in the harness's words, or that they
    /// were covered already.
    #[test]
    fn what_init_says_keeps_its_order_and_each_harness_words() {
        let prepared = |added: &[&str]| Prepared {
            project: PathBuf::from("/p"),
            config_path: PathBuf::from("/p/agentwarden.toml"),
            new_config: String::new(),
            added: added.iter().map(|s| (*s).to_owned()).collect(),
            own: vec!["a".to_owned(), "b".to_owned()],
            deadline: 28_000,
            lock_ms: 5_000,
            command: "warden hook".to_owned(),
            exe: PathBuf::from("/bin/warden"),
            config: Config::default(),
            served: false,
            hook_binary: None,
        };
        let installing = |protecting| Installing {
            said: vec!["wrote".to_owned()],
            noted: vec!["  a note".to_owned()],
            protecting,
            ..Installing::default()
        };
        // (added, wording, last line, why)
        let rows = [
            (&["a", "b"][..], Protecting::Appended, "`[guardrails] protected` += a, b", "the default words"),
            (
                &["a"][..],
                Protecting::InFile,
                "added to `[guardrails] protected` in /p/agentwarden.toml: a",
                "Claude Code's words",
            ),
            (&[][..], Protecting::InFile, "`[guardrails] protected` already covers a, b", "nothing added"),
        ];
        for (added, protecting, last, why) in rows {
            let said = prepared(added).said(&installing(protecting));
            let expected = [
                "wrote",
                "  command: warden hook",
                "  a note",
                "  deadline: 28000 ms (lock wait 5000 ms)",
                last,
            ];
            assert_eq!(said, expected, "{why}");
        }
    }

    #[test]
    fn protecting_keeps_the_users_text_and_adds_only_what_is_missing() {
        let wanted: Vec<String> = [".claude", "agentwarden.toml", "manifests.toml", "okrs/q1"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        // (input, expected protected list, why)
        let table = [
            (
                "# mine\n[guardrails]\nprotected = [\"okrs\"]  # keep\n",
                vec!["okrs", ".claude", "agentwarden.toml", "manifests.toml"],
                "okrs covers okrs/q1; comments kept",
            ),
            (
                "[lineage]\nmanifests = \"manifests.toml\"\n",
                vec!["okrs", ".claude", "agentwarden.toml", "manifests.toml"],
                "no key: starts from the default",
            ),
            (
                "[guardrails]\nactor = \"ci\"\n",
                vec!["okrs", ".claude", "agentwarden.toml", "manifests.toml"],
                "a table without the key",
            ),
            (
                "guardrails = { protected = [\".claude/\", \"agentwarden.toml\", \"manifests.toml\", \"okrs\"] }\n",
                vec![".claude/", "agentwarden.toml", "manifests.toml", "okrs"],
                "all present: nothing added",
            ),
        ];
        for (input, expected, why) in table {
            let (text, _) = protect(input, &wanted).unwrap();
            let parsed: toml::Table = toml::from_str(&text).unwrap();
            let list: Vec<&str> = parsed["guardrails"]["protected"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap())
                .collect();
            assert_eq!(list, expected, "{why}: {text}");
            if input.contains("# keep") {
                assert!(text.starts_with("# mine\n") && text.contains("# keep"), "{text}");
            }
        }
        let (again, added) = protect(&protect("", &wanted).unwrap().0, &wanted).unwrap();
        assert!(added.is_empty(), "idempotent: {again}");
        assert!(protect("guardrails = 3\n", &wanted).is_err());
        assert!(protect("[guardrails]\nprotected = \"okrs\"\n", &wanted).is_err());
        assert!(protect("[guardrails]\nprotected = [1]\n", &wanted).is_err());
    }
}
