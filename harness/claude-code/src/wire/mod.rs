//! Claude Code's hooks protocol, in and out, over the domain alone (no application): what the
//! `warden-hook` client and the kernel's integration share.

mod answer;
pub mod client_rules;
mod harness;
mod input;
#[cfg(test)]
mod paths_tests;
mod rules;
#[cfg(test)]
mod rules_tests;

pub use answer::{HOOK_FAILED, Rendering, RenderingError};
pub use harness::ClaudeCode;
pub use input::{
    AGENT_STARTING_TOOLS, BUILTIN_AGENT_TYPES, HUMAN_VERBS, PROFILE, SEND_MESSAGE_TOOL, WRITE_TOOLS,
    human_verb_in, parse_hook_input,
};
pub use rules::{DEFAULT_SUBAGENT_TYPE, FETCH_TOOL, SHELL_TOOL, SHELL_TOOLS, SUBAGENT_TOOLS, rules_as};

/// The variable Claude Code sets in the environment of everything it runs: a human verb
/// (`warden seal`, …) refuses to run where it is set.
pub const CLAUDE_CODE_ENV: &str = "CLAUDECODE";
