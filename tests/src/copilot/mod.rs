//! The Copilot CLI real-client suite's parts (issue 51): a scripted fake of an OpenAI-compatible
//! chat-completions API ([`FakeCopilotApi`], [`Script`], [`Turn`]) and a harness that sets up a
//! project governed for Copilot CLI and runs the real `copilot -p` in it, bounded in time
//! ([`CopilotProject`], [`CopilotRun`]).
//!
//! The suite is `tests/tests/copilot_real.rs`, run by `cargo xtask copilot` (which installs the
//! pinned CLI with `npm ci` into `target/copilot/`). What the client sends is written down in
//! `docs/copilot.md`.

mod fake_api;
mod harness;

/// The model the runs name (`COPILOT_MODEL`), which the fake answers as.
pub const MODEL: &str = "fake-model";

pub use fake_api::{FakeCopilotApi, Script, Turn};
pub use harness::{
    APPROVAL_REF, COPILOT_BIN_ENV, CopilotOutcome, CopilotProject, CopilotRun, CopilotTools, HookRoute,
    PINNED_VERSION, copilot_in, install_dir,
};
