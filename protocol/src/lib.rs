//! The resident service's wire protocol (`docs/server-protocol.md`): length-prefixed JSON frames
//! over a Unix domain socket, the typed requests and answers they carry, and the synchronous
//! exchange a client makes.
//!
//! A frame is a 4-byte big-endian length followed by that many bytes of one JSON object, at most
//! [`MAX_FRAME`] bytes. Every object carries `"version"` ([`VERSION`]) and a `kind`. Requests:
//! `hook` (one hook event, as the text the hook read on stdin), `decide` (a decision command's
//! typed question, V-13, V-54) and `status`. Answers: the request's kind, or `error` with a stable code
//! (`docs/codes.md`) and a reason.
//!
//! V-52: a hook's answer on the wire is the decision and its reason (`proceed`, `deny`, `block`,
//! `failed`), never a harness's rendering: the client renders it as its integration does
//! (Claude Code's stdout, stderr and exit code), and refuses anything not well-formed (V-6).
//!
//! This crate holds no runtime, no store and no command line: what a hook client links (V-29,
//! V-34).

mod client;
mod frame;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
mod message;
mod question;

pub use client::{exchange, peer_uid};
pub use frame::{FrameError, MAX_FRAME, Refused, VERSION, decode, encode, length, read_frame_blocking};
pub use message::{Answer, HookDecision, Request, SpanExport};
pub use question::{AbsolutePath, ListedApproval, Outcome, Question};
