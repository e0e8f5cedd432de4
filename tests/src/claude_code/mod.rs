//! The real-client suite's parts: a scripted fake of the Anthropic Messages API ([`FakeApi`],
//! [`Script`]) and a harness that sets up a project the way README.md's "Guard Claude Code"
//! says and runs the real `claude -p` in it, bounded in time ([`Project`], [`Run`]).
//!
//! The suite itself is `tests/tests/claude_code_real.rs`, run by `cargo xtask claude-code`
//! (which installs the pinned CLI with `npm ci` into `target/claude-code/`). What the client
//! sends is written down in `docs/claude-code-protocol.md`.

mod fake_api;
mod harness;
mod script;

pub use fake_api::{FakeApi, LoggedRequest, ToolResult, last_agent_id, text_of};
pub use harness::{
    ALLOWED_TOOLS, APPROVAL_REF, CLAUDE_BIN_ENV, PINNED_VERSION, Project, Run, RunOptions, Tools,
    WARDEN_BIN_ENV, claude_in, install_dir, workspace_root,
};
pub use script::{Block, Script, Turn};
