//! Codex CLI's hooks protocol, in and out, over the domain alone (no application): what a thin
//! hook client and the kernel's integration share.

mod answer;
pub mod client_rules;
mod harness;
mod input;
mod patch;

/// Codex reads an answer from the exit code and stderr (C-1), and a confined call's allow from
/// stdout (C-20).
pub use agentwarden_protocol::exit_two::{BLOCKED, DENIED, FAILED, HOOK_STOPS};
pub use answer::{RenderingError, read_back, render};
pub use harness::Codex;
pub use input::{
    BUILTIN_AGENT_TYPES, DEFAULT_AGENT_TYPE, KNOWN_TOOLS, MCP_PREFIX, PATCH_RULE_TOOL, PATCH_TOOL, PROFILE,
    RESUME_SUFFIXES, SHELL_TOOL, SHELL_TOOLS, SPAWN_SUFFIX, parse_hook_input, rules_as,
};
pub use patch::{PatchError, patch_paths};

/// A variable Codex sets in the environment of every command its shell tool runs (seen with
/// 0.169.0, beside `CODEX_SESSION_ID` and `CODEX_TOOL_CALL_ID`): a command run where it is set
/// runs inside a Codex session.
pub const CODEX_ENV: &str = "CODEX_THREAD_ID";
