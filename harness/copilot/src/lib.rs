//! GitHub Copilot CLI, governed by Agent Warden: everything the kernel does not know about the
//! harness (issue 51).
//!
//! - [`wire`] — Copilot's Claude-style hooks wire format (H-65): one JSON object on stdin parsed
//!   into the kernel's [`HookInput`](agentwarden_domain::sessions::HookInput) (a spawn by `Agent`,
//!   Copilot's `task`; a subagent's event by its `agent_id` in the session its `parent_agent_id`
//!   names, H-66; the shell as `Bash`; the files `Write` and `Edit` write), and the kernel's
//!   answer rendered as Claude Code's bytes, which Copilot obeys (H-68). It depends on the domain
//!   alone, so a thin hook client builds it with `default-features = false`.
//!   [`wire::Copilot`] is the harness as the domain's
//!   [`Harness`](agentwarden_domain::sessions::Harness).
//! - [`setup`] (feature `setup`, on by default) — what `warden init copilot` writes into
//!   Copilot's hook files and `warden doctor --harness copilot` reads back.
//!
//! Dependencies point inward (issue 35): this crate → the domain (the application only in its
//! tests); the domain names no harness. What Copilot was seen to send and decide is in
//! `docs/copilot.md`.

#[cfg(feature = "setup")]
pub mod setup;
pub mod wire;

#[cfg(test)]
mod conformance_tests;
#[cfg(test)]
mod kernel_tests;
