//! What the guard must protect of itself and what git must do for it, shared by `warden init`
//! (which adds the guard's own files to `[guardrails] protected` and ignores the store) and
//! `warden doctor` (which checks both, and where the kill switch may come from): moved from the
//! command line as they were (issue 49).

use std::path::{Component, Path, PathBuf};
use std::process::Command;

use agentwarden::Config;
use agentwarden::config::CONFIG_FILE;

use crate::check::Check;
use crate::error::OutsideProject;
use crate::integration::Integration;

/// `path` relative to `project`, as a plain protected-path entry (`a/b`), if it lies inside.
pub fn inside(project: &Path, path: &Path) -> Option<String> {
    let plain = |rel: &Path| -> Option<String> {
        let mut parts = Vec::new();
        for component in rel.components() {
            match component {
                Component::Normal(part) => parts.push(part.to_str()?.to_owned()),
                Component::CurDir => {}
                _ => return None,
            }
        }
        (!parts.is_empty()).then(|| parts.join("/"))
    };
    if let Some(rel) = path.strip_prefix(project).ok().and_then(plain) {
        return Some(rel);
    }
    let project = std::fs::canonicalize(project).ok()?;
    let path = std::fs::canonicalize(path).ok()?;
    path.strip_prefix(&project).ok().and_then(plain)
}

/// What the guard must protect of itself (H-12), relative to the project: the harness's own
/// files `harness_files` (`what` names them) and the sealed ones.
pub fn own_files_of(
    what: &'static str,
    harness_files: &[&str],
    project: &Path,
    config: &Config,
) -> Result<Vec<String>, OutsideProject> {
    let harness = harness_files.iter().map(|f| (what, project.join(f)));
    let named = harness.chain([
        ("the configuration", project.join(CONFIG_FILE)),
        ("`[subagents] personas_dir`", config.subagents.personas_dir.clone()),
        ("`[subagents] agents_dir`", config.subagents.agents_dir.clone()),
        ("`[lineage] manifests`", config.lineage.manifests.clone()),
    ]);
    let mut own = Vec::new();
    for (what, path) in named {
        let Some(rel) = inside(project, &path) else {
            return Err(OutsideProject { what, path, project: project.to_path_buf() });
        };
        if !own.contains(&rel) {
            own.push(rel);
        }
    }
    Ok(own)
}

/// Whether `protected` already covers `path` (the entry itself or a directory above it).
pub fn covered(protected: &[String], path: &str) -> bool {
    protected.iter().any(|entry| {
        let entry = entry.trim_end_matches('/');
        path == entry || path.strip_prefix(entry).is_some_and(|rest| rest.starts_with('/'))
    })
}

/// `git` in `project`: `None` when git cannot run there, else whether it succeeded.
fn git(project: &Path, args: &[&str]) -> Option<std::process::Output> {
    Command::new("git").arg("-C").arg(project).args(args).output().ok()
}

pub fn in_git_work_tree(project: &Path) -> bool {
    git(project, &["rev-parse", "--is-inside-work-tree"])
        .is_some_and(|o| o.status.success() && o.stdout.starts_with(b"true"))
}

/// Whether git ignores the project's `.agentwarden/` (`None`: git could not tell).
pub fn store_ignored(project: &Path) -> Option<bool> {
    let out = git(project, &["check-ignore", "-q", ".agentwarden/"])?;
    match out.status.code() {
        Some(0) => Some(true),
        Some(1) => Some(false),
        _ => None,
    }
}

/// The guard protects itself (H-12), the harness's own files included; reverts need git; git
/// ignores the store.
pub fn check_protection(harness: &dyn Integration, project: &Path, config: &Config, checks: &mut Vec<Check>) {
    let init = format!("run `{} --project {}`", harness.init(), project.display());
    let protected = &config.guardrails.protected;
    let (what, files) = harness.protected_files();
    let own = own_files_of(what, files, project, config);
    checks.push(match own {
        Err(e) => Check::fail("protected", e.to_string(), "move the file into the project"),
        Ok(own) => {
            let missing: Vec<&String> = own.iter().filter(|p| !covered(protected, p)).collect();
            if missing.is_empty() {
                Check::ok(
                    "protected",
                    format!("`[guardrails] protected` covers the guard's own files: {}", own.join(", ")),
                )
            } else {
                let missing: Vec<&str> = missing.iter().map(|s| s.as_str()).collect();
                Check::fail(
                    "protected",
                    format!(
                        "a subagent could change the guard's own files: {} not in `[guardrails] protected`",
                        missing.join(", ")
                    ),
                    init,
                )
            }
        }
    });
    let in_git = in_git_work_tree(project);
    if !protected.is_empty() {
        checks.push(if in_git {
            Check::ok("git", "the project is in a git work tree: reverts restore what `HEAD` holds")
        } else {
            Check::fail(
                "git",
                format!(
                    "`{}` is not in a git work tree: a change to a protected path cannot be reverted",
                    project.display()
                ),
                format!(
                    "`git -C {0} init && git -C {0} add -A && git -C {0} commit -m base`",
                    project.display()
                ),
            )
        });
    }
    if in_git {
        checks.push(match store_ignored(project) {
            Some(true) => Check::ok("ignored", "git ignores `.agentwarden/`"),
            Some(false) => Check::fail(
                "ignored",
                "git does not ignore `.agentwarden/`: a subagent's `git add -A && git commit` takes the log and its violations into history",
                format!("add `.agentwarden/` to `{}`", project.join(".gitignore").display()),
            ),
            None => Check::fail("ignored", "`git check-ignore` failed", "make `git` usable in the project"),
        });
    }
}

/// Where the kill switch `var` is read, and what it says there: through a server, the server's
/// environment (V-4), which this process cannot see. G-25: it may come only from the environment
/// a human starts the harness from, never from a file the harness loads into it (`from_files`,
/// which the agent's shell can write): one that sets it fails the check when the hooks decide
/// directly, and is a warning when they ask a server (which reads its own environment).
pub fn kill_switch(var: &str, served: bool, harness: &dyn Integration, from_files: &[PathBuf]) -> Check {
    if !from_files.is_empty() {
        let files: Vec<String> = from_files.iter().map(|f| format!("`{}`", f.display())).collect();
        let detail = format!(
            "`{var}` is set in {}, which {} loads into its environment (and its hooks') at start: the agent's \
             shell can write that file, so the next session's spawns would be enabled with no human involved (G-25)",
            files.join(", "),
            harness.name()
        );
        let fix = format!(
            "remove `{var}` from {}; set it only in the environment you start {} from",
            files.join(", "),
            harness.name()
        );
        return if served {
            Check::warn("kill switch", detail, fix)
        } else {
            Check::fail("kill switch", detail, fix)
        };
    }
    match (served, std::env::var(var).as_deref()) {
        (true, _) => Check::ok(
            "kill switch",
            format!(
                "the hooks ask a server: `{var}` is read from the server's environment (V-4), not this shell's"
            ),
        ),
        (false, Ok("true")) => {
            Check::ok("kill switch", format!("`{var}` is `true`: subagents may be enabled"))
        }
        (false, _) => Check::ok(
            "kill switch",
            format!(
                "`{var}` is not `true` here: every spawn is denied until {} runs with it set",
                harness.name()
            ),
        ),
    }
}

/// Claude Code's own deny rules for the human verbs and the files an agent must not edit
/// (what `init claude-code` writes). Defence in depth beside the hook and the signatures: a
/// warning, with the rules missing, when any is not in force (K-13); `wanted` the rules `init`
/// writes.
pub fn permission_rules(
    harness: &dyn Integration,
    project: &Path,
    wanted: Vec<String>,
    in_force: &[String],
) -> Check {
    let missing: Vec<String> = wanted.into_iter().filter(|rule| !in_force.contains(rule)).collect();
    let name = harness.name();
    if missing.is_empty() {
        Check::ok(
            "permission rules",
            format!(
                "{name} denies the human verbs and edits of the store, the configuration and the key list"
            ),
        )
    } else {
        Check::warn(
            "permission rules",
            format!("{name}'s `permissions.deny` lacks {}", missing.join(", ")),
            format!("run `{} --project {}` again", harness.init(), project.display()),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_outside_the_project_are_not_ours_to_protect() {
        let project = Path::new("/p");
        assert_eq!(inside(project, Path::new("/p/./manifests.toml")).as_deref(), Some("manifests.toml"));
        assert_eq!(inside(project, Path::new("/p/.claude/agents")).as_deref(), Some(".claude/agents"));
        assert_eq!(inside(project, Path::new("/p")), None, "the project itself");
        assert_eq!(inside(project, Path::new("/p/../etc/x")), None);
        assert_eq!(inside(project, Path::new("/elsewhere/m.toml")), None);
        assert!(covered(&[".claude/".into()], ".claude/agents"));
        assert!(!covered(&[".cla".into()], ".claude"));
    }
}
