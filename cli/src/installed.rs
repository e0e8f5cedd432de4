//! Warden's hook entries as installed: read back from where Claude Code reads them (the
//! managed settings, `/etc/claude-code/managed-settings.json` then
//! `/etc/claude-code/managed-settings.d/*.json`, or the files given with `--managed`; then the
//! project's `.claude/settings.json`), the form in force named, each line checked (H-11,
//! H-14; the line itself is built in [`super::wiring`]). `disableAllHooks` in the managed
//! settings turns off every hook; in the project's, local or user settings every hook but the
//! managed ones.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::check::Check;
use super::wiring::{self, EVENTS, is_ours};

/// Where Claude Code reads managed settings on Linux.
const MANAGED_FILE: &str = "/etc/claude-code/managed-settings.json";
/// Its drop-in directory (`*.json`, merged in name order after the base file).
const MANAGED_DIR: &str = "/etc/claude-code/managed-settings.d";

/// One of Warden's installed hook entries.
#[derive(Debug)]
pub(super) struct Entry {
    pub(super) event: String,
    matcher: Option<String>,
    pub(super) command: String,
    pub(super) timeout: Option<u64>,
    /// `onFailure` is `"block"` (H-18).
    blocks_on_failure: bool,
}

/// A settings file Claude Code reads, as far as Warden cares.
#[derive(Debug)]
struct Source {
    path: PathBuf,
    entries: Vec<Entry>,
    managed_only: Option<bool>,
    disables: Option<bool>,
}

fn read_source(path: &Path) -> Result<Option<Source>, String> {
    // By descriptor, like every read of a file an agent can touch (U-1).
    let text = match agentwarden_adapters::untrusted::read_text(None, path, agentwarden::MAX_INPUT_BYTES) {
        Ok(text) => text,
        Err(agentwarden_adapters::untrusted::UntrustedError::Missing { .. }) => return Ok(None),
        Err(e) => return Err(format!("cannot read {e}")),
    };
    let settings: Value =
        serde_json::from_str(&text).map_err(|e| format!("`{}` is not valid JSON: {e}", path.display()))?;
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
    let managed_only = settings.get("allowManagedHooksOnly").and_then(Value::as_bool);
    let disables = settings.get("disableAllHooks").and_then(Value::as_bool);
    Ok(Some(Source { path: path.to_path_buf(), entries, managed_only, disables }))
}

/// The managed files to read: the ones given, else the Linux locations.
fn managed_files(given: &[PathBuf]) -> Vec<PathBuf> {
    if !given.is_empty() {
        return given.to_vec();
    }
    let mut files = vec![PathBuf::from(MANAGED_FILE)];
    if let Ok(dir) = std::fs::read_dir(MANAGED_DIR) {
        let mut drop_ins: Vec<PathBuf> = dir
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| {
                let name = p.file_name().and_then(|n| n.to_str()).unwrap_or(".");
                !name.starts_with('.') && name.ends_with(".json")
            })
            .collect();
        drop_ins.sort();
        files.extend(drop_ins);
    }
    files
}

/// "Every tool" in Claude Code's matcher syntax.
fn every_tool(matcher: Option<&str>) -> bool {
    matches!(matcher, None | Some("" | "*"))
}

/// K-13: the `permissions.deny` rules of every settings file Claude Code reads for `project`
/// (managed, the project's, its local and the user's: Claude Code merges them). A file that
/// cannot be read contributes nothing (the check then reports its rules missing).
pub(super) fn deny_rules_in_force(project: &Path, managed: &[PathBuf]) -> Vec<String> {
    let mut files = managed_files(managed);
    files.push(project.join(".claude").join("settings.json"));
    files.push(project.join(".claude").join("settings.local.json"));
    files.extend(std::env::var_os("HOME").map(|home| Path::new(&home).join(".claude").join("settings.json")));
    let mut rules = Vec::new();
    for path in files {
        let Ok(text) = agentwarden_adapters::untrusted::read_text(None, &path, agentwarden::MAX_INPUT_BYTES)
        else {
            continue;
        };
        let Ok(settings) = serde_json::from_str::<Value>(&text) else { continue };
        let deny = settings.pointer("/permissions/deny").and_then(Value::as_array);
        rules.extend(deny.into_iter().flatten().filter_map(Value::as_str).map(str::to_owned));
    }
    rules
}

/// The installed form and Warden's entries Claude Code would run.
pub(super) fn check_hooks(project: &Path, managed: &[PathBuf], checks: &mut Vec<Check>) -> Vec<Entry> {
    let init = format!("run `warden init claude-code --project {}`", project.display());
    let mut sources = Vec::new();
    for path in managed_files(managed) {
        match read_source(&path) {
            Ok(Some(source)) => sources.push(source),
            Ok(None) => {}
            Err(e) => {
                checks.push(Check::fail("form", e, "fix the managed settings file, or ask its administrator"))
            }
        }
    }
    // Scalars of later managed files win.
    let managed_only = sources.iter().filter_map(|s| s.managed_only).next_back() == Some(true);
    if sources.iter().filter_map(|s| s.disables).next_back() == Some(true) {
        checks.push(Check::fail(
            "disabled",
            "the managed settings set `disableAllHooks`: Claude Code runs no hook at all",
            "ask the administrator to remove `disableAllHooks` from the managed settings",
        ));
        return Vec::new();
    }
    let managed_entries =
        sources.iter().filter(|s| !s.entries.is_empty()).map(|s| s.path.display().to_string());
    let managed_names: Vec<String> = managed_entries.collect();
    let project_file = project.join(".claude").join("settings.json");
    let project_source = match read_source(&project_file) {
        Ok(source) => source,
        Err(e) => {
            checks.push(Check::fail("form", e, init.clone()));
            None
        }
    };
    // `disableAllHooks` outside the managed settings turns off every hook but the managed ones.
    let mut others = vec![project.join(".claude").join("settings.local.json")];
    others
        .extend(std::env::var_os("HOME").map(|home| Path::new(&home).join(".claude").join("settings.json")));
    let others: Vec<Source> = others.iter().filter_map(|p| read_source(p).ok().flatten()).collect();
    let disabling: Vec<String> = project_source
        .iter()
        .chain(&others)
        .filter(|s| s.disables == Some(true))
        .map(|s| format!("`{}`", s.path.display()))
        .collect();
    let project_off = !managed_only && !disabling.is_empty();
    if project_off {
        checks.push(Check::fail(
            "disabled",
            format!("{} sets `disableAllHooks`: Claude Code runs no hook from the project's settings", disabling.join(", ")),
            "remove `disableAllHooks` there, or install the managed form (`warden init claude-code --managed FILE`)",
        ));
    }
    let project_has = !project_off && project_source.as_ref().is_some_and(|s| !s.entries.is_empty());
    let mut entries: Vec<Entry> = sources.into_iter().flat_map(|s| s.entries).collect();
    let form = match (managed_names.is_empty(), managed_only, project_has) {
        (false, true, _) => format!(
            "managed settings ({}) with allowManagedHooksOnly: the project's hooks are ignored, an edit of \
             `.claude/settings.json` cannot remove Warden's",
            managed_names.join(", ")
        ),
        (false, false, _) => format!(
            "managed settings ({}) without allowManagedHooksOnly{}",
            managed_names.join(", "),
            if project_has { ", and the project's settings" } else { "" }
        ),
        (true, _, true) => format!(
            "project settings (`{}`): an agent that edits it removes the hooks from the next session; \
             `warden init claude-code --managed FILE` writes the form it cannot edit",
            project_file.display()
        ),
        (true, _, false) => String::new(),
    };
    if !managed_only && !project_off {
        entries.extend(project_source.into_iter().flat_map(|s| s.entries));
    }
    if entries.is_empty() {
        let detail = format!("no Warden hook in `{}` nor in the managed settings", project_file.display());
        checks.push(Check::fail("form", detail, init));
        return entries;
    }
    checks.push(Check::ok("form", form));
    let mut missing = Vec::new();
    // A matcher on the subagent events filters by agent type: only "all" covers every agent.
    for (event, matcher) in EVENTS {
        let found = entries.iter().any(|e| e.event == event && every_tool(e.matcher.as_deref()));
        if !found {
            missing.push(matcher.map_or_else(|| event.to_owned(), |m| format!("{event} (matcher `{m}`)")));
        }
    }
    checks.push(if missing.is_empty() {
        Check::ok(
            "hooks",
            "Warden's hook runs for every tool call, every subagent start and stop, every settings change",
        )
    } else {
        Check::fail("hooks", format!("Warden's hook is missing for {}", missing.join(", ")), init)
    });
    entries
}

/// Each entry's line: the binary exists, the tail fails closed, the numbers leave margin.
/// V-48: the socket the installed lines name with `--server` (the client form `warden init
/// claude-code --server` writes), with the user their `--server-uid` names (V-49): `None` when
/// none names one. An error when some lines name one and others do not, or they name different
/// sockets or users: Claude Code would then ask two deciders, and doctor cannot say which one is
/// checked.
pub(super) fn server_named(entries: &[Entry]) -> Result<Option<(PathBuf, Option<u32>)>, String> {
    let named: Vec<Option<(PathBuf, Option<u32>)>> = entries
        .iter()
        .map(|e| wiring::parse(&e.command))
        .map(|line| line.server.map(|socket| (socket, line.server_uid)))
        .collect();
    match named.first() {
        None => Ok(None),
        Some(first) if named.iter().all(|n| n == first) => Ok(first.clone()),
        Some(_) => {
            Err("the installed lines do not all name the same server (`--server`, `--server-uid`)".to_owned())
        }
    }
}

pub(super) fn check_lines(project: &Path, entries: &[Entry], checks: &mut Vec<Check>) {
    let init = format!("run `warden init claude-code --project {}` again", project.display());
    let mut binaries = Vec::new();
    let mut problems = Vec::new();
    let mut open = Vec::new();
    for entry in entries {
        let parsed = wiring::parse(&entry.command);
        match parsed.binary {
            Some(binary) => {
                if !binaries.contains(&binary) {
                    binaries.push(binary);
                }
            }
            None => problems
                .push(format!("{}: the line does not start with an absolute, quoted binary", entry.event)),
        }
        if !parsed.fail_closed {
            open.push(entry.event.clone());
        }
        if entry.event == wiring::BLOCKING_EVENT && !entry.blocks_on_failure {
            problems.push(format!(
                "{}: no `\"onFailure\": \"block\"`: a timeout of this hook lets the tool call run",
                entry.event
            ));
        }
        let budget = match (entry.timeout, parsed.lock_ms, parsed.deadline_ms) {
            (Some(timeout), Some(lock), Some(deadline)) => wiring::check_budget(timeout, lock, deadline),
            (None, _, _) => Err("no `timeout`: Claude Code's default applies, unchecked".to_owned()),
            (_, None, _) => Err("no `--lock-timeout-ms` on the line".to_owned()),
            (_, _, None) => {
                Err("no `--deadline-ms` on the line: the hook has no bound below the timeout".to_owned())
            }
        };
        if let Err(why) = budget {
            problems.push(format!("{}: {why}", entry.event));
        }
    }
    for binary in &binaries {
        let usable = std::fs::metadata(binary).is_ok_and(|m| {
            use std::os::unix::fs::PermissionsExt;
            m.is_file() && m.permissions().mode() & 0o111 != 0
        });
        checks.push(if usable {
            Check::ok("binary", format!("`{}` exists and is executable", binary.display()))
        } else {
            Check::fail(
                "binary",
                format!(
                    "`{}` is missing or not executable: every hook call would fail (the line's tail makes that a block)",
                    binary.display()
                ),
                format!("build it again, or {init} with `--warden PATH`"),
            )
        });
    }
    checks.push(if open.is_empty() {
        Check::ok("fail-closed", "every line turns an exit other than 0 and 2 into exit 2")
    } else {
        Check::fail(
            "fail-closed",
            format!("the line for {} lacks the `|| exit 2` tail: a crash or a missing binary would let the call run", open.join(", ")),
            init.clone(),
        )
    });
    checks.push(if problems.is_empty() {
        Check::ok("timeout", "every deadline lies below Claude Code's timeout, with the lock wait inside it")
    } else {
        Check::fail("timeout", problems.join("; "), init)
    });
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
    fn the_server_is_the_one_every_line_names_or_none() {
        let line = |server: Option<&str>| Entry {
            event: "PreToolUse".to_owned(),
            matcher: Some("*".to_owned()),
            command: wiring::hook_command(
                Path::new("/w/warden-hook"),
                5000,
                28000,
                server.map(|s| (Path::new(s), None)),
            ),
            timeout: Some(30),
            blocks_on_failure: true,
        };
        let a = Some(PathBuf::from("/run/a.sock"));
        assert_eq!(server_named(&[]), Ok(None));
        assert_eq!(server_named(&[line(None), line(None)]), Ok(None), "direct mode");
        assert_eq!(
            server_named(&[line(Some("/run/a.sock")), line(Some("/run/a.sock"))]),
            Ok(a.map(|a| (a, None)))
        );
        assert!(
            server_named(&[line(Some("/run/a.sock")), line(Some("/run/b.sock"))]).is_err(),
            "two servers"
        );
        assert!(server_named(&[line(Some("/run/a.sock")), line(None)]).is_err(), "one line asks none");
        let mut pinned = line(Some("/run/a.sock"));
        pinned.command = wiring::hook_command(
            Path::new("/w/warden-hook"),
            5000,
            28000,
            Some((Path::new("/run/a.sock"), Some(998))),
        );
        assert!(server_named(&[line(Some("/run/a.sock")), pinned]).is_err(), "two users of one server");
    }
}
