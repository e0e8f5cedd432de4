//! Copilot CLI's hook files as Warden installs them and reads them back (seen with 1.0.102):
//!
//! - Copilot loads every `*.json` in the user's hooks folder (`$COPILOT_HOME/hooks`, else
//!   `~/.copilot/hooks`) and the `hooks` of the user's `settings.json` with no trust step, and,
//!   once the project's folder is trusted, every `.github/hooks/*.json` and the `hooks` of
//!   `.github/copilot/settings*.json`; every source runs, in order, and a deny from any stops the
//!   call.
//! - A file is `{"version": 1, "hooks": {EVENT: [{"type": "command", "bash": LINE,
//!   "timeoutSec": N}]}}`; a settings file may nest Claude Code's way (`{"matcher", "hooks":
//!   [{"type", "command", "timeout"}]}`). Warden writes its own file, Claude-style event names
//!   (H-65), and reads both forms back.
//! - `disableAllHooks: true` in a settings file Copilot reads switches every hook off from the
//!   next session on (H-70).
//!
//! The files are read and written by the command line; here they are JSON text.

use std::path::PathBuf;

use serde_json::{Map, Value, json};

use super::line::MARK;
use agentwarden_protocol::settings_file::SettingsError;

/// Warden's hook file in the project, relative to its root: loaded once the folder is trusted.
pub const PROJECT_FILE: &str = ".github/hooks/agentwarden.json";
/// The project's hooks folder.
pub const PROJECT_HOOKS: &str = ".github/hooks";
/// The project's settings folder, whose `settings*.json` Copilot reads once the folder is
/// trusted.
pub const PROJECT_SETTINGS: &str = ".github/copilot";
/// The variable that names Copilot's home in place of `~/.copilot`.
pub const HOME_ENV: &str = "COPILOT_HOME";
/// Warden's hook file's name in the user's hooks folder.
pub const FILE_NAME: &str = "agentwarden.json";

/// Copilot's home: `copilot_home` (the value of [`HOME_ENV`]), else `.copilot` in `home`.
pub fn copilot_home(
    copilot_home: Option<std::ffi::OsString>,
    home: Option<std::ffi::OsString>,
) -> Option<PathBuf> {
    match copilot_home {
        Some(dir) => Some(PathBuf::from(dir)),
        None => home.map(|home| PathBuf::from(home).join(".copilot")),
    }
}

/// The events Warden's Copilot hook answers: every tool before it runs and after it ran (the
/// input that ran checked against the one approved, H-55), a subagent's start and stop, the end
/// of each turn of the main session, the session's start and end (H-45, H-46, H-48).
pub const EVENTS: [&str; 7] =
    ["PreToolUse", "PostToolUse", "SubagentStart", "SubagentStop", "Stop", "SessionStart", "SessionEnd"];

/// What Copilot reads from a project that can change how the guard is run: its hooks and
/// settings (`disableAllHooks` among them), its custom agents and its instructions (H-12, H-19,
/// H-71).
pub const PROTECTED_FILES: [&str; 6] = [
    PROJECT_HOOKS,
    PROJECT_SETTINGS,
    ".github/agents",
    ".github/instructions",
    ".github/copilot-instructions.md",
    "AGENTS.md",
];

/// Whether a hook entry is Warden's.
fn is_ours(hook: &Value) -> bool {
    command_of(hook).is_some_and(|c| c.contains(MARK))
}

/// A hook's command line: `bash` (Copilot's form) or `command` (Claude Code's).
fn command_of(hook: &Value) -> Option<&str> {
    hook.get("bash").or_else(|| hook.get("command")).and_then(Value::as_str)
}

/// A hooks or settings file's JSON object (an empty text is an empty object), or why not.
pub(crate) fn object_of(text: &str) -> Result<Map<String, Value>, SettingsError> {
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(object)) => Ok(object),
        Ok(_) => Err(SettingsError::NotAnObject { what: "the file" }),
        Err(e) => Err(SettingsError::NotPlainJson { detail: e.to_string(), advice: "" }),
    }
}

/// Warden's hook file: every event of [`EVENTS`] runs `command` with Copilot's `timeout_s`.
pub fn hook_file(command: &str, timeout_s: u64) -> String {
    let mut hooks = Map::new();
    for event in EVENTS {
        hooks
            .insert(event.to_owned(), json!([{"type": "command", "bash": command, "timeoutSec": timeout_s}]));
    }
    let file = json!({"version": 1, "hooks": hooks});
    serde_json::to_string_pretty(&file).map(|text| text + "\n").unwrap_or_default()
}

/// One hook found in a file: its event, its command line, its timeout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The event, as the file names it.
    pub event: String,
    /// The command line.
    pub command: String,
    /// Copilot's timeout, in seconds (`None`: Copilot's default, 30).
    pub timeout_s: Option<u64>,
    /// Whether it is Warden's.
    pub ours: bool,
}

/// Every hook in the hooks or settings file `text`, in either form.
pub fn read_all(text: &str) -> Result<Vec<Entry>, SettingsError> {
    let object = object_of(text)?;
    let Some(hooks) = object.get("hooks") else { return Ok(Vec::new()) };
    let hooks =
        hooks.as_object().ok_or(SettingsError::Shape { key: "hooks".into(), expected: "an object" })?;
    let mut found = Vec::new();
    for (event, list) in hooks {
        let list = list
            .as_array()
            .ok_or_else(|| SettingsError::Shape { key: format!("hooks.{event}"), expected: "a list" })?;
        for item in list {
            // Claude Code's nesting: a group with a matcher and its own list of hooks.
            let inner: Vec<&Value> = match item.get("hooks").and_then(Value::as_array) {
                Some(nested) => nested.iter().collect(),
                None => vec![item],
            };
            for hook in inner {
                let timeout_s =
                    hook.get("timeoutSec").or_else(|| hook.get("timeout")).and_then(Value::as_u64);
                let command = command_of(hook).map(str::to_owned).unwrap_or_else(|| hook.to_string());
                found.push(Entry { event: event.clone(), ours: is_ours(hook), command, timeout_s });
            }
        }
    }
    Ok(found)
}

/// Warden's hooks in the file `text`.
pub fn read_hooks(text: &str) -> Result<Vec<Entry>, SettingsError> {
    Ok(read_all(text)?.into_iter().filter(|e| e.ours).collect())
}

/// The events of [`EVENTS`] no entry answers.
pub fn missing_events(entries: &[Entry]) -> Vec<&'static str> {
    EVENTS.into_iter().filter(|event| !entries.iter().any(|e| e.event == *event)).collect()
}

pub use agentwarden_protocol::hook_line::LineFindings;

/// An installed hook checked: its binary, its configuration, its tail, its numbers against
/// Copilot's timeout (H-10, H-69; none written: Copilot's 30 s).
pub fn check_entry(entry: &Entry) -> LineFindings {
    let timeout = Some(entry.timeout_s.unwrap_or(super::line::DEFAULT_TIMEOUT_S));
    agentwarden_protocol::hook_line::check_line("Copilot CLI", &entry.event, &entry.command, timeout, false)
}

/// Whether the settings `text` switches every hook off (`disableAllHooks: true`, H-70).
pub fn disables_all(text: &str) -> Result<bool, SettingsError> {
    Ok(object_of(text)?.get("disableAllHooks") == Some(&Value::Bool(true)))
}

/// The events whose hooks can hand a tool another input than the one Warden approved: a
/// `preToolUse` hook's `modifiedArgs` (Claude-style: `updatedInput`) replaces what runs, even
/// after another source's hook approved it (H-55).
pub const REWRITING_EVENTS: [&str; 2] = ["PreToolUse", "preToolUse"];

/// Every hook but Warden's in the file `text` that can rewrite a tool's input, each as `EVENT`
/// and its command.
pub fn rewriting_hooks(text: &str) -> Result<Vec<String>, SettingsError> {
    Ok(read_all(text)?
        .into_iter()
        .filter(|e| !e.ours && REWRITING_EVENTS.contains(&e.event.as_str()))
        .map(|e| format!("{} `{}`", e.event, e.command))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &str = "'/w/warden' --store '/p/.agentwarden/audit' --lock-timeout-ms 5000 hook --harness copilot --config '/p/agentwarden.toml' --deadline-ms 28000 || exit 2";

    /// Warden's file answers every event and reads back, with its timeout.
    #[test]
    fn the_file_answers_every_event_and_reads_back() {
        let file = hook_file(LINE, 30);
        let entries = read_hooks(&file).unwrap();
        assert_eq!(entries.len(), EVENTS.len());
        assert!(entries.iter().all(|e| e.command == LINE && e.timeout_s == Some(30)));
        assert!(missing_events(&entries).is_empty());
        let without: Vec<Entry> = entries.iter().filter(|e| e.event != "PreToolUse").cloned().collect();
        assert_eq!(missing_events(&without), ["PreToolUse"]);
        assert!(rewriting_hooks(&file).unwrap().is_empty());
    }

    /// A settings file in Claude Code's nesting is read too; another `PreToolUse` hook is a
    /// rewriting one, in either case of its event; `disableAllHooks` is found.
    #[test]
    fn settings_rewriting_hooks_and_the_switch() {
        let settings = r#"{"disableAllHooks": true, "hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "rw.sh", "timeout": 9}]}], "preToolUse": [{"type": "command", "bash": "x.sh"}], "postToolUse": [{"type": "command", "bash": "log.sh"}]}}"#;
        assert_eq!(rewriting_hooks(settings).unwrap(), ["PreToolUse `rw.sh`", "preToolUse `x.sh`"]);
        assert!(disables_all(settings).unwrap());
        assert!(!disables_all(r#"{"disableAllHooks": false}"#).unwrap());
        assert!(read_all(r#"{"hooks": []}"#).is_err(), "unreadable: a failure");
        assert!(read_all("{ // no").is_err());
    }
}
