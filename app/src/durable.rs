//! Answers that must not be acted on before they are durable (V-25, X-33, X-66), as types: a
//! [`Deferring`] Warden appends its events without waiting for the disk, so each answer it gives
//! is an [`Undurable`] that is released only against a [`Synced`] covering every event appended
//! before it was decided. The resident service's decider makes a group of decisions durable with
//! one sync and only then releases their answers (V-26); nothing else can read one out.

use std::sync::Arc;

use agentwarden_domain::audit::Actor;
use agentwarden_domain::code::Code;
use agentwarden_domain::sessions::{HookAnswer, HookInput, InputError, SessionRecords};
use agentwarden_ports::StoreError;

use crate::config::Config;
use crate::hook::{HookStorage, StoreDecides};
use crate::warden::{Warden, WardenError};

/// A Warden whose decisions are appended deferred and whose records are left unsaved (V-25):
/// what it answers is [`Undurable`] until [`Deferring::sync`] has made it durable. Made by
/// [`Warden::deferring`].
#[derive(Clone, Debug)]
pub struct Deferring {
    /// The Warden deferring (crate-internal: outside, its answers are only [`Undurable`]).
    pub(crate) warden: Warden,
}

/// An answer whose events were appended but may not be on the disk yet: it cannot be
/// read, only released by a [`Synced`] that covers it.
#[derive(Debug)]
#[must_use = "an answer not released is never given"]
pub struct Undurable<T> {
    answer: T,
    /// Every event this answer may rest on was appended at or before this position.
    through: u64,
}

/// What a sync made durable: every event appended before it began. Only [`Deferring::sync`]
/// makes one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Synced {
    through: u64,
}

/// An answer a sync did not cover: the sync was taken before the answer was decided. Its code
/// is [`NotCovered::code`], never in its message.
#[derive(Debug, thiserror::Error)]
#[error("an answer was released by a sync taken before it was decided")]
pub struct NotCovered;

impl NotCovered {
    /// The code: `internal_error`.
    pub fn code(&self) -> Code {
        Code::InternalError
    }
}

/// A hook's answer as a [`Deferring`] Warden gives it through [`crate::answer_hook`]: decided
/// without the store, or undurable until the group's sync releases it.
#[derive(Debug)]
#[must_use = "an answer not released is never given"]
pub enum Answered {
    /// Decided from the hook's own files and the configuration (or refused before): nothing it
    /// rests on waits for a sync.
    Plain(HookAnswer),
    /// Decided on the store: released by the group's sync.
    Pending(Undurable<HookAnswer>),
}

impl From<HookAnswer> for Answered {
    fn from(answer: HookAnswer) -> Answered {
        Answered::Plain(answer)
    }
}

impl StoreDecides for Deferring {
    type Answer = Answered;

    /// The store's answer, undurable until the next sync.
    async fn decide<'a>(
        &'a self,
        text: &'a str,
        parsed: Result<HookInput, InputError>,
        storage: &'a HookStorage,
    ) -> Answered {
        let answer = self.warden.hook_parsed(text, parsed, storage).await;
        Answered::Pending(Undurable { answer, through: self.appended_through() })
    }
}

impl<T> Undurable<T> {
    /// The answer, when `synced` covers every event it may rest on; else [`NotCovered`],
    /// which the caller must answer as a failure.
    pub fn release(self, synced: Synced) -> Result<T, NotCovered> {
        if synced.through >= self.through { Ok(self.answer) } else { Err(NotCovered) }
    }
}

impl Warden {
    /// The same Warden, appending deferred and leaving the records unsaved: the resident
    /// service's decider, which makes a group of decisions durable with one [`Deferring::sync`]
    /// before it releases their answers, and saves the records itself (V-25).
    ///
    /// what it answers is an [`Undurable`]: acting on it before the sync is not
    /// possible, not merely warned against.
    pub fn deferring(&self) -> Deferring {
        let mut warden = self.clone();
        warden.deferred = true;
        warden.appended = Some(Arc::default());
        Deferring { warden }
    }
}

impl Deferring {
    /// The same, deciding with `config` (the resident service reads it for each request).
    pub fn with_config(&self, config: Config) -> Deferring {
        Deferring { warden: self.warden.with_config(config) }
    }

    /// The same, recording as `actor`.
    pub fn with_actor(&self, actor: Actor) -> Deferring {
        Deferring { warden: self.warden.with_actor(actor) }
    }

    /// The configuration it decides with.
    pub fn configuration(&self) -> &Config {
        self.warden.configuration()
    }

    /// Makes every event appended so far durable ([`agentwarden_ports::EventStore::sync`]).
    pub async fn sync(&self) -> Result<Synced, StoreError> {
        // Read before the sync begins: every append that reached it is covered by the sync.
        let through = self.appended_through();
        self.warden.store.sync().await?;
        Ok(Synced { through })
    }

    /// The records as they stand (their events possibly not yet durable).
    pub async fn records(&self) -> Result<SessionRecords, WardenError> {
        self.warden.records().await
    }

    /// Saves `records` in the state store (best effort): call it only once their events are
    /// durable (V-27).
    pub async fn save_records_now(&self, records: &SessionRecords) {
        self.warden.save_records_now(records).await;
    }

    fn appended_through(&self) -> u64 {
        self.warden.appended.as_ref().map_or(0, |a| a.now())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An answer is released by a sync begun after it was decided, never by an earlier one.
    #[test]
    fn an_answer_is_released_only_by_a_sync_that_covers_it() {
        let answer = |through| Undurable { answer: "deny", through };
        assert_eq!(answer(5).release(Synced { through: 5 }).unwrap(), "deny");
        assert_eq!(answer(5).release(Synced { through: 9 }).unwrap(), "deny");
        assert!(answer(6).release(Synced { through: 5 }).is_err(), "a sync taken before it");
        assert_eq!(answer(0).release(Synced { through: 0 }).unwrap(), "deny", "nothing appended yet");
    }
}
