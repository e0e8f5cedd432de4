//! The Gemini CLI real-client suite's parts (issue 40): a scripted fake of the Gemini API
//! ([`FakeGemini`], [`Script`], [`Part`]) and a harness that sets up a project governed for
//! Gemini CLI and runs the real `gemini -p` in it, bounded in time ([`GeminiProject`],
//! [`GeminiRun`]).
//!
//! The suite is `tests/tests/gemini_real.rs`, run by `cargo xtask gemini` (which installs the
//! pinned CLI with `npm ci` into `target/gemini/`). What the client sends is written down in
//! `docs/gemini.md`.

mod fake_api;
mod harness;

pub use fake_api::{FakeGemini, Part, Script};
pub use harness::{
    APPROVAL_REF, EVERY_EVENT, GEMINI_BIN_ENV, GeminiOutcome, GeminiProject, GeminiRun, GeminiTools,
    HookRoute, PINNED_VERSION, gemini_in, install_dir,
};
