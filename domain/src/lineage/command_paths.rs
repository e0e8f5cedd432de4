//! The paths a known command names on its command line (T-20): a command pattern grants a
//! command of one of [`KNOWN_COMMANDS`] only when every path among its words lands inside the
//! working tree, and, for one that writes, on no held name. The client whose syntax the rules
//! are in reads the path arguments of the commands it knows and refuses what leaves its working
//! directories; a rule `Bash(cat:*)` never granted `cat /etc/hostname` there, and does not here.
//!
//! Which words are paths is read generously, so that Warden is stricter than the client, never
//! looser: every word that is not an option is a path (a pattern, a mode, a count included: one
//! that stays inside costs nothing); the value of `--name=VALUE`, and of `NAME=VALUE`, is a path;
//! in a short option with more after its letter (`-t/etc`, `-o.npmrc`) each tail from its second
//! letter on is a path (the letter's attached value, whichever letter takes one); after `--`
//! every word is a path. A command line that cannot be split into words, a short option longer
//! than [`MAX_OPTION`], more than [`MAX_PATHS`] paths: nothing can be told, and the command is
//! granted by the bare `Bash` rule alone.

use super::held_names::{HeldNames, held_write};
use super::real_path::{ResolvePath, places};

/// Whether a known command reads or writes what it names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Touches {
    /// Reads it, or changes to it (`cd`).
    Reads,
    /// Creates, changes, moves or removes it.
    Writes,
}

/// The commands whose paths are checked (T-20): the list of the client the rules are held
/// against (its pinned version, read from its code: the commands it validates the paths of, with whether it reads or writes, `sort`
/// taken as a writer for its `-o FILE`), and,
/// stricter, the other file-changing commands of coreutils (`ln`, `chmod`, `chown`, `chgrp`,
/// `truncate`, `install`, `dd`, `shred`) and `less`.
pub(super) const KNOWN_COMMANDS: [(&str, Touches); 63] = [
    ("cd", Touches::Reads),
    ("ls", Touches::Reads),
    ("find", Touches::Reads),
    ("mkdir", Touches::Writes),
    ("touch", Touches::Writes),
    ("rm", Touches::Writes),
    ("rmdir", Touches::Writes),
    ("mv", Touches::Writes),
    ("cp", Touches::Writes),
    ("cat", Touches::Reads),
    ("head", Touches::Reads),
    ("tail", Touches::Reads),
    ("sort", Touches::Writes),
    ("uniq", Touches::Reads),
    ("wc", Touches::Reads),
    ("cut", Touches::Reads),
    ("paste", Touches::Reads),
    ("column", Touches::Reads),
    ("tr", Touches::Reads),
    ("file", Touches::Reads),
    ("stat", Touches::Reads),
    ("diff", Touches::Reads),
    ("awk", Touches::Reads),
    ("gawk", Touches::Reads),
    ("mawk", Touches::Reads),
    ("nawk", Touches::Reads),
    ("strings", Touches::Reads),
    ("hexdump", Touches::Reads),
    ("od", Touches::Reads),
    ("base64", Touches::Reads),
    ("nl", Touches::Reads),
    ("tac", Touches::Reads),
    ("man", Touches::Reads),
    ("rev", Touches::Reads),
    ("fold", Touches::Reads),
    ("expand", Touches::Reads),
    ("unexpand", Touches::Reads),
    ("fmt", Touches::Reads),
    ("comm", Touches::Reads),
    ("cmp", Touches::Reads),
    ("pr", Touches::Reads),
    ("numfmt", Touches::Reads),
    ("tsort", Touches::Reads),
    ("grep", Touches::Reads),
    ("egrep", Touches::Reads),
    ("fgrep", Touches::Reads),
    ("rg", Touches::Reads),
    ("sed", Touches::Writes),
    ("git", Touches::Reads),
    ("jq", Touches::Reads),
    ("sha256sum", Touches::Reads),
    ("sha1sum", Touches::Reads),
    ("md5sum", Touches::Reads),
    ("tee", Touches::Writes),
    ("ln", Touches::Writes),
    ("chmod", Touches::Writes),
    ("chown", Touches::Writes),
    ("chgrp", Touches::Writes),
    ("truncate", Touches::Writes),
    ("install", Touches::Writes),
    ("dd", Touches::Writes),
    ("shred", Touches::Writes),
    ("less", Touches::Reads),
];

/// The longest short option read: its tails are paths, each placed by the file system.
pub(super) const MAX_OPTION: usize = 64;

/// The most paths one command line is read for.
pub(super) const MAX_PATHS: usize = 256;

/// What a known command's paths say (T-20).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Reach {
    /// Not a known command, or every path it names stays inside and off the held names.
    Inside,
    /// A path leaves the working tree, or cannot be told: only the bare `Bash` rule grants it.
    Outside(String),
    /// A command that writes names a held name (T-19): no rule grants it.
    Held(String),
}

/// Where the paths `command` (one command, no expansion, T-4) names land, run in `cwd` with the
/// working tree `root` (both absolute), as `resolve` places them (T-17), a writer's held to the
/// list's held names and `more` (T-19).
pub(super) fn reach(
    command: &str,
    cwd: &str,
    root: &str,
    resolve: &dyn ResolvePath,
    more: HeldNames<'_>,
) -> Reach {
    let Some(words) = words(command) else {
        // Unbalanced quotes: which command it is cannot be told either, unless its first word can.
        let first = command.split_whitespace().next().unwrap_or_default().replace(['\'', '"'], "");
        return match known(&first) {
            Some(_) => Reach::Outside(format!("`{}` cannot be split into words", command.escape_debug())),
            None => Reach::Inside,
        };
    };
    let rest: Vec<String> = words.into_iter().skip_while(|w| assignment(w).is_some()).collect();
    let (touches, paths) = match named_paths(&rest) {
        Ok(Some(named)) => named,
        Ok(None) => return Reach::Inside,
        Err(why) => return Reach::Outside(why),
    };
    let tree = match resolve.place(root) {
        Ok(tree) => tree,
        Err(why) => return Reach::Outside(format!("the working tree cannot be placed: {why}")),
    };
    for path in paths.iter().map(String::as_str).filter(|p| !p.is_empty()) {
        let shown = path.escape_debug();
        let landing = match places(resolve, path, Some(cwd)) {
            Ok(landing) => landing,
            Err(why) => return Reach::Outside(why.to_string()),
        };
        if let Some(outside) = landing.iter().find(|place| !within(place, &tree)) {
            return Reach::Outside(format!("`{shown}` lands outside the working tree, at `{outside}`"));
        }
        if touches == Touches::Writes
            && let Some(why) = held_write(resolve, more, path, Some(cwd))
        {
            return Reach::Held(why);
        }
    }
    Reach::Inside
}

/// Whether the known command `words` starts with (its words, quotes removed, assignments
/// before it dropped) reads or writes, and the paths among its other words as T-20 reads them:
/// every word that is not an option, the value of `--name=VALUE` and of `NAME=VALUE`, each tail
/// of a short option from its second letter on, every word after `--`. `None` when it is not
/// a known command; why not, when an option is too long or there are too many paths to read.
pub(super) fn named_paths(words: &[String]) -> Result<Option<(Touches, Vec<String>)>, String> {
    let mut rest = words.iter();
    let Some(touches) = rest.next().and_then(|name| known(name)) else { return Ok(None) };
    let mut paths: Vec<String> = Vec::new();
    let mut options_end = false;
    for word in rest {
        if options_end || !word.starts_with('-') || word == "-" {
            paths.push(word.clone());
            paths.extend(assignment(word).map(str::to_owned));
        } else if word == "--" {
            options_end = true;
        } else if let Some(long) = word.strip_prefix("--") {
            paths.extend(long.split_once('=').map(|(_, value)| value.to_owned()));
        } else if word.len() > MAX_OPTION {
            return Err(format!("the option `{}` is too long to read", word.escape_debug()));
        } else {
            // `-t/etc`: the value attached to whichever letter takes one.
            paths.extend(word.char_indices().skip(2).filter_map(|(at, _)| word.get(at..)).map(str::to_owned));
        }
        if paths.len() > MAX_PATHS {
            return Err(format!("more than {MAX_PATHS} paths to read"));
        }
    }
    Ok(Some((touches, paths)))
}

/// Why a command line of several commands (T-6) writes a held name (T-19), or `None`: a file
/// an output redirection names (`> .git/hooks/pre-commit`, `>> .bashrc`), or a known writer among
/// its commands ([`reach`]), read as text split at the shell's operators outside quotes (T-21). A
/// narrowing: what an expansion names at run time is not seen.
pub(super) fn compound_held(
    line: &str,
    cwd: &str,
    root: &str,
    resolve: &dyn ResolvePath,
    more: HeldNames<'_>,
) -> Option<String> {
    // Split as the line's check for every agent splits it (T-31): one reading of the shell's
    // operators, quotes and escapes.
    let super::shell_split::Split { segments, targets, .. } = super::shell_split::split(line);
    let target =
        targets.iter().filter(|t| !t.is_empty()).find_map(|t| held_write(resolve, more, t, Some(cwd)));
    target.or_else(|| {
        segments.iter().find_map(|segment| match reach(segment.trim(), cwd, root, resolve, more) {
            Reach::Held(why) => Some(why),
            Reach::Inside | Reach::Outside(_) => None,
        })
    })
}

/// The known command `word` (a path to it, or its name, in any letter case) runs, if any.
pub(super) fn known(word: &str) -> Option<Touches> {
    let name = word.rsplit('/').next().unwrap_or(word).to_lowercase();
    KNOWN_COMMANDS.iter().find(|(known, _)| *known == name).map(|(_, touches)| *touches)
}

/// The value of a `NAME=VALUE` word, when it is one.
pub(super) fn assignment(word: &str) -> Option<&str> {
    let (name, value) = word.split_once('=')?;
    let mut chars = name.chars();
    let starts = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    (starts && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')).then_some(value)
}

/// Whether `path` (absolute, placed) is `tree` or under it, by component.
fn within(path: &str, tree: &str) -> bool {
    let tree = tree.trim_end_matches('/');
    tree.is_empty() || path == tree || path.strip_prefix(tree).is_some_and(|rest| rest.starts_with('/'))
}

/// `command` split into words as the shell splits one with no expansion in it: at blanks, a
/// quoted run (`'…'`, `"…"`) part of its word, its quotes removed; `None` when a quote is not
/// closed.
pub(super) fn words(command: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => word.push(c),
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                in_word = true;
            }
            // An unquoted backslash (in a line of several commands): the next character, as itself.
            None if c == '\\' => {
                word.extend(chars.next());
                in_word = true;
            }
            None if c == ' ' || c == '\t' => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            None => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if quote.is_some() {
        return None;
    }
    if in_word {
        words.push(word);
    }
    Some(words)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use crate::lineage::syntax::SHELL;
    use crate::lineage::{CallArgument, Links, ToolRule, ToolRuleSet, ToolUse};

    /// Issue 48, class 3, and the ways around a plain reading: whether the prefix rule grants
    /// the command, and whether the bare `Bash` does.
    #[test]
    fn a_known_commands_paths_are_held_to_the_working_tree() {
        let fs = Links(BTreeMap::from([("/p/out", "/elsewhere"), ("/p/up", ".."), ("/p/g", ".git")]));
        /// Rule, command, granted by the rule, granted by the bare `Bash`, why.
        type Row<'a> = (&'a str, &'a str, bool, bool, &'a str);
        let rows: [Row<'_>; 36] = [
            ("Bash(touch:*)", "touch a1", true, true, "inside"),
            ("Bash(touch:*)", "touch sub/new.txt", true, true, "inside, a name to make"),
            ("Bash(touch:*)", "touch ../outside/new.txt", false, true, "`..` out of the tree"),
            ("Bash(touch:*)", "touch .git/x", false, false, "a held name"),
            ("Bash(touch:*)", "touch .GIT/hooks/pre-commit", false, false, "a held name, upper case"),
            ("Bash(touch:*)", "touch g/hooks/x", false, false, "a link to a held name"),
            ("Bash(touch:*)", "touch '.bashrc'", false, false, "a quoted held file"),
            ("Bash(touch:*)", "touch \"a b\" /tmp/x", false, true, "a second path outside"),
            ("Bash(touch:*)", "touch out/x", false, true, "a link out of the tree"),
            ("Bash(touch:*)", "touch up/x", false, true, "a link to `..`"),
            ("Bash(touch:*)", "touch -- /tmp/x", false, true, "after `--`"),
            ("Bash(touch:*)", "touch -r/etc/passwd a", false, true, "an attached option value"),
            ("Bash(touch:*)", "touch --reference=/etc/passwd a", false, true, "a long option's value"),
            ("Bash(touch:*)", "touch 'unclosed", false, true, "cannot be split"),
            ("Bash(touch:*)", "/usr/bin/touch /tmp/x", false, true, "the command by its path"),
            ("Bash(cat:*)", "cat /etc/hostname", false, true, "an absolute path outside"),
            ("Bash(cat:*)", "cat /proc/self/environ", false, true, "the process file system"),
            ("Bash(cat:*)", "cat src/a.rs", true, true, "inside"),
            ("Bash(cat:*)", "cat .git/config", true, true, "a read of a held name: the rules decide"),
            ("Bash(cat:*)", "CAT /etc/hostname", false, true, "another case"),
            ("Bash(cp:*)", "cp /etc/passwd a", false, true, "copied out of elsewhere"),
            ("Bash(cp:*)", "cp a ../b", false, true, "copied out of the tree"),
            ("Bash(cp:*)", "cp -t /tmp a", false, true, "`-t DIR`"),
            ("Bash(cp:*)", "cp -t/tmp a", false, true, "`-tDIR`"),
            ("Bash(cp:*)", "cp -rt/tmp a", false, true, "`-rtDIR`"),
            ("Bash(cp:*)", "cp --target-directory=/tmp a", false, true, "`--target-directory=DIR`"),
            ("Bash(cp:*)", "cp a .npmrc", false, false, "onto a held file"),
            ("Bash(cp:*)", "cp -r a b", true, true, "inside, an option"),
            ("Bash(rm:*)", "rm /etc", false, true, "the issue's example"),
            ("Bash(rm:*)", "rm -rf ..", false, true, "the tree's parent"),
            ("Bash(rm:*)", "rm -rf .", true, true, "the tree itself"),
            ("Bash(sort:*)", "sort -o.npmrc a", false, false, "`-oFILE` onto a held file"),
            ("Bash(dd:*)", "dd if=a of=/etc/x", false, true, "`of=FILE`"),
            ("Bash(tee:*)", "tee .mcp.json", false, false, "a writer onto a held file"),
            ("Bash(npm test:*)", "npm test /etc", true, true, "an unknown command: the rules decide"),
            ("Bash(git:*)", "git -C /tmp status", false, true, "git's directory"),
        ];
        let bare = ToolRuleSet::new(vec![ToolRule::parse(SHELL).unwrap()]);
        for (rule, command, by_rule, by_bare, why) in rows {
            let set = ToolRuleSet::new(vec![ToolRule::parse(rule).unwrap()]);
            let call = ToolUse::resolve(SHELL, &CallArgument::Command(command.to_owned()), "/p", "/p", &fs);
            assert_eq!(set.grants(&call), by_rule, "{why}: {rule} {command}: {call:?}");
            assert_eq!(bare.grants(&call), by_bare, "{why}: bare Bash, {command}: {call:?}");
        }
    }

    /// What the client refuses under a bare `Bash`: a command line of several commands that
    /// writes a held name, by a redirection or a known writer (T-21).
    #[test]
    fn a_compound_line_that_writes_a_held_name_is_granted_by_no_rule() {
        let fs = Links(BTreeMap::new());
        let bare = ToolRuleSet::new(vec![ToolRule::parse(SHELL).unwrap()]);
        // Command, granted by the bare `Bash`, why.
        let rows: [(&str, bool, &str); 12] = [
            ("echo x > .bash\\rc", false, "an escaped letter in a redirection's target"),
            ("true; touch .np\\mrc", false, "an escaped letter in a writer's path"),
            ("echo x > .git/hooks/pre-commit", false, "a redirection onto a git hook"),
            ("echo x >> .bashrc", false, "an appending redirection"),
            ("echo x >'.npmrc'", false, "a quoted target, no blank"),
            ("echo x 2>&1 >.GIT/config", false, "after a descriptor's redirection"),
            ("true && touch .npmrc", false, "a known writer after `&&`"),
            ("ls | tee .mcp.json", false, "a writer in a pipe"),
            ("echo '>' .bashrc; true", true, "a quoted `>` is text"),
            ("cat /etc/hostname | wc -l", true, "reads outside: the bare rule's"),
            ("echo x > out.txt && touch b", true, "ordinary files"),
            ("cat .git/config | wc -l", true, "a read of a held name"),
        ];
        for (command, by_bare, why) in rows {
            let call = ToolUse::resolve(SHELL, &CallArgument::Command(command.to_owned()), "/p", "/p", &fs);
            assert_eq!(bare.grants(&call), by_bare, "{why}: {command}: {call:?}");
        }
    }

    #[test]
    fn words_are_split_as_the_shell_splits_them() {
        assert_eq!(super::words("a 'b c'\"d\"  e"), Some(vec!["a".into(), "b cd".into(), "e".into()]));
        assert_eq!(super::words("a ''"), Some(vec!["a".into(), String::new()]));
        assert_eq!(super::words("a 'b"), None);
    }
}
