//! Investigations: the audit log streamed, verified and decoded into projections.
//!
//! Every walk here starts at seq 1 and verifies the hash chain as it reads, a page at a time,
//! so what it holds does not grow with the log (ruling S-6). An investigation never answers
//! from a log that does not verify up to the events it read (A-11): a break is an error naming
//! the first broken seq, not a partial answer. An event the projection reads but this reader
//! cannot decode (an unknown type, a version from the future, a payload of the wrong shape) is
//! an error naming its seq too (A-12) — an answer that silently skipped it would be wrong.

use agentwarden_domain::audit::{ChainVerifier, EnvelopeRef, Head, RecordPage};
use agentwarden_domain::events::decode_ref;
use agentwarden_domain::events::projections::{Projection, Recorded};
use agentwarden_ports::StoreError;

use crate::warden::{Warden, WardenError};

impl Warden {
    /// Rebuilds `projection` from the whole log (see the module doc): streams it from seq 1,
    /// verifies the chain, decodes the events the projection wants (upcasting old versions) and
    /// folds them.
    ///
    /// ```no_run
    /// # async fn demo(warden: agentwarden::Warden) -> Result<(), agentwarden::WardenError> {
    /// use agentwarden::events::projections::Denials;
    /// let denials = warden.replay(&Denials).await?;
    /// println!("{} denials, by gate: {:?}", denials.denials, denials.by_gate);
    /// # Ok(()) }
    /// ```
    pub async fn replay<P: Projection>(&self, projection: &P) -> Result<P::State, WardenError> {
        self.replay_with_progress(projection, &mut |_| {}).await
    }

    /// [`Warden::replay`], calling `progress` with the last seq read after every page.
    pub async fn replay_with_progress<P: Projection>(
        &self,
        projection: &P,
        progress: &mut dyn FnMut(u64),
    ) -> Result<P::State, WardenError> {
        let mut state = P::State::default();
        self.walk_verified(None, progress, |envelope| {
            if projection.wants(envelope) {
                let event = decode_ref(envelope)
                    .map_err(|error| WardenError::Undecodable { seq: envelope.seq, error })?;
                projection.apply(&mut state, Recorded { envelope, event: &event });
            }
            Ok(())
        })
        .await?;
        Ok(state)
    }

    /// Walks the log from seq 1 to `until` (inclusive; the end when `None`), verifying every
    /// record before `visit` sees its envelope. Returns the last verified position.
    pub async fn walk_verified(
        &self,
        until: Option<u64>,
        progress: &mut dyn FnMut(u64),
        mut visit: impl FnMut(&EnvelopeRef<'_>) -> Result<(), WardenError>,
    ) -> Result<Head, WardenError> {
        self.walk_verified_after(Head::EMPTY, until, progress, |envelope, _| visit(envelope)).await
    }

    /// [`Warden::walk_verified`] from the event after `after` (a verified head), which the
    /// chain must continue; `visit` also gets each record's own head.
    ///
    /// Two stages overlap, a page each: while page k is verified (every record hashed) and then
    /// parsed and folded here, page k + 1 is read from the store (on the store's blocking
    /// thread). `visit` sees only records whose whole page verified, in order, so a break stops
    /// the walk before anything at or past it is folded. Reading is the longer stage (ruling
    /// S-4): a third stage that hashed on a thread of its own measured no faster and held twice
    /// the pages.
    pub(crate) async fn walk_verified_after(
        &self,
        after: Head,
        until: Option<u64>,
        progress: &mut dyn FnMut(u64),
        mut visit: impl FnMut(&EnvelopeRef<'_>, Head) -> Result<(), WardenError>,
    ) -> Result<Head, WardenError> {
        let limit = until.map(|until| until.saturating_sub(after.seq));
        let mut pages = self.pages(after.seq.saturating_add(1), limit);
        let mut verifier = ChainVerifier::after(after);
        let mut spare = RecordPage::new();
        let mut current = pages.next_into(RecordPage::new()).await?;
        while let Some(page) = current {
            let (read, folded) = tokio::join!(pages.next_into(spare), async {
                page.iter().try_for_each(|record| verifier.push(record)).map_err(WardenError::Broken)?;
                for record in page.iter() {
                    let envelope = EnvelopeRef::parse(record)
                        .map_err(|e| StoreError::Corrupt { seq: record.seq, why: e.to_string() })?;
                    visit(&envelope, Head { seq: record.seq, hash: record.hash })?;
                }
                if let Some(last) = page.last_seq() {
                    progress(last);
                }
                Ok::<_, WardenError>(page)
            });
            spare = folded?;
            current = read?;
        }
        Ok(verifier.head())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use agentwarden_adapters::MemoryEventStore;
    use agentwarden_domain::audit::{Correlation, CorrelationId};
    use agentwarden_domain::events::projections::{Decisions, Timeline};
    use agentwarden_domain::events::{AuditEvent, OperatorNote};

    use crate::Warden;
    use crate::audit_log::PAGE;

    #[tokio::test]
    async fn replay_streams_every_page_in_order() -> Result<(), crate::WardenError> {
        let warden = Warden::builder().store(Arc::new(MemoryEventStore::new())).build()?;
        let session = Some(CorrelationId::new("s")?);
        // More than two pages, so that the read-ahead and the page boundaries are crossed.
        let events = 2 * PAGE as u64 + PAGE as u64 / 2;
        for i in 0..events {
            let note = AuditEvent::OperatorNote(OperatorNote { message: format!("note {i}") });
            let correlation = if i % 2 == 0 {
                Correlation { session: session.clone(), ..Correlation::default() }
            } else {
                Correlation::default()
            };
            warden.record_event(correlation, &note).await?;
        }
        let timeline = warden.replay(&Timeline { session: "s".into() }).await?;
        let seqs: Vec<u64> = timeline.iter().map(|e| e.seq).collect();
        assert_eq!(seqs, (1..=events).step_by(2).collect::<Vec<u64>>());
        assert_eq!(warden.replay(&Decisions).await?.total.allow, 0, "notes decide nothing");
        let mut seen = Vec::new();
        let head = warden
            .walk_verified(Some(PAGE as u64 + 500), &mut |_| {}, |e| {
                seen.push(e.seq);
                Ok(())
            })
            .await?;
        assert_eq!((head.seq, seen.len() as u64), (PAGE as u64 + 500, PAGE as u64 + 500));
        Ok(())
    }
}

#[cfg(test)]
mod broken_tests {
    use std::sync::Arc;

    use agentwarden_adapters::MemoryEventStore;
    use agentwarden_domain::audit::{BreakKind, ChainBreak, Correlation};
    use agentwarden_domain::events::{AuditEvent, OperatorNote};
    use agentwarden_ports::EventStore;

    use crate::audit_log::{PAGE, Verification};
    use crate::testing::FixedLog;
    use crate::{Warden, WardenError};

    /// A break deep in the log (in the third page, while the fourth is being read) is named at
    /// its seq by `verify` and by a walk, and nothing at or past it reaches the visitor.
    #[tokio::test]
    async fn a_break_past_the_first_pages_stops_verify_and_walks_at_its_seq() -> Result<(), WardenError> {
        let at = 2 * PAGE as u64 + 7;
        let store = Arc::new(MemoryEventStore::new());
        let honest = Warden::builder().store(store.clone()).build()?;
        for chunk in 0..4u64 {
            for i in 0..PAGE as u64 {
                let note =
                    AuditEvent::OperatorNote(OperatorNote { message: format!("note {}", chunk * 1000 + i) });
                honest.record_event(Correlation::default(), &note).await?;
            }
        }
        // One digit of the record at `at` changed after it was written.
        let mut records = store.read(1, 4 * PAGE).await?;
        let body = &mut records[usize::try_from(at - 1).unwrap_or(usize::MAX)].body;
        if let Some(byte) = body.iter_mut().rev().find(|b| b.is_ascii_digit()) {
            *byte = if *byte == b'9' { b'0' } else { *byte + 1 };
        }
        let warden = Warden::builder().event_store(Arc::new(FixedLog(records))).without_state().build()?;
        let broken = ChainBreak { seq: at, why: BreakKind::HashMismatch };
        assert_eq!(warden.verify(None).await?, Verification::Broken(broken.clone()));
        let mut seen = Vec::new();
        let walked = warden
            .walk_verified(None, &mut |_| {}, |envelope| {
                seen.push(envelope.seq);
                Ok(())
            })
            .await;
        assert!(matches!(walked, Err(WardenError::Broken(ref b)) if *b == broken), "{walked:?}");
        assert_eq!(seen, (1..=2 * PAGE as u64).collect::<Vec<_>>(), "only the pages before the break");
        Ok(())
    }
}
