//! H-26: which file a `Write`/`Edit`/`MultiEdit`/`NotebookEdit` names, and whether it is inside
//! a protected path — lexically, on `/`-separated text, so the domain stays pure.
//!
//! The path is resolved against the hook input's `cwd` when relative, and `.` and `..` are
//! normalised (`..` above `/` stays at `/`, as the kernel does). It is protected when it is a
//! protected path or lies under one, compared component by component (`okrs2/x` is not under
//! `okrs`). The application adds the symlink-resolved forms of both sides (see `app/src/hook`),
//! so a symlinked parent cannot hide a protected directory. A relative path with no `cwd` to
//! resolve it against cannot be placed: it is treated as protected (fail closed).

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_are_resolved_lexically_then_matched_by_component() {
        let protected = ["/p/okrs".to_owned(), "/w/tree/okrs".to_owned(), "/p/.claude".to_owned()];
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
            (".claude/settings.json", Some("/p"), true, "the guard's own settings"),
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
