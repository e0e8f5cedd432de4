//! The single writer's state on PostgreSQL, beside the log: merged fan-out results (written
//! once per key, F-10) and saved projections (a cache: losing one loses nothing).
//!
//! Shared by the fleet like the log: a merged result written by one host is a conflict for
//! every other, and a saved projection carries the head it was folded to, which its reader
//! checks against the log before trusting it.

use agentwarden_domain::fanout::Merged;
use agentwarden_ports::StoreError;
use async_trait::async_trait;

use super::{Connection, PostgresEventStore, pg_error};

/// Schema version 2: the state tables.
pub(super) const MIGRATION: &str = r#"
CREATE TABLE {s}.agentwarden_state (
    key   text  PRIMARY KEY,
    value bytea NOT NULL
);
CREATE TABLE {s}.agentwarden_projections (
    name  text  PRIMARY KEY,
    value bytea NOT NULL
);
"#;

impl PostgresEventStore {
    fn table(&self, name: &str) -> String {
        format!("\"{}\".{name}", self.inner.config.schema)
    }
}

#[async_trait]
impl agentwarden_ports::MergedStore for PostgresEventStore {
    async fn write_merged(&self, key: &str, merged: &Merged) -> Result<(), StoreError> {
        let bytes = serde_json::to_vec(merged)
            .map_err(|e| StoreError::Unavailable { reason: format!("cannot encode the state: {e}") })?;
        let sql = format!(
            "INSERT INTO {} (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING",
            self.table("agentwarden_state")
        );
        let inserted = self
            .with_connection(async |c: &mut Connection| {
                c.client.execute(&sql, &[&key, &bytes]).await.map_err(pg_error("cannot write the state"))
            })
            .await?;
        if inserted == 0 {
            return Err(StoreError::AlreadyWritten { key: key.to_owned() });
        }
        Ok(())
    }

    async fn read_merged(&self, key: &str) -> Result<Option<Merged>, StoreError> {
        let sql = format!("SELECT value FROM {} WHERE key = $1", self.table("agentwarden_state"));
        let bytes = self.read_value(&sql, key).await?;
        bytes.map(|b| serde_json::from_slice(&b)).transpose().map_err(|e| StoreError::Corrupt {
            seq: 0,
            why: format!("the store is corrupt: state `{key}`: {e}"),
        })
    }
}

#[async_trait]
impl agentwarden_ports::ProjectionStore for PostgresEventStore {
    async fn read_projection(&self, name: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let sql = format!("SELECT value FROM {} WHERE name = $1", self.table("agentwarden_projections"));
        self.read_value(&sql, name).await
    }

    async fn write_projection(&self, name: &str, bytes: Vec<u8>) -> Result<(), StoreError> {
        let sql = format!(
            "INSERT INTO {} (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value",
            self.table("agentwarden_projections")
        );
        self.with_connection(async |c: &mut Connection| {
            c.client.execute(&sql, &[&name, &bytes]).await.map_err(pg_error("cannot write a projection"))
        })
        .await
        .map(|_| ())
    }

    async fn remove_projection(&self, name: &str) -> Result<(), StoreError> {
        let sql = format!("DELETE FROM {} WHERE name = $1", self.table("agentwarden_projections"));
        self.with_connection(async |c: &mut Connection| {
            c.client.execute(&sql, &[&name]).await.map_err(pg_error("cannot remove a projection"))
        })
        .await
        .map(|_| ())
    }
}

crate::snapshots_among_projections!(PostgresEventStore);

impl PostgresEventStore {
    async fn read_value(&self, sql: &str, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let row = self
            .with_connection(async |c: &mut Connection| {
                c.client.query_opt(sql, &[&key]).await.map_err(pg_error("cannot read the state"))
            })
            .await?;
        row.map(|r| r.try_get::<_, Vec<u8>>(0).map_err(pg_error("cannot read the state"))).transpose()
    }
}
