//! Warden's hooks as Gemini CLI would run them, read back: the system settings
//! ([`settings::SYSTEM_FILE`], or the files given with `--managed`) and the project's
//! `.gemini/settings.json`, the form in force named, each line checked (its binary, the
//! configuration it names, its tail, its timeout's margin), and every settings file Gemini
//! merges searched for a `hooksConfig` that switches Warden's hooks off. What the files hold is
//! `agentwarden_gemini::setup`'s; here the files are read and the findings reported.

use std::path::{Path, PathBuf};

use crate::setup::line;
use crate::setup::settings::{self, Entry};

use agentwarden_doctor::Check;
use agentwarden_doctor::{Line, read_text};

fn read_hooks(path: &Path) -> Result<Option<(String, Vec<Entry>)>, String> {
    let Some(text) = read_text(path).map_err(|e| e.to_string())? else { return Ok(None) };
    let entries = settings::read_hooks(&text).map_err(|e| format!("`{}`: {e}", path.display()))?;
    Ok(Some((text, entries)))
}

/// Gemini's user settings: `$GEMINI_CLI_HOME/.gemini/settings.json`, else `~/.gemini/settings.json`.
fn user_settings() -> Option<PathBuf> {
    settings::user_file(std::env::var_os(settings::HOME_ENV), std::env::var_os("HOME"))
}

/// The hooks Gemini would run for `project`, checked, as [`Line`]s.
pub fn check(project: &Path, config_path: &Path, system: &[PathBuf], checks: &mut Vec<Check>) -> Vec<Line> {
    let init = format!("run `warden init gemini --project {}`", project.display());
    let systems =
        if system.is_empty() { vec![PathBuf::from(settings::SYSTEM_FILE)] } else { system.to_vec() };
    let project_file = project.join(settings::PROJECT_FILE);
    let user = user_settings();
    let mut texts = Vec::new();
    let mut entries = Vec::new();
    let (mut in_system, mut in_user) = (Vec::new(), false);
    let sources = systems.iter().chain(user.iter()).chain(std::iter::once(&project_file));
    for path in sources {
        match read_hooks(path) {
            Ok(Some((text, found))) => {
                if !found.is_empty() && Some(path) == user.as_ref() {
                    in_user = true;
                } else if !found.is_empty() && path != &project_file {
                    in_system.push(format!("`{}`", path.display()));
                }
                entries.extend(found);
                texts.push((path.clone(), text));
            }
            Ok(None) => {}
            Err(e) => checks.push(Check::fail("form", e, format!("fix the file, or {init}"))),
        }
    }
    if entries.is_empty() {
        let detail = format!(
            "no Warden hook in `{}`, the user's settings nor the system settings",
            project_file.display()
        );
        checks.push(Check::fail(
            "form",
            detail,
            format!("{init}, or install `warden init gemini --system FILE`"),
        ));
        return Vec::new();
    }
    checks.push(Check::ok(
        "form",
        match (in_system.is_empty(), in_user) {
            (false, _) => format!(
                "the system settings ({}): an agent running as the user cannot edit them",
                in_system.join(", ")
            ),
            (true, true) => format!(
                "the user's settings (`{}`): they run in every project, and an agent running as the user can edit \
                 them; `warden init gemini --system FILE` writes the form it cannot edit",
                user.as_ref().map(|p| p.display().to_string()).unwrap_or_default()
            ),
            (true, false) => format!(
                "the project's settings (`{}`): Gemini reads them only in a trusted folder, and an agent that \
                 edits them removes the hooks from the next session; `warden init gemini --system FILE` writes \
                 the form it cannot edit",
                project_file.display()
            ),
        },
    ));
    let missing = settings::missing_events(&entries);
    checks.push(if missing.is_empty() {
        Check::ok(
            "hooks",
            "Warden's hook runs for every tool call, every spawn's end and the session's start and turns",
        )
    } else {
        Check::fail("hooks", format!("Warden's hook is missing for {}", missing.join(", ")), init.clone())
    });
    // Gemini merges `hooksConfig.disabled` across its settings files: the user's can switch a
    // system hook off by its name.
    if let Some(user) = user.filter(|u| !texts.iter().any(|(path, _)| path == u))
        && let Ok(Some(text)) = read_text(&user)
    {
        texts.push((user, text));
    }
    let commands: Vec<String> = entries.iter().map(|e| e.command.clone()).collect();
    let mut off = Vec::new();
    for (path, text) in &texts {
        match settings::switched_off(text, &commands) {
            Ok(names) if !names.is_empty() => {
                off.push(format!("`{}` switches off {}", path.display(), names.join(", ")))
            }
            Ok(_) => {}
            Err(e) => off.push(format!("`{}` cannot be read: {e}", path.display())),
        }
    }
    checks.push(if off.is_empty() {
        Check::ok("switched off", "no settings file Gemini reads switches Warden's hooks off")
    } else {
        Check::fail(
            "switched off",
            off.join("; "),
            "remove Warden's hook from `hooksConfig.disabled` (and `hooksConfig.enabled: false`)",
        )
    });
    rewriting_hooks(project, &texts, checks);
    check_lines(project, config_path, &entries, checks);
    entries
        .into_iter()
        .map(|entry| {
            let parsed = line::parse(&entry.command);
            Line {
                event: entry.event,
                server: parsed.server.map(|socket| (socket, parsed.server_uid)),
                command: entry.command,
                timeout: entry.timeout_ms.map(|ms| ms / 1000),
            }
        })
        .collect()
}

/// The extensions folders Gemini loads hooks from: the user's and the project's
/// `.gemini/extensions` (`None` for the user's when no home says where it is).
fn extensions_folders(project: &Path) -> [Option<PathBuf>; 2] {
    [
        user_settings().and_then(|p| p.parent().map(|gemini| gemini.join("extensions"))),
        Some(project.join(".gemini").join("extensions")),
    ]
}

/// The hooks file of each extension in `folder`, read: `(path, text)` for each that exists, and
/// for what cannot be listed or read a finding that names it (M-28). The folder is listed by
/// descriptor and never through a link (U-1): a folder that is a link, a file where the folder is
/// expected, an entry that is a link or cannot be read — each hides what Gemini would load, so
/// each is named, never skipped. A folder that does not exist has no extension.
fn extension_hooks(folder: &Path, files: &mut Vec<(PathBuf, String)>, found: &mut Vec<String>) {
    use agentwarden_doctor::untrusted::{self, FileType, UntrustedError};
    let listed = match untrusted::list_dir(None, folder) {
        Ok(listed) => listed,
        Err(UntrustedError::Missing { .. }) => return,
        Err(e) => {
            return found.push(format!(
                "the extensions folder cannot be listed ({e}): the hooks of its extensions cannot be told"
            ));
        }
    };
    for (name, kind) in listed {
        // Gemini loads an extension from a folder (or a link to one); a plain file is none.
        if !matches!(kind, FileType::Directory | FileType::Symlink | FileType::Unknown) {
            continue;
        }
        let path = folder.join(&name).join(settings::EXTENSION_HOOKS_FILE);
        match read_text(&path) {
            Ok(Some(text)) => files.push((path, text)),
            Ok(None) => {}
            Err(e) => found.push(format!("`{}` {e}: its hooks cannot be told", path.display())),
        }
    }
}

/// Every other hook that can rewrite a tool's input after Warden approved it (H-55), in every
/// settings file Gemini merges (`texts`) and every extension's hooks file (the user's and the
/// project's `.gemini/extensions/*/hooks/hooks.json`): each a failure, named with its file; so is
/// every place among them that cannot be read, and no home to find the user's in (M-28).
fn rewriting_hooks(project: &Path, texts: &[(PathBuf, String)], checks: &mut Vec<Check>) {
    let mut files: Vec<(PathBuf, String)> = texts.to_vec();
    let mut found = Vec::new();
    for folder in extensions_folders(project) {
        match folder {
            Some(folder) => extension_hooks(&folder, &mut files, &mut found),
            None => found.push(format!(
                "no home ({}, HOME) to find the user's settings and extensions in: their hooks cannot be told",
                settings::HOME_ENV
            )),
        }
    }
    for (path, text) in &files {
        match settings::rewriting_hooks(text) {
            Ok(hooks) if !hooks.is_empty() => {
                found.push(format!("`{}`: {}", path.display(), hooks.join(", ")))
            }
            Ok(_) => {}
            Err(e) => {
                found.push(format!("`{}` cannot be read ({e}): its hooks cannot be told", path.display()))
            }
        }
    }
    checks.push(agentwarden_doctor::rewriting_check(
        &found,
        "another BeforeTool hook can replace a tool's input after Warden approved it (H-55)",
        "remove every BeforeTool hook but Warden's from those files (a run with an input Warden did not \
         approve quarantines the session)",
    ));
}

/// Each hook's line: the binary exists, it names the configuration checked here, the tail fails
/// closed, the numbers leave margin.
fn check_lines(project: &Path, config_path: &Path, entries: &[Entry], checks: &mut Vec<Check>) {
    let init = format!("run `warden init gemini --project {}` again", project.display());
    let lines = entries.iter().map(|entry| (entry.event.clone(), settings::check_entry(entry))).collect();
    agentwarden_doctor::check_lines_by_path(lines, config_path, "Gemini CLI", &init, checks);
}

/// What Gemini's own policy engine does to a confined call (M-30), for a project whose
/// `[confine]` is not `off`: the policy files outside Gemini's defaults (the user's, the
/// administrator's, those the settings add with `policyPaths` and `adminPolicyPaths`) that hold
/// a refusing or asking decision, and settings that exclude the shell by a command: every
/// confined call would be denied. A warning with its fix; a file that cannot be read is named
/// too.
pub fn check_confinement(project: &Path, checks: &mut Vec<Check>) {
    use crate::setup::policy;
    let mut refusing = Vec::new();
    let mut folders: Vec<PathBuf> = vec![PathBuf::from(policy::ADMIN_POLICIES)];
    match user_settings().and_then(|file| file.parent().and_then(Path::parent).map(Path::to_path_buf)) {
        Some(home) => folders.push(home.join(policy::USER_POLICIES)),
        None => {
            refusing.push("no home (GEMINI_CLI_HOME, HOME): the user's policies cannot be told".to_owned())
        }
    }
    let settings_files: Vec<PathBuf> = [Some(PathBuf::from(settings::SYSTEM_FILE)), user_settings()]
        .into_iter()
        .flatten()
        .chain([project.join(settings::PROJECT_FILE)])
        .collect();
    let mut files = Vec::new();
    for file in settings_files {
        match read_text(&file) {
            Ok(None) => {}
            Ok(Some(text)) => match policy::settings_policy(&text) {
                Ok((paths, shell_excluded)) => {
                    if shell_excluded {
                        refusing.push(format!("`{}` excludes the shell by a command", file.display()));
                    }
                    for path in paths.into_iter().map(PathBuf::from) {
                        if path.is_dir() { folders.push(path) } else { files.push(path) }
                    }
                }
                Err(e) => refusing.push(format!("`{}` {e}", file.display())),
            },
            Err(e) => refusing.push(format!("`{}`: {e}", file.display())),
        }
    }
    for folder in folders {
        // Listed as the hook lists it: opened once, through that descriptor.
        match agentwarden_doctor::untrusted::list_dir_followed(&folder) {
            Err(agentwarden_doctor::untrusted::UntrustedError::Missing { .. }) => {}
            Err(e) => refusing.push(format!("`{}` cannot be listed: {e}", folder.display())),
            Ok(entries) => {
                let mut found: Vec<PathBuf> = entries
                    .into_iter()
                    .map(|(name, _)| folder.join(name))
                    .filter(|p| p.extension().is_some_and(|e| e == "toml"))
                    .collect();
                found.sort();
                files.extend(found);
            }
        }
    }
    for file in files {
        match read_text(&file) {
            Ok(Some(text)) if policy::refuses(&text) => refusing.push(format!("`{}`", file.display())),
            Ok(_) => {}
            Err(e) => refusing.push(format!("`{}`: {e}", file.display())),
        }
    }
    checks.push(if refusing.is_empty() {
        Check::ok("gemini policy", "no policy file holds a deny or ask_user decision")
    } else {
        Check::warn(
            "gemini policy",
            format!(
                "Gemini judges its policy on the launcher's line, not the command, so Warden does not confine a call while a policy refuses or asks: denied under `required`, unconfined under `on` (M-30): {}",
                refusing.join(", ")
            ),
            "keep command refusals in the manifests and remove them from those files, or `[confine] mode = \"off\"` to keep Gemini's policies",
        )
    });
}
