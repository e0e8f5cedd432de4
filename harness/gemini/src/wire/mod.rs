//! Gemini CLI's hooks protocol, in and out, over the domain alone (no application): what a thin
//! hook client and the kernel's integration share.

mod answer;
pub mod client_rules;
mod harness;
mod input;

/// Gemini CLI reads an answer from the exit code and stderr, as Codex does (M-1), and a confined
/// call's allow from stdout (M-29).
pub use agentwarden_protocol::exit_two::{BLOCKED, DENIED, FAILED, HOOK_STOPS};
pub use answer::{RenderingError, read_back, render};
pub use harness::Gemini;
pub use input::{
    BUILTIN_AGENTS, COMPLETE_TOOL, KNOWN_TOOLS, MCP_PREFIX, PROFILE, SHELL_TOOL, SHELL_TOOLS, SPAWN_TOOL,
    WRITE_TOOLS, parse_hook_input, rules_as, spawn_id,
};

/// A variable Gemini CLI sets in the environment of every command its shell tool runs (seen
/// with 0.61.0): a command run where it is set runs inside a Gemini session.
pub const GEMINI_ENV: &str = "GEMINI_CLI";
