//! One tool call as the tool rules see it (T-8): its tool, and the argument a rule's specifier
//! is compared with, built from Claude Code's `tool_name` and `tool_input`.

use std::fmt;

use super::path_inputs::named_paths;
use super::patterns::{host_of, single_command};
use super::tool_path::ToolPath;

/// What a rule's specifier is compared with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Argument {
    /// Nothing a specifier can be compared with: only a rule without one grants the call.
    None,
    /// Bash: one command, trimmed.
    Command(String),
    /// Bash: a command line that runs more than one command, redirects (T-6), or has words
    /// the shell expands (T-4): only the bare `Bash` rule grants it.
    Compound(String),
    /// A file tool's path: the one path its call names.
    Path(ToolPath),
    /// A file tool's paths, when its call names more than one (a search's root and the
    /// directories its patterns search under, T-14): granted only when each one is.
    Paths(Vec<ToolPath>),
    /// A file tool's call that names a path Warden cannot resolve as Claude Code would, or an
    /// input it does not know (T-13, T-14), and why: only the bare tool rule grants it.
    Unresolved(String),
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
    /// an argument no specifier matches; a file tool's call names every path its inputs name,
    /// or is [`Argument::Unresolved`] (T-13, T-14).
    pub fn from_claude_code(tool: &str, input: &serde_json::Value, cwd: &str, root: &str) -> ToolUse {
        let text = |field: &str| input.get(field).and_then(serde_json::Value::as_str);
        let argument = match tool {
            "Bash" => text("command").map(|c| match single_command(c) {
                Some(single) => Argument::Command(single),
                None => Argument::Compound(c.to_owned()),
            }),
            "WebFetch" => text("url").map(|u| Argument::Url(u.to_owned())),
            "Agent" | "Task" => {
                Some(Argument::AgentType(text("subagent_type").unwrap_or("general-purpose").to_owned()))
            }
            _ => named_paths(tool, input, cwd, root).map(|paths| match paths {
                Ok(mut paths) if paths.len() == 1 => paths.pop().map_or(Argument::None, Argument::Path),
                Ok(paths) if !paths.is_empty() => Argument::Paths(paths),
                Ok(_) => Argument::Unresolved("the call names no path".to_owned()),
                Err(why) => Argument::Unresolved(why),
            }),
        };
        ToolUse { tool: tool.to_owned(), argument: argument.unwrap_or(Argument::None) }
    }

    /// A call of the file tool `tool` naming each of `paths` (absolute, or relative to `cwd`),
    /// against the project `root`: how an integration maps its harness's own file tool (a
    /// patch that writes several files) onto the rule syntax (C-5). A path that cannot be read
    /// as one, or no path at all, leaves the call [`Argument::Unresolved`] (T-13).
    pub fn files(tool: &str, paths: &[String], cwd: &str, root: &str) -> ToolUse {
        let resolved: Option<Vec<ToolPath>> = paths.iter().map(|p| ToolPath::new(p, cwd, root)).collect();
        let argument = match resolved {
            None => Argument::Unresolved("a path the call names cannot be read as one".to_owned()),
            Some(mut one) if one.len() == 1 => one.pop().map_or(Argument::None, Argument::Path),
            Some(many) if !many.is_empty() => Argument::Paths(many),
            Some(_) => Argument::Unresolved("the call names no path".to_owned()),
        };
        ToolUse { tool: tool.to_owned(), argument }
    }

    /// The part of this call, one path of it when it names several, that `granted` does not
    /// grant: `None` when it grants every part (T-14).
    pub(super) fn missing(&self, mut granted: impl FnMut(&ToolUse) -> bool) -> Option<ToolUse> {
        match &self.argument {
            Argument::Paths(paths) => paths
                .iter()
                .map(|path| ToolUse { tool: self.tool.clone(), argument: Argument::Path(path.clone()) })
                .find(|part| !granted(part)),
            _ if granted(self) => None,
            _ => Some(self.clone()),
        }
    }

    /// Why the call names no path Warden can compare, when it does not (T-13).
    pub fn unresolved(&self) -> Option<&str> {
        match &self.argument {
            Argument::Unresolved(why) => Some(why),
            _ => None,
        }
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
        // `show` quotes in backticks: strip exactly that pair, never a backtick of the text
        // (found by the `tool_rule` fuzz target: a tool named "`" was shown as nothing).
        let shown = |s: &str| {
            let quoted = crate::governance::show(s);
            quoted.strip_prefix('`').and_then(|q| q.strip_suffix('`')).unwrap_or(&quoted).to_owned()
        };
        let path = |f: &mut fmt::Formatter<'_>, path: &ToolPath| match &path.in_project {
            Some(relative) => write!(f, "{}({})", shown(&self.tool), shown(&relative.join("/"))),
            None => write!(f, "{}(//{})", shown(&self.tool), shown(&path.absolute.join("/"))),
        };
        match &self.argument {
            Argument::None | Argument::Unresolved(_) => write!(f, "{}", shown(&self.tool)),
            Argument::Command(command) | Argument::Compound(command) => {
                write!(f, "{}({})", shown(&self.tool), shown(command.trim()))
            }
            Argument::Path(one) => path(f, one),
            Argument::Paths(paths) => {
                for (i, one) in paths.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    path(f, one)?;
                }
                Ok(())
            }
            Argument::Url(url) => match host_of(url) {
                Some(host) => write!(f, "{}(domain:{host})", shown(&self.tool)),
                None => write!(f, "{}({})", shown(&self.tool), shown(url)),
            },
            Argument::AgentType(agent) => write!(f, "{}({})", shown(&self.tool), shown(agent)),
        }
    }
}
