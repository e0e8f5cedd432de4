//! Warden's hook entries as Claude Code would run them, read back from where it reads them (the
//! managed settings, [`settings::MANAGED_FILE`] then the drop-ins of [`settings::MANAGED_DIR`],
//! or the files given with `--managed`; then the project's `.claude/settings.json`), the form in
//! force named, each line checked (H-11, H-14). What the files hold and what each finding means
//! is `agentwarden_claude_code::setup`'s; here the files are read and the findings reported.

use std::path::{Path, PathBuf};

use crate::setup::line;
use crate::setup::settings::{self, Entry, Settings};

use agentwarden_doctor::Check;
use agentwarden_doctor::{Line, check_binaries, read_text};

/// A settings file Claude Code reads, read.
#[derive(Debug)]
struct Source {
    path: PathBuf,
    settings: Settings,
}

fn read_source(path: &Path) -> Result<Option<Source>, String> {
    let Some(text) = read_text(path).map_err(|e| e.to_string())? else { return Ok(None) };
    let settings = settings::read_settings(&text).map_err(|e| format!("`{}` {e}", path.display()))?;
    Ok(Some(Source { path: path.to_path_buf(), settings }))
}

/// The managed drop-ins of `dir` Claude Code reads, sorted; none when `dir` does not exist. An
/// error that names `dir` when it cannot be listed (a file or a link where the folder is
/// expected): what it holds cannot be told, so it is a finding, never skipped (M-28). It is listed
/// by descriptor, never through a link, and each file listed is then read by descriptor like
/// every other (U-1), so a link or FIFO there is refused, never followed or waited on.
fn drop_ins(dir: &Path) -> Result<Vec<PathBuf>, String> {
    use agentwarden_doctor::untrusted::{self, UntrustedError};
    match untrusted::list_dir(None, dir) {
        Ok(listed) => Ok(listed
            .into_iter()
            .filter(|(name, _)| settings::is_managed_drop_in(name.to_str().unwrap_or(".")))
            .map(|(name, _)| dir.join(name))
            .collect()),
        Err(UntrustedError::Missing { .. }) => Ok(Vec::new()),
        Err(e) => {
            Err(format!("the managed drop-in folder cannot be listed ({e}): its settings cannot be told"))
        }
    }
}

/// The managed files to read: the ones given, else the Linux locations; with what could not be
/// listed among them.
fn managed_files(given: &[PathBuf]) -> (Vec<PathBuf>, Option<String>) {
    if !given.is_empty() {
        return (given.to_vec(), None);
    }
    let mut files = vec![PathBuf::from(settings::MANAGED_FILE)];
    match drop_ins(Path::new(settings::MANAGED_DIR)) {
        Ok(found) => {
            files.extend(found);
            (files, None)
        }
        Err(e) => (files, Some(e)),
    }
}

/// The user's settings, under `$HOME`.
fn user_file() -> Option<PathBuf> {
    std::env::var_os("HOME").map(|home| Path::new(&home).join(settings::USER_FILE))
}

/// The `permissions.deny` rules of every settings file Claude Code reads for `project`
/// (managed, the project's, its local and the user's: Claude Code merges them). A file that
/// cannot be read contributes nothing (the check then reports its rules missing) (K-13).
pub fn deny_rules_in_force(project: &Path, managed: &[PathBuf]) -> Vec<String> {
    // A drop-in folder that cannot be listed contributes nothing here; the form check names it.
    let (mut files, _) = managed_files(managed);
    files.push(project.join(settings::PROJECT_FILE));
    files.push(project.join(settings::LOCAL_FILE));
    files.extend(user_file());
    let read = files.iter().filter_map(|path| read_source(path).ok().flatten());
    read.flat_map(|source| source.settings.deny).collect()
}

/// The installed form and Warden's entries Claude Code would run.
fn check_hooks(project: &Path, managed: &[PathBuf], checks: &mut Vec<Check>) -> Vec<Entry> {
    let init = format!("run `warden init claude-code --project {}`", project.display());
    let mut sources = Vec::new();
    let (files, unlisted) = managed_files(managed);
    if let Some(e) = unlisted {
        checks.push(Check::fail("form", e, "fix the managed settings folder, or ask its administrator"));
    }
    for path in files {
        match read_source(&path) {
            Ok(Some(source)) => sources.push(source),
            Ok(None) => {}
            Err(e) => {
                checks.push(Check::fail("form", e, "fix the managed settings file, or ask its administrator"))
            }
        }
    }
    // Scalars of later managed files win.
    let managed_only = sources.iter().filter_map(|s| s.settings.managed_only).next_back() == Some(true);
    if sources.iter().filter_map(|s| s.settings.disables).next_back() == Some(true) {
        checks.push(Check::fail(
            "disabled",
            "the managed settings set `disableAllHooks`: Claude Code runs no hook at all",
            "ask the administrator to remove `disableAllHooks` from the managed settings",
        ));
        return Vec::new();
    }
    let managed_entries =
        sources.iter().filter(|s| !s.settings.entries.is_empty()).map(|s| s.path.display().to_string());
    let managed_names: Vec<String> = managed_entries.collect();
    let project_file = project.join(settings::PROJECT_FILE);
    let project_source = match read_source(&project_file) {
        Ok(source) => source,
        Err(e) => {
            checks.push(Check::fail("form", e, init.clone()));
            None
        }
    };
    // `disableAllHooks` outside the managed settings turns off every hook but the managed ones.
    let mut others = vec![project.join(settings::LOCAL_FILE)];
    others.extend(user_file());
    let others: Vec<Source> = others.iter().filter_map(|p| read_source(p).ok().flatten()).collect();
    let disabling: Vec<String> = project_source
        .iter()
        .chain(&others)
        .filter(|s| s.settings.disables == Some(true))
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
    let project_has = !project_off && project_source.as_ref().is_some_and(|s| !s.settings.entries.is_empty());
    let mut entries: Vec<Entry> = sources.into_iter().flat_map(|s| s.settings.entries).collect();
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
        entries.extend(project_source.into_iter().flat_map(|s| s.settings.entries));
    }
    if entries.is_empty() {
        let detail = format!("no Warden hook in `{}` nor in the managed settings", project_file.display());
        checks.push(Check::fail("form", detail, init));
        return entries;
    }
    checks.push(Check::ok("form", form));
    let missing = settings::missing_events(&entries);
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

/// Every other hook that can replace a tool's input after Warden approved it (H-55, H-56): a
/// `PreToolUse` hook of any settings file Claude Code runs hooks from — the managed ones, and
/// unless they set `allowManagedHooksOnly` the project's, its local and the user's — each a
/// failure named with its file; a file or the drop-in folder that cannot be read fails it too,
/// and so does no HOME to find the user's in (M-28).
fn check_rewriting(project: &Path, managed: &[PathBuf], checks: &mut Vec<Check>) {
    let mut found = Vec::new();
    let mut managed_only = false;
    let read = |path: &Path, found: &mut Vec<String>| match read_source(path) {
        Ok(Some(source)) => {
            if !source.settings.rewriting.is_empty() {
                found.push(format!("`{}`: {}", path.display(), source.settings.rewriting.join(", ")));
            }
            Some(source.settings.managed_only)
        }
        Ok(None) => None,
        Err(e) => {
            found.push(format!("{e}: its hooks cannot be told"));
            None
        }
    };
    let (files, unlisted) = managed_files(managed);
    found.extend(unlisted);
    for path in files {
        if let Some(Some(only)) = read(&path, &mut found) {
            managed_only = only;
        }
    }
    if !managed_only {
        let mut others = vec![project.join(settings::PROJECT_FILE), project.join(settings::LOCAL_FILE)];
        match user_file() {
            Some(user) => others.push(user),
            None => {
                found.push("no HOME to find the user's settings in: their hooks cannot be told".to_owned())
            }
        }
        for path in others {
            read(&path, &mut found);
        }
    }
    checks.push(agentwarden_doctor::rewriting_check(
        &found,
        "another PreToolUse hook can replace a tool's input (`updatedInput`) after Warden approved it (H-55)",
        "remove every PreToolUse hook but Warden's from those files, or install the managed form with \
         allowManagedHooksOnly (`warden init claude-code --managed FILE`)",
    ));
}

/// Each entry's line: the binary exists, the tail fails closed, the numbers leave margin.
fn check_lines(project: &Path, entries: &[Entry], checks: &mut Vec<Check>) {
    let init = format!("run `warden init claude-code --project {}` again", project.display());
    let mut binaries = Vec::new();
    let mut problems = Vec::new();
    let mut open = Vec::new();
    let mut endings = Vec::new();
    for entry in entries {
        let found = settings::check_entry(entry);
        if let Some(binary) = found.binary
            && !binaries.contains(&binary)
        {
            binaries.push(binary);
        }
        if !found.fail_closed {
            open.push(entry.event.clone());
        }
        endings.extend(found.ending);
        problems.extend(found.problems);
    }
    check_binaries(&binaries, &init, checks);
    let fail_closed = "every line turns an exit other than 0 and 2 into exit 2, and every stop's line a failure into the halt (H-57)";
    agentwarden_doctor::tail_and_budget(
        (&open, &endings),
        &problems,
        "Claude Code",
        fail_closed,
        &init,
        checks,
    );
}

/// The entries Claude Code would run for `project`, checked, as [`Line`]s (H-14).
pub fn check(project: &Path, managed: &[PathBuf], checks: &mut Vec<Check>) -> Vec<Line> {
    let entries = check_hooks(project, managed, checks);
    check_rewriting(project, managed, checks);
    check_lines(project, &entries, checks);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Table (M-28): a drop-in folder that does not exist has none; one that cannot be listed —
    /// a file or a link where the folder is expected — is an error naming it, never an empty list.
    #[test]
    fn a_drop_in_folder_that_cannot_be_listed_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        std::fs::create_dir(&real).unwrap();
        for name in ["b.json", "a.json", ".hidden.json", "notes.txt"] {
            std::fs::write(real.join(name), "{}").unwrap();
        }
        assert_eq!(drop_ins(&real).unwrap(), [real.join("a.json"), real.join("b.json")]);
        assert_eq!(drop_ins(&dir.path().join("missing")).unwrap(), Vec::<PathBuf>::new());
        let file = dir.path().join("file");
        std::fs::write(&file, "x").unwrap();
        let dangling = dir.path().join("dangling");
        std::os::unix::fs::symlink("/nonexistent/managed-settings.d", &dangling).unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        for (path, why) in [(file, "a file"), (dangling, "a dangling link"), (link, "a link to a folder")] {
            let e = drop_ins(&path).unwrap_err();
            assert!(e.contains(path.to_str().unwrap()) && e.contains("cannot be listed"), "{why}: {e}");
        }
    }
}
