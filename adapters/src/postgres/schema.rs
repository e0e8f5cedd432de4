//! The store's tables, created and migrated by the adapter itself.
//!
//! `agentwarden_migrations` lists the versions applied. Opening runs, in one transaction under
//! an advisory lock keyed by the schema (so many hosts starting at once do not race), every
//! migration newer than the last applied one. A schema newer than this build knows is refused:
//! an older Warden must not write into a log whose rules it does not know (fail closed).
//!
//! A reader's store (`create_if_missing` off) refuses a schema without the tables
//! ([`StoreError::Missing`]) instead of creating them (A-6).
//!
//! Version 1: `agentwarden_events` (`seq` primary key, the exact body bytes and both hashes), a
//! one-row `agentwarden_head` that appenders lock, and triggers that refuse `UPDATE`, `DELETE`
//! and `TRUNCATE` on the events: the log is append-only in the database too. Version 2: the
//! single writer's state and saved projections (see `state`). Version 3: the Merkle tree over the
//! log, append-only too (see `merkle`, A-36).

use tokio_postgres::Client;

use super::pg_error;
use agentwarden_ports::StoreError;

/// Migrations in order: (version, description, SQL with `{s}` for the quoted schema).
const MIGRATIONS: [(i32, &str, &str); 3] = [
    (
        1,
        "events, head, append-only triggers",
        r#"
CREATE TABLE {s}.agentwarden_events (
    seq       bigint PRIMARY KEY CHECK (seq > 0),
    prev_hash bytea  NOT NULL CHECK (octet_length(prev_hash) = 32),
    hash      bytea  NOT NULL CHECK (octet_length(hash) = 32),
    body      bytea  NOT NULL
);
CREATE TABLE {s}.agentwarden_head (
    id   boolean PRIMARY KEY DEFAULT true CHECK (id),
    seq  bigint  NOT NULL CHECK (seq >= 0),
    hash bytea   NOT NULL CHECK (octet_length(hash) = 32)
);
INSERT INTO {s}.agentwarden_head (id, seq, hash) VALUES (true, 0, '\x0000000000000000000000000000000000000000000000000000000000000000');
CREATE FUNCTION {s}.agentwarden_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the audit log is append-only: % on % refused', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege';
END
$$;
CREATE TRIGGER agentwarden_events_no_change BEFORE UPDATE OR DELETE ON {s}.agentwarden_events
    FOR EACH ROW EXECUTE FUNCTION {s}.agentwarden_refuse_change();
CREATE TRIGGER agentwarden_events_no_truncate BEFORE TRUNCATE ON {s}.agentwarden_events
    FOR EACH STATEMENT EXECUTE FUNCTION {s}.agentwarden_refuse_change();
"#,
    ),
    (2, "fan-out state and saved projections", super::state::MIGRATION),
    (3, "the kept Merkle tree", super::merkle::MIGRATION),
];

/// The newest schema version this build knows.
pub(super) const VERSION: i32 = 3;

/// Creates the schema and applies the migrations it lacks.
pub(super) async fn migrate(client: &mut Client, schema: &str, create: bool) -> Result<(), StoreError> {
    let quoted = format!("\"{schema}\"");
    let tx = client.transaction().await.map_err(pg_error("cannot start the migration"))?;
    tx.execute("SELECT pg_advisory_xact_lock(hashtext($1))", &[&format!("agentwarden:{schema}")])
        .await
        .map_err(pg_error("cannot lock the schema for migration"))?;
    if !create {
        let found = tx
            .query_one("SELECT to_regclass($1) IS NOT NULL", &[&format!("{quoted}.agentwarden_migrations")])
            .await
            .map_err(pg_error("cannot look for the store's tables"))?;
        if !found.try_get::<_, bool>(0).map_err(pg_error("cannot look for the store's tables"))? {
            return Err(StoreError::Missing { path: format!("PostgreSQL schema `{schema}`") });
        }
    }
    tx.batch_execute(&format!(
        "CREATE SCHEMA IF NOT EXISTS {quoted};
         CREATE TABLE IF NOT EXISTS {quoted}.agentwarden_migrations (
             version integer PRIMARY KEY,
             description text NOT NULL,
             applied_at timestamptz NOT NULL DEFAULT now()
         );"
    ))
    .await
    .map_err(pg_error("cannot create the migration table"))?;
    let row = tx
        .query_one(&format!("SELECT coalesce(max(version), 0) FROM {quoted}.agentwarden_migrations"), &[])
        .await
        .map_err(pg_error("cannot read the schema version"))?;
    let current: i32 = row.try_get(0).map_err(pg_error("cannot read the schema version"))?;
    if current > VERSION {
        return Err(StoreError::Corrupt {
            seq: 0,
            why: format!(
                "schema `{schema}` is at version {current}, newer than this warden knows ({VERSION}): upgrade warden"
            ),
        });
    }
    for (version, description, sql) in MIGRATIONS.iter().filter(|(v, _, _)| *v > current) {
        tx.batch_execute(&sql.replace("{s}", &quoted))
            .await
            .map_err(pg_error("cannot apply a schema migration"))?;
        tx.execute(
            &format!("INSERT INTO {quoted}.agentwarden_migrations (version, description) VALUES ($1, $2)"),
            &[version, description],
        )
        .await
        .map_err(pg_error("cannot record a schema migration"))?;
        tracing::info!(schema, version, description, "migrated the PostgreSQL event store");
    }
    tx.commit().await.map_err(pg_error("cannot commit the migration"))
}
