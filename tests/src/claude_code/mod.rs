//! The real-client suite's parts: a scripted fake of the Anthropic Messages API ([`FakeApi`],
//! [`Script`]) and a harness that sets up a project the way README.md's "Guard Claude Code"
//! says and runs the real `claude -p` in it, bounded in time ([`Project`], [`Run`]).
//!
//! The suite itself is `tests/tests/claude_code_real.rs`, run by `cargo xtask claude-code`
//! (which installs the pinned CLI with `npm ci` into `target/claude-code/`). What the client
//! sends is written down in `docs/claude-code-protocol.md`.
//!
//! A scenario, in four steps:
//!
//! 1. a project: [`Project::readme_setup`] (the README's setup: init, seal, approve), or
//!    [`Project::example`] and your own `warden` calls ([`Project::warden_ok`]), settings
//!    ([`Project::set_settings`]) or git ([`Project::git`]);
//! 2. a [`Script`]: one agent per marker in its first message (the `-p` prompt for the main
//!    session, the spawn's `prompt` for a subagent), each a list of [`Turn`]s; give the tool calls
//!    you will ask about a fixed id ([`Block::tool_with_id`]); `$AGENT_ID` in a tool input is the
//!    last agent id the conversation names (for `SendMessage`); [`Script::agent_fn`] decides a
//!    turn in code (and may act meanwhile, e.g. revoke an approval as a human would);
//! 3. [`Project::run`] with [`RunOptions`] (kill switch, extra variables, managed settings, the
//!    deadline; `settings_decide` with [`Project::trust`] leaves every permission to the
//!    project's settings, as `rule_meaning.rs` does to read the client's own rule decisions);
//! 4. assertions on what the model saw ([`FakeApi::tool_result`], [`FakeApi::ran`],
//!    [`FakeApi::texts_seen_by`]), on the files ([`Project::read`]) and on the audit log
//!    ([`Project::audit_of`]); and always [`FakeApi::foreign_requests`] empty.
//!
//! A rule-meaning test (`rule_meaning.rs`, the generated differential) compares the client's own
//! decision per call ([`client_decisions`]) with Warden's matcher's ([`warden_grants`]).
//!
//! Agents are foreground in the scripts (`run_in_background: false`) unless a scenario is about
//! the background: Claude Code 2.1.330 runs them in the background by default.

mod decisions;
mod fake_api;
mod harness;
mod request;
mod script;

pub use decisions::{client_decisions, placed, warden_grants};
pub use fake_api::{FakeApi, last_agent_id};
pub use harness::{
    ALLOWED_TOOLS, APPROVAL_REF, CLAUDE_BIN_ENV, HELPER_TIMEOUT, PINNED_VERSION, Project, Run, RunOptions,
    Tools, WARDEN_BIN_ENV, claude_in, install_dir, output_within, workspace_root,
};
pub use request::{LoggedRequest, ToolResult, text_of};
pub use script::{Block, Script, Turn};
