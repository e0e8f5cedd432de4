//! Group commit on PostgreSQL: the batches queued by concurrent appenders of one process go
//! into one transaction.
//!
//! An appender queues its batch with a reply channel, then waits for either its reply or the
//! connection. Whoever gets the connection takes everything queued and commits it: lock the
//! head row, check and seal each batch in turn after the head the previous one left (a conflict
//! or a bad import fails that batch alone), insert all the records in one statement, move the
//! head, commit, and only then reply to each appender. A transaction that fails fails every
//! batch in it. If the committer is cancelled mid-transaction, its appenders are told the
//! outcome is unknown (their replies are dropped): never a silent success.

use agentwarden_domain::audit::{EventDraft, StoredRecord};
use agentwarden_ports::{Appended, Expected, StoreError};
use tokio::sync::oneshot;

use agentwarden_domain::audit::merkle::MerkleHash;

use super::{Connection, PostgresEventStore, head_of, merkle, pg_error, to_i64};
use crate::sealing::{check_sealed, prepare};

/// What one appender asked for.
#[derive(Debug)]
pub(super) enum Work {
    /// Drafts to seal after the head.
    Drafts(Expected, Vec<EventDraft>),
    /// Records sealed elsewhere, to store as they are after head `seq`.
    Sealed(u64, Vec<StoredRecord>),
}

/// A queued batch and where its answer goes.
#[derive(Debug)]
pub(super) struct Pending {
    work: Work,
    reply: oneshot::Sender<Result<Appended, StoreError>>,
}

impl PostgresEventStore {
    /// Queues `work` and returns its result once it is committed (or has failed).
    pub(super) async fn submit(&self, work: Work) -> Result<Appended, StoreError> {
        let (reply, mut answer) = oneshot::channel();
        self.queue()?.push(Pending { work, reply });
        loop {
            tokio::select! {
                biased;
                answer = &mut answer => {
                    return answer.unwrap_or_else(|_| Err(StoreError::Unavailable {
                        reason: "the commit was interrupted; the batch may or may not be stored".into(),
                    }));
                }
                () = self.commit_queued() => {}
            }
        }
    }

    fn queue(&self) -> Result<std::sync::MutexGuard<'_, Vec<Pending>>, StoreError> {
        self.inner
            .queue
            .lock()
            .map_err(|_| StoreError::Poisoned { reason: "an appender panicked while queueing".into() })
    }

    /// Takes the connection, then everything queued, and commits it in one transaction.
    async fn commit_queued(&self) {
        let mut slot = self.inner.connection.lock().await;
        let group = match self.queue() {
            Ok(mut queue) => std::mem::take(&mut *queue),
            Err(_) => return,
        };
        if group.is_empty() {
            return;
        }
        let (works, replies): (Vec<Work>, Vec<_>) = group.into_iter().map(|p| (p.work, p.reply)).unzip();
        let config = &self.inner.config;
        let outcome = tokio::time::timeout(config.timeout, async {
            let connection = super::live(&mut slot, config).await.map_err(|e| super::at_server(config, e))?;
            let outcome = commit(connection, &works).await;
            if connection.client.is_closed() {
                *slot = None;
            }
            outcome.map_err(|e| super::at_server(config, e))
        })
        .await
        .unwrap_or_else(|_| {
            Err(StoreError::Unavailable {
                reason: format!(
                    "PostgreSQL at `{}` did not commit within {} ms; the batch may or may not be stored",
                    config.server(),
                    config.timeout.as_millis()
                ),
            })
        });
        if outcome.is_err() && slot.as_ref().is_some_and(|c| !c.client.is_closed()) {
            // A timed-out or failed transaction leaves the connection in an unknown state.
            *slot = None;
        }
        match outcome {
            Ok(results) => {
                for (reply, result) in replies.into_iter().zip(results) {
                    let _ = reply.send(result);
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "PostgreSQL event store commit failed");
                for reply in replies {
                    let _ = reply.send(Err(e.clone()));
                }
            }
        }
    }
}

/// One transaction for the whole group; the per-batch results, in order.
async fn commit(
    connection: &mut Connection,
    works: &[Work],
) -> Result<Vec<Result<Appended, StoreError>>, StoreError> {
    let Connection { client, statements, frontier: cached } = connection;
    let tx = client.transaction().await.map_err(pg_error("cannot begin the append"))?;
    let row = tx.query_one(&statements.lock_head, &[]).await.map_err(pg_error("cannot lock the head"))?;
    let mut head = head_of(&row)?;
    let start = head;
    // The frontier at the locked head: this connection's own when it left this head, else
    // read again (another host appended), A-36. Dropped until the commit succeeds.
    let mut frontier = match cached.take() {
        Some((at, frontier)) if at == start => frontier,
        _ => merkle::frontier(&tx, &statements.nodes, start.seq).await?,
    };
    let mut nodes = Vec::new();
    let mut results = Vec::with_capacity(works.len());
    let mut seqs = Vec::new();
    let mut prev_hashes: Vec<Vec<u8>> = Vec::new();
    let mut hashes: Vec<Vec<u8>> = Vec::new();
    let mut bodies: Vec<Vec<u8>> = Vec::new();
    for work in works {
        let sealed = match work {
            Work::Drafts(expected, batch) => prepare(&head, *expected, batch),
            Work::Sealed(expected, records) => {
                check_sealed(&head, *expected, records).map(|new| (records.clone(), new))
            }
        };
        match sealed {
            Ok((records, new_head)) => {
                let mut prev = head.hash;
                for record in records {
                    nodes.extend(frontier.append(MerkleHash::leaf(&record.body)));
                    seqs.push(to_i64(record.seq)?);
                    prev_hashes.push(prev.as_bytes().to_vec());
                    hashes.push(record.hash.as_bytes().to_vec());
                    prev = record.hash;
                    bodies.push(record.body);
                }
                results.push(Ok(Appended { first_seq: head.seq.saturating_add(1), head: new_head }));
                head = new_head;
            }
            Err(e) => results.push(Err(e)),
        }
    }
    if head != start {
        tx.execute(&statements.insert, &[&seqs, &prev_hashes, &hashes, &bodies])
            .await
            .map_err(pg_error("cannot insert the events"))?;
        tx.execute(&statements.set_head, &[&to_i64(head.seq)?, &head.hash.as_bytes().as_slice()])
            .await
            .map_err(pg_error("cannot move the head"))?;
        merkle::insert(&tx, &statements.insert_nodes, &nodes).await?;
    }
    if frontier.size() != head.seq {
        return Err(StoreError::Corrupt {
            seq: head.seq,
            why: format!("the Merkle tree holds {} events where the log holds {}", frontier.size(), head.seq),
        });
    }
    tx.commit().await.map_err(pg_error("cannot commit the append"))?;
    *cached = Some((head, frontier));
    Ok(results)
}
