//! A harness's hook events and answers, as a caller names them (issue 49, item 5; A-48): the
//! input read from a hook ([`HookInput`], [`HookEvent`], at most [`MAX_HOOK_INPUT`] bytes, or
//! why not: [`InputError`]), the [`HookAnswer`] given, a harness's terms ([`HarnessProfile`]),
//! and the sessions' records ([`SessionRecords`]) with the events that quarantine and release
//! one ([`SessionQuarantined`], [`SessionReleased`]).

pub use agentwarden_domain::sessions::{
    HarnessProfile, HookAnswer, HookEvent, HookInput, InputError, MAX_HOOK_INPUT, SessionQuarantined,
    SessionRecords, SessionReleased,
};
