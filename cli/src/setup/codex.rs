//! `warden init codex`: put Warden on a Codex CLI project's hook path (issue 36), in the
//! project's `.codex/config.toml` (the project trusted in Codex's home, without which Codex
//! ignores a project's configuration silently) or, with `--managed FILE`, as the hooks of
//! Codex's managed requirements with `allow_managed_hooks_only`; and make the guard protect its
//! own files and keep the store out of git, as `init claude-code` does (H-12, H-17).
//!
//! The installed line is `init claude-code`'s, built to fail closed the same way (H-6, H-9,
//! H-10): an absolute binary, the store and the configuration by absolute path (Codex runs hooks
//! in the project with no variable naming it), `hook --harness codex`, a deadline below Codex's
//! timeout, and the `|| exit 2` tail, which turns a missing binary or a crash into exit 2 with a
//! reason on stderr — the one failure Codex does not run the call on (C-1).
//!
//! C-8: what `init codex` cannot do. Codex runs a hook from a user or project file only once it
//! is trusted (its own review, or `--dangerously-bypass-hook-trust`); managed hooks are trusted.
//! `init` trusts the project (`[projects."PATH"] trust_level = "trusted"` in Codex's home) and
//! says that the hooks must be reviewed; the managed form is the deployment where an agent
//! running as the user can neither remove nor untrust them.

use std::io::Write;
use std::path::{Path, PathBuf};

use toml_edit::{ArrayOfTables, DocumentMut, Item, Table, value};

use super::super::wiring::{self, FAIL_CLOSED, deadline_for, shell_quote};
use super::super::{EXIT_OK, Failure};
use super::{ignore_store, own_files_of, protect, read_text_file, write_atomically};
use agentwarden::Config;
use agentwarden::config::CONFIG_FILE;

/// What marks a Codex hook line as Warden's.
pub(super) const CODEX_MARK: &str = " hook --harness codex ";

/// The events Warden's Codex hook answers (C-4).
pub(super) const CODEX_EVENTS: [&str; 3] = ["PreToolUse", "SubagentStart", "SubagentStop"];

/// What Codex reads from a project that can change how the guard is run: its configuration
/// (hooks, agent roles, MCP servers) and its instructions (H-12, H-19).
pub(super) const CODEX_FILES: [&str; 2] = [".codex", "AGENTS.md"];

/// `warden init codex`'s options.
pub(super) struct Options {
    pub(super) project: Option<PathBuf>,
    pub(super) warden: Option<PathBuf>,
    pub(super) timeout: u64,
    pub(super) managed: Option<PathBuf>,
    pub(super) server: Option<PathBuf>,
    pub(super) codex_home: Option<PathBuf>,
}

/// The hook line for Codex: direct (the project's store by absolute path) or the client of the
/// server at `server`.
pub(super) fn codex_hook_command(
    exe: &Path,
    project: &Path,
    lock_ms: u64,
    deadline_ms: u64,
    server: Option<(&Path, Option<u32>)>,
) -> String {
    let config = shell_quote(&project.join(CONFIG_FILE));
    match server {
        None => format!(
            "{} --store {} --lock-timeout-ms {lock_ms}{CODEX_MARK}--config {config} --deadline-ms {deadline_ms} {FAIL_CLOSED}",
            shell_quote(exe),
            shell_quote(&project.join(".agentwarden").join("audit")),
        ),
        Some((socket, uid)) => format!(
            "{} --lock-timeout-ms {lock_ms}{CODEX_MARK}--config {config} --server {}{} --deadline-ms {deadline_ms} {FAIL_CLOSED}",
            shell_quote(exe),
            shell_quote(socket),
            uid.map(|uid| format!(" --server-uid {uid}")).unwrap_or_default(),
        ),
    }
}

/// Whether a hook group (`[[hooks.EVENT]]`) is Warden's.
fn is_ours(group: &Table) -> bool {
    group.get("hooks").and_then(Item::as_array_of_tables).is_some_and(|hooks| {
        hooks
            .iter()
            .any(|hook| hook.get("command").and_then(Item::as_str).is_some_and(|c| c.contains(CODEX_MARK)))
    })
}

/// Merges Warden's hook groups into the TOML `text`: an earlier Warden group is replaced,
/// everything else kept; with `managed`, `allow_managed_hooks_only = true` too.
pub(super) fn merge_codex_hooks(
    text: &str,
    command: &str,
    timeout: u64,
    managed: bool,
) -> Result<String, String> {
    let mut document: DocumentMut = text.parse().map_err(|e| format!("{e}"))?;
    if managed {
        document.insert("allow_managed_hooks_only", value(true));
    }
    let hooks = document.as_table_mut().entry("hooks").or_insert_with(toml_edit::table);
    let hooks = hooks.as_table_mut().ok_or("`hooks` is not a table")?;
    hooks.set_implicit(true);
    for event in CODEX_EVENTS {
        let groups = hooks.entry(event).or_insert(Item::ArrayOfTables(ArrayOfTables::new()));
        let groups = groups
            .as_array_of_tables_mut()
            .ok_or_else(|| format!("`hooks.{event}` is not a list of tables"))?;
        groups.retain(|group| !is_ours(group));
        let mut hook = Table::new();
        hook.insert("type", value("command"));
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
pub(super) fn trust_project(text: &str, project: &Path) -> Result<String, String> {
    let mut document: DocumentMut = text.parse().map_err(|e| format!("{e}"))?;
    let projects = document.as_table_mut().entry("projects").or_insert_with(toml_edit::table);
    let projects = projects.as_table_mut().ok_or("`projects` is not a table")?;
    projects.set_implicit(true);
    let key = project.display().to_string();
    let entry = projects.entry(&key).or_insert_with(toml_edit::table);
    let entry = entry.as_table_mut().ok_or_else(|| format!("`projects.\"{key}\"` is not a table"))?;
    entry.insert("trust_level", value("trusted"));
    Ok(document.to_string())
}

/// Codex's home: `--codex-home`, else `$CODEX_HOME`, else `~/.codex`.
fn codex_home(given: Option<PathBuf>) -> Result<PathBuf, Failure> {
    given
        .or_else(|| std::env::var_os("CODEX_HOME").map(PathBuf::from))
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".codex")))
        .ok_or_else(|| Failure::usage("no Codex home: give --codex-home DIR (or set CODEX_HOME or HOME)"))
}

pub(super) fn init(options: Options, lock_ms: u64, out: &mut dyn Write) -> Result<u8, Failure> {
    let Options { project, warden, timeout, managed, server, codex_home: home } = options;
    let project = match project {
        Some(project) => project,
        None => agentwarden::config::project_root().map_err(|e| Failure::usage(e.to_string()))?,
    };
    let project = std::fs::canonicalize(&project)
        .map_err(|e| Failure::usage(format!("`{}`: {e}", project.display())))?;
    let server = server
        .map(|socket| std::path::absolute(&socket))
        .transpose()
        .map_err(|e| Failure::usage(format!("--server: {e}")))?;
    let deadline = deadline_for(timeout, lock_ms).map_err(|e| Failure::usage(format!("refused: {e}")))?;
    let exe = match warden {
        Some(path) => path,
        None => {
            std::env::current_exe().map_err(|e| Failure::usage(format!("cannot find this binary: {e}")))?
        }
    };
    let exe = std::fs::canonicalize(&exe)
        .map_err(|e| Failure::usage(format!("`{}` is not a usable warden binary: {e}", exe.display())))?;

    let config_path = project.join(CONFIG_FILE);
    let config_text = read_text_file(&project, &config_path)?.ok_or_else(|| {
        Failure::usage(format!(
            "there is no `{}`; write it first (see docs/codex.md), nothing written",
            config_path.display()
        ))
    })?;
    let config =
        Config::load(Some(&config_path)).map_err(|e| Failure::usage(format!("{e}; nothing written")))?;
    let own = own_files_of("Codex's configuration", &CODEX_FILES, &project, &config)
        .map_err(|e| Failure::usage(format!("{e}; nothing written")))?;
    let (new_config, added) = protect(&config_text, &own)
        .map_err(|e| Failure::usage(format!("`{}`: {e}; nothing written", config_path.display())))?;

    let hook_binary = server.as_ref().and_then(|_| wiring::client_binary(&exe));
    let server = server.as_deref().map(|socket| (socket, config.server_uid));
    let command =
        codex_hook_command(hook_binary.as_deref().unwrap_or(&exe), &project, lock_ms, deadline, server);
    let target = managed.clone().unwrap_or_else(|| project.join(".codex").join("config.toml"));
    let text = read_text_file(&project, &target)?.unwrap_or_default();
    let merged = merge_codex_hooks(&text, &command, timeout, managed.is_some())
        .map_err(|e| Failure::usage(format!("`{}`: {e}; nothing written", target.display())))?;
    // Without a managed file, the project must be trusted in Codex's home or its hooks are
    // skipped silently.
    let trust = match &managed {
        Some(_) => None,
        None => {
            let home = codex_home(home)?;
            let file = home.join("config.toml");
            let text = read_text_file(&home, &file)?.unwrap_or_default();
            let trusted = trust_project(&text, &project)
                .map_err(|e| Failure::usage(format!("`{}`: {e}; nothing written", file.display())))?;
            Some((home, file, trusted))
        }
    };

    if !added.is_empty() {
        write_atomically(&project, &config_path, &new_config)?;
    }
    write_atomically(&project, &target, &merged)?;
    let events = CODEX_EVENTS.join(", ");
    match (&managed, &trust) {
        (Some(file), _) => {
            writeln!(
                out,
                "wrote Codex's managed hooks to {} ({events}; timeout {timeout} s; allow_managed_hooks_only)",
                file.display()
            )?;
            writeln!(
                out,
                "  an administrator installs it: sudo install -D -o root -m 644 {} /etc/codex/requirements.toml",
                file.display()
            )?;
        }
        (None, Some((home, file, trusted))) => {
            std::fs::create_dir_all(home)
                .map_err(|e| Failure::usage(format!("`{}`: {e}", home.display())))?;
            write_atomically(home, file, trusted)?;
            writeln!(out, "merged Warden's hooks into {} ({events}; timeout {timeout} s)", target.display())?;
            writeln!(out, "  trusted the project in {}", file.display())?;
            writeln!(
                out,
                "  Codex runs them once you trust them (review the hooks in Codex); for hooks an agent cannot \
                 remove, use --managed (docs/codex.md)"
            )?;
        }
        (None, None) => {}
    }
    writeln!(out, "  command: {command}")?;
    writeln!(out, "  deadline: {deadline} ms (lock wait {lock_ms} ms)")?;
    if added.is_empty() {
        writeln!(out, "`[guardrails] protected` already covers {}", own.join(", "))?;
    } else {
        writeln!(out, "`[guardrails] protected` += {}", added.join(", "))?;
    }
    ignore_store(&project, out)?;
    writeln!(
        out,
        "next: commit these files, seal and approve (`warden seal`, `warden approve`), then run Codex with \
         AGENTWARDEN_ENABLE_SUBAGENTS=true"
    )?;
    Ok(EXIT_OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hooks_are_merged_once_and_everything_else_kept() {
        let before = "# mine\nmodel = \"gpt-5.5\"\n\n[[hooks.PreToolUse]]\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"other\"\n";
        let command = codex_hook_command(Path::new("/w/warden"), Path::new("/p"), 5000, 28000, None);
        let once = merge_codex_hooks(before, &command, 30, false).unwrap();
        let twice = merge_codex_hooks(&once, &command, 30, false).unwrap();
        assert_eq!(once, twice, "a second init changes nothing");
        let document: DocumentMut = twice.parse().unwrap();
        assert!(twice.starts_with("# mine\nmodel = \"gpt-5.5\""), "{twice}");
        for event in CODEX_EVENTS {
            let groups = document["hooks"][event].as_array_of_tables().unwrap();
            assert_eq!(groups.iter().filter(|g| is_ours(g)).count(), 1, "{event}");
        }
        assert_eq!(
            document["hooks"]["PreToolUse"].as_array_of_tables().unwrap().len(),
            2,
            "the other hook kept"
        );
        assert!(document.get("allow_managed_hooks_only").is_none());
        let managed = merge_codex_hooks("", &command, 30, true).unwrap();
        assert!(managed.contains("allow_managed_hooks_only = true"), "{managed}");
        assert!(merge_codex_hooks("hooks = 1", &command, 30, false).is_err());
    }

    /// The line fails closed as `init claude-code`'s does (H-9), names the store and the
    /// configuration by absolute path, and the harness.
    #[test]
    fn the_installed_line_names_codex_and_fails_closed() {
        let line = codex_hook_command(Path::new("/w/warden"), Path::new("/p q"), 5000, 28000, None);
        assert!(line.starts_with("'/w/warden' --store '/p q/.agentwarden/audit' --lock-timeout-ms 5000 hook --harness codex --config '/p q/agentwarden.toml' --deadline-ms 28000 || "), "{line}");
        let read = wiring::parse(&line);
        assert_eq!((read.lock_ms, read.deadline_ms, read.fail_closed), (Some(5000), Some(28000), true));
        let client = codex_hook_command(
            Path::new("/w/warden-hook"),
            Path::new("/p"),
            5000,
            28000,
            Some((Path::new("/s.sock"), Some(7))),
        );
        assert!(
            client.contains("--server '/s.sock' --server-uid 7 --deadline-ms 28000")
                && !client.contains("--store"),
            "{client}"
        );
    }

    #[test]
    fn the_project_is_trusted_and_the_rest_kept() {
        let trusted = trust_project("model = \"m\"\n", Path::new("/p/x")).unwrap();
        assert!(trusted.contains("[projects.\"/p/x\"]\ntrust_level = \"trusted\""), "{trusted}");
        assert!(trusted.starts_with("model = \"m\""));
        assert_eq!(trust_project(&trusted, Path::new("/p/x")).unwrap(), trusted);
    }
}
