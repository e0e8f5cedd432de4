//! Google Gemini CLI, governed by Agent Warden: everything the kernel does not know about the
//! harness (issue 40).
//!
//! - [`wire`] — Gemini's hooks wire format: one JSON object on stdin parsed into the kernel's
//!   [`HookInput`](agentwarden_domain::sessions::HookInput) (a spawn by `invoke_agent`, its end by
//!   the `AfterTool` of that call, the shell as `Bash`, the files `write_file` and `replace`
//!   write), every event unattributed ([`Attribution::InFlight`](agentwarden_domain::sessions::Attribution):
//!   Gemini names no subagent, M-2), and the kernel's answer rendered as the exit code and
//!   stderr Gemini reads (M-1). It depends on the domain alone, so a thin hook client builds it
//!   with `default-features = false`.
//!   [`wire::Gemini`] is the harness as the domain's
//!   [`Harness`](agentwarden_domain::sessions::Harness), as for Claude Code and Codex.
//! - [`setup`] (feature `setup`, on by default) — what `warden init gemini` writes into Gemini's
//!   settings and `warden doctor --harness gemini` reads back.
//!
//! Dependencies point inward (issue 35): this crate → the domain (the application only in its tests); the domain
//! names no harness. What Gemini was seen to send and decide is in `docs/gemini.md`.

#[cfg(feature = "setup")]
pub mod setup;
pub mod wire;

#[cfg(test)]
mod conformance_tests;
#[cfg(test)]
mod kernel_tests;
