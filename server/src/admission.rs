//! Which connections the resident service holds open, and which one gives way to a newcomer
//! (V-51).
//!
//! The agent under guard runs as the user: it can open connections to the socket from as many
//! processes as it likes and send nothing. The server cannot tell such a connection from the
//! hook's own until it has read a request, so it keeps none of them against a newcomer:
//!
//! - a connection is *waiting* while the server waits on its client — for its request (from
//!   its accept, or from its previous answer) or for it to take its answer — and *working*
//!   only while the server decides its request, the one phase whose length the server bounds;
//! - a peer (uid, pid: `SO_PEERCRED`) holds at most `per_peer` connections at once: one more is
//!   refused;
//! - when `max` connections are open, a newcomer takes the place of a waiting connection: the
//!   oldest one of the peer holding the most connections, which is closed unanswered. Only when
//!   every open connection is working is the newcomer refused.
//!
//! Silent connections therefore never keep out a request: the agent can refuse the hook only
//! by opening `max` connections from as many processes while the hook's client has connected
//! but not yet written its request, every time. Every refusal and eviction is logged (tracing,
//! `warn`) naming both peers.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use tokio::sync::{Notify, oneshot};

/// A connection's peer, as `SO_PEERCRED` gives it (`None`: the system gave none).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Peer {
    pub(super) uid: Option<u32>,
    pub(super) pid: Option<i32>,
}

/// Why a connection was refused.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Refusal {
    /// Its peer already holds this many connections.
    PeerFull(usize),
    /// Every open connection is working on a request.
    AllWorking(usize),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::PeerFull(n) => {
                write!(f, "its peer already holds {n} connections, the most one peer may")
            }
            Refusal::AllWorking(n) => write!(f, "all {n} connections are working on a request"),
        }
    }
}

struct Entry {
    peer: Peer,
    /// When it last began to wait on its client.
    since: Instant,
    waiting: bool,
    /// Closes the connection when it is evicted.
    evict: Option<oneshot::Sender<()>>,
}

#[derive(Default)]
struct Table {
    next: u64,
    open: BTreeMap<u64, Entry>,
}

/// The open connections (V-51).
pub(super) struct Admission {
    table: Mutex<Table>,
    /// Told whenever a connection is released (the drain waits on it).
    released: Notify,
    max: usize,
    per_peer: usize,
}

/// One admitted connection's place; released when dropped.
pub(super) struct Slot {
    admission: Arc<Admission>,
    id: u64,
    /// Resolves when the connection was evicted: its task ends, closing it.
    pub(super) evicted: oneshot::Receiver<()>,
}

impl Admission {
    pub(super) fn new(max: usize, per_peer: usize) -> Arc<Admission> {
        Arc::new(Admission { table: Mutex::default(), released: Notify::new(), max, per_peer })
    }

    /// The table. A panic while it was held (none of its operations can) left it consistent:
    /// each of them changes it in one step, so it is used as it is.
    fn table(&self) -> MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Admits a connection of `peer`, waiting for its request, evicting a waiting one when all
    /// are open; the evicted connection's peer comes back to be logged.
    pub(super) fn admit(self: &Arc<Self>, peer: Peer) -> Result<(Slot, Option<Peer>), Refusal> {
        let mut table = self.table();
        let mut held: BTreeMap<Peer, usize> = BTreeMap::new();
        for entry in table.open.values() {
            *held.entry(entry.peer).or_default() += 1;
        }
        let mine = held.get(&peer).copied().unwrap_or(0);
        if mine >= self.per_peer {
            return Err(Refusal::PeerFull(mine));
        }
        let mut evicted = None;
        if table.open.len() >= self.max {
            let victim = table
                .open
                .iter()
                .filter(|(_, e)| e.waiting)
                .max_by_key(|(_, e)| (held.get(&e.peer).copied().unwrap_or(0), std::cmp::Reverse(e.since)))
                .map(|(id, _)| *id);
            let Some(entry) = victim.and_then(|id| table.open.remove(&id)) else {
                return Err(Refusal::AllWorking(table.open.len()));
            };
            if let Some(evict) = entry.evict {
                let _ = evict.send(());
            }
            evicted = Some(entry.peer);
        }
        let id = table.next;
        table.next = table.next.wrapping_add(1);
        let (evict, on_evicted) = oneshot::channel();
        table.open.insert(id, Entry { peer, since: Instant::now(), waiting: true, evict: Some(evict) });
        Ok((Slot { admission: Arc::clone(self), id, evicted: on_evicted }, evicted))
    }

    /// How many connections are open.
    #[cfg(test)]
    fn open(&self) -> usize {
        self.table().open.len()
    }

    /// Resolves once no connection is open.
    pub(super) async fn drained(&self) {
        loop {
            let released = self.released.notified();
            if self.table().open.is_empty() {
                return;
            }
            released.await;
        }
    }
}

impl Slot {
    /// The server now waits on the client: a newcomer may take this place.
    pub(super) fn waiting(&self) {
        self.set(true);
    }

    /// The server now decides this connection's request: no newcomer takes this place.
    pub(super) fn working(&self) {
        self.set(false);
    }

    fn set(&self, waiting: bool) {
        if let Some(entry) = self.admission.table().open.get_mut(&self.id) {
            if waiting && !entry.waiting {
                entry.since = Instant::now();
            }
            entry.waiting = waiting;
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.admission.table().open.remove(&self.id);
        self.admission.released.notify_waiters();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn peer(pid: i32) -> Peer {
        Peer { uid: Some(1000), pid: Some(pid) }
    }

    #[test]
    fn a_peer_holds_at_most_its_share_and_a_waiting_connection_gives_way() {
        let admission = Admission::new(3, 2);
        let (a1, _) = admission.admit(peer(1)).unwrap();
        let (mut a2, _) = admission.admit(peer(1)).unwrap();
        assert_eq!(admission.admit(peer(1)).err(), Some(Refusal::PeerFull(2)), "a third from one peer");
        let (b1, _) = admission.admit(peer(2)).unwrap();
        // Full: the newcomer takes the place of the oldest connection of the peer holding most.
        let (c1, evicted) = admission.admit(peer(3)).unwrap();
        assert_eq!(evicted, Some(peer(1)));
        assert!(a2.evicted.try_recv().is_err(), "the newer of peer 1's two stays");
        assert_eq!(admission.open(), 3);
        // Working connections are never evicted; with all working, the newcomer is refused.
        for slot in [&a2, &b1, &c1] {
            slot.working();
        }
        assert_eq!(admission.admit(peer(4)).err(), Some(Refusal::AllWorking(3)));
        b1.waiting();
        let (_d1, evicted) = admission.admit(peer(4)).unwrap();
        assert_eq!(evicted, Some(peer(2)), "the one waiting on its client");
        drop(a1);
        drop(c1);
        assert_eq!(admission.open(), 2, "a dropped slot is released, an evicted one already was");
    }

    #[test]
    fn the_drain_ends_when_the_last_connection_is_released() {
        let admission = Admission::new(2, 2);
        let (slot, _) = admission.admit(peer(1)).unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async {
            let drained = admission.drained();
            tokio::pin!(drained);
            assert!(futures_poll_once(drained.as_mut()).await.is_none(), "one is still open");
            drop(slot);
            drained.await;
        });
    }

    /// Polls `future` once.
    async fn futures_poll_once<F: std::future::Future + Unpin>(mut future: F) -> Option<F::Output> {
        std::future::poll_fn(|cx| {
            std::task::Poll::Ready(match std::pin::Pin::new(&mut future).poll(cx) {
                std::task::Poll::Ready(v) => Some(v),
                std::task::Poll::Pending => None,
            })
        })
        .await
    }
}
