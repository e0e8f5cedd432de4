//! A Warden and the store it decides on, as a process that holds the store's files has them.
//!
//! the facade records only operator notes; every other event is appended by the use case
//! that decides it. A record that reaches the log another way — written by an agent with the
//! library, the store and no key — is appended here through the store port, so that the tests
//! can show it does not count.

use std::ops::Deref;
use std::sync::Arc;

use agentwarden::audit::{Actor, Correlation, EventDraft, Timestamp};
use agentwarden::events::AuditEvent;
use agentwarden::{
    Warden,
    store::{Appended, EventStore, Expected, StoreError},
};

/// The Warden, and a way around it to the store.
pub(crate) struct Forger {
    warden: Warden,
    store: Arc<dyn EventStore>,
}

impl Forger {
    /// A Warden built on `store` by `build`, which is handed the store.
    pub(crate) fn new<S: EventStore + 'static>(
        store: Arc<S>,
        build: impl FnOnce(Arc<S>) -> Warden,
    ) -> Forger {
        Forger { warden: build(store.clone()), store }
    }

    /// Appends `event` as it stands, straight to the store.
    pub(crate) async fn record(
        &self,
        correlation: Correlation,
        event: &AuditEvent,
    ) -> Result<Appended, StoreError> {
        let millis = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| i64::try_from(d.as_millis()).unwrap())
            .unwrap();
        let now = Timestamp::from_unix_millis(millis).unwrap();
        let draft = EventDraft::new(now, Actor::new("forger").unwrap(), correlation, event).unwrap();
        self.store.append(Expected::Any, vec![draft]).await
    }
}

impl Deref for Forger {
    type Target = Warden;

    fn deref(&self) -> &Warden {
        &self.warden
    }
}
