//! The fleet event store, on PostgreSQL: many hosts, one audit trail.
//!
//! Records are the same as sled's — the exact body bytes and the hash, so a log copied from one
//! store to the other verifies byte for byte.
//!
//! - **Append.** One transaction locks the one-row head table (`SELECT … FOR UPDATE`), checks
//!   each expected head, inserts the sealed batch with consecutive `seq` (the primary key),
//!   moves the head and commits; the caller learns the result only after the commit
//!   (`synchronous_commit`, the server's default, makes that durable). Appenders in every
//!   process serialise on the head row: no gap, no fork, no duplicate.
//! - **Group commit .** Appenders in one process queue their batches; whoever gets the
//!   connection commits everything queued in one transaction, each batch checked in turn
//!   against the head the previous one left (a conflict fails that batch alone). See `commit`.
//! - **State.** The fan-out state and saved projections live in tables beside the log (`state`),
//!   so a fleet host needs no local store at all.
//! - **Connection.** One connection, opened on first use (so building a store never blocks),
//!   migrated (see `schema`) and checked (the head row agrees with the last event). A closed
//!   connection is reopened before the next operation; an operation that fails on the way is
//!   never retried, because a commit whose answer was lost may or may not have happened: the
//!   caller gets [`StoreError::Unavailable`] and a gate denies (fail closed).

mod commit;
mod config;
mod merkle;
mod schema;
mod state;

use std::sync::{Arc, Mutex};

use agentwarden_domain::audit::merkle::{Frontier, MerkleHash, Node};
use agentwarden_domain::audit::{EventDraft, Hash, Head, StoredRecord};
use agentwarden_ports::{Appended, EventStore, Expected, StoreError, merkle_leaves};
use async_trait::async_trait;
use tokio_postgres::{Client, NoTls, Row, Statement};

pub use config::PgConfig;

use commit::{Pending, Work};

/// The PostgreSQL event store. Cheap to clone; clones share one connection and one queue.
#[derive(Clone, Debug)]
pub struct PostgresEventStore {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    config: PgConfig,
    connection: tokio::sync::Mutex<Option<Connection>>,
    queue: Mutex<Vec<Pending>>,
}

/// A live connection and its prepared statements.
struct Connection {
    client: Client,
    statements: Statements,
    /// The head this connection's last commit left and the Merkle frontier there.
    frontier: Option<(Head, Frontier)>,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection").field("closed", &self.client.is_closed()).finish_non_exhaustive()
    }
}

struct Statements {
    lock_head: Statement,
    insert: Statement,
    set_head: Statement,
    read: Statement,
    head: Statement,
    nodes: Statement,
    insert_nodes: Statement,
}

/// Maps a driver error into the port's error, saying what was being done.
pub(super) fn pg_error(what: &'static str) -> impl Fn(tokio_postgres::Error) -> StoreError {
    move |e| {
        let detail = match e.as_db_error() {
            Some(db) => format!("{}: {}", db.severity(), db.message()),
            None => match std::error::Error::source(&e) {
                Some(source) => format!("{e}: {source}"),
                None => e.to_string(),
            },
        };
        StoreError::Unavailable { reason: format!("{what}: {detail}") }
    }
}

fn corrupt(seq: u64, why: impl Into<String>) -> StoreError {
    StoreError::Corrupt { seq, why: why.into() }
}

pub(super) fn to_i64(seq: u64) -> Result<i64, StoreError> {
    i64::try_from(seq).map_err(|_| corrupt(seq, "seq does not fit PostgreSQL's bigint"))
}

fn to_u64(seq: i64) -> Result<u64, StoreError> {
    u64::try_from(seq).map_err(|_| corrupt(0, format!("a negative seq {seq} is stored")))
}

fn to_hash(seq: u64, bytes: &[u8]) -> Result<Hash, StoreError> {
    <[u8; 32]>::try_from(bytes)
        .map(Hash::from_bytes)
        .map_err(|_| corrupt(seq, "a stored hash is not 32 bytes"))
}

/// The head in a `(seq, hash)` row.
pub(super) fn head_of(row: &Row) -> Result<Head, StoreError> {
    let seq = to_u64(row.try_get(0).map_err(pg_error("cannot read the head"))?)?;
    let hash: &[u8] = row.try_get(1).map_err(pg_error("cannot read the head"))?;
    Ok(Head { seq, hash: to_hash(seq, hash)? })
}

impl PostgresEventStore {
    /// A store at `config`. Nothing is contacted until the first operation.
    pub fn new(config: PgConfig) -> Self {
        PostgresEventStore {
            inner: Arc::new(Inner {
                config,
                connection: tokio::sync::Mutex::new(None),
                queue: Mutex::new(Vec::new()),
            }),
        }
    }

    /// Connects now: migrates the schema and checks the head. Optional (every operation
    /// connects when it needs to); useful to fail early.
    pub async fn connect(&self) -> Result<Head, StoreError> {
        self.head().await
    }

    /// Where this store is.
    pub fn config(&self) -> &PgConfig {
        &self.inner.config
    }

    /// Runs `operation` on a live connection, within the configured timeout.
    async fn with_connection<T>(
        &self,
        operation: impl AsyncFnOnce(&mut Connection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let config = &self.inner.config;
        let run = async {
            let mut slot = self.inner.connection.lock().await;
            let connection = live(&mut slot, config).await?;
            let result = operation(connection).await;
            if connection.client.is_closed() {
                *slot = None;
            }
            result
        };
        let run = async { run.await.map_err(|e| at_server(config, e)) };
        tokio::time::timeout(config.timeout, run).await.unwrap_or_else(|_| {
            Err(StoreError::Unavailable {
                reason: format!(
                    "PostgreSQL at `{}` did not answer within {} ms",
                    config.server(),
                    config.timeout.as_millis()
                ),
            })
        })
    }
}

/// Names the server in an availability error, so the operator knows which one went away.
pub(super) fn at_server(config: &PgConfig, error: StoreError) -> StoreError {
    match error {
        StoreError::Unavailable { reason } => {
            StoreError::Unavailable { reason: format!("PostgreSQL at `{}`: {reason}", config.server()) }
        }
        other => other,
    }
}

/// The open connection in `slot`, or a new one (migrated, head checked).
async fn live<'a>(
    slot: &'a mut Option<Connection>,
    config: &PgConfig,
) -> Result<&'a mut Connection, StoreError> {
    if slot.as_ref().is_some_and(|c| c.client.is_closed()) {
        *slot = None;
    }
    if slot.is_none() {
        *slot = Some(open(config).await?);
    }
    slot.as_mut().ok_or_else(|| StoreError::Unavailable { reason: "no connection".into() })
}

async fn open(config: &PgConfig) -> Result<Connection, StoreError> {
    let (mut client, connection) = config.pg.connect(NoTls).await.map_err(pg_error("cannot connect"))?;
    tokio::spawn(async move {
        if let Err(e) = connection.await {
            tracing::warn!(error = %e, "the PostgreSQL connection ended");
        }
    });
    schema::migrate(&mut client, &config.schema, config.create_if_missing).await?;
    let s = format!("\"{}\"", config.schema);
    let prepare =
        async |sql: String| client.prepare(&sql).await.map_err(pg_error("cannot prepare a statement"));
    let statements = Statements {
        lock_head: prepare(format!("SELECT seq, hash FROM {s}.agentwarden_head FOR UPDATE")).await?,
        insert: prepare(format!(
            "INSERT INTO {s}.agentwarden_events (seq, prev_hash, hash, body) \
             SELECT * FROM unnest($1::bigint[], $2::bytea[], $3::bytea[], $4::bytea[])"
        ))
        .await?,
        set_head: prepare(format!("UPDATE {s}.agentwarden_head SET seq = $1, hash = $2")).await?,
        read: prepare(format!(
            "SELECT seq, hash, body FROM {s}.agentwarden_events WHERE seq >= $1 ORDER BY seq LIMIT $2"
        ))
        .await?,
        head: prepare(format!("SELECT seq, hash FROM {s}.agentwarden_head")).await?,
        nodes: prepare(merkle::select_sql(&s)).await?,
        insert_nodes: prepare(merkle::insert_sql(&s)).await?,
    };
    let mut connection = Connection { client, statements, frontier: None };
    check_head(&connection, &s).await?;
    connection.frontier = Some(merkle::upcast(&mut connection.client, &s).await?);
    tracing::debug!(server = %config.server(), schema = %config.schema, "connected to the PostgreSQL event store");
    Ok(connection)
}

/// The head row must name the last event, with its hash. One statement, so one snapshot: other
/// hosts appending meanwhile cannot make the two disagree.
async fn check_head(connection: &Connection, s: &str) -> Result<(), StoreError> {
    let row = connection
        .client
        .query_one(
            &format!(
                "SELECT h.seq, h.hash, coalesce(e.seq, 0), coalesce(e.hash, h.hash) FROM {s}.agentwarden_head h \
                 LEFT JOIN LATERAL (SELECT seq, hash FROM {s}.agentwarden_events ORDER BY seq DESC LIMIT 1) e ON true"
            ),
            &[],
        )
        .await
        .map_err(pg_error("cannot read the head"))?;
    let head = head_of(&row)?;
    let last_seq = to_u64(row.try_get(2).map_err(pg_error("cannot read the last event"))?)?;
    let last_hash: &[u8] = row.try_get(3).map_err(pg_error("cannot read the last event"))?;
    if last_seq != head.seq {
        return Err(corrupt(
            head.seq.min(last_seq).saturating_add(1),
            format!("the head row says seq {} but the last event is seq {last_seq}", head.seq),
        ));
    }
    if to_hash(last_seq, last_hash)? != head.hash {
        return Err(corrupt(last_seq, "the head row's hash is not the last event's"));
    }
    Ok(())
}

#[async_trait]
impl EventStore for PostgresEventStore {
    async fn append(&self, expected: Expected, batch: Vec<EventDraft>) -> Result<Appended, StoreError> {
        if batch.is_empty() {
            return Err(StoreError::EmptyBatch);
        }
        self.submit(Work::Drafts(expected, batch)).await
    }

    async fn append_sealed(&self, expected: u64, records: Vec<StoredRecord>) -> Result<Appended, StoreError> {
        if records.is_empty() {
            return Err(StoreError::EmptyBatch);
        }
        self.submit(Work::Sealed(expected, records)).await
    }

    async fn read(&self, from: u64, limit: usize) -> Result<Vec<StoredRecord>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let from = to_i64(from)?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = self
            .with_connection(async |c: &mut Connection| {
                c.client
                    .query(&c.statements.read, &[&from, &limit])
                    .await
                    .map_err(pg_error("cannot read events"))
            })
            .await?;
        rows.iter()
            .map(|row| {
                let seq = to_u64(row.try_get(0).map_err(pg_error("cannot read an event"))?)?;
                let hash: &[u8] = row.try_get(1).map_err(pg_error("cannot read an event"))?;
                let body: Vec<u8> = row.try_get(2).map_err(pg_error("cannot read an event"))?;
                Ok(StoredRecord { seq, hash: to_hash(seq, hash)?, body })
            })
            .collect()
    }

    /// Every node is a row, read by its key.
    async fn merkle_nodes(&self, nodes: &[Node]) -> Result<Vec<MerkleHash>, StoreError> {
        let head = self.head().await?;
        for node in nodes {
            merkle_leaves(node, head.seq)?;
        }
        if nodes.is_empty() {
            return Ok(Vec::new());
        }
        self.with_connection(async |c: &mut Connection| {
            merkle::read(&c.client, &c.statements.nodes, nodes).await
        })
        .await
    }

    async fn head(&self) -> Result<Head, StoreError> {
        let row = self
            .with_connection(async |c: &mut Connection| {
                c.client.query_one(&c.statements.head, &[]).await.map_err(pg_error("cannot read the head"))
            })
            .await?;
        head_of(&row)
    }
}
