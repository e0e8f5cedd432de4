//! Tool rules in Claude Code's permission-rule syntax (issue 24, rulings T-1 … T-9): what a
//! manifest's `tools = [...]` grants, and whether one tool call is granted.
//!
//! A rule is a tool name (`Read`, `WebSearch`, an old-style capability like `read`), an MCP
//! server or tool (`mcp__github`, `mcp__github__*`, `mcp__github__get_issue`), or a tool with a
//! specifier: `Bash(npm test:*)`, `Bash(git * main)`, `Edit(src/**)`, `Read(//etc/hosts)`,
//! `WebFetch(domain:example.com)`, `Agent(Explore)`. Parsing is strict: a rule Warden cannot
//! interpret exactly is an error (the manifest does not load), never a rule that grants less
//! or more than it says (T-1).
//!
//! Matching is pure: the tool call arrives as a [`ToolUse`], built from the hook's `tool_name`
//! and `tool_input` by [`ToolUse::from_claude_code`], with paths already made absolute.

use std::fmt;

/// A parsed tool rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolRule {
    text: String,
    tool: ToolName,
    specifier: Option<Specifier>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum ToolName {
    /// The exact tool name.
    Exact(String),
    /// `Edit`, `Read`, `Agent` or `Task`: the tools of its family (T-3).
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

/// A piece of a command pattern: literal text, or `*` (any text, spaces included).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Piece {
    Text(String),
    Any,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct PathPattern {
    /// `//…`: matched against the absolute path; otherwise against the path relative to the
    /// project root.
    absolute: bool,
    /// No `/` but at the end: matches at any depth (gitignore).
    floating: bool,
    /// The pattern's segments (`**` is a segment of its own).
    segments: Vec<String>,
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

/// The tools an `Edit(...)` rule covers, as in Claude Code (T-3).
const EDIT_FAMILY: [&str; 4] = ["Edit", "Write", "MultiEdit", "NotebookEdit"];
/// The tools a `Read(...)` rule covers, as in Claude Code (T-3).
const READ_FAMILY: [&str; 3] = ["Read", "Grep", "Glob"];
/// `Task` is `Agent`'s former name.
const AGENT_FAMILY: [&str; 2] = ["Agent", "Task"];
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
        let tool = parse_name(name).map_err(|why| fail(&why))?;
        let specifier = match specifier {
            None => None,
            Some(inner) => Some(parse_specifier(name, &tool, inner).map_err(|why| fail(&why))?),
        };
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
    fn specifier_grants(&self, call: &ToolUse) -> bool {
        let Some(specifier) = &self.specifier else { return true };
        match (specifier, &call.argument) {
            (Specifier::Command(pattern), Argument::Command(command)) => {
                pieces_match(&pattern.pieces, command)
                    || pattern.bare.as_ref().is_some_and(|bare| pieces_match(bare, command))
            }
            (Specifier::Path(pattern), Argument::Path(path)) => pattern.matches(path),
            (Specifier::Domain(domain), Argument::Url(url)) => {
                host_of(url).is_some_and(|host| host.eq_ignore_ascii_case(domain))
            }
            (Specifier::AgentType(wanted), Argument::AgentType(seen)) => wanted == seen,
            // A specifier the call's argument cannot be compared with grants nothing (T-2).
            _ => false,
        }
    }

    /// Whether this rule is about `tool` at all, whatever its specifier says.
    pub fn names_tool(&self, tool: &str) -> bool {
        self.tool_matches(tool)
    }

    fn tool_matches(&self, tool: &str) -> bool {
        match &self.tool {
            ToolName::McpServer(server) => tool
                .strip_prefix("mcp__")
                .and_then(|rest| rest.strip_prefix(server.as_str()))
                .is_some_and(|rest| rest.starts_with("__") && rest.len() > 2),
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
        Some(first) if first.is_ascii_alphabetic() && chars.all(is_name_char) => Ok(match name {
            "Edit" => ToolName::Family(&EDIT_FAMILY),
            "Read" => ToolName::Family(&READ_FAMILY),
            "Agent" | "Task" => ToolName::Family(&AGENT_FAMILY),
            _ => ToolName::Exact(name.to_owned()),
        }),
        _ => Err("a tool name starts with a letter and has only letters, digits, `_` and `-`".into()),
    }
}

fn parse_specifier(name: &str, tool: &ToolName, inner: &str) -> Result<Specifier, String> {
    if matches!(tool, ToolName::McpServer(_)) || name.starts_with("mcp__") {
        return Err("an MCP rule takes no specifier".into());
    }
    if inner.trim().is_empty() {
        return Err("an empty specifier: write the tool name alone to grant every use".into());
    }
    match name {
        "Bash" => parse_command(inner).map(Specifier::Command),
        "Edit" | "Write" | "MultiEdit" | "NotebookEdit" | "Read" | "Grep" | "Glob" => {
            parse_path(inner).map(Specifier::Path)
        }
        "WebFetch" => match inner.strip_prefix("domain:") {
            Some(host)
                if !host.is_empty()
                    && host.chars().all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-') =>
            {
                Ok(Specifier::Domain(host.to_ascii_lowercase()))
            }
            _ => Err("WebFetch takes `domain:HOST`".into()),
        },
        "Agent" | "Task" if inner.chars().all(is_name_char) => Ok(Specifier::AgentType(inner.to_owned())),
        "Agent" | "Task" => Err("an agent type is letters, digits, `_` and `-`".into()),
        _ => Err(format!("Warden cannot compare a specifier for `{name}`: grant the tool by name alone")),
    }
}

/// T-4: `PREFIX:*` (the legacy form) is `PREFIX *`; a trailing ` *` also matches the bare
/// prefix; `*` elsewhere matches any text.
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
        [head @ .., Piece::Text(last), Piece::Any] => last.strip_suffix(' ').map(|text| {
            let mut bare = head.to_vec();
            bare.push(Piece::Text(text.to_owned()));
            bare
        }),
        _ => None,
    };
    Ok(CommandPattern { pieces, bare })
}

/// T-5: gitignore-style, with only `*`, `?` and `**`; anything else that gitignore or a shell
/// would read specially is refused rather than taken literally.
fn parse_path(inner: &str) -> Result<PathPattern, String> {
    if inner.starts_with('~') {
        return Err(
            "`~` paths are not supported: write the path from the project root or `//` absolute".into()
        );
    }
    if inner.contains(['[', ']', '\\', '!', '{', '}']) {
        return Err("character classes, escapes, negation and braces are not supported".into());
    }
    let (absolute, rest) = match inner.strip_prefix("//") {
        Some(rest) => (true, rest),
        None => (false, inner.strip_prefix("./").or_else(|| inner.strip_prefix('/')).unwrap_or(inner)),
    };
    let trimmed = rest.strip_suffix('/').unwrap_or(rest);
    let segments: Vec<String> = trimmed.split('/').map(str::to_owned).collect();
    if segments.iter().any(|s| s.is_empty() || s == "." || s == "..") {
        return Err("empty, `.` or `..` path segments".into());
    }
    if segments.iter().any(|s| s.contains("**") && s != "**") {
        return Err("`**` is a whole segment".into());
    }
    let floating = !absolute && !inner.starts_with('/') && !inner.starts_with("./") && segments.len() == 1;
    Ok(PathPattern { absolute, floating, segments })
}

impl PathPattern {
    fn matches(&self, path: &ToolPath) -> bool {
        let target: &[String] = if self.absolute {
            &path.absolute
        } else {
            match &path.in_project {
                Some(relative) => relative,
                None => return false,
            }
        };
        if self.floating {
            // Any segment names it: the file itself, or a directory it is under.
            return target.iter().any(|segment| glob_segment(&self.segments, segment));
        }
        // The pattern names the path or a directory the path is under (gitignore).
        (0..=target.len()).any(|end| target.get(..end).is_some_and(|head| glob_path(&self.segments, head)))
    }
}

fn glob_segment(pattern: &[String], segment: &str) -> bool {
    pattern.first().is_some_and(|p| wildcard(p.as_bytes(), segment.as_bytes()))
}

/// Segment-wise match with `**` as zero or more segments.
fn glob_path(pattern: &[String], path: &[String]) -> bool {
    match pattern.split_first() {
        None => path.is_empty(),
        Some((first, rest)) if first == "**" => {
            (0..=path.len()).any(|skip| path.get(skip..).is_some_and(|tail| glob_path(rest, tail)))
        }
        Some((first, rest)) => match path.split_first() {
            Some((segment, tail)) => wildcard(first.as_bytes(), segment.as_bytes()) && glob_path(rest, tail),
            None => false,
        },
    }
}

/// `*` (any run of characters) and `?` (one character) within one segment: the linear
/// algorithm that backtracks only to the last `*`, so no pattern costs more than
/// pattern × text steps.
fn wildcard(pattern: &[u8], text: &[u8]) -> bool {
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        let here = utf8_len(text.get(t).copied().unwrap_or(0));
        match pattern.get(p) {
            Some(b'*') => {
                star = Some((p, t));
                p += 1;
            }
            Some(b'?') => {
                t += here;
                p += 1;
            }
            Some(&c) if text.get(t) == Some(&c) => {
                p += 1;
                t += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    // Let the `*` take one more character (never half of one).
                    let next = st + utf8_len(text.get(st).copied().unwrap_or(0));
                    star = Some((sp, next));
                    p = sp + 1;
                    t = next;
                }
                None => return false,
            },
        }
    }
    pattern.get(p..).is_some_and(|rest| rest.iter().all(|&c| c == b'*'))
}

fn utf8_len(first: u8) -> usize {
    match first {
        0xf0.. => 4,
        0xe0.. => 3,
        0xc0.. => 2,
        _ => 1,
    }
}

/// T-6: characters with which one Bash call runs more than the one command a pattern names.
const SHELL_OPERATORS: [&str; 8] = [";", "&", "|", "`", "$(", ">", "<", "\n"];

/// A Bash command as the rules see it: trimmed, and a single command, or `None` (T-6).
fn single_command(command: &str) -> Option<String> {
    let command = command.trim();
    let compound =
        SHELL_OPERATORS.iter().any(|op| command.contains(op)) || command.chars().any(char::is_control);
    (!compound).then(|| command.to_owned())
}

/// Only `*` is special, so the first literal is a prefix, the last a suffix, and those between
/// are found leftmost in order: linear, however many `*` a rule has.
fn pieces_match(pieces: &[Piece], text: &str) -> bool {
    if !pieces.contains(&Piece::Any) {
        return match pieces {
            [] => text.is_empty(),
            [Piece::Text(literal)] => literal == text,
            _ => false,
        };
    }
    let (mut pieces, mut rest) = (pieces, text);
    if let Some((Piece::Text(first), tail)) = pieces.split_first() {
        let Some(after) = rest.strip_prefix(first.as_str()) else { return false };
        (pieces, rest) = (tail, after);
    }
    if let Some((Piece::Text(last), head)) = pieces.split_last() {
        let Some(before) = rest.strip_suffix(last.as_str()) else { return false };
        (pieces, rest) = (head, before);
    }
    for piece in pieces {
        if let Piece::Text(literal) = piece {
            let Some(at) = rest.find(literal.as_str()) else { return false };
            rest = rest.get(at + literal.len()..).unwrap_or_default();
        }
    }
    true
}

/// T-7: the host of an `http(s)` URL, lowercase; `None` (grants nothing) for anything unusual.
fn host_of(url: &str) -> Option<String> {
    let lower = url.to_ascii_lowercase();
    let rest = lower.strip_prefix("https://").or_else(|| lower.strip_prefix("http://"))?;
    let authority = rest.split(['/', '?', '#']).next()?;
    if authority.contains(['@', '\\', '%']) {
        return None;
    }
    let host = match authority.rsplit_once(':') {
        Some((host, port)) if port.chars().all(|c| c.is_ascii_digit()) => host,
        Some(_) => return None,
        None => authority,
    };
    let host = host.strip_suffix('.').unwrap_or(host);
    (!host.is_empty() && host.chars().all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-'))
        .then(|| host.to_owned())
}

/// A path a tool call names, lexically normalised: its absolute segments, and its segments
/// relative to the project root when it is inside it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolPath {
    absolute: Vec<String>,
    in_project: Option<Vec<String>>,
}

impl ToolPath {
    /// `path` (absolute, or relative to `cwd`) against the project `root` (absolute). `None`
    /// when it cannot be read as a path: then no path rule grants the call (T-5).
    pub fn new(path: &str, cwd: &str, root: &str) -> Option<ToolPath> {
        let absolute = if path.starts_with('/') {
            normalise(path)?
        } else {
            let mut base = normalise(cwd)?;
            base.extend(normalise_relative(path)?);
            normalise(&format!("/{}", base.join("/")))?
        };
        let root = normalise(root)?;
        let in_project = absolute.strip_prefix(root.as_slice()).map(<[String]>::to_vec);
        Some(ToolPath { absolute, in_project })
    }
}

fn normalise_relative(path: &str) -> Option<Vec<String>> {
    if path.is_empty() || path.contains('\0') {
        return None;
    }
    Some(path.split('/').filter(|s| !s.is_empty()).map(str::to_owned).collect())
}

/// `..` resolved lexically; a path that climbs above `/` is refused.
fn normalise(path: &str) -> Option<Vec<String>> {
    if !path.starts_with('/') || path.contains('\0') {
        return None;
    }
    let mut out: Vec<String> = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                out.pop()?;
            }
            other => out.push(other.to_owned()),
        }
    }
    Some(out)
}

/// What a rule's specifier is compared with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Argument {
    /// Nothing a specifier can be compared with: only a rule without one grants the call.
    None,
    /// Bash: one command, trimmed.
    Command(String),
    /// Bash: a command line that runs more than one command, or redirects (T-6): only the
    /// bare `Bash` rule grants it.
    Compound(String),
    /// A file tool's path.
    Path(ToolPath),
    /// WebFetch: the URL.
    Url(String),
    /// Agent / Task: the subagent type.
    AgentType(String),
}

/// One tool call, as the rules see it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolUse {
    /// The tool's name, as the harness sends it.
    pub tool: String,
    /// What a specifier is compared with.
    pub argument: Argument,
}

impl ToolUse {
    /// A call by name only (`warden authorize` without an input).
    pub fn named(tool: impl Into<String>) -> ToolUse {
        ToolUse { tool: tool.into(), argument: Argument::None }
    }

    /// A Claude Code tool call: `tool_name` and `tool_input` from the hook's input, `cwd` the
    /// call's working directory, `root` the project root (T-8). A field of the wrong type is
    /// an argument no specifier matches.
    pub fn from_claude_code(tool: &str, input: &serde_json::Value, cwd: &str, root: &str) -> ToolUse {
        let text = |field: &str| input.get(field).and_then(serde_json::Value::as_str);
        let argument = match tool {
            "Bash" => text("command").map(|c| match single_command(c) {
                Some(single) => Argument::Command(single),
                None => Argument::Compound(c.to_owned()),
            }),
            "Edit" | "Write" | "MultiEdit" | "Read" => {
                text("file_path").and_then(|p| ToolPath::new(p, cwd, root)).map(Argument::Path)
            }
            "NotebookEdit" => {
                text("notebook_path").and_then(|p| ToolPath::new(p, cwd, root)).map(Argument::Path)
            }
            // Grep and Glob search the working directory when they name no path.
            "Grep" | "Glob" => ToolPath::new(text("path").unwrap_or(cwd), cwd, root).map(Argument::Path),
            "WebFetch" => text("url").map(|u| Argument::Url(u.to_owned())),
            "Agent" | "Task" => {
                Some(Argument::AgentType(text("subagent_type").unwrap_or("general-purpose").to_owned()))
            }
            _ => Some(Argument::None),
        };
        ToolUse { tool: tool.to_owned(), argument: argument.unwrap_or(Argument::None) }
    }
}

impl From<&str> for ToolUse {
    fn from(tool: &str) -> ToolUse {
        ToolUse::named(tool)
    }
}

impl fmt::Display for ToolUse {
    /// The call in rule syntax: the rule a manifest would need to grant it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = |s: &str| crate::governance::show(s).trim_matches('`').to_owned();
        match &self.argument {
            Argument::None => write!(f, "{}", shown(&self.tool)),
            Argument::Command(command) | Argument::Compound(command) => {
                write!(f, "{}({})", shown(&self.tool), shown(command.trim()))
            }
            Argument::Path(path) => match &path.in_project {
                Some(relative) => write!(f, "{}({})", shown(&self.tool), shown(&relative.join("/"))),
                None => write!(f, "{}(//{})", shown(&self.tool), shown(&path.absolute.join("/"))),
            },
            Argument::Url(url) => match host_of(url) {
                Some(host) => write!(f, "{}(domain:{host})", shown(&self.tool)),
                None => write!(f, "{}({})", shown(&self.tool), shown(url)),
            },
            Argument::AgentType(agent) => write!(f, "{}({})", shown(&self.tool), shown(agent)),
        }
    }
}

/// Where a manifest's rules and the tools Claude Code offers an agent (its definition's
/// `tools:` list) disagree (issue 24, `warden doctor`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Disagreement {
    /// Tools Claude Code offers that no rule names: every call of them is denied.
    pub offered_not_granted: Vec<String>,
    /// Rules about tools Claude Code does not offer: they never apply.
    pub granted_not_offered: Vec<String>,
}

/// Compares `rules` with `offered` (tool names as a `tools:` list writes them). MCP rules are
/// not compared (a definition need not list MCP tools one by one), nor are `Agent`/`Task`:
/// spawns are governed by `can_spawn` and the gate, not by tool rules (T-9).
pub fn compare_offered(rules: &[ToolRule], offered: &[String]) -> Disagreement {
    let offered_not_granted = offered
        .iter()
        .filter(|tool| !AGENT_FAMILY.contains(&tool.as_str()))
        .filter(|tool| !rules.iter().any(|r| r.names_tool(tool)))
        .cloned()
        .collect();
    let granted_not_offered = rules
        .iter()
        .filter(|r| !matches!(r.tool, ToolName::McpServer(_)) && !r.text.starts_with("mcp__"))
        .filter(|r| !offered.iter().any(|tool| r.names_tool(tool)))
        .map(|r| r.text.clone())
        .collect();
    Disagreement { offered_not_granted, granted_not_offered }
}

/// A manifest's rules, indexed by the tool each names, so that a call is compared only with
/// the rules about its tool (a lookup, then those few), not with every rule of the manifest.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToolRuleSet {
    rules: Vec<ToolRule>,
    /// Tool name → the rules that name it (a family rule under each member).
    by_tool: std::collections::HashMap<String, Vec<usize>, Fnv>,
    /// The rules about a whole MCP server.
    mcp: Vec<usize>,
}

impl ToolRuleSet {
    /// The set of `rules`, in their order.
    pub fn new(rules: Vec<ToolRule>) -> ToolRuleSet {
        let mut set =
            ToolRuleSet { rules: Vec::new(), by_tool: std::collections::HashMap::default(), mcp: Vec::new() };
        for (i, rule) in rules.iter().enumerate() {
            match &rule.tool {
                ToolName::Exact(name) => set.by_tool.entry(name.clone()).or_default().push(i),
                ToolName::Family(family) => {
                    for member in *family {
                        set.by_tool.entry((*member).to_owned()).or_default().push(i);
                    }
                }
                ToolName::McpServer(_) => set.mcp.push(i),
            }
        }
        set.rules = rules;
        set
    }

    /// The rules, as written.
    pub fn rules(&self) -> &[ToolRule] {
        &self.rules
    }

    /// No rules: nothing is granted.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// Whether a rule of the set grants `call`: the same answer as [`granted`] over
    /// [`ToolRuleSet::rules`] (property-tested).
    pub fn grants(&self, call: &ToolUse) -> bool {
        // A few rules are read faster one by one than through a lookup.
        if self.rules.len() <= SCAN_BELOW {
            return granted(&self.rules, call);
        }
        // The index holds only rules that name the call's tool.
        let named = |i: &usize| self.rules.get(*i).is_some_and(|r| r.specifier_grants(call));
        let rule = |i: &usize| self.rules.get(*i).is_some_and(|r| r.grants(call));
        self.by_tool.get(call.tool.as_str()).is_some_and(|ids| ids.iter().any(named))
            || (call.tool.starts_with("mcp__") && self.mcp.iter().any(rule))
    }
}

/// Sets of at most this many rules are scanned rather than looked up.
const SCAN_BELOW: usize = 8;

/// FNV-1a: tool names are short, and the table is built from the manifests (the caller's
/// configuration); a call only looks a name up, so no input of the agent's can grow a bucket.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Fnv;

/// [`Fnv`]'s hasher.
#[derive(Clone, Copy, Debug)]
pub(super) struct FnvHasher(u64);

impl std::hash::BuildHasher for Fnv {
    type Hasher = FnvHasher;
    fn build_hasher(&self) -> FnvHasher {
        FnvHasher(0xcbf2_9ce4_8422_2325)
    }
}

impl std::hash::Hasher for FnvHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.0 = (self.0 ^ u64::from(*byte)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

impl From<Vec<ToolRule>> for ToolRuleSet {
    fn from(rules: Vec<ToolRule>) -> Self {
        ToolRuleSet::new(rules)
    }
}

impl FromIterator<ToolRule> for ToolRuleSet {
    fn from_iter<I: IntoIterator<Item = ToolRule>>(rules: I) -> Self {
        ToolRuleSet::new(rules.into_iter().collect())
    }
}

/// Whether any of `rules` grants `call`.
pub fn granted(rules: &[ToolRule], call: &ToolUse) -> bool {
    rules.iter().any(|rule| rule.grants(call))
}
