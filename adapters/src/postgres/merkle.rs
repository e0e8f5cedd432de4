//! The Merkle tree over the PostgreSQL log (A-25), kept in the same transaction as the events
//! (A-36).
//!
//! Table `agentwarden_merkle` (schema version 3): one row per perfect subtree — `(level, idx)`,
//! its 32-byte hash — append-only as the events are. Every node is kept, the leaves too: a
//! proof or a root is a few rows read by primary key, and the frontier a commit needs is at most
//! 64 of them, so nothing is hashed from the events again once they are in. A committer keeps
//! the frontier of the head it left in its connection and reuses it when the head it locks next
//! is the same; otherwise (another host appended) it reads the frontier's nodes again. The
//! nodes a group completes are inserted by the statement after its events, in its transaction:
//! both are there, or neither.
//!
//! Opening a connection upcasts a log written before version 3 (or by a transaction that kept
//! no tree): under the head row's lock, the events past the last kept leaf are hashed and their
//! nodes inserted, in one transaction. A tree ahead of the events cannot be written by this
//! adapter; found, it is `store_corrupt`.

use agentwarden_domain::audit::Head;
use agentwarden_domain::audit::merkle::{Frontier, MerkleHash, Node, Range, perfect_nodes};
use agentwarden_ports::StoreError;
use tokio_postgres::{Client, GenericClient, Statement};

use super::{corrupt, pg_error, to_i64, to_u64};

/// Schema version 3: the kept tree.
pub(super) const MIGRATION: &str = r#"
CREATE TABLE {s}.agentwarden_merkle (
    level smallint NOT NULL CHECK (level >= 0 AND level < 64),
    idx   bigint   NOT NULL CHECK (idx >= 0),
    hash  bytea    NOT NULL CHECK (octet_length(hash) = 32),
    PRIMARY KEY (level, idx)
);
CREATE TRIGGER agentwarden_merkle_no_change BEFORE UPDATE OR DELETE ON {s}.agentwarden_merkle
    FOR EACH ROW EXECUTE FUNCTION {s}.agentwarden_refuse_change();
CREATE TRIGGER agentwarden_merkle_no_truncate BEFORE TRUNCATE ON {s}.agentwarden_merkle
    FOR EACH STATEMENT EXECUTE FUNCTION {s}.agentwarden_refuse_change();
"#;

/// The statement that reads nodes: `$1` levels, `$2` indices.
pub(super) fn select_sql(s: &str) -> String {
    format!(
        "SELECT m.level, m.idx, m.hash FROM unnest($1::smallint[], $2::bigint[]) AS w(level, idx) \
         JOIN {s}.agentwarden_merkle m ON m.level = w.level AND m.idx = w.idx"
    )
}

/// The statement that inserts nodes: `$1` levels, `$2` indices, `$3` hashes.
pub(super) fn insert_sql(s: &str) -> String {
    format!(
        "INSERT INTO {s}.agentwarden_merkle (level, idx, hash) \
         SELECT * FROM unnest($1::smallint[], $2::bigint[], $3::bytea[])"
    )
}

/// The hashes of `nodes`, in order, read with `select`; a node not kept is a corrupt tree.
pub(super) async fn read(
    client: &impl GenericClient,
    select: &Statement,
    nodes: &[Node],
) -> Result<Vec<MerkleHash>, StoreError> {
    let levels: Vec<i16> = nodes.iter().map(|n| i16::from(n.level)).collect();
    let indices = nodes.iter().map(|n| to_i64(n.index)).collect::<Result<Vec<i64>, _>>()?;
    let rows =
        client.query(select, &[&levels, &indices]).await.map_err(pg_error("cannot read the Merkle tree"))?;
    let mut found = std::collections::HashMap::with_capacity(rows.len());
    for row in &rows {
        let level: i16 = row.try_get(0).map_err(pg_error("cannot read a Merkle node"))?;
        let index = to_u64(row.try_get(1).map_err(pg_error("cannot read a Merkle node"))?)?;
        let hash: &[u8] = row.try_get(2).map_err(pg_error("cannot read a Merkle node"))?;
        let level =
            u8::try_from(level).map_err(|_| corrupt(0, "a kept Merkle node's level is out of range"))?;
        let node = Node { level, index };
        let hash = <[u8; 32]>::try_from(hash)
            .map_err(|_| corrupt(0, format!("the kept Merkle node {level}/{index} is not 32 bytes")))?;
        found.insert(node, MerkleHash(hash));
    }
    nodes
        .iter()
        .map(|node| {
            found.get(node).copied().ok_or_else(|| {
                corrupt(
                    node.index.checked_shl(u32::from(node.level)).unwrap_or(u64::MAX).saturating_add(1),
                    format!("the kept Merkle tree lacks node {}/{}", node.level, node.index),
                )
            })
        })
        .collect()
}

/// The frontier of the tree of the first `size` events, from its kept nodes.
pub(super) async fn frontier(
    client: &impl GenericClient,
    select: &Statement,
    size: u64,
) -> Result<Frontier, StoreError> {
    let edge = perfect_nodes(Range { start: 0, end: size });
    let hashes = read(client, select, &edge).await?;
    Frontier::from_nodes(size, &hashes)
        .ok_or_else(|| corrupt(size, "the kept Merkle tree's right edge does not fit the log"))
}

/// Inserts `nodes` with `insert` (nothing to do for none).
pub(super) async fn insert(
    client: &impl GenericClient,
    insert: &Statement,
    nodes: &[(Node, MerkleHash)],
) -> Result<(), StoreError> {
    if nodes.is_empty() {
        return Ok(());
    }
    let levels: Vec<i16> = nodes.iter().map(|(n, _)| i16::from(n.level)).collect();
    let indices = nodes.iter().map(|(n, _)| to_i64(n.index)).collect::<Result<Vec<i64>, _>>()?;
    let hashes: Vec<&[u8]> = nodes.iter().map(|(_, h)| h.0.as_slice()).collect();
    client
        .execute(insert, &[&levels, &indices, &hashes])
        .await
        .map_err(pg_error("cannot insert the Merkle nodes"))?;
    Ok(())
}

/// Brings the kept tree level with the events (see the module comment): one transaction under
/// the head row's lock; returns the head and its frontier.
pub(super) async fn upcast(client: &mut Client, s: &str) -> Result<(Head, Frontier), StoreError> {
    let select = client.prepare(&select_sql(s)).await.map_err(pg_error("cannot prepare a statement"))?;
    let insert_nodes =
        client.prepare(&insert_sql(s)).await.map_err(pg_error("cannot prepare a statement"))?;
    let tx = client.transaction().await.map_err(pg_error("cannot begin the Merkle upcast"))?;
    let row = tx
        .query_one(&format!("SELECT seq, hash FROM {s}.agentwarden_head FOR UPDATE"), &[])
        .await
        .map_err(pg_error("cannot lock the head"))?;
    let head = super::head_of(&row)?;
    let row = tx
        .query_one(
            &format!("SELECT coalesce(max(idx) + 1, 0) FROM {s}.agentwarden_merkle WHERE level = 0"),
            &[],
        )
        .await
        .map_err(pg_error("cannot read the Merkle tree's size"))?;
    let kept = to_u64(row.try_get(0).map_err(pg_error("cannot read the Merkle tree's size"))?)?;
    if kept > head.seq {
        return Err(corrupt(
            head.seq.saturating_add(1),
            format!("the kept Merkle tree holds {kept} leaves, the log {} events", head.seq),
        ));
    }
    let mut frontier = frontier(&tx, &select, kept).await?;
    if kept == head.seq {
        return Ok((head, frontier));
    }
    tracing::info!(kept, head = head.seq, "building the Merkle tree over the PostgreSQL log");
    while frontier.size() < head.seq {
        let from = to_i64(frontier.size() + 1)?;
        let rows = tx
            .query(
                &format!(
                    "SELECT seq, body FROM {s}.agentwarden_events WHERE seq >= $1 ORDER BY seq LIMIT 4096"
                ),
                &[&from],
            )
            .await
            .map_err(pg_error("cannot read events"))?;
        if rows.is_empty() {
            return Err(corrupt(
                frontier.size() + 1,
                "the event is missing: the Merkle tree cannot be built",
            ));
        }
        let mut nodes = Vec::new();
        for row in &rows {
            let seq = to_u64(row.try_get(0).map_err(pg_error("cannot read an event"))?)?;
            if seq != frontier.size() + 1 {
                return Err(corrupt(
                    frontier.size() + 1,
                    "the event is missing: the Merkle tree cannot be built",
                ));
            }
            let body: &[u8] = row.try_get(1).map_err(pg_error("cannot read an event"))?;
            nodes.extend(frontier.append(MerkleHash::leaf(body)));
        }
        insert(&tx, &insert_nodes, &nodes).await?;
    }
    tx.commit().await.map_err(pg_error("cannot commit the Merkle upcast"))?;
    Ok((head, frontier))
}
