//! Tool rules in the permission-rule syntax the harnesses share (issue 24, rulings T-1 … T-9,
//! its words in [`syntax`](super::syntax), T-16): what a manifest's `tools = [...]` grants, and
//! whether one tool call is granted.
//!
//! A rule is a tool name (`Read`, `WebSearch`, an old-style capability like `read`), an MCP
//! server or tool (`mcp__github`, `mcp__github__*`, `mcp__github__get_issue`), or a tool with a
//! specifier: `Bash(npm test:*)`, `Bash(git * main)`, `Edit(src/**)`, `Read(//etc/hosts)`,
//! `WebFetch(domain:example.com)`, `Agent(Explore)`. Parsing is strict: a rule Warden cannot
//! interpret exactly is an error (the manifest does not load), never a rule that grants less
//! or more than it says (T-1). A rule never grants more than the same rule does in the harness
//! whose syntax it is (T-15: held against the pinned client by the real-client suite).
//!
//! Matching is pure: the tool call arrives as a [`ToolUse`], which an integration's reading of
//! its harness's call ([`RulesAs`](super::RulesAs)) resolves with [`ToolUse::resolve`], paths
//! already made absolute.

use std::fmt;

use super::patterns::{Lead, Piece, glob_path, glob_segment, pieces_match};
use super::syntax::{AGENT_FAMILY, EDIT, EDIT_FAMILY, READ, READ_FAMILY, SHELL, WEB_FETCH};
use super::tool_path::ToolPath;
use super::tool_use::{Argument, ToolUse};
use super::web_host::{host_of, rule_host};

/// A parsed tool rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolRule {
    pub(super) text: String,
    pub(super) tool: ToolName,
    specifier: Option<Specifier>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum ToolName {
    /// The exact tool name.
    Exact(String),
    /// A path rule `Edit(…)` or `Read(…)`, or `Agent` / `Task`: the tools of its family (T-3).
    Family(&'static [&'static str]),
    /// Every tool of one MCP server: `mcp__server` or `mcp__server__*`.
    McpServer(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Specifier {
    /// Bash: the command, exactly or with `*` wildcards.
    Command(CommandPattern),
    /// File tools: a gitignore-style path pattern.
    Path(PathPattern),
    /// WebFetch: `domain:HOST`.
    Domain(String),
    /// Agent / Task: the subagent type.
    AgentType(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct CommandPattern {
    pieces: Vec<Piece>,
    /// For a pattern ending `TEXT *`: the same ending `TEXT`, which it also matches (T-4).
    bare: Option<Vec<Piece>>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct PathPattern {
    /// Where the pattern is read from (T-5).
    anchor: Anchor,
    /// No `/` but at the end: matches at any depth (gitignore).
    floating: bool,
    /// The pattern's segments (`**` is a segment of its own).
    segments: Vec<String>,
    /// Written with a trailing `/`: it names a directory, so it grants only paths under one it
    /// names, never a file of that name nor the directory itself (T-27).
    directory: bool,
}

/// Where a path pattern is read from (T-5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Anchor {
    /// `//…`: the filesystem root.
    Absolute,
    /// `/…`: the project root (the harness's project: where its settings are).
    Root,
    /// `x/y`, `./x`, `*.md`: the call's working directory, as the harness reads it, and the
    /// project root too, so that a `cd` never widens it (T-5).
    Cwd,
}

/// What a rule reaches, for the confinement policy (issue 50).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reach<'a> {
    /// A path rule: `Edit(…)` (writes) or `Read(…)`, read from `from`, its segments (a `**`
    /// segment of its own, `*` and `?` within one).
    Path { writes: bool, from: ReadFrom, segments: &'a [String] },
    /// `WebFetch(domain:HOST)`: the host, lower case.
    Host(&'a str),
    /// A tool named without a specifier: every use of it.
    Whole(&'a str),
    /// Anything else (a command pattern, an agent type, an MCP server).
    Other,
}

/// Where a path rule is read from (T-5), for the confinement policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ReadFrom {
    /// `//…`: the filesystem root.
    Filesystem,
    /// `/…`: the project root.
    Project,
    /// `x/y`: the call's working directory and the project root, both.
    ProjectAndCwd,
    /// One segment, no `/`: any depth below the project.
    AnyDepth,
}

/// Why a rule was refused (T-1).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("tool rule `{rule}`: {why}")]
pub struct RuleError {
    /// The rule as written (escaped).
    pub rule: String,
    /// What is wrong with it.
    pub why: String,
}

/// The longest rule accepted.
pub const MAX_RULE_LEN: usize = 512;

impl ToolRule {
    /// Parses one rule (T-1).
    pub fn parse(text: &str) -> Result<ToolRule, RuleError> {
        let fail = |why: &str| RuleError { rule: text.escape_debug().to_string(), why: why.to_owned() };
        if text.is_empty() || text.len() > MAX_RULE_LEN {
            return Err(fail(&format!("a rule is 1 to {MAX_RULE_LEN} bytes")));
        }
        if text.chars().any(|c| c.is_control() || crate::unicode::is_default_ignorable(c)) {
            return Err(fail("control or invisible characters"));
        }
        let (name, specifier) = match text.find('(') {
            None => (text, None),
            Some(open) => {
                let inner = text
                    .get(open + 1..)
                    .and_then(|rest| rest.strip_suffix(')'))
                    .ok_or_else(|| fail("a specifier is closed by the rule's last character, `)`"))?;
                if !balanced(inner) {
                    return Err(fail("unbalanced parentheses in the specifier"));
                }
                (text.get(..open).unwrap_or_default(), Some(inner))
            }
        };
        let mut tool = parse_name(name).map_err(|why| fail(&why))?;
        let specifier = match specifier {
            None => None,
            Some(inner) => Some(parse_specifier(name, &tool, inner).map_err(|why| fail(&why))?),
        };
        // Only a path rule covers a family; a bare `Edit` or `Read` is that tool alone (T-3).
        if let Some(Specifier::Path(_)) = &specifier {
            tool = ToolName::Family(if name == EDIT { &EDIT_FAMILY } else { &READ_FAMILY });
        }
        Ok(ToolRule { text: text.to_owned(), tool, specifier })
    }

    /// The rule as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether this rule grants `call` (T-2 … T-7).
    pub fn grants(&self, call: &ToolUse) -> bool {
        self.tool_matches(&call.tool) && self.specifier_grants(call)
    }

    /// Whether the specifier (if any) grants `call`, its tool already known to be this rule's.
    pub(super) fn specifier_grants(&self, call: &ToolUse) -> bool {
        // A path that cannot be placed, and a held call, are granted by no rule, not even the
        // bare one (T-17 … T-20).
        let Some(specifier) = &self.specifier else {
            return !matches!(call.argument, Argument::Unplaced(_) | Argument::Held(_));
        };
        match (specifier, &call.argument) {
            (Specifier::Command(pattern), Argument::Command(command)) => {
                pieces_match(&pattern.pieces, command)
                    || pattern.bare.as_ref().is_some_and(|bare| pieces_match(bare, command))
            }
            (Specifier::Path(pattern), Argument::Path(path)) => pattern.matches(path),
            // One rule grants a call with several paths when it grants each (T-14).
            (Specifier::Path(pattern), Argument::Paths(paths)) => paths.iter().all(|p| pattern.matches(p)),
            // Both hosts normalised as the URL parser reads them (T-25).
            (Specifier::Domain(domain), Argument::Url(url)) => {
                host_of(url).is_some_and(|host| host == *domain)
            }
            (Specifier::AgentType(wanted), Argument::AgentType(seen)) => wanted == seen,
            // A specifier the call's argument cannot be compared with grants nothing (T-2).
            _ => false,
        }
    }

    /// For a Bash command pattern, the first bytes of every command it grants (T-12): `None`
    /// for any other rule. A rule with a lead grants only a [`Argument::Command`] it admits.
    pub(super) fn command_lead(&self) -> Option<Lead> {
        match &self.specifier {
            Some(Specifier::Command(pattern)) => {
                let lead = Lead::of_pieces(&pattern.pieces);
                Some(match &pattern.bare {
                    Some(bare) => lead.common(Lead::of_pieces(bare)),
                    None => lead,
                })
            }
            _ => None,
        }
    }

    /// What the rule reaches, in the terms the confinement policy reads (issue 50): a path
    /// rule's family, anchor and segments, a domain, or the tool granted whole.
    pub(crate) fn reach(&self) -> Reach<'_> {
        match (&self.specifier, &self.tool) {
            (Some(Specifier::Path(pattern)), ToolName::Family(family)) => Reach::Path {
                writes: family.contains(&EDIT),
                from: match pattern.anchor {
                    Anchor::Absolute => ReadFrom::Filesystem,
                    Anchor::Root => ReadFrom::Project,
                    Anchor::Cwd if pattern.floating => ReadFrom::AnyDepth,
                    Anchor::Cwd => ReadFrom::ProjectAndCwd,
                },
                segments: &pattern.segments,
            },
            (Some(Specifier::Domain(host)), _) => Reach::Host(host),
            (None, ToolName::Exact(name)) => Reach::Whole(name),
            _ => Reach::Other,
        }
    }

    /// Whether this rule is about `tool` at all, whatever its specifier says.
    pub fn names_tool(&self, tool: &str) -> bool {
        self.tool_matches(tool)
    }

    fn tool_matches(&self, tool: &str) -> bool {
        match &self.tool {
            // A tool whose name splits into server and tool more than one way grants nothing
            // (T-26).
            ToolName::McpServer(server) => tool.strip_prefix("mcp__").is_some_and(|rest| {
                mcp_splits(rest) == 1
                    && rest.strip_prefix(server.as_str()).is_some_and(|r| r.starts_with("__") && r.len() > 2)
            }),
            ToolName::Family(family) => family.contains(&tool),
            ToolName::Exact(name) => name == tool,
        }
    }
}

impl fmt::Display for ToolRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Every `)` closes a `(` before it, and every `(` is closed.
fn balanced(text: &str) -> bool {
    let mut depth = 0_usize;
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return false,
            },
            _ => {}
        }
    }
    depth == 0
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

fn parse_name(name: &str) -> Result<ToolName, String> {
    if let Some(rest) = name.strip_prefix("mcp__") {
        let (server, tool) = match rest.split_once("__") {
            Some((server, tool)) => (server, Some(tool)),
            None => (rest, None),
        };
        if server.is_empty() || !server.chars().all(is_name_char) || server.contains("__") {
            return Err("an MCP rule is `mcp__SERVER`, `mcp__SERVER__*` or `mcp__SERVER__TOOL`".into());
        }
        if tool.is_some() && mcp_splits(rest) != 1 {
            return Err("an MCP rule whose server and tool can be split more than one way at `__`".into());
        }
        return match tool {
            None | Some("*") => Ok(ToolName::McpServer(server.to_owned())),
            Some(tool) if !tool.is_empty() && tool.chars().all(is_name_char) => {
                Ok(ToolName::Exact(name.to_owned()))
            }
            Some(_) => Err("an MCP tool name is letters, digits, `_` and `-`, or `*` alone".into()),
        };
    }
    let mut chars = name.chars();
    match chars.next() {
        Some(first) if first.is_ascii_alphabetic() && chars.all(is_name_char) => {
            Ok(if AGENT_FAMILY.contains(&name) {
                ToolName::Family(&AGENT_FAMILY)
            } else {
                ToolName::Exact(name.to_owned())
            })
        }
        _ => Err("a tool name starts with a letter and has only letters, digits, `_` and `-`".into()),
    }
}

/// How many ways `rest`, an MCP tool's name after `mcp__`, splits into server and tool at a
/// `__` (overlapping: `a___b` splits two ways). One: the name is read one way only; more: the
/// server or the tool holds `__` or ends or starts with `_`, and no rule grants it, since the
/// client may read it another way (T-26).
pub(super) fn mcp_splits(rest: &str) -> usize {
    rest.as_bytes().windows(2).filter(|pair| *pair == b"__").count()
}

fn parse_specifier(name: &str, tool: &ToolName, inner: &str) -> Result<Specifier, String> {
    if matches!(tool, ToolName::McpServer(_)) || name.starts_with("mcp__") {
        return Err("an MCP rule takes no specifier".into());
    }
    if inner.trim().is_empty() {
        return Err("an empty specifier: write the tool name alone to grant every use".into());
    }
    let family = |rule: &str| {
        format!(
            "the rule syntax grants nothing for `{name}(…)`: a path rule is `{rule}(PATH)`, which covers {name}"
        )
    };
    match name {
        SHELL => parse_command(inner).map(Specifier::Command),
        EDIT | READ => parse_path(inner).map(Specifier::Path),
        // The syntax consults a path only in `Edit(…)` and `Read(…)`; the other tools of
        // their families are granted nothing there, so a manifest that holds one says something
        // no harness reads (T-3).
        _ if EDIT_FAMILY.contains(&name) => Err(family(EDIT)),
        _ if READ_FAMILY.contains(&name) => Err(family(READ)),
        WEB_FETCH => match inner.strip_prefix("domain:") {
            Some(host) => rule_host(host).map(Specifier::Domain).map_err(|why| format!("{WEB_FETCH}: {why}")),
            None => Err(format!("{WEB_FETCH} takes `domain:HOST`")),
        },
        _ if AGENT_FAMILY.contains(&name) && inner.chars().all(is_name_char) => {
            Ok(Specifier::AgentType(inner.to_owned()))
        }
        _ if AGENT_FAMILY.contains(&name) => Err("an agent type is letters, digits, `_` and `-`".into()),
        _ => Err(format!("Warden cannot compare a specifier for `{name}`: grant the tool by name alone")),
    }
}

/// `PREFIX:*` (the legacy form) is `PREFIX *`; a prefix rule `PREFIX *` (its one `*` the
/// last character, after a space) also matches the bare `PREFIX`; `*` elsewhere matches any
/// text, and a pattern with another `*` (`git * main *`) has no bare form (T-4).
fn parse_command(inner: &str) -> Result<CommandPattern, String> {
    let text = match inner.strip_suffix(":*") {
        Some(prefix) if !prefix.contains('*') => format!("{prefix} *"),
        Some(_) => return Err("`:*` is a prefix rule: no other `*` in it".into()),
        None => inner.to_owned(),
    };
    if text != text.trim() {
        return Err("a command pattern neither starts nor ends with a space".into());
    }
    let mut pieces = Vec::new();
    for (i, part) in text.split('*').enumerate() {
        if i > 0 {
            pieces.push(Piece::Any);
        }
        if !part.is_empty() {
            pieces.push(Piece::Text(part.to_owned()));
        }
    }
    let bare = match pieces.as_slice() {
        [Piece::Text(prefix), Piece::Any] => {
            prefix.strip_suffix(' ').map(|text| vec![Piece::Text(text.to_owned())])
        }
        _ => None,
    };
    Ok(CommandPattern { pieces, bare })
}

/// Gitignore-style, with only `*`, `?` and `**`; anything else that gitignore or a shell
/// would read specially is refused rather than taken literally (T-5).
fn parse_path(inner: &str) -> Result<PathPattern, String> {
    if inner.starts_with('~') {
        return Err(
            "`~` paths are not supported: write the path from the project root or `//` absolute".into()
        );
    }
    if inner.contains(['[', ']', '\\', '!', '{', '}']) {
        return Err("character classes, escapes, negation and braces are not supported".into());
    }
    let (anchor, rest) = if let Some(rest) = inner.strip_prefix("//") {
        (Anchor::Absolute, rest)
    } else if let Some(rest) = inner.strip_prefix('/') {
        (Anchor::Root, rest)
    } else {
        (Anchor::Cwd, inner.strip_prefix("./").unwrap_or(inner))
    };
    let trimmed = rest.strip_suffix('/').unwrap_or(rest);
    let segments: Vec<String> = trimmed.split('/').map(str::to_owned).collect();
    if segments.iter().any(|s| s.is_empty() || s == "." || s == "..") {
        return Err("empty, `.` or `..` path segments".into());
    }
    if segments.iter().any(|s| s.contains("**") && s != "**") {
        return Err("`**` is a whole segment".into());
    }
    let floating = anchor == Anchor::Cwd && !inner.starts_with("./") && segments.len() == 1;
    Ok(PathPattern { anchor, floating, segments, directory: rest.ends_with('/') })
}

impl PathPattern {
    fn matches(&self, path: &ToolPath) -> bool {
        match self.anchor {
            Anchor::Absolute => self.matches_from(&path.absolute),
            Anchor::Root => path.in_project.as_deref().is_some_and(|target| self.matches_from(target)),
            // Both readings must grant it: the harness's, from the working directory, and the
            // project's, so that no `cd` reads a pattern outside the project (T-5).
            Anchor::Cwd => {
                path.in_cwd.as_deref().is_some_and(|target| self.matches_from(target))
                    && path.in_project.as_deref().is_some_and(|target| self.matches_from(target))
            }
        }
    }

    /// Whether the pattern grants `target`, the path's segments from where it is read.
    fn matches_from(&self, target: &[String]) -> bool {
        // A directory pattern names only a directory the path is under (T-27).
        let named = if self.directory { target.len().saturating_sub(1) } else { target.len() };
        if self.floating {
            // Any segment names it: the file itself, or a directory it is under.
            return target.iter().take(named).any(|segment| glob_segment(&self.segments, segment));
        }
        // The pattern names the path or a directory the path is under (gitignore).
        (0..=named).any(|end| target.get(..end).is_some_and(|head| glob_path(&self.segments, head)))
    }
}
