//! Which event store a location names: a `postgres://` or `postgresql://` URL selects the
//! PostgreSQL fleet store, anything else is the embedded sled store's directory (the default).
//!
//! The location comes from `--store`, else `AGENTWARDEN_STORE`, else `[store] url` in
//! `agentwarden.toml`, else [`crate::DEFAULT_STORE`]. A URL that does not parse is an error,
//! never a fall-back to the embedded store: a host that was told to record into the fleet's log
//! must not quietly record somewhere else (fail closed). X-23: so is a URL in a build without
//! the `postgres` feature — refused, never taken for a directory's name.
//!
//! Beside the location, the stores themselves (the embedded sled store and its settings, the
//! in-memory one, the one that always fails, PostgreSQL with the `postgres` feature; A-49), the
//! state ports a store may also be, and what a caller that implements or wraps an
//! [`EventStore`] handles (the server's telemetry tap, a test's failing store): the drafts
//! appended, the records and pages read, the head, the Merkle nodes, and the store's errors
//! (issue 49, item 5; A-48).

use std::path::PathBuf;
use std::sync::Arc;

pub use agentwarden_adapters::{
    Archiving, Durability, MemoryEventStore, SledConfig, SledEventStore, UnavailableEventStore,
};
#[cfg(feature = "postgres")]
pub use agentwarden_adapters::{PgConfig, PostgresEventStore};
pub use agentwarden_domain::audit::merkle::{MerkleHash, Node};
pub use agentwarden_domain::audit::{EventDraft, Hash, Head, RecordPage, StoredRecord};
pub use agentwarden_ports::{
    Appended, EventStore, Expected, MergedStore, ProjectionStore, SnapshotStore, StateStore, StoreError,
};

/// Where an event store is.
#[derive(Clone, Debug)]
pub enum StoreLocation {
    /// The embedded sled store in this directory.
    Embedded(PathBuf),
    /// The PostgreSQL store.
    #[cfg(feature = "postgres")]
    Postgres(Box<PgConfig>),
}

impl StoreLocation {
    /// Reads a location: a PostgreSQL URL, or a directory.
    pub fn parse(location: &str) -> Result<StoreLocation, StoreError> {
        if agentwarden_adapters::is_postgres_url(location) {
            postgres(location)
        } else {
            Ok(StoreLocation::Embedded(PathBuf::from(location)))
        }
    }

    /// Opens the store; `sled` gives the embedded store's settings (its path is replaced).
    pub fn open(&self, sled: SledConfig) -> Result<Arc<dyn EventStore>, StoreError> {
        match self {
            StoreLocation::Embedded(path) => {
                Ok(Arc::new(SledEventStore::open(&SledConfig { path: path.clone(), ..sled })?))
            }
            #[cfg(feature = "postgres")]
            StoreLocation::Postgres(config) => Ok(Arc::new(PostgresEventStore::new((**config).clone()))),
        }
    }

    /// For messages: the directory, or the server and schema (never a password).
    pub fn describe(&self) -> String {
        // Shown by `warden status` and logs: never a credential.
        agentwarden_domain::redact::credentials(&match self {
            StoreLocation::Embedded(path) => path.display().to_string(),
            #[cfg(feature = "postgres")]
            StoreLocation::Postgres(config) => {
                format!("postgres {} schema {}", config.server(), config.schema_name())
            }
        })
    }
}

#[cfg(feature = "postgres")]
fn postgres(location: &str) -> Result<StoreLocation, StoreError> {
    Ok(StoreLocation::Postgres(Box::new(PgConfig::parse(location)?)))
}

/// A build without PostgreSQL refuses a PostgreSQL URL.
#[cfg(not(feature = "postgres"))]
fn postgres(location: &str) -> Result<StoreLocation, StoreError> {
    let _ = location;
    Err(StoreError::Unavailable { reason: NO_POSTGRES.to_owned() })
}

/// Why a build without the `postgres` feature refuses a PostgreSQL location.
pub const NO_POSTGRES: &str = "this build of Agent Warden has no PostgreSQL support (cargo feature `postgres`): \
                               a postgres:// store cannot be used";

#[cfg(test)]
mod tests {
    use super::*;

    /// Without the `postgres` feature a PostgreSQL URL is refused, never a directory.
    #[cfg(not(feature = "postgres"))]
    #[test]
    fn without_postgres_a_postgres_url_is_refused_not_a_directory() {
        for url in ["postgres://u@h/d", "postgresql://u@h:5433/d"] {
            let err = StoreLocation::parse(url).unwrap_err();
            assert!(err.to_string().contains("no PostgreSQL support"), "{url}: {err}");
        }
        assert!(matches!(StoreLocation::parse("./postgres://x"), Ok(StoreLocation::Embedded(_))));
    }

    #[cfg(feature = "postgres")]
    #[test]
    fn a_postgres_url_selects_postgres_anything_else_a_directory() {
        for url in ["postgres://u@h/d", "postgresql://u@h:5433/d?options=-csearch_path%3Dfleet"] {
            assert!(matches!(StoreLocation::parse(url), Ok(StoreLocation::Postgres(_))), "{url}");
        }
        for dir in [".agentwarden/audit", "/var/lib/warden", "postgres", "./postgres://x"] {
            assert!(matches!(StoreLocation::parse(dir), Ok(StoreLocation::Embedded(_))), "{dir}");
        }
        assert!(StoreLocation::parse("postgres://u@h/d?bogus=1").is_err(), "a bad URL is an error");
        let described = StoreLocation::parse("postgres://u:pw@h/d").unwrap().describe();
        assert!(!described.contains("pw"), "{described}");
    }
}
