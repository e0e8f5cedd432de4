//! OpenAI Codex CLI, governed by Agent Warden: everything the kernel does not know about the
//! harness (issue 36).
//!
//! - [`wire`] — Codex's hooks wire format: one JSON object on stdin parsed into the kernel's
//!   [`HookInput`](agentwarden_domain::sessions::HookInput) (a spawn by `spawn_agent`, the shell
//!   as `Bash`, the files an `apply_patch` writes, read strictly), and the kernel's
//!   [`HookAnswer`](agentwarden_domain::sessions::HookAnswer) rendered as the exit code and
//!   stderr Codex reads (C-1), with its strict read-back. It depends on the domain alone, so a
//!   thin hook client builds it with `default-features = false`.
//! - [`kernel`] (feature `kernel`, on by default) — a hook event's text answered by a
//!   [`Warden`](agentwarden::Warden), as for Claude Code.
//!
//! Dependencies point inward (issue 35): this crate → the application, the domain; the domain
//! names no harness. What Codex was seen to send and decide is in `docs/codex.md`.

#[cfg(feature = "kernel")]
pub mod kernel;
pub mod wire;

#[cfg(test)]
mod conformance_tests;
