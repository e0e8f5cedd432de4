//! The Codex real-client suite's parts (issue 36): a scripted fake of the OpenAI Responses API
//! ([`FakeResponses`], [`Script`], [`Item`]) and a harness that sets up a project governed for
//! Codex and runs the real `codex exec` in it, bounded in time ([`CodexProject`], [`CodexRun`]).
//!
//! The suite is `tests/tests/codex_real.rs`, run by `cargo xtask codex` (which installs the
//! pinned CLI with `npm ci` into `target/codex/`). What the client sends is written down in
//! `docs/codex.md`.

mod fake_api;
mod harness;

pub use fake_api::{FakeResponses, Item, Script};
pub use harness::{
    APPROVAL_REF, CODEX_BIN_ENV, CodexOutcome, CodexProject, CodexRun, CodexTools, HookRoute, PINNED_VERSION,
    codex_in, install_dir,
};
