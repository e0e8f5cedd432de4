//! The names a write never reaches under any tool rule nor through any agent's write tool: the
//! directories and files a tool reads as configuration or runs as code (a git hook runs as the
//! human at their next commit, a shell's start-up file at their next shell), with the case
//! folding of the client the rules are held against, or stricter (T-19, R-33).
//!
//! The list is the one that client (the pinned version the real-client suite runs) holds for
//! writes whatever its rules say, read from its own code and checked against its decisions;
//! the names of the harnesses' own settings are the integrations' to add ([`HeldNames`]), so
//! that no harness is named here.

use super::real_path::{ResolvePath, joined, lexical, places};
use crate::unicode::is_default_ignorable;

/// Directories no write lands in or under, in any letter case (T-19, R-33).
pub const HELD_DIRECTORIES: [&str; 8] =
    [".git", ".vscode", ".idea", ".husky", ".cargo", ".devcontainer", ".yarn", ".mvn"];

/// Runs of directories no write lands under, each name folded (T-19, R-33).
pub const HELD_DIRECTORY_RUNS: [[&str; 2]; 1] = [[".config", "git"]];

/// The directory under a [`HeldNames::worktree_homes`] entry that is not held, one level down:
/// a worktree subagent's worktrees live there; a held name below one is held again (T-19).
const WORKTREES: &str = "worktrees";

/// Files no write lands on, in any letter case, wherever they are (T-19, R-33).
pub const HELD_FILES: [&str; 38] = [
    ".gitconfig",
    ".gitmodules",
    ".bashrc",
    ".bash_profile",
    ".zshrc",
    ".zprofile",
    ".profile",
    ".zshenv",
    ".zlogin",
    ".zlogout",
    ".bash_login",
    ".bash_aliases",
    ".bash_logout",
    ".envrc",
    ".ripgreprc",
    ".mcp.json",
    ".npmrc",
    ".yarnrc",
    ".yarnrc.yml",
    ".pnp.cjs",
    ".pnp.loader.mjs",
    ".pnp.js",
    ".pnp.data.json",
    ".pnpmfile.cjs",
    "bunfig.toml",
    ".bunfig.toml",
    ".bazelrc",
    ".bazelversion",
    ".bazeliskrc",
    ".pre-commit-config.yaml",
    "lefthook.yml",
    ".lefthook.yml",
    "lefthook.yaml",
    ".lefthook.yaml",
    "gradle-wrapper.properties",
    "maven-wrapper.properties",
    ".devcontainer.json",
    "pyrightconfig.json",
];

/// The names the integrations hold besides the list: their harnesses' own settings, hooks and
/// worktrees, folded as the list is (T-19).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HeldNames<'a> {
    /// Held directories.
    pub directories: &'a [&'a str],
    /// Held directories whose `worktrees/NAME` is not held, once (a worktree subagent's tree).
    pub worktree_homes: &'a [&'a str],
    /// Held files.
    pub files: &'a [&'a str],
}

impl HeldNames<'static> {
    /// None besides the list.
    pub const NONE: HeldNames<'static> = HeldNames { directories: &[], worktree_homes: &[], files: &[] };
}

/// A path's name as the held names are compared: invisible characters removed, lower-cased
/// through upper case (so `ſ`, `ı` and the Kelvin sign fold as `s`, `i` and `k`), a Windows
/// stream suffix (`:…`) and trailing dots and spaces removed; the name lower-cased alone when
/// nothing is left. The client folds the same way, with fewer characters (T-19).
pub fn fold(name: &str) -> String {
    let lower = |text: &str| -> String {
        text.chars()
            .flat_map(char::to_lowercase)
            .flat_map(char::to_uppercase)
            .flat_map(char::to_lowercase)
            .map(|c| match c {
                '\u{131}' => 'i',
                '\u{17f}' => 's',
                other => other,
            })
            .collect()
    };
    let visible: String = name.chars().filter(|c| !is_default_ignorable(*c)).collect();
    let folded = lower(&visible);
    let stem = folded.split(':').next().unwrap_or_default().trim_end_matches(['.', ' ']);
    if stem.is_empty() { lower(name) } else { stem.to_owned() }
}

/// The held name `path` (absolute, `/`-separated, `.` and `..` already applied) lands in or on,
/// when it does: any of its components a held directory (the list's or `more`'s; a worktree
/// home's `worktrees/NAME` excepted once), a run of them a held run, or its last component a
/// held file (T-19, R-33).
pub fn held_in(path: &str, more: HeldNames<'_>) -> Option<String> {
    let names: Vec<String> = path.split('/').filter(|s| !s.is_empty()).map(fold).collect();
    let is = |list: &[&str], name: &str| list.iter().any(|held| fold(held) == name);
    let mut worktree_seen = false;
    for (at, name) in names.iter().enumerate() {
        let home = is(more.worktree_homes, name);
        if home || HELD_DIRECTORIES.contains(&name.as_str()) || is(more.directories, name) {
            let into_worktree =
                home && names.get(at + 1).is_some_and(|next| next == WORKTREES) && at + 2 < names.len();
            if into_worktree && !worktree_seen {
                worktree_seen = true;
                continue;
            }
            return Some(name.clone());
        }
        for run in HELD_DIRECTORY_RUNS {
            if names.get(at..at + run.len()).is_some_and(|here| here.iter().zip(run).all(|(a, b)| a == b)) {
                return Some(run.join("/"));
            }
        }
    }
    let last = names.last()?;
    (HELD_FILES.contains(&last.as_str()) || is(more.files, last)).then(|| last.clone())
}

/// Why a write of `path` (absolute, or relative to `cwd`) is held whatever the rules say, or
/// `None`: it lands in or on a held name ([`held_in`]) as written (`..` applied as text) or at
/// any place it may land ([`places`], T-17), or its last name is a symbolic link, to something
/// or to nothing, in either reading (T-18: the write would go where the link leads, under a
/// name nobody asked about; the client refuses it too). A path that cannot be made absolute or
/// placed is left to the caller, which refuses it (`path_unresolvable`).
pub fn held_write(
    resolve: &dyn ResolvePath,
    more: HeldNames<'_>,
    path: &str,
    cwd: Option<&str>,
) -> Option<String> {
    let shown = path.escape_debug();
    let as_written = joined(path, cwd)?;
    let text = lexical(&as_written);
    let mut seen = vec![text.clone()];
    seen.extend(places(resolve, path, cwd).unwrap_or_default());
    if let Some(name) = seen.iter().find_map(|place| held_in(place, more)) {
        return Some(format!(
            "`{shown}` lands on `{name}`, a name no write reaches whatever the rules say (it is read as \
             configuration or run as code)"
        ));
    }
    for reading in [as_written.as_str(), text.as_str()] {
        match resolve.leaf_is_link(reading) {
            Ok(false) => {}
            Ok(true) => {
                return Some(format!(
                    "`{shown}` is a symbolic link: write to the path it leads to, named as such"
                ));
            }
            Err(why) => {
                return Some(format!("`{shown}`: whether it is a symbolic link cannot be told: {why}"));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An integration's own names, as a harness's would be: a settings directory that is also
    /// where its worktrees live, another one, a settings file.
    const MORE: HeldNames<'static> =
        HeldNames { directories: &[".h2"], worktree_homes: &[".h1"], files: &[".h1.json"] };

    /// The examples and the ways an agent would spell them past a plain comparison.
    #[test]
    fn held_names_are_caught_however_they_are_spelt() {
        // Path, the held name it lands on (or none), why.
        let rows: [(&str, Option<&str>, &str); 27] = [
            ("/p/.g\u{131}t/hooks/x", Some(".git"), "a dotless i folds as `i`"),
            ("/p/.git/config", Some(".git"), "a git config"),
            ("/p/.git/hooks/pre-commit", Some(".git"), "a git hook"),
            ("/p/.GIT/hooks/pre-commit", Some(".git"), "upper case"),
            ("/p/.Git./config", Some(".git"), "a trailing dot"),
            ("/p/.git /config", Some(".git"), "a trailing space"),
            ("/p/.g\u{200b}it/config", Some(".git"), "a zero-width space"),
            ("/p/.git:stream/config", Some(".git"), "a stream suffix"),
            ("/p/.H1/settings.local.json", Some(".h1"), "an integration's settings"),
            ("/p/.h2/x", Some(".h2"), "an integration's other directory"),
            ("/p/sub/.H1.JSON", Some(".h1.json"), "an integration's file"),
            ("/p/.bashrc", Some(".bashrc"), "a shell's start-up file"),
            ("/p/sub/.BASHRC", Some(".bashrc"), "anywhere, any case"),
            ("/p/.vscode/settings.json", Some(".vscode"), "an editor's settings"),
            ("/p/.mcp.json", Some(".mcp.json"), "MCP servers"),
            ("/p/.npmrc", Some(".npmrc"), "a package manager's settings"),
            ("/p/.envrc", Some(".envrc"), "direnv"),
            ("/p/.husky/pre-commit", Some(".husky"), "husky's hooks"),
            ("/p/.config/git/config", Some(".config/git"), "git's XDG config"),
            ("/p/.ba\u{17f}hrc", Some(".bashrc"), "a long s folds as `s`"),
            ("/p/.h1/worktrees/w1/src/a.rs", None, "a worktree subagent's tree"),
            ("/p/.h1/worktrees/w1/.h1/x", Some(".h1"), "the home again inside a worktree"),
            ("/p/.h1/worktrees/w1/.h1/worktrees/w2/a", Some(".h1"), "a worktree's worktree: once only"),
            ("/p/.h1/worktrees", Some(".h1"), "the worktrees directory itself"),
            ("/p/.gitignore", None, "not held"),
            ("/p/src/git/config", None, "`git` is not `.git`"),
            ("/p/bashrc", None, "not a dot file"),
        ];
        for (path, expected, why) in rows {
            assert_eq!(held_in(path, MORE).as_deref(), expected, "{why}: {path}");
        }
        assert_eq!(held_in("/p/.h1/x", HeldNames::NONE), None, "the integration's names are its own");
        assert_eq!(held_in("/p/\u{212a}.bazelrc", MORE), None, "a Kelvin sign is a letter of another name");
        assert_eq!(fold(".\u{212a}"), ".k", "the Kelvin sign folds as `k`");
        assert_eq!(fold("...."), "....", "nothing left: the name itself");
    }

    /// A write is held as written and wherever it lands, and when its last name is a link.
    #[test]
    fn a_write_is_held_where_it_lands_and_through_a_final_link() {
        let links = crate::lineage::Links(std::collections::BTreeMap::from([
            ("/p/src/g", "../.git"),
            ("/p/src/hook", "/p/.git/hooks/pre-commit"),
            ("/p/src/lnk", "/elsewhere/file"),
            ("/p/src/none", "!"),
            ("/p/gitdir", "/p/real"),
        ]));
        // Path, held, why.
        let rows: [(&str, bool, &str); 9] = [
            ("src/g/config", true, "a link to `.git`: where it lands"),
            ("src/hook", true, "a final link into `.git`"),
            ("src/lnk", true, "a final link, anywhere: refused as the client refuses it"),
            ("src/none", true, "a final link to nothing"),
            ("src/x/../../p/.git/config", true, "`..` as text"),
            ("/p/sub/.Bashrc", true, "absolute, another case"),
            ("src/a.rs", false, "plain"),
            ("src/lnk/../a.rs", false, "a link, then `..`: not the last name"),
            ("gitdir/hooks/x", false, "a directory that is not held, through a link"),
        ];
        for (path, held, why) in rows {
            assert_eq!(held_write(&links, MORE, path, Some("/p")).is_some(), held, "{why}: {path}");
        }
        assert_eq!(held_write(&links, MORE, "a.rs", None), None, "not placed: the caller refuses it");
    }

    /// Issue 48, class 2: no rule grants a write to a held name, not a wide one, not one that
    /// names it, not the bare tool; a read of one is the rules' to decide.
    #[test]
    fn no_rule_grants_a_write_to_a_held_name() {
        use crate::lineage::syntax::{EDIT, EDIT_FAMILY, READ};
        use crate::lineage::{CallArgument, NoLinks, ToolRule, ToolRuleSet, ToolUse};
        let call = |tool: &str, path: &str| {
            let paths = CallArgument::Paths(vec![path.to_owned()]);
            ToolUse::resolve_holding(tool, &paths, "/p", "/p", &NoLinks, MORE)
        };
        let mut rules: Vec<String> =
            [format!("{EDIT}(**)"), format!("{EDIT}(.git/**)"), format!("{EDIT}(//**)")].into();
        rules.extend(EDIT_FAMILY.iter().map(|tool| (*tool).to_owned()));
        let set = ToolRuleSet::new(rules.iter().map(|r| ToolRule::parse(r).unwrap()).collect());
        let held = [
            ".git/config",
            ".git/hooks/pre-commit",
            ".h1/settings.local.json",
            ".bashrc",
            ".vscode/settings.json",
            ".mcp.json",
            ".npmrc",
            ".envrc",
            ".husky/pre-commit",
            ".GIT/HOOKS/pre-commit",
            "sub/.Npmrc",
            "/home/u/.zshrc",
        ];
        for tool in EDIT_FAMILY {
            for path in held {
                let use_ = call(tool, path);
                assert!(!set.grants(&use_), "{tool} {path} was granted");
                assert!(use_.held().is_some(), "{tool} {path}: {use_:?}");
            }
            assert!(set.grants(&call(tool, "src/a.rs")), "{tool}: an ordinary file is still granted");
        }
        let read = ToolRuleSet::new(vec![ToolRule::parse(&format!("{READ}(**)")).unwrap()]);
        assert!(read.grants(&call(READ, ".git/config")), "a read is the rules' to decide");
    }
}
