//! Warden's hooks as Copilot CLI would run them, read back (H-70): the user's hooks folder and
//! settings (`$COPILOT_HOME`, else `~/.copilot`: `hooks/*.json`, `settings.json`), and the
//! project's `.github/hooks/*.json` and `.github/copilot/settings*.json` — which Copilot reads
//! only once the folder is trusted (`trustedFolders` in the user's `config.json`). The form in
//! force is named, each line checked (its binary, the configuration it names, its tail, its
//! timeout's margin), every file searched for `disableAllHooks: true` and for another
//! `preToolUse` hook that can rewrite what Warden approved. What the files hold is
//! [`crate::setup::hooks`]'s; here the files are read and the findings reported.

use std::path::{Path, PathBuf};

use crate::setup::hooks::{self, Entry};
use crate::setup::{line, managed};

use agentwarden_doctor::Check;
use agentwarden_doctor::{Line, read_text};

/// Copilot's home for the user running doctor.
fn home() -> Option<PathBuf> {
    hooks::copilot_home(std::env::var_os(hooks::HOME_ENV), std::env::var_os("HOME"))
}

/// The `*.json` files of `folder` whose names start with `prefix`, sorted; a folder that is not
/// there has none; one that cannot be listed is a finding.
fn json_files(folder: &Path, prefix: &str, found: &mut Vec<String>) -> Vec<PathBuf> {
    use agentwarden_doctor::untrusted::{self, UntrustedError};
    match untrusted::list_dir(None, folder) {
        Ok(listed) => {
            let mut files: Vec<PathBuf> = listed
                .into_iter()
                .map(|(name, _)| name)
                .filter(|name| name.to_str().is_some_and(|n| n.starts_with(prefix) && n.ends_with(".json")))
                .map(|name| folder.join(name))
                .collect();
            files.sort();
            files
        }
        Err(UntrustedError::Missing { .. }) => Vec::new(),
        Err(e) => {
            found.push(format!(
                "`{}` cannot be listed ({e}): the hooks in it cannot be told",
                folder.display()
            ));
            Vec::new()
        }
    }
}

/// Whether the user's `config.json` in `home` trusts `project` (or a folder above it).
fn trusted(home: &Path, project: &Path) -> bool {
    let Ok(Some(text)) = read_text(&home.join("config.json")) else { return false };
    let Ok(config) = serde_json::from_str::<serde_json::Value>(&text) else { return false };
    let project = std::fs::canonicalize(project).unwrap_or_else(|_| project.to_path_buf());
    config
        .get("trustedFolders")
        .and_then(serde_json::Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(serde_json::Value::as_str)
        .any(|folder| project.starts_with(folder))
}

/// The hooks Copilot would run for `project`, checked, as [`Line`]s.
pub fn check(project: &Path, config_path: &Path, checks: &mut Vec<Check>) -> Vec<Line> {
    check_with(project, config_path, Path::new(managed::MANAGED_DIR), checks)
}

/// [`check`], with the managed settings read from `managed_dir` (`/etc/github-copilot` but in
/// tests): Warden's managed plugin is a source of hooks, and `allowManagedHooksOnly: true` there
/// switches every hook off (H-75, H-76).
fn check_with(project: &Path, config_path: &Path, managed_dir: &Path, checks: &mut Vec<Check>) -> Vec<Line> {
    let init = format!("run `warden init copilot --project {}`", project.display());
    let home = home();
    let mut unreadable = Vec::new();
    let mut managed_files = Vec::new();
    let managed_settings = managed_dir.join(managed::SETTINGS_FILE);
    match read_text(&managed_settings) {
        Ok(Some(text)) => {
            match managed::blocks_all_hooks(&text) {
                Ok(true) => checks.push(Check::fail(
                    "managed",
                    format!(
                        "`{}` says `allowManagedHooksOnly: true`, which switches off every hook, Warden's \
                         included (Copilot CLI 1.0.102, measured)",
                        managed_settings.display()
                    ),
                    "remove `allowManagedHooksOnly` from the managed settings",
                )),
                Ok(false) => {}
                Err(e) => unreadable.push(format!("`{}`: {e}", managed_settings.display())),
            }
            if managed::loads_plugin(&text).unwrap_or(false) {
                managed_files.push(managed_dir.join(managed::MARKETPLACE_DIR).join(managed::PLUGIN_HOOKS));
            }
        }
        Ok(None) => {}
        Err(e) => unreadable.push(format!("`{}` {e}", managed_settings.display())),
    }
    let mut user_files = Vec::new();
    let mut settings_files = Vec::new();
    if let Some(home) = &home {
        user_files = json_files(&home.join("hooks"), "", &mut unreadable);
        settings_files.push(home.join("settings.json"));
        settings_files.push(home.join("config.json"));
    } else {
        unreadable.push(format!("no home ({}, HOME): the user's hooks cannot be told", hooks::HOME_ENV));
    }
    let project_files = json_files(&project.join(hooks::PROJECT_HOOKS), "", &mut unreadable);
    settings_files.extend(json_files(&project.join(hooks::PROJECT_SETTINGS), "settings", &mut unreadable));
    let mut texts = Vec::new();
    for path in managed_files.iter().chain(&user_files).chain(&settings_files).chain(&project_files) {
        match read_text(path) {
            Ok(Some(text)) => texts.push((path.clone(), text)),
            Ok(None) => {}
            Err(e) => unreadable.push(format!("`{}` {e}", path.display())),
        }
    }
    let mut entries: Vec<Entry> = Vec::new();
    let (mut in_managed, mut in_user, mut in_project) = (false, false, false);
    for (path, text) in &texts {
        match hooks::read_hooks(text) {
            Ok(found) if !found.is_empty() => {
                if managed_files.contains(path) {
                    in_managed = true;
                } else if path.starts_with(project) {
                    in_project = true;
                } else {
                    in_user = true;
                }
                entries.extend(found);
            }
            Ok(_) => {}
            Err(e) => unreadable.push(format!("`{}`: {e}", path.display())),
        }
    }
    if entries.is_empty() {
        checks.push(Check::fail(
            "form",
            format!(
                "no Warden hook in `{}` nor the user's hooks folder",
                project.join(hooks::PROJECT_FILE).display()
            ),
            format!("{init}, or `warden init copilot --user`"),
        ));
        return Vec::new();
    }
    let project_trusted = home.as_deref().is_some_and(|home| trusted(home, project));
    checks.push(match (in_managed || in_user, in_project, project_trusted) {
        (true, _, _) if in_managed => Check::ok(
            "form",
            "Warden's managed plugin (`/etc/github-copilot`): Copilot runs it for every user whatever their \
             settings; a trusted project's `disableAllHooks` still switches it off",
        ),
        (true, _, _) => Check::ok(
            "form",
            "the user's hooks folder: Copilot loads it in every project with no trust step; an agent running \
             as the user can edit it",
        ),
        (false, _, true) => Check::ok(
            "form",
            "the project's `.github/hooks`, in a folder Copilot trusts; an agent that edits them removes the \
             hooks from the next session",
        ),
        (false, _, false) => Check::fail(
            "form",
            "Warden's hooks are only in the project's `.github/hooks`, which Copilot does not read until the \
             folder is trusted (`trustedFolders` in the user's config.json)",
            "trust the folder in Copilot (`--trust-folder`), or `warden init copilot --user`",
        ),
    });
    let missing = hooks::missing_events(&entries);
    checks.push(if missing.is_empty() {
        Check::ok(
            "hooks",
            "Warden's hook runs for every tool call, every subagent's start and stop, and the session's",
        )
    } else {
        Check::fail("hooks", format!("Warden's hook is missing for {}", missing.join(", ")), init.clone())
    });
    // `disableAllHooks: true` in any settings file Copilot reads switches every hook off (H-70).
    let mut off = Vec::new();
    for (path, text) in texts.iter().filter(|(path, _)| settings_files.contains(path)) {
        match hooks::disables_all(text) {
            Ok(true) => off.push(format!("`{}` sets `disableAllHooks: true`", path.display())),
            Ok(false) => {}
            Err(e) => off.push(format!("`{}` cannot be read: {e}", path.display())),
        }
    }
    checks.push(if off.is_empty() && unreadable.is_empty() {
        Check::ok("switched off", "no settings file Copilot reads switches its hooks off")
    } else {
        off.extend(unreadable.iter().cloned());
        Check::fail(
            "switched off",
            off.join("; "),
            "remove `disableAllHooks` from those files (and protect `.github/copilot`)",
        )
    });
    let mut rewriting = Vec::new();
    for (path, text) in &texts {
        match hooks::rewriting_hooks(text) {
            Ok(found) if !found.is_empty() => {
                rewriting.push(format!("`{}`: {}", path.display(), found.join(", ")))
            }
            Ok(_) => {}
            Err(e) => rewriting.push(format!("`{}` cannot be read ({e})", path.display())),
        }
    }
    checks.push(agentwarden_doctor::rewriting_check(
        &rewriting,
        "another preToolUse hook can replace a tool's input (`modifiedArgs`, `updatedInput`) after Warden approved it (H-55)",
        "remove every preToolUse hook but Warden's from those files (a run with an input Warden did not approve \
         quarantines the session)",
    ));
    let init_again = format!("{init} again");
    let lines = entries.iter().map(|entry| (entry.event.clone(), hooks::check_entry(entry))).collect();
    agentwarden_doctor::check_lines_by_path(lines, config_path, "Copilot CLI", &init_again, checks);
    entries
        .into_iter()
        .map(|entry| {
            let parsed = line::parse(&entry.command);
            Line {
                event: entry.event,
                server: parsed.server.map(|socket| (socket, parsed.server_uid)),
                command: entry.command,
                timeout: Some(entry.timeout_s.unwrap_or(line::DEFAULT_TIMEOUT_S)),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A project's settings with `disableAllHooks: true` fail doctor, as does another
    /// `preToolUse` hook beside Warden's (H-70, H-55).
    #[test]
    fn a_switch_that_disables_every_hook_fails() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let project = dir.path();
        let write = |rel: &str, text: &str| {
            let path = project.join(rel);
            std::fs::create_dir_all(path.parent().unwrap_or(project)).unwrap_or_else(|e| panic!("{e}"));
            std::fs::write(path, text).unwrap_or_else(|e| panic!("{e}"));
        };
        let line = line::hook_command(
            Path::new("/w/warden"),
            project,
            &project.join("agentwarden.toml"),
            5000,
            28000,
            None,
        );
        write(hooks::PROJECT_FILE, &hooks::hook_file(&line, 30));
        write(
            ".github/hooks/other.json",
            r#"{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "rw.sh"}]}}"#,
        );
        write(".github/copilot/settings.json", r#"{"disableAllHooks": true}"#);
        let mut checks = Vec::new();
        let lines = check(project, &project.join("agentwarden.toml"), &mut checks);
        assert_eq!(lines.len(), hooks::EVENTS.len(), "{checks:?}");
        let failed = |name: &str| checks.iter().any(|c| c.check == name && !c.ok);
        assert!(failed("switched off"), "{checks:?}");
        assert!(failed("rewriting hooks"), "{checks:?}");
        let mut none = Vec::new();
        let empty = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        assert!(check(empty.path(), &empty.path().join("agentwarden.toml"), &mut none).is_empty());
        assert!(none.iter().any(|c| c.check == "form" && !c.ok), "{none:?}");
    }

    /// Warden's managed plugin, named by the managed settings, is a form of its own that doctor
    /// reads back; `allowManagedHooksOnly: true` there fails, since it switches every hook off
    /// (H-75, H-76).
    #[test]
    fn the_managed_plugin_is_read_and_a_managed_switch_fails() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let (project, managed_dir) = (dir.path().join("p"), dir.path().join("m"));
        std::fs::create_dir_all(&project).unwrap_or_else(|e| panic!("{e}"));
        let line = line::hook_command(
            Path::new("/w/warden"),
            &project,
            &project.join("agentwarden.toml"),
            5000,
            28000,
            None,
        );
        let mut none = |_: &Path, _: &Path| Ok(None);
        let plan = managed::install(&managed_dir, &project, &line, 30, &mut none).unwrap_or_default();
        for write in &plan.writes {
            std::fs::create_dir_all(write.make.as_deref().unwrap_or(&managed_dir))
                .unwrap_or_else(|e| panic!("{e}"));
            std::fs::write(&write.path, &write.text).unwrap_or_else(|e| panic!("{e}"));
        }
        let config = project.join("agentwarden.toml");
        let mut checks = Vec::new();
        let lines = check_with(&project, &config, &managed_dir, &mut checks);
        assert_eq!(lines.len(), hooks::EVENTS.len(), "{checks:?}");
        assert!(
            checks.iter().any(|c| c.check == "form" && c.ok && c.detail.contains("managed")),
            "{checks:?}"
        );
        let settings = managed_dir.join(managed::SETTINGS_FILE);
        let text = std::fs::read_to_string(&settings).unwrap_or_default();
        let blocked = text.replacen('{', r#"{"allowManagedHooksOnly": true,"#, 1);
        std::fs::write(&settings, blocked).unwrap_or_else(|e| panic!("{e}"));
        let mut checks = Vec::new();
        check_with(&project, &config, &managed_dir, &mut checks);
        assert!(checks.iter().any(|c| c.check == "managed" && !c.ok), "{checks:?}");
    }
}
