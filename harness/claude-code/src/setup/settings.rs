//! Claude Code's settings as Warden installs into them and reads them back: where Claude Code
//! reads them, Warden's hook entries merged in (H-11, H-18, H-43) and read back for
//! `warden doctor` (H-14), the permission deny rules (K-12, K-13), and which of Claude Code's
//! files the guard protects (H-19). The files are read and written by the command line; here
//! they are text and JSON values.
//!
//! `disableAllHooks` in the managed settings turns off every hook; in the project's, local or
//! user settings every hook but the managed ones. `allowManagedHooksOnly` in the managed
//! settings makes Claude Code run only managed hooks (H-13).

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::line::{self, is_ours};
use agentwarden_protocol::settings_file::SettingsError;

/// Where Claude Code reads managed settings on Linux.
pub const MANAGED_FILE: &str = "/etc/claude-code/managed-settings.json";
/// Its drop-in directory (`*.json`, merged in name order after the base file).
pub const MANAGED_DIR: &str = "/etc/claude-code/managed-settings.d";
/// The project's settings, relative to the project: where `init` merges the hooks.
pub const PROJECT_FILE: &str = ".claude/settings.json";
/// The project's local settings, relative to the project.
pub const LOCAL_FILE: &str = ".claude/settings.local.json";
/// The user's settings, relative to the home directory.
pub const USER_FILE: &str = ".claude/settings.json";

/// The key of the managed settings that makes Claude Code run managed hooks only (H-13).
pub const MANAGED_ONLY: &str = "allowManagedHooksOnly";

/// Whether a file of [`MANAGED_DIR`] named `name` is a drop-in Claude Code reads.
pub fn is_managed_drop_in(name: &str) -> bool {
    !name.starts_with('.') && name.ends_with(".json")
}

/// The one event whose hook entry Claude Code lets fail closed with `"onFailure": "block"`
/// (H-18; 2.1.330 ignores the key on `SubagentStart` and `SubagentStop`).
pub const BLOCKING_EVENT: &str = "PreToolUse";

/// The events whose block Claude Code answers by prompting the model again, at once and without
/// a limit: a failure there would loop the session, so their lines halt it instead (H-57).
pub const HALTING_EVENTS: [&str; 2] = ["Stop", "SubagentStop"];

/// The events Warden's hook handles, with their matcher: `*` is Claude Code's "every
/// tool" (the hook governs every tool call, so an untracked agent's calls can be denied).
/// H-43: `ConfigChange` (every source) blocks a settings or skills change made during the
/// session. H-45, H-46: `SessionStart` (every source) snapshots the protected paths, and the
/// main session's `Stop` compares and puts them back. H-48, H-53: `SessionEnd` puts them back
/// once more and keeps the session's snapshot. H-55: `PostToolUse` and `PostToolUseFailure` (every
/// tool) check that the input that ran is the one approved.
pub const EVENTS: [(&str, Option<&str>); 9] = [
    ("PreToolUse", Some("*")),
    ("PostToolUse", Some("*")),
    ("PostToolUseFailure", Some("*")),
    ("SubagentStart", None),
    ("SubagentStop", None),
    ("ConfigChange", None),
    ("SessionStart", None),
    ("Stop", None),
    ("SessionEnd", None),
];

/// What Claude Code reads from a project that can change how the guard is run (H-19): the
/// settings (hooks), the agent definitions, commands, skills, hook scripts and MCP servers.
/// Not the whole `.claude/`: Claude Code makes worktree subagents' worktrees under
/// `.claude/worktrees/`, where their own work must be neither denied nor reverted (each is
/// checked in its own worktree, H-27). An entry that does not exist is protected too: creating
/// it is a change.
pub const PROTECTED_FILES: [&str; 7] = [
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".claude/agents",
    ".claude/commands",
    ".claude/skills",
    ".claude/hooks",
    ".mcp.json",
];

/// The settings files whose `env` key Claude Code puts into the session's environment at start,
/// and so into every hook's, the kill switch's variable among them (G-25): the user's (in
/// `home`), and the project's shared and local ones (both in [`PROTECTED_FILES`]); the managed
/// ones are wherever `doctor` reads them.
pub fn env_settings(project: &Path, home: Option<&Path>) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = home.map(|home| home.join(USER_FILE)).into_iter().collect();
    files.push(project.join(PROJECT_FILE));
    files.push(project.join(LOCAL_FILE));
    files
}

/// Whether the settings `text` set `var` in their `env` object (G-25): any value, a string or
/// not; text that is not a JSON object sets nothing (doctor names it elsewhere).
pub fn env_sets(text: &str, var: &str) -> bool {
    serde_json::from_str::<Value>(text).ok().is_some_and(|v| v.get("env").and_then(|e| e.get(var)).is_some())
}

/// Merges Warden's entries into `settings`: any earlier Warden entry is replaced, every other
/// key and hook is kept.
pub fn merge_hooks(
    settings: &mut Map<String, Value>,
    command: &str,
    timeout: u64,
) -> Result<(), SettingsError> {
    let hooks = settings.entry("hooks").or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(hooks) = hooks else {
        return Err(SettingsError::Shape { key: "hooks".into(), expected: "an object" });
    };
    for (event, matcher) in EVENTS {
        let groups = hooks.entry(event).or_insert_with(|| Value::Array(Vec::new()));
        let Value::Array(groups) = groups else {
            return Err(SettingsError::Shape { key: format!("hooks.{event}"), expected: "an array" });
        };
        groups.retain_mut(|group| {
            let Some(Value::Array(list)) = group.get_mut("hooks") else { return true };
            let before = list.len();
            list.retain(|hook| !is_ours(hook));
            !(list.is_empty() && before > 0)
        });
        let mut group = Map::new();
        if let Some(matcher) = matcher {
            group.insert("matcher".into(), matcher.into());
        }
        let mut hook = Map::new();
        hook.insert("type".into(), "command".into());
        // A stop's failure halts the session rather than blocking a stop retried forever (H-57).
        let command = if HALTING_EVENTS.contains(&event) {
            line::halting(command, line::HALT_ON_ANY_EXIT)
        } else {
            command.to_owned()
        };
        hook.insert("command".into(), command.into());
        hook.insert("timeout".into(), timeout.into());
        // Claude Code honours `onFailure: "block"` on `PreToolUse` only; there it turns a
        // timeout, a missing binary and any exit but 0 and 2 into a block (H-18).
        if event == BLOCKING_EVENT {
            hook.insert("onFailure".into(), "block".into());
        }
        group.insert("hooks".into(), Value::Array(vec![Value::Object(hook)]));
        groups.push(Value::Object(group));
    }
    Ok(())
}

/// Claude Code permission rules that deny the Bash commands running Warden's human verbs
/// (`permissions.deny`, kept with any rule already there; added once). Defence in depth beside
/// the hook's own denial (K-11) and the signatures (K-1, K-12).
pub const HUMAN_VERB_RULES: [&str; 4] =
    ["Bash(warden seal:*)", "Bash(warden approve:*)", "Bash(warden revoke:*)", "Bash(warden release:*)"];

/// The verbs only a human runs (K-11).
const HUMAN_VERBS: [&str; 4] = ["seal", "approve", "revoke", "release"];

/// The `Bash` rules `init claude-code` puts in `permissions.deny`: [`HUMAN_VERB_RULES`],
/// and the same verbs anywhere in a command (`Bash(*warden approve*)`: after `env -u
/// CLAUDECODE`, or `&&`), by the name `warden` and by `exe`, the absolute path of the installed
/// binary, when known (K-13).
///
/// K-18 (shown against the real client): a global option between the binary and the verb
/// (`warden --store DIR approve`) escaped every rule of K-12 and K-13, and so did the binary's
/// absolute path anywhere but at the start (`sh -c '/…/warden approve'`). Each name is now
/// denied with its verb anywhere, directly after it or after options (`Bash(*warden --*
/// approve*)`).
pub fn human_verb_rules(exe: Option<&Path>) -> Vec<String> {
    let mut rules: Vec<String> = HUMAN_VERB_RULES.iter().map(|r| (*r).to_owned()).collect();
    let names = std::iter::once("warden".to_owned()).chain(exe.map(|exe| exe.display().to_string()));
    for name in names {
        for verb in HUMAN_VERBS {
            rules.push(format!("Bash(*{name} {verb}*)"));
        }
        for verb in HUMAN_VERBS {
            rules.push(format!("Bash(*{name} --* {verb}*)"));
        }
    }
    rules
}

/// The rule that denies Claude Code's built-in tools that change files (Edit, Write,
/// MultiEdit, NotebookEdit) on the absolute path `absolute`, and with `tree` on everything
/// under it. `//` and the path: Claude Code's rule syntax for a path from the filesystem root (a
/// single `/` is relative to the settings file). A `Write(...)` rule is not a path rule Claude
/// Code consults, so none is written (K-13).
pub fn edit_rule(absolute: &Path, tree: bool) -> String {
    format!("Edit(/{}{})", absolute.display(), if tree { "/**" } else { "" })
}

/// Adds each of `rules` not there yet to `permissions.deny`; returns how many it added.
pub fn add_deny_rules(settings: &mut Map<String, Value>, rules: &[String]) -> Result<usize, SettingsError> {
    let permissions = settings.entry("permissions").or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(permissions) = permissions else {
        return Err(SettingsError::Shape { key: "permissions".into(), expected: "an object" });
    };
    let deny = permissions.entry("deny").or_insert_with(|| Value::Array(Vec::new()));
    let Value::Array(deny) = deny else {
        return Err(SettingsError::Shape { key: "permissions.deny".into(), expected: "a list" });
    };
    let before = deny.len();
    for rule in rules {
        if !deny.iter().any(|r| r.as_str() == Some(rule)) {
            deny.push(Value::String(rule.clone()));
        }
    }
    Ok(deny.len().saturating_sub(before))
}

/// One of Warden's hook entries, as a settings file holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The event it is under.
    pub event: String,
    /// Its group's matcher.
    pub matcher: Option<String>,
    /// The command line.
    pub command: String,
    /// Claude Code's timeout for it, in seconds.
    pub timeout: Option<u64>,
    /// `onFailure` is `"block"` (H-18).
    pub blocks_on_failure: bool,
}

/// A settings file, as far as Warden cares.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Settings {
    /// Warden's hook entries, under the events it handles.
    pub entries: Vec<Entry>,
    /// `allowManagedHooksOnly`, when set.
    pub managed_only: Option<bool>,
    /// `disableAllHooks`, when set.
    pub disables: Option<bool>,
    /// `permissions.deny`.
    pub deny: Vec<String>,
    /// Every hook but Warden's that can replace a tool's input after Warden approved it (a
    /// `PreToolUse` hook's `updatedInput`, H-55, H-56), each as its event and command.
    pub rewriting: Vec<String>,
}

/// The events whose hooks can hand a tool another input than the one Warden approved: a
/// `PreToolUse` hook answering `updatedInput` with `permissionDecision: "allow"` (H-55).
pub const REWRITING_EVENTS: [&str; 1] = ["PreToolUse"];

/// A settings file's text read: an error (text that says why) when it is not JSON.
pub fn read_settings(text: &str) -> Result<Settings, SettingsError> {
    let settings: Value = serde_json::from_str(text)
        .map_err(|e| SettingsError::NotValid { format: "JSON", detail: e.to_string() })?;
    let mut entries = Vec::new();
    for (event, _) in EVENTS {
        let groups = settings.pointer(&format!("/hooks/{event}")).and_then(Value::as_array);
        for group in groups.into_iter().flatten() {
            let matcher = group.get("matcher").and_then(Value::as_str).map(str::to_owned);
            let hooks = group.get("hooks").and_then(Value::as_array);
            for hook in hooks.into_iter().flatten().filter(|h| is_ours(h)) {
                entries.push(Entry {
                    event: event.to_owned(),
                    matcher: matcher.clone(),
                    command: hook.get("command").and_then(Value::as_str).unwrap_or_default().to_owned(),
                    timeout: hook.get("timeout").and_then(Value::as_u64),
                    blocks_on_failure: hook.get("onFailure").and_then(Value::as_str) == Some("block"),
                });
            }
        }
    }
    let mut rewriting = Vec::new();
    for event in REWRITING_EVENTS {
        let groups = settings.pointer(&format!("/hooks/{event}")).and_then(Value::as_array);
        for group in groups.into_iter().flatten() {
            let hooks = group.get("hooks").and_then(Value::as_array);
            for hook in hooks.into_iter().flatten().filter(|h| !is_ours(h)) {
                let said = hook
                    .get("command")
                    .and_then(Value::as_str)
                    .map_or_else(|| hook.to_string(), str::to_owned);
                rewriting.push(format!("{event} `{said}`"));
            }
        }
    }
    let deny = settings.pointer("/permissions/deny").and_then(Value::as_array);
    Ok(Settings {
        rewriting,
        entries,
        managed_only: settings.get(MANAGED_ONLY).and_then(Value::as_bool),
        disables: settings.get("disableAllHooks").and_then(Value::as_bool),
        deny: deny.into_iter().flatten().filter_map(Value::as_str).map(str::to_owned).collect(),
    })
}

/// "Every tool" in Claude Code's matcher syntax.
pub fn every_tool(matcher: Option<&str>) -> bool {
    matches!(matcher, None | Some("" | "*"))
}

/// The events of [`EVENTS`] no entry covers for every tool (and every agent: a matcher
/// on the subagent events filters by agent type), each named with the matcher it needs (H-11).
pub fn missing_events(entries: &[Entry]) -> Vec<String> {
    let mut missing = Vec::new();
    for (event, matcher) in EVENTS {
        let found = entries.iter().any(|e| e.event == event && every_tool(e.matcher.as_deref()));
        if !found {
            missing.push(matcher.map_or_else(|| event.to_owned(), |m| format!("{event} (matcher `{m}`)")));
        }
    }
    missing
}

/// What one installed entry's line says, checked (H-9, H-10, H-18).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineFindings {
    /// The binary the line runs, when it starts with an absolute, quoted one.
    pub binary: Option<PathBuf>,
    /// The line ends in a fail-closed tail (at a stop, the halt, H-57).
    pub fail_closed: bool,
    /// What is wrong with how the line fails for its event (H-57): a stop's line that blocks, a
    /// tool call's that halts.
    pub ending: Option<String>,
    /// What is wrong with its budget or its entry, each said whole.
    pub problems: Vec<String>,
}

/// An installed entry checked: its binary, its tail, `onFailure` on [`BLOCKING_EVENT`], its
/// numbers against the budget.
pub fn check_entry(entry: &Entry) -> LineFindings {
    let parsed = line::parse(&entry.command);
    let mut problems = Vec::new();
    if parsed.binary.is_none() {
        problems.push(format!("{}: the line does not start with an absolute, quoted binary", entry.event));
    }
    let halting = HALTING_EVENTS.contains(&entry.event.as_str());
    let ending = line::check_ending("Claude Code", &entry.event, &parsed, halting);
    if entry.event == BLOCKING_EVENT && !entry.blocks_on_failure {
        problems.push(format!(
            "{}: no `\"onFailure\": \"block\"`: a timeout of this hook lets the tool call run",
            entry.event
        ));
    }
    let budget = match (entry.timeout, parsed.lock_ms, parsed.deadline_ms) {
        (Some(timeout), Some(lock), Some(deadline)) => line::check_budget(timeout, lock, deadline),
        (None, _, _) => Err(line::BudgetError::NoTimeout { harness: "Claude Code".to_owned() }),
        (_, None, _) => Err(line::BudgetError::NoLockWait),
        (_, _, None) => Err(line::BudgetError::NoDeadline),
    };
    if let Err(why) = budget {
        problems.push(format!("{}: {why}", entry.event));
    }
    LineFindings { binary: parsed.binary, fail_closed: parsed.fail_closed, ending, problems }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_is_star_empty_or_no_matcher() {
        assert!(every_tool(Some("*")));
        assert!(every_tool(Some("")));
        assert!(every_tool(None));
        assert!(!every_tool(Some("Task|Agent")));
        assert!(!every_tool(Some(".*")), "a regex that happens to match all is not what init writes");
    }

    #[test]
    fn merging_keeps_other_keys_and_replaces_earlier_warden_entries() {
        let mut settings: Map<String, Value> = serde_json::from_str(
            r#"{"model":"opus","hooks":{"PreToolUse":[
                {"matcher":"Bash","hooks":[{"type":"command","command":"lint.sh"}]},
                {"matcher":"Task|Agent","hooks":[{"type":"command","command":"'/old/warden' hook --config \"$CLAUDE_PROJECT_DIR/agentwarden.toml\""}]}
            ]}}"#,
        )
        .unwrap();
        let command = line::hook_command(Path::new("/new/warden"), 5000, 28000, None);
        merge_hooks(&mut settings, &command, 30).unwrap();
        merge_hooks(&mut settings, &command, 30).unwrap();
        assert_eq!(settings["model"], "opus");
        let pre = settings["hooks"]["PreToolUse"].as_array().unwrap();
        assert_eq!(pre.len(), 2, "lint kept, one Warden entry: {pre:?}");
        assert_eq!(pre[0]["hooks"][0]["command"], "lint.sh");
        assert_eq!(pre[1]["matcher"], "*");
        assert!(pre[1]["hooks"][0]["command"].as_str().unwrap().starts_with("'/new/warden' --store"));
        assert_eq!(settings["hooks"]["SubagentStop"].as_array().unwrap().len(), 1);
        assert!(settings["hooks"]["SubagentStart"][0].get("matcher").is_none());
        // Only PreToolUse honours onFailure; there it must be "block" (H-18).
        assert_eq!(pre[1]["hooks"][0]["onFailure"], "block");
        assert!(settings["hooks"]["SubagentStop"][0]["hooks"][0].get("onFailure").is_none());
        // The stops' lines halt on a failure; every other event's blocks or denies (H-57).
        for (event, _) in EVENTS {
            let ours = settings["hooks"][event].as_array().and_then(|groups| groups.last()).unwrap();
            let merged = ours["hooks"][0]["command"].as_str().unwrap();
            let halts = HALTING_EVENTS.contains(&event);
            assert_eq!(line::parse(merged).halts, halts, "{event}: {merged}");
            assert_eq!(merged.ends_with(line::HALT_ON_ANY_EXIT), halts, "{event}: {merged}");
            assert_eq!(merged.ends_with(line::FAIL_CLOSED), !halts, "{event}: {merged}");
        }
        // What was merged reads back: every event covered, every line checked clean.
        let text = serde_json::to_string(&settings).unwrap();
        let read = read_settings(&text).unwrap();
        assert_eq!(read.entries.len(), EVENTS.len());
        assert!(missing_events(&read.entries).is_empty());
        for entry in &read.entries {
            let found = check_entry(entry);
            assert!(
                found.fail_closed && found.problems.is_empty() && found.ending.is_none(),
                "{entry:?}: {found:?}"
            );
        }
    }

    #[test]
    fn a_settings_file_of_the_wrong_shape_is_refused() {
        let mut settings: Map<String, Value> = serde_json::from_str(r#"{"hooks":[]}"#).unwrap();
        assert!(merge_hooks(&mut settings, "x", 30).is_err());
        let mut settings: Map<String, Value> =
            serde_json::from_str(r#"{"hooks":{"SubagentStop":{}}}"#).unwrap();
        assert!(merge_hooks(&mut settings, "x", 30).is_err());
        assert!(read_settings("{").unwrap_err().to_string().starts_with("is not valid JSON"));
    }

    #[test]
    fn the_human_verbs_are_denied_once_and_other_rules_kept() {
        let mut settings: Map<String, Value> = serde_json::from_str(
            r#"{"permissions":{"deny":["Read(.env)","Bash(warden seal:*)"],"allow":["Bash(ls)"]}}"#,
        )
        .unwrap();
        let rules: Vec<String> = HUMAN_VERB_RULES.iter().map(|r| (*r).to_owned()).collect();
        add_deny_rules(&mut settings, &rules).unwrap();
        add_deny_rules(&mut settings, &rules).unwrap();
        let deny: Vec<&str> =
            settings["permissions"]["deny"].as_array().unwrap().iter().map(|r| r.as_str().unwrap()).collect();
        assert_eq!(deny.len(), 1 + HUMAN_VERB_RULES.len(), "{deny:?}");
        assert!(
            deny.contains(&"Read(.env)") && HUMAN_VERB_RULES.iter().all(|r| deny.contains(r)),
            "{deny:?}"
        );
        assert_eq!(settings["permissions"]["allow"][0], "Bash(ls)");
        let mut bad: Map<String, Value> = serde_json::from_str(r#"{"permissions":{"deny":"x"}}"#).unwrap();
        assert!(add_deny_rules(&mut bad, &rules).is_err());
        // The verbs by the binary's path too, directly and after options (K-18).
        let all = human_verb_rules(Some(Path::new("/w/warden")));
        assert!(all.contains(&"Bash(*/w/warden approve*)".to_owned()), "{all:?}");
        assert!(all.contains(&"Bash(*warden --* seal*)".to_owned()), "{all:?}");
        assert_eq!(edit_rule(Path::new("/p/.agentwarden"), true), "Edit(//p/.agentwarden/**)");
        assert_eq!(edit_rule(Path::new("/p/agentwarden.toml"), false), "Edit(//p/agentwarden.toml)");
    }

    /// A missing event, a short matcher, no `onFailure`, a tail missing, a budget that does
    /// not fit: each is named (H-14).
    #[test]
    fn each_gap_of_an_installed_entry_is_named() {
        let good = line::hook_command(Path::new("/w/warden"), 5000, 28000, None);
        let stop = line::halting(&good, line::HALT_ON_ANY_EXIT);
        let entry =
            |event: &str, matcher: Option<&str>, command: &str, timeout: Option<u64>, blocks: bool| Entry {
                event: event.to_owned(),
                matcher: matcher.map(str::to_owned),
                command: command.to_owned(),
                timeout,
                blocks_on_failure: blocks,
            };
        let narrow = [entry("PreToolUse", Some("Task|Agent"), &good, Some(30), true)];
        let missing = missing_events(&narrow);
        assert!(missing.contains(&"PreToolUse (matcher `*`)".to_owned()), "{missing:?}");
        assert!(missing.contains(&"ConfigChange".to_owned()), "{missing:?}");
        // (entry, a word its finding must hold, fails closed, why)
        let table = [
            (entry("PreToolUse", Some("*"), &good, Some(30), false), "onFailure", true, "no onFailure"),
            (
                entry("SubagentStop", None, &good, Some(30), false),
                "prompting the model again",
                true,
                "a stop's line that blocks on a failure (H-57)",
            ),
            (
                entry("PreToolUse", Some("*"), &stop, Some(30), true),
                "halts the session",
                true,
                "a tool call's line that halts on a failure (H-57)",
            ),
            (
                entry("SubagentStop", None, &stop, Some(2), false),
                "--timeout 8",
                true,
                "a timeout without margin",
            ),
            (entry("SubagentStop", None, &stop, None, false), "no `timeout`", true, "no timeout"),
            (
                entry(
                    "SubagentStop",
                    None,
                    "warden hook --config x --lock-timeout-ms 5000 --deadline-ms 28000",
                    Some(30),
                    false,
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
        for clean in [
            entry("SubagentStop", None, &stop, Some(30), false),
            entry("PreToolUse", Some("*"), &good, Some(30), true),
        ] {
            let found = check_entry(&clean);
            assert!(found.problems.is_empty() && found.ending.is_none(), "{found:?}");
        }
    }
}
