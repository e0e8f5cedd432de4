//! Reverting protected paths with git (R-3): tracked files come back from `HEAD`, added entries
//! are removed, directories git cannot hold are recreated, permission bits are put back from the
//! snapshot. Nothing outside the diff's paths is touched. A workspace inside a larger
//! repository is restored from that repository's `HEAD`, under the workspace's own prefix
//! (R-11): git runs with `-C root`, so paths resolve relative to the workspace.

use std::path::{Component, Path};
use std::process::Command;

use agentwarden_domain::guardrails::{EntryKind, TreeDiff, TreeManifest};
use agentwarden_ports::Restorer;
use async_trait::async_trait;
use rustix::fs::FileType;

/// Restores with the `git` on the `PATH`.
#[derive(Debug, Clone, Default)]
pub struct GitRestorer {
    /// The git executable (default `git`).
    pub git: Option<std::path::PathBuf>,
}

fn plain(path: &str) -> bool {
    !path.is_empty() && Path::new(path).components().all(|c| matches!(c, Component::Normal(_)))
}

impl GitRestorer {
    fn git(&self, root: &Path) -> Command {
        let mut command = Command::new(self.git.as_deref().unwrap_or(Path::new("git")));
        command.arg("-C").arg(root);
        command
    }

    fn restore_blocking(&self, root: &Path, before: &TreeManifest, diff: &TreeDiff) -> Result<(), String> {
        let inside = self
            .git(root)
            .args(["rev-parse", "--is-inside-work-tree"])
            .output()
            .map_err(|e| format!("git is not available: {e}"))?;
        if !inside.status.success() {
            return Err(format!("`{}` is not a git repository", root.display()));
        }
        let mut errors = Vec::new();
        if let Some(bad) = diff.changed_paths().into_iter().find(|p| !plain(p)) {
            return Err(format!("refusing to touch `{bad}`: not a plain relative path"));
        }
        // Added entries (odd ones and names that are not UTF-8 among them), deepest first, by
        // descriptor (U-10): a link planted on the way is never followed.
        let mut added = diff.added.clone();
        added.sort_by(|a, b| b.cmp(a));
        for path in &added {
            crate::restore::remove_path(root, path, &mut errors);
        }
        // Modified entries whose kind changed, or that are odd: clear what the agent put there.
        for path in &diff.modified {
            let was = before.entries.get(path).map(|e| e.kind);
            let now = crate::restore::key_names(path).and_then(|names| {
                let (leaf, dirs) = names.split_last()?;
                let dir = crate::untrusted::open_anchor(root)
                    .and_then(|fd| {
                        crate::untrusted::walk_dirs(fd, dirs, Path::new(path), Path::new(""), false)
                    })
                    .ok()?;
                crate::untrusted::kind_at(std::os::fd::AsFd::as_fd(&dir), leaf)
            });
            let same_kind = matches!(
                (was, now),
                (Some(EntryKind::File), Some(FileType::RegularFile))
                    | (Some(EntryKind::Symlink), Some(FileType::Symlink))
                    | (Some(EntryKind::Dir), Some(FileType::Directory))
            );
            if now.is_some() && !same_kind {
                crate::restore::remove_path(root, path, &mut errors);
            }
        }
        // Directories git does not hold: recreate them.
        for path in diff.removed.iter().chain(&diff.modified) {
            if before.entries.get(path).is_some_and(|e| e.kind == EntryKind::Dir)
                && let Err(e) = crate::restore::make_dirs(root, path)
            {
                errors.push(format!("cannot recreate `{path}`: {e}"));
            }
        }
        let from_git: Vec<&String> = diff
            .removed
            .iter()
            .chain(&diff.modified)
            .filter(|p| before.entries.get(*p).is_some_and(|e| e.kind != EntryKind::Dir))
            .collect();
        if !from_git.is_empty() {
            // Check out what HEAD holds; one unknown path must not stop the others.
            let listed = self
                .git(root)
                .args(["ls-tree", "-r", "-z", "--name-only", "HEAD", "--"])
                .args(from_git.iter().map(|p| p.as_str()))
                .output()
                .map_err(|e| format!("git is not available: {e}"))?;
            let in_head: Vec<String> = String::from_utf8_lossy(&listed.stdout)
                .split('\0')
                .filter(|p| !p.is_empty())
                .map(str::to_owned)
                .collect();
            let missing: Vec<&str> =
                from_git.iter().filter(|p| !in_head.contains(p)).map(|p| p.as_str()).collect();
            if !missing.is_empty() {
                errors.push(format!("not in git HEAD, cannot restore: {}", missing.join(", ")));
            }
            if !in_head.is_empty() {
                let out = self
                    .git(root)
                    .args(["checkout", "HEAD", "--"])
                    .args(&in_head)
                    .output()
                    .map_err(|e| format!("git is not available: {e}"))?;
                if !out.status.success() {
                    errors.push(format!(
                        "git checkout failed: {}",
                        String::from_utf8_lossy(&out.stderr).trim()
                    ));
                }
            }
        }
        // Permission bits git does not track.
        for path in diff.removed.iter().chain(&diff.modified) {
            if let Some(entry) = before.entries.get(path).filter(|e| e.kind != EntryKind::Symlink) {
                // What stays wrong is named by the check's new snapshot (R-9).
                let _ = crate::restore::set_mode(root, path, entry.mode);
            }
        }
        if errors.is_empty() { Ok(()) } else { Err(errors.join("; ")) }
    }
}

#[async_trait]
impl Restorer for GitRestorer {
    async fn restore(
        &self,
        root: &Path,
        before: &TreeManifest,
        diff: &TreeDiff,
    ) -> Result<(), agentwarden_domain::fact::FactError> {
        let (me, root, before, diff) = (self.clone(), root.to_owned(), before.clone(), diff.clone());
        tokio::task::spawn_blocking(move || me.restore_blocking(&root, &before, &diff))
            .await
            .unwrap_or_else(|e| Err(format!("the restore task failed: {e}")))
            .map_err(agentwarden_domain::fact::FactError::from)
    }
}
