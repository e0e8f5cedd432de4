//! Group commit: concurrent appenders share one flush instead of paying for one each.
//!
//! Each appender writes its event (in memory, in order, under the head lock) and then waits,
//! without holding a thread, until the durable position reaches its `seq`. The first waiter to
//! find no flush in progress becomes the leader: it notes how far the log has been written,
//! flushes on a blocking thread, and publishes that position as durable. Everyone written before
//! the flush began returns together; the rest elect the next leader. A failed flush poisons the
//! store. If a leader's future is dropped mid-flush, its guard hands the role on, so a cancelled
//! append cannot wedge the others.

use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use agentwarden_ports::StoreError;
use tokio::sync::watch;

#[derive(Debug)]
pub(super) struct GroupCommit {
    state: watch::Sender<State>,
    flushing: AtomicBool,
}

#[derive(Clone, Debug)]
struct State {
    durable: u64,
    failed: Option<String>,
}

fn poisoned(reason: &str) -> StoreError {
    StoreError::Poisoned { reason: reason.to_owned() }
}

/// Releases the leader role when the flush ends, however it ends, and wakes the waiters.
struct Leader<'a>(&'a GroupCommit);

impl Drop for Leader<'_> {
    fn drop(&mut self) {
        self.0.flushing.store(false, Ordering::Release);
        self.0.state.send_modify(|_| {});
    }
}

impl GroupCommit {
    /// Everything up to `durable` is already on disk.
    pub(super) fn new(durable: u64) -> Self {
        GroupCommit {
            state: watch::Sender::new(State { durable, failed: None }),
            flushing: AtomicBool::new(false),
        }
    }

    /// Fails if an earlier flush failed.
    pub(super) fn check_healthy(&self) -> Result<(), StoreError> {
        match &self.state.borrow().failed {
            Some(reason) => Err(poisoned(reason)),
            None => Ok(()),
        }
    }

    /// How far the log is durable.
    pub(super) fn durable(&self) -> u64 {
        self.state.borrow().durable
    }

    /// Refuses every later append and wait: what reached the disk is unknown (a flush outside
    /// the group commit failed).
    pub(super) fn poison(&self, reason: String) {
        self.state.send_modify(|state| {
            state.failed.get_or_insert(reason);
        });
    }

    /// Returns once every event up to `target` is durable, flushing as the leader if no flush
    /// is in progress. `written` is the highest seq written so far; `flush` makes everything
    /// written before it was called durable.
    pub(super) async fn wait_durable<F, Fut>(
        &self,
        target: u64,
        written: &AtomicU64,
        flush: F,
    ) -> Result<(), StoreError>
    where
        F: Fn() -> Fut,
        Fut: Future<Output = Result<(), String>>,
    {
        let mut changes = self.state.subscribe();
        loop {
            {
                let state = changes.borrow_and_update();
                if let Some(reason) = &state.failed {
                    return Err(poisoned(reason));
                }
                if state.durable >= target {
                    return Ok(());
                }
            }
            if self.flushing.compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire).is_ok() {
                let leader = Leader(self);
                let upto = written.load(Ordering::Acquire);
                let result = flush().await;
                self.state.send_modify(|state| match result {
                    Ok(()) => state.durable = state.durable.max(upto),
                    Err(reason) => {
                        tracing::error!(%reason, "event store flush failed; refusing further appends");
                        state.failed = Some(reason);
                    }
                });
                drop(leader);
            } else if changes.changed().await.is_err() {
                return Err(poisoned("the commit channel closed"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::AtomicUsize;
    use std::time::Duration;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrent_waiters_share_flushes() {
        let commit = Arc::new(GroupCommit::new(0));
        let written = Arc::new(AtomicU64::new(0));
        let flushes = Arc::new(AtomicUsize::new(0));
        let tasks: Vec<_> = (0..32)
            .map(|_| {
                let (commit, written, flushes) = (commit.clone(), written.clone(), flushes.clone());
                tokio::spawn(async move {
                    let seq = written.fetch_add(1, Ordering::AcqRel) + 1;
                    commit
                        .wait_durable(seq, &written, || {
                            let flushes = flushes.clone();
                            async move {
                                flushes.fetch_add(1, Ordering::Relaxed);
                                tokio::time::sleep(Duration::from_millis(5)).await;
                                Ok(())
                            }
                        })
                        .await
                })
            })
            .collect();
        for task in tasks {
            task.await.unwrap().unwrap();
        }
        let flushes = flushes.load(Ordering::Relaxed);
        assert!((1..32).contains(&flushes), "32 waiters took {flushes} flushes");
    }

    #[tokio::test]
    async fn a_failed_flush_poisons_every_later_wait() {
        let commit = GroupCommit::new(0);
        let written = AtomicU64::new(1);
        let err =
            commit.wait_durable(1, &written, || async { Err("disk on fire".into()) }).await.unwrap_err();
        assert_eq!(err, StoreError::Poisoned { reason: "disk on fire".into() });
        assert!(commit.check_healthy().is_err());
        written.store(2, Ordering::Release);
        assert!(commit.wait_durable(2, &written, || async { Ok(()) }).await.is_err());
    }

    #[tokio::test]
    async fn already_durable_returns_without_flushing() {
        let commit = GroupCommit::new(5);
        let written = AtomicU64::new(5);
        commit.wait_durable(3, &written, || async { Err("must not flush".into()) }).await.unwrap();
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_cancelled_leader_does_not_wedge_the_others() {
        let commit = Arc::new(GroupCommit::new(0));
        let written = Arc::new(AtomicU64::new(1));
        // The leader hangs in its flush and is then cancelled.
        let leader = {
            let (commit, written) = (commit.clone(), written.clone());
            tokio::spawn(async move {
                commit.wait_durable(1, &written, std::future::pending::<Result<(), String>>).await
            })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        leader.abort();
        let follower = commit.wait_durable(1, &written, || async { Ok(()) });
        tokio::time::timeout(Duration::from_secs(5), follower).await.expect("a follower took over").unwrap();
    }
}
