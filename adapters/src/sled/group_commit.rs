//! Group commit: concurrent appenders share one flush instead of paying for one each.
//!
//! Each appender writes its batch (in memory, in order, under the head lock) and then waits
//! until the durable position reaches its last `seq`. The first waiter to find no flush in
//! progress becomes the leader: it notes how far the log has been written, flushes, and
//! publishes that position as durable. Everyone whose batch was written before the flush began
//! returns together; the rest elect the next leader. A failed flush poisons the store.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};

use agentwarden_ports::StoreError;

#[derive(Debug)]
pub(super) struct GroupCommit {
    state: Mutex<State>,
    flushed: Condvar,
}

#[derive(Debug)]
struct State {
    durable: u64,
    flushing: bool,
    failed: Option<String>,
}

fn poisoned(reason: &str) -> StoreError {
    StoreError::Poisoned { reason: reason.to_owned() }
}

impl GroupCommit {
    /// Everything up to `durable` is already on disk.
    pub(super) fn new(durable: u64) -> Self {
        GroupCommit {
            state: Mutex::new(State { durable, flushing: false, failed: None }),
            flushed: Condvar::new(),
        }
    }

    /// Fails if an earlier flush failed.
    pub(super) fn check_healthy(&self) -> Result<(), StoreError> {
        let state = self.state.lock().map_err(|_| poisoned("a flusher panicked"))?;
        match &state.failed {
            Some(reason) => Err(poisoned(reason)),
            None => Ok(()),
        }
    }

    /// Returns once every event up to `target` is durable, flushing as the leader if no flush
    /// is in progress. `written` is the highest seq written so far; `flush` makes everything
    /// written before it was called durable.
    pub(super) fn wait_durable(
        &self,
        target: u64,
        written: &AtomicU64,
        flush: impl Fn() -> Result<(), String>,
    ) -> Result<(), StoreError> {
        let mut state = self.state.lock().map_err(|_| poisoned("a flusher panicked"))?;
        loop {
            if let Some(reason) = &state.failed {
                return Err(poisoned(reason));
            }
            if state.durable >= target {
                return Ok(());
            }
            if state.flushing {
                state = self.flushed.wait(state).map_err(|_| poisoned("a flusher panicked"))?;
                continue;
            }
            state.flushing = true;
            let upto = written.load(Ordering::Acquire);
            drop(state);
            let result = flush();
            state = self.state.lock().map_err(|_| poisoned("a flusher panicked"))?;
            state.flushing = false;
            match result {
                Ok(()) => state.durable = state.durable.max(upto),
                Err(reason) => {
                    tracing::error!(%reason, "event store flush failed; refusing further appends");
                    state.failed = Some(reason);
                }
            }
            self.flushed.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::AtomicUsize;

    #[test]
    fn concurrent_waiters_share_flushes() {
        let commit = Arc::new(GroupCommit::new(0));
        let written = Arc::new(AtomicU64::new(0));
        let flushes = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (1..=32u64)
            .map(|_| {
                let (commit, written, flushes) = (commit.clone(), written.clone(), flushes.clone());
                std::thread::spawn(move || {
                    let seq = written.fetch_add(1, Ordering::AcqRel) + 1;
                    commit.wait_durable(seq, &written, || {
                        flushes.fetch_add(1, Ordering::Relaxed);
                        std::thread::sleep(std::time::Duration::from_millis(5));
                        Ok(())
                    })
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap().unwrap();
        }
        let flushes = flushes.load(Ordering::Relaxed);
        assert!((1..32).contains(&flushes), "32 waiters took {flushes} flushes");
    }

    #[test]
    fn a_failed_flush_poisons_every_later_wait() {
        let commit = GroupCommit::new(0);
        let written = AtomicU64::new(1);
        let err = commit.wait_durable(1, &written, || Err("disk on fire".into())).unwrap_err();
        assert_eq!(err, StoreError::Poisoned { reason: "disk on fire".into() });
        assert!(commit.check_healthy().is_err());
        written.store(2, Ordering::Release);
        assert!(commit.wait_durable(2, &written, || Ok(())).is_err());
    }

    #[test]
    fn already_durable_returns_without_flushing() {
        let commit = GroupCommit::new(5);
        let written = AtomicU64::new(5);
        commit.wait_durable(3, &written, || Err("must not flush".into())).unwrap();
    }
}
