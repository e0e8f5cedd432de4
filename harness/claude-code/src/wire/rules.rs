//! How the manifests' tool rules read Claude Code's calls (T-8, T-16): which of the rule
//! syntax's tools a call is and its argument, read from `tool_name` and `tool_input` — the
//! shell's command line, a fetch's URL, a subagent's type, every path a file tool's call names.
//!
//! The paths (T-13, T-14): every input of Claude Code's file tools that names a path, each read
//! the way Claude Code reads it, or the call names no path Warden can compare and only the bare
//! tool rule grants it. Claude Code trims a path and reads a leading `~` as the home directory
//! (the pinned client does so in Read, Write and Edit's `file_path` and in Glob and Grep's
//! `path` and `pattern`); the hook is not told that home, so such a path is not resolved (T-13).
//! A Glob pattern, and Grep's `glob`, are read for the directories they search under: per
//! alternative of their braces, the segments before the first wildcard, under the search's
//! `path` (T-14). The paths are handed over as written; the kernel resolves them against the
//! call's working directory and the project root.

use agentwarden_domain::lineage::{CallArgument, RulesAs};
use serde_json::Value;

/// The tool names of the subagent tool: `Task` in older Claude Code versions, `Agent` in newer.
pub const SUBAGENT_TOOLS: [&str; 2] = ["Task", "Agent"];

/// The subagent type Claude Code runs when an `Agent`/`Task` call names none (H-20).
pub const DEFAULT_SUBAGENT_TYPE: &str = "general-purpose";

/// Claude Code's shell tool.
pub const SHELL_TOOL: &str = "Bash";

/// Every tool of Claude Code's that runs a shell command line: what it writes is checked for
/// every agent (T-31).
pub const SHELL_TOOLS: [&str; 1] = [SHELL_TOOL];

/// Claude Code's fetch tool.
pub const FETCH_TOOL: &str = "WebFetch";

/// How the tool rules read Claude Code's call of `tool` with `input` (T-8, T-16): Claude Code's
/// tools are the rule syntax's own words, so each is read as itself. A field of the wrong type
/// is an argument no specifier matches; a file tool's call names every path its inputs name,
/// or is [`CallArgument::Unresolved`] (T-13, T-14); a subagent call without a type is
/// `general-purpose` (H-20).
pub fn rules_as(tool: &str, input: &Value) -> RulesAs {
    let text = |field: &str| input.get(field).and_then(Value::as_str).map(str::to_owned);
    let argument = match tool {
        SHELL_TOOL => text("command").map(CallArgument::Command),
        FETCH_TOOL => text("url").map(CallArgument::Url),
        _ if SUBAGENT_TOOLS.contains(&tool) => Some(CallArgument::AgentType(
            text("subagent_type").unwrap_or_else(|| DEFAULT_SUBAGENT_TYPE.to_owned()),
        )),
        _ => named_paths(tool, input).map(|paths| match paths {
            Ok(paths) if !paths.is_empty() => CallArgument::Paths(paths),
            Ok(_) => CallArgument::Unresolved("the call names no path".to_owned()),
            Err(why) => CallArgument::Unresolved(why),
        }),
    };
    RulesAs::Call { tool: tool.to_owned(), argument: argument.unwrap_or(CallArgument::None) }
}

/// How one input names a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Names {
    /// A file, required (`file_path`, `notebook_path`).
    File,
    /// The directory a search starts from; when absent, the call's `cwd`.
    SearchRoot,
    /// A glob under the search root, required (Glob's `pattern`).
    Pattern,
    /// A glob under the search root, optional (Grep's `glob`).
    Filter,
}

/// A file tool's inputs: those that name a path, and the others it takes.
struct FileTool {
    name: &'static str,
    paths: &'static [(&'static str, Names)],
    others: &'static [&'static str],
}

/// The file tools and every input each takes, as the pinned Claude Code (2.1.330) declares
/// them (MultiEdit as its earlier versions did). An input not listed is one Warden cannot say
/// names no path: the call is not resolved (T-14).
const FILE_TOOLS: [FileTool; 7] = [
    FileTool {
        name: "Read",
        paths: &[("file_path", Names::File)],
        others: &["offset", "limit", "pages", "allow_large"],
    },
    FileTool { name: "Write", paths: &[("file_path", Names::File)], others: &["content"] },
    FileTool {
        name: "Edit",
        paths: &[("file_path", Names::File)],
        others: &["old_string", "new_string", "replace_all"],
    },
    FileTool { name: "MultiEdit", paths: &[("file_path", Names::File)], others: &["edits"] },
    FileTool {
        name: "NotebookEdit",
        paths: &[("notebook_path", Names::File)],
        others: &["cell_id", "new_source", "cell_type", "edit_mode"],
    },
    FileTool {
        name: "Glob",
        paths: &[("path", Names::SearchRoot), ("pattern", Names::Pattern)],
        others: &[],
    },
    FileTool {
        name: "Grep",
        paths: &[("path", Names::SearchRoot), ("glob", Names::Filter)],
        others: &[
            "pattern",
            "output_mode",
            "-B",
            "-A",
            "-C",
            "context",
            "-n",
            "-i",
            "-o",
            "type",
            "head_limit",
            "offset",
            "multiline",
        ],
    },
];

/// The longest path or pattern read: Linux's `PATH_MAX`.
const MAX_PATH_LEN: usize = 4096;
/// The most alternatives a pattern's braces may spell.
const MAX_ALTERNATIVES: usize = 64;
/// What makes a pattern's segment a wildcard rather than a name (any glob dialect's: classes,
/// extglobs, negation); a segment with none of them is a literal directory.
const WILDCARDS: [char; 9] = ['*', '?', '[', ']', '(', ')', '!', '+', '@'];

/// The paths `tool`'s call with `input` names, as written (absolute, or relative to the call's
/// working directory); `Err` says why Warden cannot say. `None`: `tool` is not a file tool.
fn named_paths(tool: &str, input: &Value) -> Option<Result<Vec<String>, String>> {
    let spec = FILE_TOOLS.iter().find(|t| t.name == tool)?;
    Some(spec.read(input))
}

impl FileTool {
    fn read(&self, input: &Value) -> Result<Vec<String>, String> {
        let fields = input.as_object().ok_or("the input is not an object")?;
        let known = |key: &str| self.others.contains(&key) || self.paths.iter().any(|(k, _)| *k == key);
        if let Some(key) = fields.keys().find(|key| !known(key)) {
            return Err(format!(
                "`{}` is an input Warden does not know for {}",
                key.escape_debug(),
                self.name
            ));
        }
        let text = |key: &str| match fields.get(key) {
            None => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.as_str())),
            Some(_) => Err(format!("`{key}` is not a string")),
        };
        let required = |key: &str| text(key)?.ok_or_else(|| format!("no `{key}`"));
        // The search root: where a search's patterns are read from; the call's working
        // directory when the call names none.
        let search = match self.paths.iter().find(|(_, names)| *names == Names::SearchRoot) {
            Some((key, _)) => Some(match text(key)? {
                Some(path) => {
                    unresolvable(path)?;
                    path.to_owned()
                }
                None => ".".to_owned(),
            }),
            None => None,
        };
        let mut paths: Vec<String> = Vec::new();
        for (key, names) in self.paths {
            match (names, &search) {
                (Names::File, _) => {
                    let path = required(key)?;
                    unresolvable(path)?;
                    paths.push(path.to_owned());
                }
                (Names::SearchRoot, Some(search)) => paths.push(search.clone()),
                (Names::Pattern, Some(search)) => paths.extend(pattern_bases(required(key)?, search)?),
                (Names::Filter, Some(search)) => {
                    for glob in text(key)?.map(filter_globs).transpose()?.unwrap_or_default() {
                        paths.extend(pattern_bases(glob, search)?);
                    }
                }
                (_, None) => {
                    return Err(format!("`{key}` is read under a search root {} has not", self.name));
                }
            }
        }
        Ok(paths)
    }
}

/// The globs Grep's `glob` holds, split as Claude Code splits it before it hands each to
/// ripgrep: at JavaScript's whitespace, then a part without both `{` and `}` at each `,`;
/// empty parts are dropped (T-14).
fn filter_globs(glob: &str) -> Result<Vec<&str>, String> {
    if glob.len() > MAX_PATH_LEN {
        return Err(format!("a glob is at most {MAX_PATH_LEN} bytes"));
    }
    let mut globs = Vec::new();
    for part in glob.split(js_space).filter(|part| !part.is_empty()) {
        if part.contains('{') && part.contains('}') {
            globs.push(part);
        } else {
            globs.extend(part.split(',').filter(|g| !g.is_empty()));
        }
    }
    Ok(globs)
}

/// JavaScript's `\s` (and what its `trim` removes): Unicode's spaces and line terminators, with
/// U+FEFF and without U+0085.
fn js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}' | '\u{2028}' | '\u{2029}' | '\u{202f}' | '\u{205f}' | '\u{3000}' | '\u{feff}'
    )
}

/// Why `text`, a path or pattern as the agent wrote it, is not one Warden reads as Claude Code
/// would (T-13): empty or too long, whitespace at an end (Claude Code trims it, JavaScript's
/// whitespace, U+FEFF included), a leading `~` (Claude Code's home directory, which the hook
/// is not told), `$` or `%` (a variable or an escape to some reader), or a NUL.
fn unresolvable(text: &str) -> Result<(), String> {
    // Rust's whitespace too: a reader that trims more is no way around the check.
    let trimmed = |c: char| js_space(c) || c.is_whitespace();
    let why = if text.is_empty() || text.len() > MAX_PATH_LEN {
        format!("a path is 1 to {MAX_PATH_LEN} bytes")
    } else if text.starts_with(trimmed) || text.ends_with(trimmed) {
        "it starts or ends with whitespace, which Claude Code trims".to_owned()
    } else if text.starts_with('~') {
        "Claude Code reads a leading `~` as a home directory the hook is not told".to_owned()
    } else if text.contains(['$', '%']) {
        "`$` and `%` name variables or escapes to some readers; Warden does not guess".to_owned()
    } else if text.contains('\0') {
        "a NUL".to_owned()
    } else {
        return Ok(());
    };
    Err(format!("`{}`: {why}", text.escape_debug()))
}

/// The directories `pattern` searches under, read under `search` (T-14): per alternative of its
/// braces, the literal segments before its first wildcard, as written under `search` (or from
/// `/` when the alternative is absolute). An escape, unbalanced braces, a brace with no `,`,
/// more than [`MAX_ALTERNATIVES`] alternatives, or a `..` after a wildcard (which would climb
/// out of what is checked) is refused.
fn pattern_bases(pattern: &str, search: &str) -> Result<Vec<String>, String> {
    unresolvable(pattern)?;
    if pattern.contains('\\') {
        return Err(format!("`{}`: escapes are not read", pattern.escape_debug()));
    }
    let refuse = |why: &str| format!("`{}`: {why}", pattern.escape_debug());
    let mut bases = Vec::new();
    for alternative in expand_braces(pattern).map_err(&refuse)? {
        unresolvable(&alternative)?;
        let mut literal = Vec::new();
        let mut wild = false;
        for segment in alternative.split('/') {
            wild = wild || segment.contains(WILDCARDS);
            if wild && segment.contains("..") {
                return Err(refuse("a `..` after a wildcard climbs out of what the rules see"));
            }
            if !wild {
                literal.push(segment);
            }
        }
        let base = literal.join("/");
        bases.push(match base.is_empty() {
            true if alternative.starts_with('/') => "/".to_owned(),
            true => search.to_owned(),
            false if base.starts_with('/') => base,
            false => format!("{search}/{base}"),
        });
    }
    Ok(bases)
}

/// Every alternative `pattern`'s braces spell (`a{b,c{d,e}}` is `ab`, `acd`, `ace`), in order;
/// `Err` for a brace not closed or not opened, a brace with no `,` at its top level (read
/// literally by some globs and as its one alternative by others), or more than
/// [`MAX_ALTERNATIVES`]. Iterative: no pattern deepens the stack.
fn expand_braces(pattern: &str) -> Result<Vec<String>, &'static str> {
    let mut pending = vec![pattern.to_owned()];
    let mut done = Vec::new();
    while let Some(text) = pending.pop() {
        match first_group(&text)? {
            None => done.push(text),
            Some((head, alternatives, tail)) => {
                // Pushed last to first, so the first is expanded first.
                for alternative in alternatives.iter().rev() {
                    pending.push(format!("{head}{alternative}{tail}"));
                }
            }
        }
        if done.len() + pending.len() > MAX_ALTERNATIVES {
            return Err("its braces spell too many alternatives");
        }
    }
    Ok(done)
}

/// A brace group in its text: the text before it, its alternatives, the text after it.
type Group<'a> = (&'a str, Vec<&'a str>, &'a str);

/// The first top-level brace group of `text`; `None` when `text` has no braces.
fn first_group(text: &str) -> Result<Option<Group<'_>>, &'static str> {
    let Some(open) = text.find(['{', '}']) else { return Ok(None) };
    if text.get(open..).is_some_and(|rest| rest.starts_with('}')) {
        return Err("a `}` closes no brace");
    }
    let mut depth = 0_usize;
    let mut commas = Vec::new();
    for (at, c) in text.char_indices().skip_while(|(at, _)| *at < open) {
        match c {
            '{' => depth += 1,
            ',' if depth == 1 => commas.push(at),
            '}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    if commas.is_empty() {
                        return Err("a brace with no `,`");
                    }
                    let mut alternatives = Vec::with_capacity(commas.len() + 1);
                    let mut start = open + 1;
                    for comma in commas.iter().copied().chain([at]) {
                        alternatives.push(text.get(start..comma).unwrap_or_default());
                        start = comma + 1;
                    }
                    let head = text.get(..open).unwrap_or_default();
                    let tail = text.get(at + 1..).unwrap_or_default();
                    return Ok(Some((head, alternatives, tail)));
                }
            }
            _ => {}
        }
    }
    Err("a brace is not closed")
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn braces_spell_their_alternatives_in_order() {
        let rows: [(&str, Result<Vec<&str>, &str>); 9] = [
            ("a", Ok(vec!["a"])),
            ("a{b,c}d", Ok(vec!["abd", "acd"])),
            ("{a,b{c,d}}", Ok(vec!["a", "bc", "bd"])),
            ("{,x}y", Ok(vec!["y", "xy"])),
            ("{a,b}{c,d}", Ok(vec!["ac", "ad", "bc", "bd"])),
            ("{a}", Err("a brace with no `,`")),
            ("{a,b", Err("a brace is not closed")),
            ("a}", Err("a `}` closes no brace")),
            ("{a,b}}", Err("a `}` closes no brace")),
        ];
        for (pattern, expected) in rows {
            let expected = expected.map(|v| v.into_iter().map(str::to_owned).collect::<Vec<_>>());
            assert_eq!(expand_braces(pattern), expected, "{pattern}");
        }
        assert!(expand_braces(&"{a,b}".repeat(7)).is_err(), "128 alternatives");
        assert_eq!(expand_braces(&"{a,b}".repeat(6)).map(|v| v.len()), Ok(64), "64 are read");
        let deep = format!("{}{}", "{a,".repeat(10_000), "}".repeat(10_000));
        assert!(expand_braces(&deep).is_err(), "deep nesting ends at the limit, not the stack");
    }

    proptest! {
        /// Expansion never panics; what it spells has no braces, and no more than the limit.
        #[test]
        fn expansion_is_total(pattern in "[a{},/.*]{0,24}") {
            if let Ok(all) = expand_braces(&pattern) {
                prop_assert!(!all.is_empty() && all.len() <= MAX_ALTERNATIVES);
                prop_assert!(all.iter().all(|a| !a.contains(['{', '}'])), "{:?}", all);
            }
        }

        /// A pattern without braces is its own one alternative.
        #[test]
        fn no_braces_no_change(pattern in "[a-z/.*?]{0,24}") {
            prop_assert_eq!(expand_braces(&pattern), Ok(vec![pattern.clone()]));
        }
    }
}
