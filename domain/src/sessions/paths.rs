//! Which file a tool that writes names, and whether it lands inside a protected path (H-26,
//! R-32), on `/`-separated text, so the domain stays pure.
//!
//! The path is placed where it may land ([`places`], T-17): made absolute against the hook
//! input's `cwd` when relative, then resolved component by component as the kernel resolves it
//! (a symbolic link followed before a `..` after it) and as a writer that removes `..` as text
//! first does, each through [`ResolvePath`], which the application implements (the domain reads
//! no file). It is protected when any place is a protected path or lies under one, compared
//! component by component (`okrs2/x` is not under `okrs`); the protected paths are compared as
//! configured and as the file system places them, so a symlinked parent on either side hides
//! nothing. A path that cannot be placed — relative with no `cwd`, a loop, a component that
//! cannot be read, a final link to nothing — is refused (fail closed). A held name, and a
//! final link, are refused whatever is configured.

use crate::lineage::{HeldNames, ResolvePath, held_in, is_stream_file, lexical, places, shell_writes};
use crate::verdict::{Code, Failed};

/// `path` made absolute against `cwd` (when relative) and normalised as text; `None` when it is
/// relative and there is no absolute `cwd`.
pub fn normalize(path: &str, cwd: Option<&str>) -> Option<String> {
    crate::lineage::joined(path, cwd).map(|joined| lexical(&joined))
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
/// places the target may land) lies within.
pub fn protected_target<'a>(candidates: &[String], protected: &'a [String]) -> Option<&'a String> {
    protected.iter().find(|prefix| candidates.iter().any(|c| is_within(c, prefix)))
}

/// The protected paths a write is checked against (H-26).
#[derive(Clone, Copy, Debug)]
pub struct ProtectedPaths<'a> {
    /// The workspace root, absolute and normalised, when it could be made so.
    pub root: Option<&'a str>,
    /// `[guardrails] protected`, relative to each base.
    pub paths: &'a [String],
    /// The integrations' own held names, held besides the list's whatever is configured.
    pub held: HeldNames<'a>,
}

/// Why a write of `path` (from a hook input whose `cwd` is `cwd`) is refused — its code and
/// reason — or `None` when every place it may land is outside every protected path (H-26, R-32).
///
/// Protected are the configured paths under the workspace root, under the hook input's `cwd`,
/// and under the calling agent's own root recorded at its start (`own_root`: a worktree
/// subagent's worktree, which a `cd` cannot move), each as configured and as `resolve` places
/// it. The target is judged at every place it may land ([`places`]): `link/x` with
/// `link -> okrs`, and `src/l/../okrs/x` with `src/l -> agents`, are caught. A target that
/// cannot be placed is refused, `path_unresolvable`.
///
/// Whatever is configured, a write that lands on a held name (`.git`, a shell's start-up file,
/// a harness's own settings given in `protected.held`, …) or whose last name is a symbolic link is refused, for every agent the main
/// session included and every harness's write tool, since all of them come here; no setting
/// lifts it (R-33, T-18, T-19).
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
) -> Option<Failed> {
    let deny = |what: String| {
        Some(Failed::new(
            Code::ProtectedPathWrite,
            format!(
                "Agent Warden denied this at protected_path (protected_path_write): {what}; protected paths \
                 change only outside agent sessions"
            ),
        ))
    };
    if protected.root.is_none() && !protected.paths.is_empty() {
        return deny(format!(
            "`{path}` cannot be checked: the workspace root could not be placed (made absolute), so its \
             protected paths cannot be"
        ));
    }
    let candidates = match places(resolve, path, cwd) {
        Ok(candidates) => candidates,
        Err(why) => {
            return Some(Failed::new(
                Code::PathUnresolvable,
                format!(
                    "Agent Warden denied this at protected_path (path_unresolvable): {why}, so where it lands \
                     cannot be checked against the protected paths"
                ),
            ));
        }
    };
    // The held names are refused for every agent, the main session included, whatever is
    // configured: no setting widens them.
    if let Some(why) = crate::lineage::held_write(resolve, protected.held, path, cwd) {
        return deny(why);
    }
    let mut bases: Vec<String> = protected.root.map(str::to_owned).into_iter().collect();
    bases.extend([cwd, own_root].into_iter().flatten().filter_map(|c| normalize(c, None)));
    let mut paths: Vec<String> = Vec::new();
    for base in &bases {
        for p in protected.paths {
            if let Some(joined) = crate::lineage::joined(p, Some(base)) {
                // A protected path that cannot be placed (a loop) holds nothing a write reaches
                // through it; as configured, it is still compared.
                if let Ok(real) = resolve.place(&joined) {
                    paths.push(real);
                }
                paths.push(lexical(&joined));
            }
        }
    }
    protected_target(&candidates, &paths)
        .and_then(|hit| deny(format!("`{path}` lands inside the protected path `{hit}`")))
}

/// Why a shell call's command line (from a hook input whose `cwd` is `cwd`) is refused, or
/// `None`. Every agent's shell, the main session's included and whatever its rules say, may not
/// write what a write tool may not: each file the line's text says it writes — an output
/// redirection's target, a known writer's path (T-20), read through launchers, `eval` and
/// `sh -c` (T-22) — is checked as a write tool's path is ([`protected_write`]: the held names
/// as written and where it lands, a final link, the configured protected paths), the shell's
/// own stream files (`/dev/null`, `/dev/stderr`, `/dev/fd/N`) excepted (T-31). A line whose
/// text cannot be read whole (an expansion, a command substitution, a glob in a target, an
/// unclosed quote, a script or piped text run) is refused only when one of its words, as a
/// path from `cwd`, is or lies in a held name or a configured protected path; the rest of such
/// a line is the confinement's (T-32). A line the harness runs in another directory (`dir`,
/// absolute or relative to `cwd`) has its relative targets placed there, and from `cwd` too.
pub fn protected_shell(
    protected: ProtectedPaths<'_>,
    resolve: &dyn ResolvePath,
    cwd: Option<&str>,
    own_root: Option<&str>,
    command: &str,
    dir: Option<&str>,
) -> Option<Failed> {
    let writes = shell_writes(command);
    if let Some(why) = &writes.refused {
        return Some(Failed::new(
            Code::ProtectedPathWrite,
            format!(
                "Agent Warden denied this at protected_path (protected_path_write): the shell command cannot be \
                 checked: {why}"
            ),
        ));
    }
    let run_in = dir.and_then(|d| normalize(d, cwd));
    let places: Vec<Option<&str>> = [run_in.as_deref(), cwd].into_iter().filter(Option::is_some).collect();
    let places = if places.is_empty() { vec![None] } else { places };
    for target in writes.targets.iter().filter(|t| !is_stream_file(&lexical(t)) || !t.starts_with('/')) {
        for from in &places {
            if let Some(refused) = protected_write(protected, resolve, *from, own_root, target) {
                return Some(Failed::new(
                    refused.code,
                    format!("{} (the shell command writes it)", refused.reason),
                ));
            }
        }
    }
    let why = writes.unread.as_deref()?;
    let mut bases: Vec<String> = protected.root.map(str::to_owned).into_iter().collect();
    bases.extend([cwd, own_root].into_iter().flatten().filter_map(|c| normalize(c, None)));
    let configured: Vec<String> = bases
        .iter()
        .flat_map(|base| protected.paths.iter().filter_map(|p| normalize(p, Some(base))))
        .collect();
    writes.words.iter().find_map(|word| {
        let place = normalize(word, run_in.as_deref().or(cwd))?;
        let named = held_in(&place, protected.held)
            .map(|name| format!("the held name `{name}`"))
            .or_else(|| protected_target(&[place], &configured).map(|hit| format!("the protected path `{hit}`")))?;
        Some(Failed::new(
            Code::ProtectedPathWrite,
            format!(
                "Agent Warden denied this at protected_path (protected_path_write): the shell command cannot be \
                 read whole ({why}) and its word `{}` names {named}; a command that builds its paths at run \
                 time may not name one; protected paths change only outside agent sessions",
                word.escape_debug()
            ),
        ))
    })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    use crate::lineage::Links;

    #[test]
    fn writes_into_protected_paths_are_caught_however_they_are_spelt() {
        let links = Links(BTreeMap::from([
            ("/p/src/link", "/p/okrs"),
            ("/p/alias", "/p/src"),
            ("/q", "/p"),
            ("/p/src/l", "../agents"),
            ("/p/src/up", ".."),
            ("/p/okrs/out", "/elsewhere"),
            ("/p/src/loop", "loop"),
            ("/p/src/none", "!"),
        ]));
        let configured = ["okrs".to_owned()];
        let protected = ProtectedPaths { root: Some("/p"), paths: &configured, held: HeldNames::NONE };
        /// Path, cwd, own root, denied, why.
        type Row<'a> = (&'a str, Option<&'a str>, Option<&'a str>, bool, &'a str);
        let rows: [Row<'_>; 18] = [
            ("okrs/a.md", Some("/p"), None, true, "relative"),
            (
                "src/l/../okrs/a.md",
                Some("/p"),
                None,
                true,
                "a link to a sibling, then `..`: the kernel's reading",
            ),
            ("src/up/okrs/a.md", Some("/p"), None, true, "a link to `..`"),
            ("okrs/out/../a.md", Some("/p"), None, true, "`..` as text: a writer that normalises first"),
            ("src/loop/a.md", Some("/p"), None, true, "a loop: cannot be placed"),
            ("src/none", Some("/p"), None, true, "a final link to nothing: cannot be placed"),
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
                assert!(
                    reason.reason.starts_with("Agent Warden denied this at protected_path"),
                    "{reason:?}"
                );
                let unplaced = why.contains("cannot be placed") || path == "notes.md";
                let code = if unplaced { Code::PathUnresolvable } else { Code::ProtectedPathWrite };
                assert_eq!(reason.code, code, "{why}: {path}");
            }
        }
    }

    /// Issue 48, class 2: the held names are refused for every agent whatever is configured,
    /// nothing configured included, as written, in any case, through a link, and a write
    /// through a final link is refused (R-33, T-18).
    #[test]
    fn held_names_are_refused_whatever_is_configured() {
        const MORE: HeldNames<'static> = HeldNames { directories: &[".h1"], worktree_homes: &[], files: &[] };
        let links = Links(BTreeMap::from([("/p/src/g", "/p/.git"), ("/p/src/lnk", "/p/src/a.rs")]));
        let nothing = ProtectedPaths { root: Some("/p"), paths: &[], held: MORE };
        // Path, denied, why.
        let rows: [(&str, bool, &str); 14] = [
            (".git/config", true, "git's config"),
            (".git/hooks/pre-commit", true, "a git hook"),
            (".Git/Hooks/pre-commit", true, "another case"),
            (".h1/settings.local.json", true, "an integration's settings"),
            (".bashrc", true, "a shell's start-up file"),
            (".vscode/settings.json", true, "an editor's settings"),
            (".mcp.json", true, "MCP servers"),
            (".npmrc", true, "npm's settings"),
            (".envrc", true, "direnv"),
            (".husky/pre-commit", true, "husky"),
            ("src/g/hooks/post-checkout", true, "through a link to `.git`"),
            ("src/lnk", true, "a final link"),
            ("src/a.rs", false, "an ordinary file"),
            (".gitignore", false, "not held"),
        ];
        for (path, denied, why) in rows {
            let reason = protected_write(nothing, &links, Some("/p"), None, path);
            assert_eq!(reason.is_some(), denied, "{why}: {path}");
            if let Some(reason) = reason {
                assert_eq!(reason.code, Code::ProtectedPathWrite, "{why}: {path}");
            }
        }
    }

    /// Issue 48's residual: a shell line that writes a held name or a protected path is refused
    /// for every agent, whatever the writer, the launcher or form it runs through, and however
    /// the name is spelt: as written, from the cwd, through `..`, in another case, escaped or
    /// quoted, through a link on the way or a final link (T-31).
    #[test]
    fn a_shell_line_that_writes_a_held_name_is_refused_however_it_is_written() {
        const MORE: HeldNames<'static> = HeldNames { directories: &[".h1"], worktree_homes: &[], files: &[] };
        let links = Links(BTreeMap::from([("/p/g", "/p/.git"), ("/p/src/fin", "/p/src/a.rs")]));
        let configured = ["okrs".to_owned()];
        let protected = ProtectedPaths { root: Some("/p"), paths: &configured, held: MORE };
        let writers: [fn(&str) -> String; 18] = [
            |t| format!("echo x > {t}"),
            |t| format!("echo x >>{t}"),
            |t| format!("true && echo x 2>&1 >| {t}"),
            |t| format!("printf x | tee -a {t}"),
            |t| format!("cp evil {t}"),
            |t| format!("mv -f evil {t}"),
            |t| format!("ln -s evil {t}"),
            |t| format!("touch {t}"),
            |t| format!("sed -i s/a/b/ {t}"),
            |t| format!("install -m 755 evil {t}"),
            |t| format!("dd if=evil of={t}"),
            |t| format!("env A=1 tee {t}"),
            |t| format!("timeout 5 cp evil {t}"),
            |t| format!("sudo -u me nohup truncate -s0 {t}"),
            |t| format!("exec touch {t}"),
            |t| format!("sh -c 'echo x > {t}'"),
            |t| format!("bash -ec \"touch {t}\""),
            |t| format!("eval touch {t}"),
        ];
        // Target as the command spells it, the name the reason gives.
        let targets: [(&str, &str); 16] = [
            (".git/hooks/pre-commit", ".git"),
            (".GIT/Hooks/pre-commit", ".git"),
            ("./.git/config", ".git"),
            ("src/../.git/config", ".git"),
            ("../p/.git/hooks/post-checkout", ".git"),
            ("/p/.git/hooks/post-checkout", ".git"),
            (".g\\it/config", ".git"),
            ("g/hooks/pre-commit", ".git"),
            (".bashrc", ".bashrc"),
            ("sub/.BashRC", ".bashrc"),
            (".npmrc", ".npmrc"),
            (".mcp.json", ".mcp.json"),
            (".h1/config.toml", ".h1"),
            (".husky/pre-commit", ".husky"),
            ("src/fin", "symbolic link"),
            ("okrs/q4.md", "okrs"),
        ];
        for writer in writers {
            for (target, named) in targets {
                let command = writer(target);
                let refused = protected_shell(protected, &links, Some("/p"), None, &command, None);
                let refused = refused.unwrap_or_else(|| panic!("`{command}` was let through"));
                assert_eq!(refused.code, Code::ProtectedPathWrite, "{command}: {refused:?}");
                assert!(refused.reason.contains(named), "{command}: {}", refused.reason);
            }
        }
        // A line that cannot be read whole and names a held name or a protected path anywhere.
        let unread = [
            ("D=.git; echo x > $D/hooks/pre-commit", ".git"),
            ("echo x > \"$(echo .git)/hooks/pre-commit\"", ".git"),
            ("echo touch .npmrc | sh", ".npmrc"),
            ("echo .bashrc | xargs touch", ".bashrc"),
            ("find . -name x -exec touch .envrc ';'", ".envrc"),
            ("cp evil .{npmrc,x}", ".npmrc"),
            ("cat .git/config $X", ".git"),
            ("echo x > okrs/*", "okrs"),
        ];
        // After a `cd`: a relative target lands under its directory, and where it would without.
        let moved = [
            ("cd .git && echo x > hooks/pre-commit", ".git"),
            ("cd .git/hooks; cp evil pre-commit", ".git"),
            ("cd src && cd ../.git; touch config", ".git"),
            ("(cd src); echo x > okrs/q4.md", "okrs"),
        ];
        for (command, named) in moved {
            let refused = protected_shell(protected, &links, Some("/p"), None, command, None);
            let refused = refused.unwrap_or_else(|| panic!("`{command}` was let through"));
            assert!(refused.reason.contains(named), "{command}: {}", refused.reason);
        }
        for (command, named) in unread {
            let refused = protected_shell(protected, &links, Some("/p"), None, command, None);
            let refused = refused.unwrap_or_else(|| panic!("`{command}` was let through"));
            assert!(refused.reason.contains(named), "{command}: {}", refused.reason);
        }
        // What the main session's shell does every day stays its own.
        let allowed = [
            "echo x > src/out.txt",
            "cp a b && mv b c",
            "cat .git/config",
            "git status && git diff > changes.patch",
            "cargo test 2>/dev/null",
            "ls | tee /dev/stderr >/dev/fd/2",
            "cat .bashrc | wc -l",
            "echo $HOME > home.txt",
            "for f in *.rs; do echo $f; done > list.txt",
            "echo '.git' > notes.txt",
            "cat <<'EOF' > notes.md\ndon't\nEOF",
            "okrs-notes/x",
            "cd src && echo x > out.txt",
        ];
        // A call that names the directory it runs in: the line runs there.
        for dir in [".git", "/p/.git/hooks/..", "src/../.GIT"] {
            let refused =
                protected_shell(protected, &links, Some("/p"), None, "echo x > hooks/pre-commit", Some(dir));
            assert!(refused.is_some_and(|r| r.reason.contains(".git")), "run in {dir}");
        }
        assert_eq!(
            protected_shell(protected, &links, Some("/p"), None, "echo x > out.txt", Some("src")),
            None
        );
        for command in allowed {
            assert_eq!(
                protected_shell(protected, &links, Some("/p"), None, command, None),
                None,
                "{command}"
            );
        }
    }

    /// No workspace root with protected paths configured: every write is refused, naming
    /// the root; with none configured, nothing is.
    #[test]
    fn without_a_workspace_root_writes_are_refused_while_paths_are_protected() {
        let links = Links(BTreeMap::new());
        let configured = ["okrs".to_owned()];
        let unplaced = ProtectedPaths { root: None, paths: &configured, held: HeldNames::NONE };
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
            let reason = reason.unwrap_or_else(|| panic!("{why}: {path} was let through")).reason;
            assert!(reason.starts_with("Agent Warden denied this at protected_path"), "{reason}");
            assert!(reason.contains("the workspace root could not be placed"), "{why}: {reason}");
        }
        let none = ProtectedPaths { root: None, paths: &[], held: HeldNames::NONE };
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

    mod properties {
        use std::collections::BTreeMap;

        use proptest::prelude::*;

        use super::super::*;
        use crate::lineage::Links;

        /// The writers of the property: each writes its one target.
        const WRITERS: [&str; 10] = [
            "echo x > {}",
            "printf x >>{}",
            "cat a | tee -a {}",
            "cp -f evil {}",
            "mv evil {}",
            "ln -sf evil {}",
            "touch {}",
            "env A=1 timeout 9 install evil {}",
            "sh -c 'echo x > {}'",
            "eval touch {}",
        ];

        /// Held names, as a directory part (for a `cd`) and the rest.
        const HELD: [(&str, &str); 6] = [
            (".git", "hooks/pre-commit"),
            (".git", "config"),
            (".husky", "pre-commit"),
            ("", ".bashrc"),
            ("", ".npmrc"),
            ("", ".mcp.json"),
        ];

        const PREFIXES: [&str; 5] = ["", "./", "src/../", "/p/", "sub/x/../../"];

        /// `text` with the case of each ASCII letter flipped where `bits` says.
        fn cased(text: &str, bits: u64) -> String {
            text.chars()
                .enumerate()
                .map(|(at, c)| if bits >> (at % 64) & 1 == 1 { c.to_ascii_uppercase() } else { c })
                .collect()
        }

        proptest! {
            /// Issue 48's residual, generated: any writer, any held name, any case, prefix,
            /// quoting, or a `cd` into the held directory first, is refused, naming the held name
            /// (T-31).
            #[test]
            fn a_held_target_is_refused_however_it_is_spelt(
                writer in 0_usize..WRITERS.len(),
                held in 0_usize..HELD.len(),
                bits in any::<u64>(),
                prefix in 0_usize..PREFIXES.len(),
                quote in 0_usize..3,
                cd in any::<bool>(),
            ) {
                let links = Links(BTreeMap::new());
                let protected = ProtectedPaths { root: Some("/p"), paths: &[], held: HeldNames::NONE };
                let (dir, rest) = HELD[held];
                let prefix = PREFIXES[prefix];
                let (before, target) = if cd && !dir.is_empty() {
                    (format!("cd {prefix}{} && ", cased(dir, bits)), rest.to_owned())
                } else if dir.is_empty() {
                    (String::new(), format!("{prefix}{}", cased(rest, bits)))
                } else {
                    (String::new(), format!("{prefix}{}/{rest}", cased(dir, bits)))
                };
                let target = match (quote, WRITERS[writer].contains('\'')) {
                    (1, false) => format!("'{target}'"),
                    (2, _) => format!("\"{target}\""),
                    _ => target,
                };
                let command = format!("{before}{}", WRITERS[writer].replace("{}", &target));
                let refused = protected_shell(protected, &links, Some("/p"), None, &command, None);
                prop_assert!(refused.is_some(), "`{}` was let through", command);
                let refused = refused.unwrap_or_else(|| unreachable!());
                prop_assert_eq!(refused.code, Code::ProtectedPathWrite);
                let name = if dir.is_empty() { rest } else { dir };
                prop_assert!(refused.reason.contains(name), "{}: {}", command, refused.reason);
            }

            /// The reader never panics on any text, and answers in bounded time.
            #[test]
            fn any_line_is_read_without_a_panic(line in "\\PC{0,400}") {
                let links = Links(BTreeMap::new());
                let protected = ProtectedPaths { root: Some("/p"), paths: &[], held: HeldNames::NONE };
                let _ = protected_shell(protected, &links, Some("/p"), None, &line, Some("src"));
            }
        }
    }
}
