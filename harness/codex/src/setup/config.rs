//! Codex's configuration as Warden installs into it and reads it back (C-8, C-10): the hooks
//! (`[[hooks.EVENT]]` groups of `[[hooks.EVENT.hooks]]` commands) in the project's
//! `.codex/config.toml` or in the managed requirements with `allow_managed_hooks_only`; the
//! project trusted in Codex's home (`[projects."PATH"] trust_level = "trusted"`), without which
//! Codex ignores a project's configuration, its hooks included, without a word; and the files
//! the guard protects of Codex's. The files are read and written by the command line; here
//! they are TOML text.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use toml_edit::{ArrayOfTables, DocumentMut, Item, Table, value};

use super::line::MARK;
use agentwarden_protocol::settings_file::SettingsError;

/// Where Codex reads its managed requirements.
pub const MANAGED_FILE: &str = "/etc/codex/requirements.toml";
/// The project's configuration, relative to the project: where `init codex` merges the hooks.
pub const PROJECT_FILE: &str = ".codex/config.toml";
/// Codex's own configuration, relative to its home: where a project is trusted.
pub const HOME_FILE: &str = "config.toml";
/// The variable that names Codex's home.
pub const HOME_ENV: &str = "CODEX_HOME";
/// The key of the managed requirements that makes Codex run managed hooks only.
pub const MANAGED_ONLY: &str = "allow_managed_hooks_only";

/// The events Warden's Codex hook answers: `SessionEnd` too (C-13), and `PostToolUse`, where the
/// input that ran is checked against the one approved (C-17, H-55).
pub const EVENTS: [&str; 7] =
    ["PreToolUse", "PostToolUse", "SubagentStart", "SubagentStop", "SessionStart", "Stop", "SessionEnd"];

/// The events whose block Codex answers by prompting the model again, at once and without a
/// limit (0.169.0 sent 1 686 model requests in 120 s when Warden could not run): a failure there
/// halts the session instead, `continue: false` read by Codex as the end of the turn (H-57).
pub const HALTING_EVENTS: [&str; 2] = ["Stop", "SubagentStop"];

/// What Codex reads from a project that can change how the guard is run: its configuration
/// (hooks, agent roles, MCP servers), its instructions (H-12, H-19), and the project's `.env`,
/// which earlier Codex releases loaded into their environment at start — and so into every
/// hook's, the kill switch's variable among them (G-25).
pub const PROTECTED_FILES: [&str; 3] = [".codex", "AGENTS.md", ".env"];

/// The files Codex loads into its environment at start (G-25): `.env` in its home
/// (`codex_home`, [`home`]), and the project's `.env` (loaded by earlier releases; listed, as
/// nothing is lost by naming it). The home's is outside the project: the guard cannot protect it,
/// and `doctor` names a kill switch set there.
pub fn env_files(project: &Path, codex_home: Option<&Path>) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = codex_home.map(|home| home.join(".env")).into_iter().collect();
    files.push(project.join(".env"));
    files
}

/// Codex's home: `given`, else `codex_home` (the value of [`HOME_ENV`]), else `.codex` in
/// `home` (the user's home directory).
pub fn home(given: Option<PathBuf>, codex_home: Option<OsString>, home: Option<OsString>) -> Option<PathBuf> {
    given
        .or_else(|| codex_home.map(PathBuf::from))
        .or_else(|| home.map(|home| PathBuf::from(home).join(".codex")))
}

/// Whether a hook group (`[[hooks.EVENT]]`) is Warden's.
fn is_ours(group: &Table) -> bool {
    group.get("hooks").and_then(Item::as_array_of_tables).is_some_and(|hooks| {
        hooks.iter().any(|hook| hook.get("command").and_then(Item::as_str).is_some_and(|c| c.contains(MARK)))
    })
}

/// Merges Warden's hook groups into the TOML `text`: an earlier Warden group is replaced,
/// everything else kept; with `managed`, `allow_managed_hooks_only = true` too.
pub fn merge_hooks(text: &str, command: &str, timeout: u64, managed: bool) -> Result<String, SettingsError> {
    let mut document: DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| SettingsError::Unreadable { detail: e.to_string() })?;
    if managed {
        document.insert(MANAGED_ONLY, value(true));
    }
    let hooks = document.as_table_mut().entry("hooks").or_insert_with(toml_edit::table);
    let hooks =
        hooks.as_table_mut().ok_or(SettingsError::Shape { key: "hooks".into(), expected: "a table" })?;
    hooks.set_implicit(true);
    for event in EVENTS {
        let groups = hooks.entry(event).or_insert(Item::ArrayOfTables(ArrayOfTables::new()));
        let groups = groups.as_array_of_tables_mut().ok_or_else(|| SettingsError::Shape {
            key: format!("hooks.{event}"),
            expected: "a list of tables",
        })?;
        groups.retain(|group| !is_ours(group));
        let mut hook = Table::new();
        hook.insert("type", value("command"));
        // A stop's failure halts the session rather than blocking a stop retried forever (H-57).
        let command = if HALTING_EVENTS.contains(&event) {
            super::line::halting(command, super::line::HALT_UNLESS_TWO)
        } else {
            command.to_owned()
        };
        hook.insert("command", value(command));
        hook.insert("timeout", value(i64::try_from(timeout).unwrap_or(i64::MAX)));
        let mut list = ArrayOfTables::new();
        list.push(hook);
        let mut group = Table::new();
        group.insert("hooks", Item::ArrayOfTables(list));
        groups.push(group);
    }
    Ok(document.to_string())
}

/// Trusts `project` in Codex's configuration `text` (`[projects."PATH"] trust_level`).
pub fn trust_project(text: &str, project: &Path) -> Result<String, SettingsError> {
    let mut document: DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| SettingsError::Unreadable { detail: e.to_string() })?;
    let projects = document.as_table_mut().entry("projects").or_insert_with(toml_edit::table);
    let projects = projects
        .as_table_mut()
        .ok_or(SettingsError::Shape { key: "projects".into(), expected: "a table" })?;
    projects.set_implicit(true);
    let key = project.display().to_string();
    let entry = projects.entry(&key).or_insert_with(toml_edit::table);
    let entry = entry
        .as_table_mut()
        .ok_or_else(|| SettingsError::Shape { key: format!("projects.\"{key}\""), expected: "a table" })?;
    entry.insert("trust_level", value("trusted"));
    Ok(document.to_string())
}

/// Whether Codex's configuration `text` trusts `project`; an error (text that says why) when it
/// is not TOML.
pub fn is_trusted(text: &str, project: &Path) -> Result<bool, SettingsError> {
    let document: DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| SettingsError::NotValid {
        format: "TOML",
        detail: e.to_string(),
    })?;
    let key = project.display().to_string();
    let level = document
        .get("projects")
        .and_then(Item::as_table_like)
        .and_then(|projects| projects.get(&key))
        .and_then(Item::as_table_like)
        .and_then(|entry| entry.get("trust_level"))
        .and_then(Item::as_str);
    Ok(level == Some("trusted"))
}

/// One of Warden's installed hooks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The event it is under.
    pub event: String,
    /// Its group's matcher, when it has one.
    pub matcher: Option<String>,
    /// The command line.
    pub command: String,
    /// Codex's timeout for it, in seconds.
    pub timeout: Option<u64>,
}

/// A Codex configuration or requirements file, as far as Warden cares.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Hooks {
    /// Warden's hooks, under the events it answers.
    pub entries: Vec<Entry>,
    /// `allow_managed_hooks_only`, when set (it counts in the managed requirements only).
    pub managed_only: Option<bool>,
}

/// A configuration's text read: an error (text that says why) when it is not TOML.
pub fn read_hooks(text: &str) -> Result<Hooks, SettingsError> {
    let document: DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| SettingsError::NotValid {
        format: "TOML",
        detail: e.to_string(),
    })?;
    let mut entries = Vec::new();
    for event in EVENTS {
        let groups = document.get("hooks").and_then(|h| h.get(event)).and_then(Item::as_array_of_tables);
        for group in groups.into_iter().flat_map(ArrayOfTables::iter) {
            let matcher = group.get("matcher").and_then(Item::as_str).map(str::to_owned);
            let hooks = group.get("hooks").and_then(Item::as_array_of_tables);
            for hook in hooks.into_iter().flat_map(ArrayOfTables::iter) {
                let command = hook.get("command").and_then(Item::as_str).unwrap_or_default();
                if !command.contains(MARK) {
                    continue;
                }
                let timeout =
                    hook.get("timeout").and_then(Item::as_integer).and_then(|t| u64::try_from(t).ok());
                entries.push(Entry {
                    event: event.to_owned(),
                    matcher: matcher.clone(),
                    command: command.to_owned(),
                    timeout,
                });
            }
        }
    }
    Ok(Hooks { entries, managed_only: document.get(MANAGED_ONLY).and_then(Item::as_bool) })
}

/// The events of [`EVENTS`] no Warden hook covers for every tool and agent (a group without a
/// matcher, or `*` or empty: what `init codex` writes).
pub fn missing_events(entries: &[Entry]) -> Vec<&'static str> {
    let every = |matcher: Option<&str>| matches!(matcher, None | Some("" | "*"));
    EVENTS
        .into_iter()
        .filter(|event| !entries.iter().any(|e| e.event == *event && every(e.matcher.as_deref())))
        .collect()
}

pub use agentwarden_protocol::hook_line::LineFindings;

/// An installed hook checked: its binary, its configuration, its tail, its numbers against the
/// budget (C-10).
pub fn check_entry(entry: &Entry) -> LineFindings {
    let halting = HALTING_EVENTS.contains(&entry.event.as_str());
    agentwarden_protocol::hook_line::check_line("Codex", &entry.event, &entry.command, entry.timeout, halting)
}

#[cfg(test)]
mod tests {
    use super::super::line;
    use super::*;

    fn command() -> String {
        line::hook_command(
            Path::new("/w/warden"),
            Path::new("/p"),
            Path::new("/p/agentwarden.toml"),
            5000,
            28000,
            None,
        )
    }

    #[test]
    fn the_hooks_are_merged_once_and_everything_else_kept() {
        let before = "# mine\nmodel = \"gpt-5.5\"\n\n[[hooks.PreToolUse]]\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"other\"\n";
        let command = command();
        let once = merge_hooks(before, &command, 30, false).unwrap();
        let twice = merge_hooks(&once, &command, 30, false).unwrap();
        assert_eq!(once, twice, "a second init changes nothing");
        let document: DocumentMut = twice.parse().unwrap();
        assert!(twice.starts_with("# mine\nmodel = \"gpt-5.5\""), "{twice}");
        for event in EVENTS {
            let groups = document["hooks"][event].as_array_of_tables().unwrap();
            assert_eq!(groups.iter().filter(|g| is_ours(g)).count(), 1, "{event}");
        }
        assert_eq!(
            document["hooks"]["PreToolUse"].as_array_of_tables().unwrap().len(),
            2,
            "the other hook kept"
        );
        assert!(document.get(MANAGED_ONLY).is_none());
        let managed = merge_hooks("", &command, 30, true).unwrap();
        assert!(managed.contains("allow_managed_hooks_only = true"), "{managed}");
        assert!(merge_hooks("hooks = 1", &command, 30, false).is_err());
        // What was merged reads back: Warden's hooks only, every event, every line clean.
        let read = read_hooks(&twice).unwrap();
        assert_eq!(read.entries.len(), EVENTS.len(), "{read:?}");
        assert!(missing_events(&read.entries).is_empty());
        assert_eq!(read.managed_only, None);
        assert_eq!(read_hooks(&managed).unwrap().managed_only, Some(true));
        for entry in &read.entries {
            let found = check_entry(entry);
            assert!(found.fail_closed && found.problems.is_empty() && found.ending.is_none(), "{found:?}");
            assert_eq!(found.config, Some(PathBuf::from("/p/agentwarden.toml")));
            // The stops' lines halt on a failure, keeping exit 2 for Warden's block (H-57).
            let halts = HALTING_EVENTS.contains(&entry.event.as_str());
            assert_eq!(line::parse(&entry.command).halts, halts, "{entry:?}");
            assert_eq!(entry.command.ends_with(line::HALT_UNLESS_TWO), halts, "{entry:?}");
        }
        assert!(read_hooks("[[").unwrap_err().to_string().starts_with("is not valid TOML"));
    }

    #[test]
    fn codex_home_is_the_one_given_then_the_variable_then_the_users() {
        let given = Some(PathBuf::from("/given"));
        let var = Some(OsString::from("/var"));
        let user = Some(OsString::from("/u"));
        assert_eq!(home(given, var.clone(), user.clone()), Some(PathBuf::from("/given")));
        assert_eq!(home(None, var, user.clone()), Some(PathBuf::from("/var")));
        assert_eq!(home(None, None, user), Some(PathBuf::from("/u/.codex")));
        assert_eq!(home(None, None, None), None);
    }

    #[test]
    fn the_project_is_trusted_and_the_rest_kept() {
        let trusted = trust_project("model = \"m\"\n", Path::new("/p/x")).unwrap();
        assert!(trusted.contains("[projects.\"/p/x\"]\ntrust_level = \"trusted\""), "{trusted}");
        assert!(trusted.starts_with("model = \"m\""));
        assert_eq!(trust_project(&trusted, Path::new("/p/x")).unwrap(), trusted);
        assert_eq!(is_trusted(&trusted, Path::new("/p/x")), Ok(true));
        // (configuration, trusted, why)
        let table = [
            ("", false, "nothing"),
            ("[projects.\"/p/y\"]\ntrust_level = \"trusted\"\n", false, "another project"),
            ("[projects.\"/p/x\"]\ntrust_level = \"untrusted\"\n", false, "untrusted"),
            ("projects = { \"/p/x\" = { trust_level = \"trusted\" } }\n", true, "inline tables"),
        ];
        for (text, expected, why) in table {
            assert_eq!(is_trusted(text, Path::new("/p/x")), Ok(expected), "{why}");
        }
        assert!(is_trusted("[[", Path::new("/p/x")).is_err());
    }

    /// Each gap of an installed hook is named (C-10).
    #[test]
    fn each_gap_of_an_installed_hook_is_named() {
        let good = command();
        let entry = |event: &str, matcher: Option<&str>, command: &str, timeout: Option<u64>| Entry {
            event: event.to_owned(),
            matcher: matcher.map(str::to_owned),
            command: command.to_owned(),
            timeout,
        };
        let stop = line::halting(&good, line::HALT_UNLESS_TWO);
        let narrow = [
            entry("PreToolUse", Some("spawn_agent"), &good, Some(30)),
            entry("SubagentStop", None, &stop, Some(30)),
        ];
        assert_eq!(
            missing_events(&narrow),
            ["PreToolUse", "PostToolUse", "SubagentStart", "SessionStart", "Stop", "SessionEnd"]
        );
        // (entry, a word its finding must hold, fails closed, why)
        let table = [
            (entry("PreToolUse", None, &good, Some(2)), "--timeout 8", true, "a timeout without margin"),
            (entry("PreToolUse", None, &good, None), "no `timeout`", true, "no timeout"),
            (
                entry("Stop", None, &good, Some(30)),
                "Codex answers by prompting the model again",
                true,
                "a stop's line that blocks on a failure (H-57)",
            ),
            (
                entry("PreToolUse", None, &stop, Some(30)),
                "halts the session",
                true,
                "a tool call's that halts",
            ),
            (
                entry(
                    "PreToolUse",
                    None,
                    "warden hook --harness codex --lock-timeout-ms 5000 --deadline-ms 28000",
                    Some(30),
                ),
                "absolute, quoted binary",
                false,
                "a bare binary and no tail",
            ),
        ];
        for (entry, word, fail_closed, why) in table {
            let found = check_entry(&entry);
            assert_eq!(found.fail_closed, fail_closed, "{why}");
            let said = found.problems.iter().chain(&found.ending);
            assert!(said.into_iter().any(|p| p.contains(word)), "{why}: {found:?}");
        }
        let clean = check_entry(&entry("Stop", None, &stop, Some(30)));
        assert!(clean.problems.is_empty() && clean.ending.is_none(), "{clean:?}");
    }
}
