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
pub mod exit_two;
mod frame;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
pub mod halt;
pub mod hook_json;
pub mod hook_line;
mod message;
mod question;
pub mod settings_file;
mod tree;

pub use client::{ClientError, PeerError, ServerStatus, decide, exchange, peer_uid, status};
pub use frame::{
    EncodeError, FrameError, MAX_FRAME, Refused, VERSION, decode, encode, length, read_frame_blocking,
};
pub use message::{Answer, HookDecision, Request, SpanExport, WitnessReport};
pub use question::{AbsolutePath, ListedApproval, Outcome, PathError, Question};
pub use tree::{TreeClient, TreeError};

use agentwarden_domain::code::Code;

/// Every code the protocol names: those of the `error` answers the frames' reader and the
/// server give, and those of a client's failed exchange ([`ClientError`]). Each is a row of the
/// resident service's table in `docs/codes.md` (`cargo xtask codes`); an `error` answer that
/// forwards an application error carries that error's own code, listed with the application's.
pub const CODES: &[Code] = &[
    // The frames' reader (V-2, V-50).
    Code::FrameInvalid,
    Code::FrameTooLarge,
    Code::RequestInvalid,
    // The server's answers.
    Code::RequestTimeout,
    Code::ServerConfigMismatch,
    Code::PathRefused,
    Code::ConfigInvalid,
    Code::StoreUnavailable,
    Code::InternalError,
    Code::DeadlinePassed,
    // A client's exchange (V-6, V-12).
    Code::ServerUnavailable,
    Code::ServerAnswerInvalid,
];
