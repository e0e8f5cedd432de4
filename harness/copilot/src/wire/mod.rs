//! Copilot CLI's hooks protocol, in and out, over the domain alone (no application): what a thin
//! hook client and the kernel's integration share.

mod answer;
mod harness;
mod input;

pub use answer::{HOOK_FAILED, RenderingError, read_back, render};
pub use harness::Copilot;
pub use input::{
    BUILTIN_AGENTS, KNOWN_TOOLS, PROFILE, SEND_MESSAGE_TOOL, SHELL_TOOL, SHELL_TOOLS, SPAWN_TOOL,
    WRITE_TOOLS, parse_hook_input, rules_as, spawn_id,
};

/// A variable Copilot CLI sets in the environment of every command its shell tool runs (seen
/// with 1.0.102, `COPILOT_CLI=1`): a command run where it is set runs inside a Copilot session.
pub const COPILOT_ENV: &str = "COPILOT_CLI";
