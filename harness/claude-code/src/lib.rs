//! Claude Code, governed by Agent Warden: everything the kernel does not know about the harness.
//!
//! - [`wire`] — the hooks' wire format: one JSON object on stdin parsed into the kernel's
//!   [`HookInput`](agentwarden_domain::sessions::HookInput) (tool names, which inputs name
//!   files, the shell words of a human verb), and the kernel's
//!   [`HookAnswer`](agentwarden_domain::sessions::HookAnswer) rendered as the exact exit code,
//!   stdout and stderr Claude Code reads, with its strict read-back. It depends on the
//!   domain alone, so a thin hook client builds it with `default-features = false`, without the
//!   application, sled, tokio-postgres or clap.
//!   [`wire::ClaudeCode`] is the harness as the domain's
//!   [`Harness`](agentwarden_domain::sessions::Harness), which the hook's one entry
//!   (`agentwarden::answer_hook`) decides through, in direct mode and the resident service alike,
//!   and which the thin hook client holds too.
//! - [`setup`] — what `warden init claude-code` writes into Claude Code's settings and `warden
//!   doctor` reads back: where the settings are, the hook entries and the fail-closed line with
//!   its time budget, the permission deny rules, the files the guard protects, the canary's
//!   spawn (H-6 … H-19, H-43, H-44). Plain data and functions: the command line reads, writes and
//!   prints.
//!
//! Dependencies point inward (issue 35): this crate → the domain (the application only in its tests); the domain
//! names no harness.

pub mod setup;
pub mod wire;

#[cfg(test)]
mod conformance_tests;
#[cfg(test)]
mod kernel_tests;
