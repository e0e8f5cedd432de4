//! One tool call as the tool rules see it (T-8): its tool, and the argument a rule's specifier
//! is compared with. An integration reads its harness's call into a [`RulesAs`] — which of the
//! rule syntax's tools it is, and its argument as written (T-16) — and the kernel resolves it,
//! paths against the call's working directory and the project root, into a [`ToolUse`].

use std::fmt;

use super::command_paths::{Reach, compound_held, reach};
use super::held_names::{HeldNames, held_write};
use super::patterns::single_command;
use super::real_path::{ResolvePath, places};
use super::syntax::EDIT_FAMILY;
use super::tool_path::ToolPath;
use super::web_host::host_of;

/// What a rule's specifier is compared with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Argument {
    /// Nothing a specifier can be compared with: only a rule without one grants the call.
    None,
    /// Bash: one command, trimmed.
    Command(String),
    /// Bash: a command line that runs more than one command, redirects (T-6), or has words
    /// the shell expands (T-4), or a known command that names a path outside the working tree
    /// (T-20): only the bare `Bash` rule grants it.
    Compound(String),
    /// A file tool's path: the one path its call names.
    Path(ToolPath),
    /// A file tool's paths, when its call names more than one (a search's root and the
    /// directories its patterns search under, T-14): granted only when each one is.
    Paths(Vec<ToolPath>),
    /// A file tool's call that names a path Warden cannot resolve as the harness would, or an
    /// input it does not know (T-13, T-14), and why: only the bare tool rule grants it.
    Unresolved(String),
    /// A file tool's call that names a path the file system cannot place — a loop, a component
    /// that cannot be read, a final link to nothing — and why: no rule grants it, not even the
    /// bare tool rule (T-17).
    Unplaced(String),
    /// A write that lands on a held name or whose last name is a symbolic link (T-18, T-19), or
    /// a command of a known command that names a path outside the working tree or a held name
    /// (T-20), or a line of several commands that writes a held name (T-21), and why: no rule
    /// grants it, not even the bare tool rule.
    Held(String),
    /// WebFetch: the URL.
    Url(String),
    /// Agent / Task: the subagent type.
    AgentType(String),
}

/// A tool call's argument as an integration read it from its harness's input, before the
/// kernel resolves it (T-8, T-16).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CallArgument {
    /// Nothing a specifier can be compared with (no input, or one of the wrong type).
    None,
    /// A shell's command line, as written.
    Command(String),
    /// A URL, as written.
    Url(String),
    /// A subagent type.
    AgentType(String),
    /// The paths a file tool's call names, as written: absolute, or relative to the call's
    /// working directory; granted only when each is (T-14).
    Paths(Vec<String>),
    /// A call whose paths the integration cannot read as its harness would, and why (T-13):
    /// only the bare tool rule grants it.
    Unresolved(String),
}

/// How the manifests' tool rules read a call (T-8, T-16): an integration maps each of its
/// harness's calls onto the rule syntax's tools ([`syntax`](super::syntax)) — its shell onto
/// `Bash`, a patch that writes several files onto `Edit` of each (C-5) — or says it does not
/// know the tool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RulesAs {
    /// As the rule syntax's tool `tool` with `argument`.
    Call {
        /// The rule syntax's tool.
        tool: String,
        /// Its argument, unresolved.
        argument: CallArgument,
    },
    /// A tool the integration does not know: no rule grants it, whatever the manifests list
    /// (C-6).
    Unknown,
}

impl RulesAs {
    /// As `tool` by its name alone: only a rule without a specifier grants it.
    pub fn named(tool: impl Into<String>) -> RulesAs {
        RulesAs::Call { tool: tool.into(), argument: CallArgument::None }
    }
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

    /// The call an integration read as `tool` with `argument`, its paths (absolute, or relative
    /// to `cwd`) read against the project `root` (T-8, T-16): a command line is one command or
    /// a compound one (T-4, T-6), each path is placed where it lands by `resolve` (T-17), or the
    /// call is [`Argument::Unresolved`] (T-13) or [`Argument::Unplaced`].
    pub fn resolve(
        tool: &str,
        argument: &CallArgument,
        cwd: &str,
        root: &str,
        resolve: &dyn ResolvePath,
    ) -> ToolUse {
        ToolUse::resolve_holding(tool, argument, cwd, root, resolve, HeldNames::NONE)
    }

    /// [`ToolUse::resolve`], holding the integrations' own names (`more`) besides the list's
    /// (T-19).
    pub fn resolve_holding(
        tool: &str,
        argument: &CallArgument,
        cwd: &str,
        root: &str,
        resolve: &dyn ResolvePath,
        more: HeldNames<'_>,
    ) -> ToolUse {
        let argument = match argument {
            CallArgument::None => Argument::None,
            // A known command's paths are judged where they land (T-20).
            CallArgument::Command(line) => match single_command(line) {
                Some(single) => match reach(&single, cwd, root, resolve, more) {
                    Reach::Inside => Argument::Command(single),
                    Reach::Outside(_) => Argument::Compound(line.clone()),
                    Reach::Held(why) => Argument::Held(why),
                },
                // A line of several commands that writes a held name: no rule grants it (T-21).
                None => match compound_held(line, cwd, root, resolve, more) {
                    Some(why) => Argument::Held(why),
                    None => Argument::Compound(line.clone()),
                },
            },
            CallArgument::Url(url) => Argument::Url(url.clone()),
            CallArgument::AgentType(agent) => Argument::AgentType(agent.clone()),
            CallArgument::Paths(paths) => {
                return ToolUse::files_holding(tool, paths, cwd, root, resolve, more);
            }
            CallArgument::Unresolved(why) => Argument::Unresolved(why.clone()),
        };
        ToolUse { tool: tool.to_owned(), argument }
    }

    /// A call of the file tool `tool` naming each of `paths` (absolute, or relative to `cwd`),
    /// against the project `root`, each named once (C-5, T-14), at every place `resolve` says it
    /// may land (T-17): the working directory and the root are placed too, so that a path is
    /// in the project when it lands there. A path that cannot be read as one, or no path at all,
    /// leaves the call [`Argument::Unresolved`] (T-13); one that cannot be placed,
    /// [`Argument::Unplaced`].
    pub fn files(tool: &str, paths: &[String], cwd: &str, root: &str, resolve: &dyn ResolvePath) -> ToolUse {
        ToolUse::files_holding(tool, paths, cwd, root, resolve, HeldNames::NONE)
    }

    /// [`ToolUse::files`], holding the integrations' own names (`more`) besides the list's
    /// (T-19): no rule grants a write that lands on one.
    pub fn files_holding(
        tool: &str,
        paths: &[String],
        cwd: &str,
        root: &str,
        resolve: &dyn ResolvePath,
        more: HeldNames<'_>,
    ) -> ToolUse {
        let refused = |argument: Argument| ToolUse { tool: tool.to_owned(), argument };
        let (real_cwd, real_root) = match (resolve.place(cwd), resolve.place(root)) {
            (Ok(cwd), Ok(root)) => (cwd, root),
            (Err(why), _) => return refused(Argument::Unplaced(format!("the working directory: {why}"))),
            (_, Err(why)) => return refused(Argument::Unplaced(format!("the project root: {why}"))),
        };
        let mut resolved: Vec<ToolPath> = Vec::with_capacity(paths.len());
        for path in paths {
            if path.is_empty() || path.contains('\0') {
                let why = format!("`{}` cannot be read as a path", path.escape_debug());
                return refused(Argument::Unresolved(why));
            }
            let landing = match places(resolve, path, Some(cwd)) {
                Ok(landing) => landing,
                Err(why) => return refused(Argument::Unplaced(why.to_string())),
            };
            // No rule grants a write to a held name or through a final link (T-18, T-19).
            if EDIT_FAMILY.contains(&tool)
                && let Some(why) = held_write(resolve, more, path, Some(cwd))
            {
                return refused(Argument::Held(why));
            }
            for real in landing {
                let Some(one) = ToolPath::new(&real, &real_cwd, &real_root) else {
                    let why = format!("`{}` cannot be read as a path", path.escape_debug());
                    return refused(Argument::Unresolved(why));
                };
                if !resolved.contains(&one) {
                    resolved.push(one);
                }
            }
        }
        let argument = match resolved.len() {
            0 => Argument::Unresolved("the call names no path".to_owned()),
            1 => resolved.pop().map_or(Argument::None, Argument::Path),
            _ => Argument::Paths(resolved),
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

    /// Why no rule grants the call whatever it says, when none does (T-18 … T-20).
    pub fn held(&self) -> Option<&str> {
        match &self.argument {
            Argument::Held(why) => Some(why),
            _ => None,
        }
    }

    /// Why a path of the call cannot be placed where it lands, when one cannot (T-17).
    pub fn unplaced(&self) -> Option<&str> {
        match &self.argument {
            Argument::Unplaced(why) => Some(why),
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
            Argument::None | Argument::Unresolved(_) | Argument::Unplaced(_) | Argument::Held(_) => {
                write!(f, "{}", shown(&self.tool))
            }
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
