//! OpenAI Codex CLI, governed by Agent Warden: everything the kernel does not know about the
//! harness (issue 36).
//!
//! - [`wire`] — Codex's hooks wire format: one JSON object on stdin parsed into the kernel's
//!   [`HookInput`](agentwarden_domain::sessions::HookInput) (a spawn by `spawn_agent`, the shell
//!   as `Bash`, the files an `apply_patch` writes, read strictly), and the kernel's
//!   [`HookAnswer`](agentwarden_domain::sessions::HookAnswer) rendered as the exit code and
//!   stderr Codex reads (C-1), with its strict read-back. It depends on the domain alone, so a
//!   thin hook client builds it with `default-features = false`.
//!   [`wire::Codex`] is the harness as the domain's
//!   [`Harness`](agentwarden_domain::sessions::Harness), as for Claude Code.
//! - [`setup`] (feature `setup`, on by default) — what `warden init codex` writes into Codex's
//!   configuration and `warden doctor --harness codex` reads back: the hooks and the fail-closed
//!   line with its time budget, the managed requirements, the project's trust, the files the
//!   guard protects, the canary's spawn (C-8, C-10, C-11). Plain data and functions: the command
//!   line reads, writes and prints. Off for a thin hook client (it needs no TOML editor).
//!
//! Dependencies point inward (issue 35): this crate → the domain (the application only in its tests); the domain
//! names no harness. What Codex was seen to send and decide is in `docs/codex.md`.

#[cfg(feature = "setup")]
pub mod setup;
pub mod wire;

#[cfg(test)]
mod conformance_tests;
#[cfg(test)]
mod kernel_tests;
