//! Warden's hooks as Codex would run them, read back: the managed requirements
//! ([`config::MANAGED_FILE`], or the files given with `--managed`) and the project's
//! `.codex/config.toml`, the form in force named, the project's trust in Codex's home where the
//! project's hooks are the ones in force, and each line checked (its binary, the configuration it
//! names, its tail, its timeout's margin). What the files hold and what each finding means is
//! `agentwarden_codex::setup`'s; here the files are read and the findings reported (C-10).

use std::path::{Path, PathBuf};

use crate::setup::config::{self, Entry, Hooks};
use crate::setup::line;
use crate::setup::places::{self, Place};

use agentwarden_doctor::Check;
use agentwarden_doctor::{Line, read_text};

fn read_hooks(path: &Path) -> Result<Option<Hooks>, String> {
    let Some(text) = read_text(path).map_err(|e| e.to_string())? else { return Ok(None) };
    config::read_hooks(&text).map(Some).map_err(|e| format!("`{}` {e}", path.display()))
}

/// Where the project's hooks are in force, the project must be trusted in Codex's home.
fn check_trust(project: &Path, codex_home: Option<PathBuf>, init: &str, checks: &mut Vec<Check>) {
    let home = config::home(codex_home, std::env::var_os(config::HOME_ENV), std::env::var_os("HOME"));
    let Some(home) = home else {
        return checks.push(Check::fail(
            "trust",
            "no Codex home to read the project's trust from",
            "give --codex-home DIR (or set CODEX_HOME or HOME)",
        ));
    };
    let file = home.join(config::HOME_FILE);
    let trusted = read_text(&file).map_err(|e| e.to_string()).and_then(|text| match text {
        None => Ok(false),
        Some(text) => config::is_trusted(&text, project).map_err(|e| format!("`{}` {e}", file.display())),
    });
    checks.push(match trusted {
        Ok(true) => Check::ok(
            "trust",
            format!(
                "`{}` is trusted in `{}`; Codex runs the project's hooks once they are reviewed (C-8)",
                project.display(),
                file.display()
            ),
        ),
        Ok(false) => Check::fail(
            "trust",
            format!(
                "`{}` is not trusted in `{}`: Codex ignores the project's configuration, Warden's hooks included, \
                 without a word",
                project.display(),
                file.display()
            ),
            format!(
                "{init} --codex-home {} (it trusts the project there), or install the managed form \
                 (`warden init codex --managed FILE`), whose hooks need no trust",
                home.display()
            ),
        ),
        Err(e) => Check::fail("trust", e, format!("fix `{}`", file.display())),
    });
}

/// The installed form and Warden's hooks Codex would run.
fn check_hooks(
    project: &Path,
    managed: &[PathBuf],
    codex_home: Option<PathBuf>,
    checks: &mut Vec<Check>,
) -> Vec<Entry> {
    let init = format!("run `warden init codex --project {}`", project.display());
    let files = if managed.is_empty() { vec![PathBuf::from(config::MANAGED_FILE)] } else { managed.to_vec() };
    let mut sources = Vec::new();
    for path in files {
        match read_hooks(&path) {
            Ok(Some(hooks)) => sources.push((path, hooks)),
            Ok(None) => {}
            Err(e) => checks.push(Check::fail(
                "form",
                e,
                "fix the managed requirements file, or ask its administrator",
            )),
        }
    }
    let managed_only = sources.iter().filter_map(|(_, h)| h.managed_only).next_back() == Some(true);
    let managed_names: Vec<String> = sources
        .iter()
        .filter(|(_, h)| !h.entries.is_empty())
        .map(|(p, _)| format!("`{}`", p.display()))
        .collect();
    let project_file = project.join(config::PROJECT_FILE);
    let project_hooks = match read_hooks(&project_file) {
        Ok(hooks) => hooks.unwrap_or_default(),
        Err(e) => {
            checks.push(Check::fail("form", e, init.clone()));
            Hooks::default()
        }
    };
    let project_has = !managed_only && !project_hooks.entries.is_empty();
    let mut entries: Vec<Entry> = sources.into_iter().flat_map(|(_, h)| h.entries).collect();
    if !managed_only {
        entries.extend(project_hooks.entries);
    }
    if entries.is_empty() {
        let detail =
            format!("no Warden hook in `{}` nor in the managed requirements", project_file.display());
        checks.push(Check::fail(
            "form",
            detail,
            format!("{init}, or install `warden init codex --managed FILE`"),
        ));
        return entries;
    }
    let form = match (managed_names.is_empty(), managed_only) {
        (false, true) => format!(
            "managed requirements ({}) with allow_managed_hooks_only: Codex runs no other hook, and an agent \
             running as the user cannot remove Warden's",
            managed_names.join(", ")
        ),
        (false, false) => format!(
            "managed requirements ({}) without allow_managed_hooks_only{}",
            managed_names.join(", "),
            if project_has { ", and the project's configuration" } else { "" }
        ),
        (true, _) => format!(
            "the project's configuration (`{}`): an agent that edits it removes the hooks from the next session; \
             `warden init codex --managed FILE` writes the form it cannot edit",
            project_file.display()
        ),
    };
    checks.push(Check::ok("form", form));
    let missing = config::missing_events(&entries);
    checks.push(if missing.is_empty() {
        Check::ok("hooks", "Warden's hook runs for every tool call and every subagent start and stop")
    } else {
        Check::fail("hooks", format!("Warden's hook is missing for {}", missing.join(", ")), init.clone())
    });
    // Managed hooks are trusted; the project's run only in a trusted project.
    if managed_names.is_empty() {
        check_trust(project, codex_home, &init, checks);
    }
    entries
}

/// The project layers Codex may read for `project`: every folder from the file system's root
/// down to `project`. Codex reads those from the project's root (the nearest folder up with one
/// of its `project_root_markers`, `.git` by default) down; the markers are a setting the user's
/// configuration can change, so every folder up is read (C-18).
fn project_layers(project: &Path) -> Vec<PathBuf> {
    let mut layers: Vec<PathBuf> = project.ancestors().map(Path::to_path_buf).collect();
    layers.reverse();
    layers
}

/// Every other hook that can replace a tool's input after Warden approved it (C-18, H-55): a
/// `PreToolUse` hook in any place Codex reads hooks from ([`places::places`]) — the managed
/// requirements alone when they set `allow_managed_hooks_only` — each a failure named with its
/// file; so is a place that cannot be read (its hooks cannot be told), no Codex home to find the
/// user's, and more than one distinct line that looks like Warden's (all but one could be a
/// rewriter wearing its mark) (C-19).
fn check_rewriting(
    project: &Path,
    managed: &[PathBuf],
    codex_home: Option<PathBuf>,
    checks: &mut Vec<Check>,
) {
    let mut found = Vec::new();
    let managed =
        if managed.is_empty() { vec![PathBuf::from(config::MANAGED_FILE)] } else { managed.to_vec() };
    let home = config::home(codex_home, std::env::var_os(config::HOME_ENV), std::env::var_os("HOME"));
    let home = home.unwrap_or_else(|| {
        found.push(
            "no Codex home (`--codex-home`, CODEX_HOME, HOME): the user's hooks cannot be told".to_owned(),
        );
        PathBuf::from(config::HOME_ENV)
    });
    let all = places::places(&managed, &home, &project_layers(project));
    let managed_only = all
        .iter()
        .filter(|p| p.managed)
        .filter_map(|p| read_hooks(&p.path).ok().flatten().and_then(|h| h.managed_only))
        .next_back()
        == Some(true);
    let mut wardens: Vec<(String, String)> = Vec::new();
    for Place { path, format, managed } in all {
        if managed_only && !managed {
            continue;
        }
        let hooks = read_text(&path).map_err(|e| e.to_string()).and_then(|text| match text {
            None => Ok(None),
            Some(text) => places::pre_tool_use_hooks(&text, format)
                .map(Some)
                .map_err(|e| format!("`{}` {e}", path.display())),
        });
        match hooks {
            Ok(None) => {}
            Ok(Some((others, ours))) => {
                if !others.is_empty() {
                    found.push(format!("`{}`: {}", path.display(), others.join(", ")));
                }
                wardens.extend(ours.into_iter().map(|command| (path.display().to_string(), command)));
            }
            Err(e) => found.push(format!("{e}: its hooks cannot be told")),
        }
    }
    let mut distinct: Vec<&str> = wardens.iter().map(|(_, c)| c.as_str()).collect();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct.len() > 1 {
        let named: Vec<String> =
            wardens.iter().map(|(path, command)| format!("`{path}`: `{command}`")).collect();
        found.push(format!(
            "{} different PreToolUse lines carry Warden's mark, and all but one could be another hook wearing it: {}",
            distinct.len(),
            named.join(", ")
        ));
    }
    checks.push(agentwarden_doctor::rewriting_check(
        &found,
        "another PreToolUse hook can replace a tool's input (`updatedInput`) after Warden approved it \
         (C-18, H-55; a run with an input Warden did not approve quarantines the session)",
        "remove every PreToolUse hook but Warden's from those files (and make each readable), or install the \
         managed form with allow_managed_hooks_only (`warden init codex --managed FILE`)",
    ));
}

/// Each hook's line: the binary exists, it names the configuration checked here, the tail fails
/// closed, the numbers leave margin.
fn check_lines(project: &Path, config_path: &Path, entries: &[Entry], checks: &mut Vec<Check>) {
    let init = format!("run `warden init codex --project {}` again", project.display());
    let lines = entries.iter().map(|entry| (entry.event.clone(), config::check_entry(entry))).collect();
    agentwarden_doctor::check_lines_by_path(lines, config_path, "Codex", &init, checks);
}

/// The hooks Codex would run for `project`, checked, as [`Line`]s (C-10).
pub fn check(
    project: &Path,
    config_path: &Path,
    managed: &[PathBuf],
    codex_home: Option<PathBuf>,
    checks: &mut Vec<Check>,
) -> Vec<Line> {
    let entries = check_hooks(project, managed, codex_home.clone(), checks);
    check_rewriting(project, managed, codex_home, checks);
    if !entries.is_empty() {
        check_lines(project, config_path, &entries, checks);
    }
    entries
        .into_iter()
        .map(|entry| {
            let parsed = line::parse(&entry.command);
            Line {
                event: entry.event,
                server: parsed.server.map(|socket| (socket, parsed.server_uid)),
                command: entry.command,
                timeout: entry.timeout,
            }
        })
        .collect()
}

/// What Codex's own rules do to a confined call (C-21, C-22), for a project whose `[confine]` is
/// not `off`: a `sandbox_mode` in the user's or the project's configuration beside which the
/// launcher cannot make its namespaces (every confined call would fail), and the exec-policy
/// files that hold a refusing or asking decision (every confined call would be denied). Each a
/// warning with its fix; a file that cannot be read is named too.
pub fn check_confinement(project: &Path, codex_home: Option<PathBuf>, checks: &mut Vec<Check>) {
    use crate::setup::rules;
    let home = config::home(codex_home, std::env::var_os(config::HOME_ENV), std::env::var_os("HOME"));
    let mut sandboxes = Vec::new();
    let mut modes = Vec::new();
    let configs: Vec<PathBuf> =
        home.iter().map(|h| h.join(config::HOME_FILE)).chain([project.join(config::PROJECT_FILE)]).collect();
    for file in configs {
        match read_text(&file)
            .map_err(|e| e.to_string())
            .and_then(|text| text.map(|t| rules::sandbox_mode(&t).map_err(|e| e.to_string())).transpose())
        {
            Ok(mode) => modes.push(mode.flatten()),
            Err(e) => sandboxes.push(format!("`{}`: {e}", file.display())),
        }
    }
    sandboxes.extend(rules::sandbox_refusing_launcher(&modes));
    checks.push(if sandboxes.is_empty() {
        Check::ok("codex sandbox", "no sandbox_mode that keeps the launcher from confining a call")
    } else {
        Check::warn(
            "codex sandbox",
            format!(
                "Codex runs a confined call inside its own sandbox, where the launcher cannot make its namespaces: every confined call fails (C-21): {}",
                sandboxes.join("; ")
            ),
            "set `sandbox_mode = \"danger-full-access\"` (Warden's confinement in place of Codex's sandbox), or `[confine] mode = \"off\"` to keep Codex's sandbox",
        )
    });
    let mut refusing = Vec::new();
    if home.is_none() {
        refusing.push(
            "no Codex home (`--codex-home`, CODEX_HOME, HOME): the user's rules cannot be told".to_owned(),
        );
    }
    let dirs = rules::rules_dirs(home.as_deref(), &project_layers(project));
    for dir in dirs {
        // Listed as the hook lists it: opened once, through that descriptor.
        let entries = match agentwarden_doctor::untrusted::list_dir_followed(&dir) {
            Err(agentwarden_doctor::untrusted::UntrustedError::Missing { .. }) => continue,
            Err(e) => {
                refusing.push(format!("`{}` cannot be listed: {e}", dir.display()));
                continue;
            }
            Ok(entries) => entries,
        };
        let mut files: Vec<PathBuf> = entries
            .into_iter()
            .filter(|(name, _)| rules::is_rules_file(&name.to_string_lossy()))
            .map(|(name, _)| dir.join(name))
            .collect();
        files.sort();
        for file in files {
            match read_text(&file) {
                Ok(None) => {}
                Ok(Some(text)) if rules::refuses(&text) => refusing.push(format!("`{}`", file.display())),
                Ok(Some(_)) => {}
                Err(e) => refusing.push(format!("`{}`: {e}", file.display())),
            }
        }
    }
    checks.push(if refusing.is_empty() {
        Check::ok("codex exec policy", "no rules file holds a forbidden or prompt decision")
    } else {
        Check::warn(
            "codex exec policy",
            format!(
                "Codex judges its exec policy on the launcher's line, not the command, so Warden does not confine a call while a rules file holds `forbidden` or `prompt`: denied under `required`, unconfined under `on` (C-22): {}",
                refusing.join(", ")
            ),
            "keep command refusals in the manifests and remove them from those files, or `[confine] mode = \"off\"` to keep Codex's rules",
        )
    });
}
