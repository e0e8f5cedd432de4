//! Gemini CLI's settings as Warden installs into them and reads them back: the hooks
//! (`"hooks": {EVENT: [{"matcher": …, "hooks": [{"type": "command", "name", "command",
//! "timeout"}]}]}`) in the project's `.gemini/settings.json` or in a system settings file
//! (`/etc/gemini-cli/settings.json`, which Gemini skips with only a warning when it or a parent
//! directory is group- or other-writable), and the names `hooksConfig.disabled` switches off,
//! a list Gemini merges across its settings files. The files are read and written by the command
//! line; here they are JSON text.
//!
//! Gemini reads settings with comments; Warden's JSON reader does not, so a file with comments
//! is refused with a reason and nothing written, never rewritten without them.

use serde_json::{Map, Value, json};

use super::line::MARK;
use agentwarden_protocol::settings_file::SettingsError;

/// The project's settings, relative to the project: where `init gemini` merges the hooks.
pub const PROJECT_FILE: &str = ".gemini/settings.json";
/// Where Gemini reads the machine's settings (an administrator installs `--system`'s file here).
pub const SYSTEM_FILE: &str = "/etc/gemini-cli/settings.json";
/// The variable that names Gemini's home, whose `.gemini/settings.json` is the user's settings.
pub const HOME_ENV: &str = "GEMINI_CLI_HOME";

/// The user's settings: `.gemini/settings.json` in `gemini_home` (the value of [`HOME_ENV`]),
/// else in `home` (the user's home directory).
pub fn user_file(
    gemini_home: Option<std::ffi::OsString>,
    home: Option<std::ffi::OsString>,
) -> Option<std::path::PathBuf> {
    gemini_home.or(home).map(|home| std::path::PathBuf::from(home).join(".gemini").join("settings.json"))
}

/// The name Warden's hooks carry: what `hooksConfig.disabled` would list to switch them off.
pub const HOOK_NAME: &str = "agentwarden";

/// The events Warden's Gemini hook answers, each with its matcher: every tool before it runs,
/// every tool after it ran (the input that ran checked against the one approved, H-55; the end of
/// an `invoke_agent` call is its subagent's stop, M-2), the session's start, the end of each turn
/// of the main session, and the session's end (H-48).
pub const EVENTS: [(&str, &str); 5] = [
    ("BeforeTool", "*"),
    ("AfterTool", "*"),
    ("SessionStart", "*"),
    ("AfterAgent", "*"),
    ("SessionEnd", "*"),
];

/// The events whose block Gemini answers by prompting the model again (`AfterAgent`: exit 2 is
/// a retry), at once and without a limit but its loop detector's: a failure there halts the
/// session instead, `continue: false` read by Gemini as the end of the agent loop (H-57). The
/// `AfterTool` of a subagent's call is not one: its exit 2 replaces the call's result, and the
/// turn goes on without a retry.
pub const HALTING_EVENTS: [&str; 1] = ["AfterAgent"];

/// What Gemini reads from a project that can change how the guard is run: its settings (hooks,
/// agents, MCP servers, and `.gemini/.env`), its instructions (H-12, H-19), and the project's
/// `.env`, which Gemini loads into its environment at start — and so into every hook's, the kill
/// switch's variable among them (G-25).
pub const PROTECTED_FILES: [&str; 3] = [".gemini", "GEMINI.md", ".env"];

/// The files Gemini CLI loads into its environment at start (G-25): from the directory it starts
/// in upward, `.gemini/.env` then `.env` in each directory (the first found is loaded), then
/// `.gemini/.env` in its home (`gemini_home`, the value of [`HOME_ENV`], else `home`) and `.env`
/// in the user's home. Every one is listed: which one Gemini would load depends on which exist
/// when it starts, and the agent's shell can create any of them.
pub fn env_files(
    project: &std::path::Path,
    gemini_home: Option<&std::path::Path>,
    home: Option<&std::path::Path>,
) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for dir in project.ancestors() {
        files.push(dir.join(".gemini").join(".env"));
        files.push(dir.join(".env"));
    }
    if let Some(dir) = gemini_home.or(home) {
        files.push(dir.join(".gemini").join(".env"));
    }
    if let Some(home) = home {
        files.push(home.join(".env"));
    }
    let mut seen = std::collections::BTreeSet::new();
    files.retain(|f| seen.insert(f.clone()));
    files
}

/// Whether a hook entry is Warden's.
fn is_ours(hook: &Value) -> bool {
    hook.get("command").and_then(Value::as_str).is_some_and(|c| c.contains(MARK))
}

/// A settings file's JSON object (an empty text is an empty object), or why not.
fn object_of(text: &str) -> Result<Map<String, Value>, SettingsError> {
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(object)) => Ok(object),
        Ok(_) => Err(SettingsError::NotAnObject { what: "the settings" }),
        Err(e) => Err(SettingsError::NotPlainJson {
            detail: e.to_string(),
            advice: "; Warden does not rewrite settings with comments",
        }),
    }
}

/// Merges Warden's hooks into the settings `text`: an earlier Warden hook of each event is
/// replaced, everything else kept; each runs `command` with Gemini's `timeout_ms`.
pub fn merge_hooks(text: &str, command: &str, timeout_ms: u64) -> Result<String, SettingsError> {
    let mut settings = object_of(text)?;
    let hooks = settings.entry("hooks").or_insert_with(|| json!({}));
    let hooks =
        hooks.as_object_mut().ok_or(SettingsError::Shape { key: "hooks".into(), expected: "an object" })?;
    for (event, matcher) in EVENTS {
        let groups = hooks.entry(event).or_insert_with(|| json!([]));
        let groups = groups
            .as_array_mut()
            .ok_or_else(|| SettingsError::Shape { key: format!("hooks.{event}"), expected: "a list" })?;
        for group in groups.iter_mut() {
            if let Some(list) = group.get_mut("hooks").and_then(Value::as_array_mut) {
                list.retain(|hook| !is_ours(hook));
            }
        }
        groups
            .retain(|group| group.get("hooks").and_then(Value::as_array).is_none_or(|list| !list.is_empty()));
        // A stop's failure halts the session rather than blocking a stop retried forever (H-57).
        let command = if HALTING_EVENTS.contains(&event) {
            super::line::halting(command, super::line::HALT_UNLESS_TWO)
        } else {
            command.to_owned()
        };
        groups.push(json!({
            "matcher": matcher,
            "hooks": [{"type": "command", "name": HOOK_NAME, "command": command, "timeout": timeout_ms}],
        }));
    }
    serde_json::to_string_pretty(&Value::Object(settings))
        .map(|text| text + "\n")
        .map_err(|e| SettingsError::Encode { detail: e.to_string() })
}

/// One of Warden's hooks found in a settings file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The event.
    pub event: String,
    /// Its group's matcher, as written.
    pub matcher: Option<String>,
    /// The command line.
    pub command: String,
    /// Gemini's timeout, in milliseconds (`None`: Gemini's default, 60 000).
    pub timeout_ms: Option<u64>,
}

/// Warden's hooks in the settings `text`.
pub fn read_hooks(text: &str) -> Result<Vec<Entry>, SettingsError> {
    let settings = object_of(text)?;
    let Some(hooks) = settings.get("hooks") else { return Ok(Vec::new()) };
    let hooks =
        hooks.as_object().ok_or(SettingsError::Shape { key: "hooks".into(), expected: "an object" })?;
    let mut found = Vec::new();
    for (event, groups) in hooks {
        for group in groups.as_array().into_iter().flatten() {
            let matcher = group.get("matcher").and_then(Value::as_str).map(str::to_owned);
            for hook in group.get("hooks").and_then(Value::as_array).into_iter().flatten() {
                if let (true, Some(command)) = (is_ours(hook), hook.get("command").and_then(Value::as_str)) {
                    found.push(Entry {
                        event: event.clone(),
                        matcher: matcher.clone(),
                        command: command.to_owned(),
                        timeout_ms: hook.get("timeout").and_then(Value::as_u64),
                    });
                }
            }
        }
    }
    Ok(found)
}

/// The events of [`EVENTS`] no entry answers with its matcher.
pub fn missing_events(entries: &[Entry]) -> Vec<&'static str> {
    EVENTS
        .into_iter()
        .filter(|(event, matcher)| {
            !entries
                .iter()
                .any(|e| e.event == *event && e.matcher.as_deref().is_none_or(|m| m == *matcher || m == "*"))
        })
        .map(|(event, _)| event)
        .collect()
}

pub use agentwarden_protocol::hook_line::LineFindings;

/// An installed hook checked: its binary, its configuration, its tail, its numbers against
/// Gemini's timeout (H-10), which a timeout of whole milliseconds is read in seconds for,
/// rounded down.
pub fn check_entry(entry: &Entry) -> LineFindings {
    let timeout_s = entry.timeout_ms.map(|ms| ms / 1000);
    let halting = HALTING_EVENTS.contains(&entry.event.as_str());
    agentwarden_protocol::hook_line::check_line(
        "Gemini CLI",
        &entry.event,
        &entry.command,
        timeout_s,
        halting,
    )
}

/// The names of Warden's hooks the settings `text` switches off (`hooksConfig.disabled`, or
/// `hooksConfig.enabled: false`, which switches off every hook): Gemini merges the lists of
/// every settings file, so a user's file can switch off a system hook by its name.
pub fn switched_off(text: &str, commands: &[String]) -> Result<Vec<String>, SettingsError> {
    let settings = object_of(text)?;
    let Some(config) = settings.get("hooksConfig") else { return Ok(Vec::new()) };
    let mut off = Vec::new();
    if config.get("enabled") == Some(&Value::Bool(false)) {
        off.push("every hook (`hooksConfig.enabled: false`)".to_owned());
    }
    for name in
        config.get("disabled").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str)
    {
        if name == HOOK_NAME || commands.iter().any(|c| c == name) {
            off.push(format!("`{name}`"));
        }
    }
    Ok(off)
}

/// The events whose hooks can hand a tool another input than the one Warden approved: a
/// `BeforeTool` hook's `hookSpecificOutput.tool_input` replaces the call's input, whichever hook
/// answered first (H-55).
pub const REWRITING_EVENTS: [&str; 1] = ["BeforeTool"];

/// Where Gemini CLI reads an extension's hooks, relative to the extension's directory (each of
/// `.gemini/extensions/NAME/` in the user's home and the project): `{"hooks": {EVENT: …}}`.
pub const EXTENSION_HOOKS_FILE: &str = "hooks/hooks.json";

/// Every hook but Warden's in the settings (or an extension's hooks file) `text` that can
/// rewrite a tool's input ([`REWRITING_EVENTS`]), each as `EVENT` and its name or command.
/// Whatever its matcher: a matcher Warden cannot evaluate as Gemini does is not a reason to pass.
pub fn rewriting_hooks(text: &str) -> Result<Vec<String>, SettingsError> {
    let settings = object_of(text)?;
    let Some(hooks) = settings.get("hooks") else { return Ok(Vec::new()) };
    let hooks =
        hooks.as_object().ok_or(SettingsError::Shape { key: "hooks".into(), expected: "an object" })?;
    let mut found = Vec::new();
    for event in REWRITING_EVENTS {
        let Some(groups) = hooks.get(event) else { continue };
        let groups = groups
            .as_array()
            .ok_or_else(|| SettingsError::Shape { key: format!("hooks.{event}"), expected: "a list" })?;
        for group in groups {
            for hook in group.get("hooks").and_then(Value::as_array).into_iter().flatten() {
                if is_ours(hook) {
                    continue;
                }
                let name = hook.get("name").and_then(Value::as_str);
                let command = hook.get("command").and_then(Value::as_str);
                let said = match (name, command) {
                    (Some(name), _) => format!("`{name}`"),
                    (None, Some(command)) => format!("`{command}`"),
                    (None, None) => format!("{hook}"),
                };
                found.push(format!("{event} {said}"));
            }
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &str = "'/w/warden' --store '/p/.agentwarden/audit' --lock-timeout-ms 5000 hook --harness gemini --config '/p/agentwarden.toml' --deadline-ms 28000 || exit 2";

    /// Merged into settings of the user's own, Warden's hooks replace their earlier selves and
    /// keep everything else; they read back with every event answered.
    #[test]
    fn hooks_merge_replace_their_earlier_selves_and_read_back() {
        let user = r#"{"theme": "dark", "hooks": {"BeforeTool": [{"matcher": "write_file", "hooks": [{"type": "command", "command": "lint"}]}]}}"#;
        let once = merge_hooks(user, LINE, 30_000).unwrap();
        let twice = merge_hooks(&once, LINE, 30_000).unwrap();
        assert_eq!(once, twice, "idempotent");
        let settings: Value = serde_json::from_str(&twice).unwrap();
        assert_eq!(settings["theme"], "dark");
        assert_eq!(
            settings["hooks"]["BeforeTool"][0]["hooks"][0]["command"], "lint",
            "the user's hook stays"
        );
        let entries = read_hooks(&twice).unwrap();
        assert_eq!(entries.len(), EVENTS.len());
        assert!(entries.iter().all(|e| e.command == LINE && e.timeout_ms == Some(30_000)));
        assert!(missing_events(&entries).is_empty());
        let without: Vec<Entry> = entries.iter().filter(|e| e.event != "BeforeTool").cloned().collect();
        assert_eq!(missing_events(&without), ["BeforeTool"]);
        let narrowed: Vec<Entry> = entries
            .iter()
            .map(|e| Entry {
                matcher: (e.event == "AfterTool").then(|| "write_file".to_owned()),
                ..e.clone()
            })
            .collect();
        assert_eq!(missing_events(&narrowed), ["AfterTool"], "a run of another tool not checked (H-55)");
    }

    /// `AfterAgent`'s line halts on a failure, keeping exit 2 for Warden's block; every
    /// other event's line denies or blocks; each reads back clean, and the other way round not (H-57).
    #[test]
    fn after_agents_line_halts_and_every_other_fails_closed() {
        use super::super::line;
        let built = line::hook_command(
            std::path::Path::new("/w/warden"),
            std::path::Path::new("/p"),
            std::path::Path::new("/p/agentwarden.toml"),
            5000,
            28000,
            None,
        );
        let entries = read_hooks(&merge_hooks("", &built, 30_000).unwrap()).unwrap();
        assert_eq!(entries.len(), EVENTS.len());
        for entry in &entries {
            let halts = HALTING_EVENTS.contains(&entry.event.as_str());
            assert_eq!(entry.command.ends_with(line::HALT_UNLESS_TWO), halts, "{entry:?}");
            assert_eq!(entry.command.ends_with(line::FAIL_CLOSED), !halts, "{entry:?}");
            let found = check_entry(entry);
            assert!(
                found.fail_closed && found.problems.is_empty() && found.ending.is_none(),
                "{entry:?}: {found:?}"
            );
            let swapped = Entry {
                command: if halts { built.clone() } else { line::halting(&built, line::HALT_UNLESS_TWO) },
                ..entry.clone()
            };
            assert!(check_entry(&swapped).ending.is_some(), "{swapped:?}");
        }
    }

    /// A file Warden cannot read as plain JSON is refused, never rewritten (comments lost).
    #[test]
    fn settings_that_are_not_plain_json_are_refused() {
        for text in ["// mine\n{}", "[]", "{\"hooks\": 3}", "{\"hooks\": {\"BeforeTool\": {}}}"] {
            assert!(merge_hooks(text, LINE, 30_000).is_err(), "{text}");
        }
        assert!(merge_hooks("", LINE, 30_000).is_ok(), "no file yet");
    }

    /// Table: every `BeforeTool` hook but Warden's can rewrite a tool's input, whatever its
    /// matcher; hooks of other events, and Warden's own, cannot (H-55).
    #[test]
    fn every_other_before_tool_hook_is_named() {
        let ours = merge_hooks("", LINE, 30_000).unwrap();
        let rows: [(&str, usize, &str); 6] = [
            (&ours, 0, "Warden's own hooks alone"),
            (
                r#"{"hooks": {"BeforeTool": [{"matcher": "*", "hooks": [{"type": "command", "command": "rw.sh"}]}]}}"#,
                1,
                "a command",
            ),
            (
                r#"{"hooks": {"BeforeTool": [{"matcher": "write_file", "hooks": [{"name": "lint", "command": "x"}, {"command": "y"}]}]}}"#,
                2,
                "a narrow matcher, two hooks",
            ),
            (r#"{"hooks": {"AfterTool": [{"hooks": [{"command": "log.sh"}]}]}}"#, 0, "another event"),
            (r#"{"theme": "dark"}"#, 0, "no hooks"),
            ("", 0, "no file"),
        ];
        for (text, n, why) in rows {
            assert_eq!(rewriting_hooks(text).unwrap().len(), n, "{why}: {text}");
        }
        let mixed = merge_hooks(
            r#"{"hooks": {"BeforeTool": [{"matcher": "*", "hooks": [{"type": "command", "command": "rw.sh"}]}]}}"#,
            LINE,
            30_000,
        )
        .unwrap();
        assert_eq!(rewriting_hooks(&mixed).unwrap(), ["BeforeTool `rw.sh`"], "kept beside Warden's");
        assert!(rewriting_hooks(r#"{"hooks": {"BeforeTool": {}}}"#).is_err(), "unreadable: a failure");
    }

    /// A settings file can switch Warden's hooks off by name, by command, or all hooks at once.
    #[test]
    fn a_switched_off_hook_is_found() {
        let commands = vec![LINE.to_owned()];
        let rows = [
            (r#"{"hooksConfig": {"disabled": ["agentwarden"]}}"#, 1),
            (&*format!(r#"{{"hooksConfig": {{"disabled": [{}]}}}}"#, Value::from(LINE)), 1),
            (r#"{"hooksConfig": {"enabled": false}}"#, 1),
            (r#"{"hooksConfig": {"disabled": ["lint"]}}"#, 0),
            ("{}", 0),
        ];
        for (text, n) in rows {
            assert_eq!(switched_off(text, &commands).unwrap().len(), n, "{text}");
        }
    }
}
