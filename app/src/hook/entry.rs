//! The one way a hook event is answered (issue 49, X-88): from the event as a harness decoded it
//! (its parse and the text it came as) to the kernel's answer, through the same steps for direct
//! mode and the resident service alike — what needs no store first (the check of what ran
//! against what was approved, H-55; the quarantine marker, H-28; the fast path, H-24), then the
//! store opened and asked on the same parse, or, when it cannot be opened, the deny already known
//! or a failure (H-28, H-33). The callers differ only in how they reach the store: direct mode
//! opens it per process under its lock, the resident service holds one open and defers each
//! group's sync (V-26); each says so through `open` and the [`StoreDecides`] it returns.

use std::future::Future;

use agentwarden_domain::sessions::{HookAnswer, HookInput, InputError};
use agentwarden_domain::verdict::Code;

use super::fast::{Pre, before_store_parsed};
use super::storage::HookStorage;
use crate::config::Config;
use crate::warden::{Warden, WardenError};

/// What decides a hook event once the store is needed: a [`Warden`] (its answer given at once)
/// or a [`crate::Deferring`] one (its answer released by the group's sync, X-66).
pub trait StoreDecides {
    /// The answer as the caller holds it; an answer decided without the store becomes one too.
    type Answer: From<HookAnswer>;

    /// Decides the event `text` as parsed (`parsed`) on the store, records it, and answers; an
    /// input the harness refused is recorded (H-30) and answered as a failure.
    fn decide<'a>(
        &'a self,
        text: &'a str,
        parsed: Result<HookInput, InputError>,
        storage: &'a HookStorage,
    ) -> impl Future<Output = Self::Answer> + 'a;
}

impl StoreDecides for Warden {
    type Answer = HookAnswer;

    fn decide<'a>(
        &'a self,
        text: &'a str,
        parsed: Result<HookInput, InputError>,
        storage: &'a HookStorage,
    ) -> impl Future<Output = HookAnswer> + 'a {
        self.hook_parsed(text, parsed, storage)
    }
}

/// Answers one hook event: `text` as the harness sent it and `parsed`, its harness's decoding
/// of it, decided with `config` and the hook's files in `storage`. What needs no store is
/// answered without calling `open`; otherwise `open` gives what decides on the store (with
/// `config`), and a store it cannot open gives the deny already known, the stop's answer without
/// the store (H-28, H-33), or a failure whose reason names `store_unavailable` first.
pub async fn answer_hook<D: StoreDecides>(
    config: Config,
    storage: &HookStorage,
    text: &str,
    parsed: Result<HookInput, InputError>,
    open: impl FnOnce(Config) -> Result<D, WardenError>,
) -> D::Answer {
    let fallback = match before_store_parsed(&config, storage, &parsed) {
        Pre::Done(done) => return done.into(),
        Pre::Store { fallback } => fallback,
    };
    match open(config.clone()) {
        Ok(decides) => decides.decide(text, parsed, storage).await,
        Err(e) => {
            let why = format!("the audit log is unavailable: {e}");
            let input = parsed.as_ref().ok();
            super::hook_store_unavailable(config, storage, input, fallback, Code::StoreUnavailable, why)
                .await
                .into()
        }
    }
}
