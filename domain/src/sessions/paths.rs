//! Which file a tool that writes names, and whether it is inside
//! a protected path — lexically, on `/`-separated text, so the domain stays pure (H-26).
//!
//! The path is resolved against the hook input's `cwd` when relative, and `.` and `..` are
//! normalised (`..` above `/` stays at `/`, as the kernel does). It is protected when it is a
//! protected path or lies under one, compared component by component (`okrs2/x` is not under
//! `okrs`). [`protected_write`] adds the forms the file system resolves both sides to, through
//! [`ResolvePath`], which the application implements (the domain reads no file), so a symlinked
//! parent cannot hide a protected directory. A relative path with no `cwd` to resolve it
//! against cannot be placed: it is treated as protected (fail closed).

/// `path` made absolute against `cwd` (when relative) and normalised; `None` when it is
/// relative and there is no absolute `cwd`.
pub fn normalize(path: &str, cwd: Option<&str>) -> Option<String> {
    let joined = if path.starts_with('/') {
        path.to_owned()
    } else {
        let cwd = cwd.filter(|c| c.starts_with('/'))?;
        format!("{cwd}/{path}")
    };
    let mut parts: Vec<&str> = Vec::new();
    for part in joined.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    Some(format!("/{}", parts.join("/")))
}

/// True when `path` (absolute, normalised) is `prefix` or lies under it.
pub fn is_within(path: &str, prefix: &str) -> bool {
    let prefix = prefix.trim_end_matches('/');
    if prefix.is_empty() {
        return true;
    }
    path == prefix || path.strip_prefix(prefix).is_some_and(|rest| rest.starts_with('/'))
}

/// The first of `protected` (absolute, normalised prefixes) that any of `candidates` (the
/// forms the target was resolved to) lies within.
pub fn protected_target<'a>(candidates: &[String], protected: &'a [String]) -> Option<&'a String> {
    protected.iter().find(|prefix| candidates.iter().any(|c| is_within(c, prefix)))
}

/// How the file system resolves a path: the application's side of [`protected_write`].
pub trait ResolvePath {
    /// `path` (absolute, normalised) with its longest existing ancestor canonicalised (symbolic
    /// links followed) and the rest appended, normalised; `None` when nothing of it resolves.
    fn resolve_existing(&self, path: &str) -> Option<String>;
}

/// The protected paths a write is checked against (H-26).
#[derive(Clone, Copy, Debug)]
pub struct ProtectedPaths<'a> {
    /// The workspace root, absolute and normalised, when it could be made so.
    pub root: Option<&'a str>,
    /// `[guardrails] protected`, relative to each base.
    pub paths: &'a [String],
}

/// The reason a write of `path` (from a hook input whose `cwd` is `cwd`) is refused, or
/// `None` when it is outside every protected path (H-26).
///
/// Protected are the configured paths under the workspace root, under the hook input's `cwd`,
/// and under the calling agent's own root recorded at its start (`own_root`: a worktree
/// subagent's worktree, which a `cd` cannot move). Both the target and the protected paths are
/// compared lexically (`.`/`..` normalised, relative to `cwd`) and as `resolve` resolves them
/// (symlinked parents followed), so `link/x` with `link -> okrs` is caught. A relative target
/// with no usable `cwd` cannot be placed: refused.
///
/// with protected paths configured and no workspace root (it could not be made absolute:
/// a relative configured root and no current directory), every write is refused, saying so:
/// the workspace's protected paths cannot be placed, and `cwd` and `own_root` may not be the
/// workspace (an absolute write into it would otherwise pass).
pub fn protected_write(
    protected: ProtectedPaths<'_>,
    resolve: &dyn ResolvePath,
    cwd: Option<&str>,
    own_root: Option<&str>,
    path: &str,
) -> Option<String> {
    let deny = |what: String| {
        Some(format!(
            "Agent Warden denied this at protected_path (protected_path_write): {what}; protected paths \
             change only outside agent sessions"
        ))
    };
    if protected.root.is_none() && !protected.paths.is_empty() {
        return deny(format!(
            "`{path}` cannot be checked: the workspace root could not be placed (made absolute), so its \
             protected paths cannot be"
        ));
    }
    let Some(lexical) = normalize(path, cwd) else {
        return deny(format!("`{path}` is relative and the hook input gives no absolute `cwd` to place it"));
    };
    let mut candidates = vec![lexical.clone()];
    if let Some(real) = resolve.resolve_existing(&lexical) {
        candidates.push(real);
    }
    let mut bases: Vec<String> = protected.root.map(str::to_owned).into_iter().collect();
    bases.extend([cwd, own_root].into_iter().flatten().filter_map(|c| normalize(c, None)));
    let mut paths: Vec<String> = Vec::new();
    for base in &bases {
        for p in protected.paths {
            if let Some(lexical) = normalize(p, Some(base)) {
                if let Some(real) = resolve.resolve_existing(&lexical) {
                    paths.push(real);
                }
                paths.push(lexical);
            }
        }
    }
    protected_target(&candidates, &paths)
        .and_then(|hit| deny(format!("`{path}` is inside the protected path `{hit}`")))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    /// A file system of symbolic links only: each key, a link, resolves to its value.
    struct Links(BTreeMap<&'static str, &'static str>);

    impl ResolvePath for Links {
        fn resolve_existing(&self, path: &str) -> Option<String> {
            self.0.iter().find_map(|(link, target)| {
                let rest = if path == *link { Some("") } else { path.strip_prefix(&format!("{link}/")) };
                rest.and_then(|rest| normalize(&format!("{target}/{rest}"), None))
            })
        }
    }

    #[test]
    fn writes_into_protected_paths_are_caught_however_they_are_spelt() {
        let links = Links(BTreeMap::from([("/p/src/link", "/p/okrs"), ("/p/alias", "/p/src"), ("/q", "/p")]));
        let configured = ["okrs".to_owned()];
        let protected = ProtectedPaths { root: Some("/p"), paths: &configured };
        /// Path, cwd, own root, denied, why.
        type Row<'a> = (&'a str, Option<&'a str>, Option<&'a str>, bool, &'a str);
        let rows: [Row<'_>; 13] = [
            ("okrs/a.md", Some("/p"), None, true, "relative"),
            ("/p/okrs/new/b.md", Some("/p"), None, true, "absolute"),
            ("src/../okrs/a.md", Some("/p"), None, true, "`..`"),
            ("src/link/a.md", Some("/p"), None, true, "a symlinked parent"),
            ("/q/okrs/a.md", Some("/x"), None, true, "a linked root"),
            ("okrs/a.md", Some("/wt"), None, true, "under the cwd's own protected path"),
            ("/p/okrs/a.md", Some("/wt"), None, true, "the project's from elsewhere"),
            ("/wt/okrs/a.md", Some("/p/src"), Some("/wt"), true, "the agent's own root, its cwd moved"),
            ("notes.md", None, None, true, "relative with no cwd: refused"),
            ("/wt/okrs/a.md", Some("/p/src"), None, false, "another tree, without its root"),
            ("src/a.md", Some("/p"), None, false, "outside"),
            ("okrs-notes.md", Some("/p"), None, false, "a name that shares a prefix"),
            ("src/link-not/a.md", Some("/p"), None, false, "a sibling of the link"),
        ];
        for (path, cwd, own_root, denied, why) in rows {
            let reason = protected_write(protected, &links, cwd, own_root, path);
            assert_eq!(reason.is_some(), denied, "{why}: {path}");
            if let Some(reason) = reason {
                assert!(reason.starts_with("Agent Warden denied this at protected_path"), "{reason}");
            }
        }
    }

    /// No workspace root with protected paths configured: every write is refused, naming
    /// the root; with none configured, nothing is.
    #[test]
    fn without_a_workspace_root_writes_are_refused_while_paths_are_protected() {
        let links = Links(BTreeMap::new());
        let configured = ["okrs".to_owned()];
        let unplaced = ProtectedPaths { root: None, paths: &configured };
        /// Path, cwd, own root, why.
        type Row<'a> = (&'a str, Option<&'a str>, Option<&'a str>, &'a str);
        let rows: [Row<'_>; 4] = [
            ("/p/okrs/a.md", None, None, "absolute into the workspace's protected path, no cwd"),
            ("/p/okrs/a.md", Some("/wt"), None, "absolute into it from another tree"),
            ("/p/src/a.md", None, None, "outside, but nothing can tell"),
            ("okrs/a.md", Some("/p"), Some("/p"), "relative, the cwd and own root given"),
        ];
        for (path, cwd, own_root, why) in rows {
            let reason = protected_write(unplaced, &links, cwd, own_root, path);
            let reason = reason.unwrap_or_else(|| panic!("{why}: {path} was let through"));
            assert!(reason.starts_with("Agent Warden denied this at protected_path"), "{reason}");
            assert!(reason.contains("the workspace root could not be placed"), "{why}: {reason}");
        }
        let none = ProtectedPaths { root: None, paths: &[] };
        assert_eq!(protected_write(none, &links, None, None, "/p/okrs/a.md"), None);
    }

    #[test]
    fn targets_are_resolved_lexically_then_matched_by_component() {
        let protected = ["/p/okrs".to_owned(), "/w/tree/okrs".to_owned(), "/p/.harness".to_owned()];
        let rows: [(&str, Option<&str>, bool, &str); 14] = [
            ("okrs/a.md", Some("/p"), true, "relative to the cwd"),
            ("/p/okrs/a.md", None, true, "absolute"),
            ("/p/okrs", None, true, "the protected directory itself"),
            ("/p/src/../okrs/a.md", None, true, "`..` normalised"),
            ("./okrs/./a.md", Some("/p"), true, "`.` normalised"),
            ("src/../../p/okrs/x", Some("/p"), true, "`..` out of the cwd and back in"),
            ("/p//okrs///a.md", None, true, "repeated separators"),
            ("../../../../p/okrs/a", Some("/p/x"), true, "`..` above the root stays at the root"),
            ("okrs/a.md", Some("/w/tree"), true, "a worktree's own protected path"),
            (".harness/settings.json", Some("/p"), true, "the guard's own settings"),
            ("okrs2/a.md", Some("/p"), false, "a sibling that shares a prefix"),
            ("/p/src/okrs/a.md", None, false, "a nested directory of the same name"),
            ("notes.md", Some("/p"), false, "outside"),
            ("okrs/../src/a.md", Some("/p"), false, "in and back out"),
        ];
        for (path, cwd, expected, why) in rows {
            let resolved = normalize(path, cwd).unwrap();
            assert_eq!(protected_target(&[resolved], &protected).is_some(), expected, "{why}: {path}");
        }
        assert_eq!(normalize("okrs/a", None), None, "relative without a cwd cannot be placed");
        assert_eq!(normalize("okrs/a", Some("rel")), None, "nor against a relative cwd");
    }
}
