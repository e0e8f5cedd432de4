//! What the hook decides before it opens the store (H-24, H-28).
//!
//! Opening the embedded store costs tens of milliseconds and grows with the log, and the hook
//! now runs for every tool call. So `warden hook` first looks at what needs no store:
//!
//! 1. A `PreToolUse` in a session with a quarantine marker (or one that cannot be checked) is a
//!    deny. The store is still opened to record it; if it cannot be, the deny stands unrecorded.
//! 2. A `Write`/`Edit`/`MultiEdit`/`NotebookEdit` into a protected path, onto a held name or
//!    through a final link, is a deny (recorded the same way); so is a shell line whose
//!    text writes one, whoever calls it (T-31, T-32).
//! 3. A spawn, a `SendMessage`, a tool that starts agents: the store decides.
//! 4. Any other tool call of the main session is allowed at once when the session's index says
//!    the session is not quarantined and names as the store's the configuration held here
//!    (H-49). A subagent's call goes to the store, which checks it against the manifests' tool rules and records it (T-9); so does anything else — no
//!    index, an unreadable one — and the store rewrites the index.
//!
//! Before all of that, an event that says a call ran is checked against the approvals kept (H-55,
//! [`super::approved`]); and a call let through here has its input kept as approved.
//!
//! H-24 (trusting the index): it is a cache of what the store said, and it never allows more
//! than the store did when it was written. A missing or unreadable index, a missing entry, an
//! index about another session: each falls back to the store, never allows. Entries only become
//! stale in the safe direction, except for a quarantine, which the marker covers (checked
//! first; quarantining removes the index before writing the marker). Known weakness of direct
//! mode: an agent with the user's shell can write the index (list itself as tracked) or remove
//! the marker, as it can edit the store's files; spawns, messages, stops and every slow path
//! still consult the store (which re-creates a removed marker). Run Warden as another OS user
//! (the resident service) to close it.

use agentwarden_domain::sessions::{
    Attribution, CallStage, HookAnswer, HookEvent, HookInput, InputError, ProtectedPaths, ToolKind,
    config_change_answer, config_change_blocked, human_verb_reason, normalize, quarantine_reason,
};

use agentwarden_adapters::paths::LocalPaths;
use agentwarden_domain::lineage::HeldNames;

use super::storage::HookStorage;
use crate::Config;
use agentwarden_domain::verdict::Code;

/// The harnesses' own names no write reaches, held for every harness and every agent besides
/// the kernel's list (T-19, R-33): Claude Code's settings directory (where its worktree
/// subagents live too, under `worktrees/`) and `~/.claude.json`, which it holds itself, and the
/// settings directories of Codex CLI and Gemini CLI (their hooks and configuration), which
/// Warden holds for them.
pub const HARNESS_HELD_NAMES: HeldNames<'static> =
    HeldNames { directories: &[".codex", ".gemini"], worktree_homes: &[".claude"], files: &[".claude.json"] };

/// The hook's answer before the store, or what to answer if the store cannot be opened.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Pre {
    /// Decided without the store (nothing to record).
    Done(HookAnswer),
    /// The store decides; if it cannot be opened, `fallback` (a deny already known) or exit 2.
    Store {
        /// The deny to give when the store cannot be opened.
        fallback: Option<HookAnswer>,
    },
}

/// Decides what it can without the store, on an event as a harness integration parsed it: a
/// caller parses each event once and hands the same parse to the store when it decides
/// ([`super::answer_hook`]). An input that does not parse goes to the store, which records its refusal
/// (H-30).
pub(crate) fn before_store_parsed(
    config: &Config,
    storage: &HookStorage,
    parsed: &Result<HookInput, InputError>,
) -> Pre {
    let Ok(input) = parsed else { return Pre::Store { fallback: None } };
    // What ran is checked against what was approved here, once, before anything else (H-55): a
    // run Warden never approved quarantines (marker first), and the store records it.
    if let Some(CallStage::Ran(ran)) = &input.call
        && let Some(failure) = super::approved::settle_ran(storage, &input.session_id, ran)
    {
        return Pre::Store {
            fallback: Some(super::approved::ran_unapproved_answer(&input.session_id, &failure)),
        };
    }
    // A harness's section that cannot govern it fails every event of the harness, here as at the
    // store (U-17, U-18).
    if let Err(why) = config.harness(&input.harness) {
        return Pre::Done(HookAnswer::failed(Code::ConfigInvalid, why.to_string()));
    }
    let pre = decide(config, storage, input);
    // A call let through here is kept as approved; one that cannot be kept goes to the store,
    // which keeps it or fails (H-55).
    match (&pre, &input.call) {
        (Pre::Done(HookAnswer::Proceed), Some(CallStage::Asked(call))) => {
            match storage.keep_approved(&input.session_id, call) {
                Ok(()) => pre,
                Err(_) => Pre::Store { fallback: None },
            }
        }
        _ => pre,
    }
}

/// [`before_store_parsed`] once the run is settled and before the approval is kept.
fn decide(config: &Config, storage: &HookStorage, input: &HookInput) -> Pre {
    let session = input.session_id.as_str();
    let call = match &input.event {
        HookEvent::Tool(call) => Some(call),
        HookEvent::Spawn(_) => None,
        HookEvent::Other { .. } => return Pre::Done(HookAnswer::silent()),
        // Blocked whatever the store says; the store records it, or the block stands
        // unrecorded (H-43).
        HookEvent::ConfigChange { source, file_path } => {
            let blocked = config_change_blocked(source, file_path.as_deref());
            return Pre::Store { fallback: Some(config_change_answer(&blocked)) };
        }
        HookEvent::SubagentStart(_)
        | HookEvent::SubagentStop { .. }
        | HookEvent::SessionStart
        | HookEvent::SessionStop { .. }
        | HookEvent::SessionEnd { .. } => return Pre::Store { fallback: None },
    };
    let quarantined = |code: &str, reason: &str| Pre::Store {
        fallback: Some(HookAnswer::deny(quarantine_reason(session, code, reason))),
    };
    match storage.marker(session) {
        Ok(None) => {}
        Ok(Some(marker)) => return quarantined(&marker.code, &marker.reason),
        Err(why) => return quarantined("session_quarantined", &why.to_string()),
    }
    let Some(call) = call else { return Pre::Store { fallback: None } };
    let index = storage.read_index(session);
    match &call.kind {
        ToolKind::SendMessage { .. } | ToolKind::StartsAgents => return Pre::Store { fallback: None },
        ToolKind::Write { path } => {
            // A subagent's own root (H-27) is in the index; without one, the store knows it.
            let own_root = match (&call.caller, &index) {
                (Some(agent), Some(index)) => index.roots.get(&agent.agent_id).map(String::as_str),
                _ => None,
            };
            if let Some(reason) = protected_write(config, input.cwd.as_deref(), own_root, path) {
                return Pre::Store { fallback: Some(HookAnswer::deny(reason)) };
            }
        }
        ToolKind::Writes { paths } => {
            let own_root = match (&call.caller, &index) {
                (Some(agent), Some(index)) => index.roots.get(&agent.agent_id).map(String::as_str),
                _ => None,
            };
            // Any protected file denies the whole call (C-5).
            if let Some(reason) =
                paths.iter().find_map(|path| protected_write(config, input.cwd.as_deref(), own_root, path))
            {
                return Pre::Store { fallback: Some(HookAnswer::deny(reason)) };
            }
        }
        ToolKind::Shell { command, dir } => {
            let own_root = match (&call.caller, &index) {
                (Some(agent), Some(index)) => index.roots.get(&agent.agent_id).map(String::as_str),
                _ => None,
            };
            // A shell line whose text writes a held name or a protected path, for every agent
            // (T-31, T-32).
            if let Some(reason) =
                protected_shell(config, input.cwd.as_deref(), own_root, command, dir.as_deref())
            {
                return Pre::Store { fallback: Some(HookAnswer::deny(reason)) };
            }
        }
        ToolKind::HumanVerb { verb } => {
            return Pre::Store { fallback: Some(HookAnswer::deny(human_verb_reason(verb))) };
        }
        ToolKind::Other => {}
    }
    let Some(index) = index else { return Pre::Store { fallback: None } };
    // Only with the rules the store decided with: a configuration edited since the seal goes
    // to the store, which decides with the sealed one (H-49).
    if index.quarantined || index.config != config.source_digest {
        return Pre::Store { fallback: None };
    }
    // A subagent's call is checked against the manifests' tool rules and recorded, by
    // the store; only the main session's calls are answered here (T-9). To a harness that
    // names no subagent, a call is the main session's only while none runs (M-2).
    // The main session's shell under `[confine] main_session` runs under the launcher, which
    // the store's path decides (E-15).
    if call.caller.is_none()
        && call.is_shell()
        && config.confine.main_session
        && config.confine.mode != agentwarden_domain::confine::ConfineMode::Off
    {
        return Pre::Store { fallback: None };
    }
    match (&call.caller, input.attribution) {
        (None, Attribution::Named) => Pre::Done(HookAnswer::silent()),
        (None, Attribution::InFlight) if index.running.is_empty() => Pre::Done(HookAnswer::silent()),
        _ => Pre::Store { fallback: None },
    }
}

/// The reason a write of `path` is refused, or `None`: the domain's rule
/// ([`agentwarden_domain::sessions::protected_write`]) over the configured protected paths,
/// with the workspace root made absolute here and every path placed where it lands by the local
/// file system (H-26, R-32).
fn protected_write(config: &Config, cwd: Option<&str>, own_root: Option<&str>, path: &str) -> Option<String> {
    let root = absolute(&config.root);
    let protected = ProtectedPaths {
        root: root.as_deref(),
        paths: &config.guardrails.protected,
        held: HARNESS_HELD_NAMES,
    };
    agentwarden_domain::sessions::protected_write(protected, &LocalPaths, cwd, own_root, path)
        .map(|refused| refused.reason.into_owned())
}

/// The reason a shell line is refused, or `None`: the domain's rule
/// ([`agentwarden_domain::sessions::protected_shell`]) over the same protected paths and held
/// names as [`protected_write`] (T-31, T-32).
fn protected_shell(
    config: &Config,
    cwd: Option<&str>,
    own_root: Option<&str>,
    command: &str,
    dir: Option<&str>,
) -> Option<String> {
    let root = absolute(&config.root);
    let protected = ProtectedPaths {
        root: root.as_deref(),
        paths: &config.guardrails.protected,
        held: HARNESS_HELD_NAMES,
    };
    agentwarden_domain::sessions::protected_shell(protected, &LocalPaths, cwd, own_root, command, dir)
        .map(|refused| refused.reason.into_owned())
}

pub(super) fn absolute(path: &std::path::Path) -> Option<String> {
    let joined =
        if path.is_absolute() { path.to_path_buf() } else { std::env::current_dir().ok()?.join(path) };
    normalize(&joined.to_string_lossy(), None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(root: &std::path::Path) -> Config {
        Config { root: root.to_path_buf(), ..Config::default() }
    }

    #[test]
    fn writes_into_protected_paths_are_caught_however_they_are_spelt() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let worktree = root.join("wt");
        for d in ["okrs", "src", "wt/okrs", "agents"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        std::os::unix::fs::symlink(root.join("okrs"), root.join("src/link")).unwrap();
        std::os::unix::fs::symlink(root.join("src"), root.join("src-alias")).unwrap();
        std::os::unix::fs::symlink("../agents", root.join("src/sibling")).unwrap();
        std::os::unix::fs::symlink("loop", root.join("src/loop")).unwrap();
        std::os::unix::fs::symlink("nowhere", root.join("src/dangling")).unwrap();
        let config = config(&root);
        let r = root.display().to_string();
        let w = worktree.display().to_string();
        let rows: [(&str, &str, bool, &str); 14] = [
            (
                "src/sibling/../okrs/a.md",
                &r,
                true,
                "a link to a sibling, then `..`: where the kernel lands (T-17)",
            ),
            ("src/loop/a.md", &r, true, "a loop: cannot be placed"),
            ("src/dangling", &r, true, "a final link to nothing: cannot be placed"),
            ("okrs/a.md", &r, true, "relative"),
            (&format!("{r}/okrs/new/b.md"), &r, true, "absolute, in a directory that does not exist yet"),
            ("src/../okrs/a.md", &r, true, "`..`"),
            ("src/link/a.md", &r, true, "a symlinked parent"),
            ("src-alias/link/a.md", &r, true, "two symlinks"),
            ("okrs/a.md", &w, true, "a worktree's own protected path"),
            (&format!("{r}/okrs/a.md"), &w, true, "the project's from a worktree"),
            ("src/a.md", &r, false, "outside"),
            ("okrs-notes.md", &r, false, "a name that shares a prefix"),
            ("src/link-not/a.md", &r, false, "a sibling of the link"),
            (&format!("{w}/src/a.md"), &w, false, "outside in the worktree"),
        ];
        for (path, cwd, denied, why) in rows {
            assert_eq!(protected_write(&config, Some(cwd), None, path).is_some(), denied, "{why}: {path}");
        }
        assert!(
            protected_write(&config, None, None, "notes.md").is_some(),
            "a relative path with no cwd: refused"
        );
        // A worktree agent that moved its cwd elsewhere: its own root still counts.
        let elsewhere = root.join("src").display().to_string();
        let into_worktree = format!("{w}/okrs/a.md");
        assert!(
            protected_write(&config, Some(&elsewhere), None, &into_worktree).is_none(),
            "(without the root)"
        );
        assert!(protected_write(&config, Some(&elsewhere), Some(&w), &into_worktree).is_some());
    }

    /// Issue 48, class 2: a write of any agent onto a held name, the harnesses' own included, or
    /// through a final link, is denied with nothing configured (R-33, T-18).
    #[test]
    fn held_names_and_final_links_are_denied_with_nothing_configured() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("src/a.rs"), "a").unwrap();
        std::os::unix::fs::symlink(root.join("src/a.rs"), root.join("src/flink")).unwrap();
        let mut config = config(&root);
        config.guardrails.protected.clear();
        let r = root.display().to_string();
        let rows: [(&str, bool, &str); 10] = [
            (".git/hooks/pre-commit", true, "a git hook"),
            (".claude/settings.local.json", true, "Claude Code's settings"),
            (".CODEX/config.toml", true, "Codex's settings, another case"),
            (".gemini/settings.json", true, "Gemini CLI's settings"),
            ("sub/.claude.json", true, "Claude Code's state file"),
            (".Bashrc", true, "a shell's start-up file"),
            ("src/flink", true, "a final link"),
            (".claude/worktrees/w1/src/a.rs", false, "a worktree subagent's tree"),
            ("src/a.rs", false, "an ordinary file"),
            ("src/new.rs", false, "a new file"),
        ];
        for (path, denied, why) in rows {
            assert_eq!(protected_write(&config, Some(&r), None, path).is_some(), denied, "{why}: {path}");
        }
    }
}
