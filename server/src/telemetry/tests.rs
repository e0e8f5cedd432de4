use super::*;

use std::sync::atomic::AtomicBool;

use agentwarden::observe::{AuditEvent, OperatorNote, Timestamp};
use agentwarden::requests::{Actor, Correlation};
use agentwarden::store::{Appended, EventStore, Expected, StoreError, StoredRecord};

/// Which variables turn the export on, where it goes, and which refuse the start (V-60).
#[test]
fn the_variables_decide_whether_and_where_to_export() {
    type Row =
        (&'static [(&'static str, &'static str)], Result<Option<&'static str>, &'static str>, &'static str);
    let rows: &[Row] = &[
        (&[], Ok(None), "no endpoint: no export"),
        (&[("OTEL_EXPORTER_OTLP_ENDPOINT", " ")], Ok(None), "a blank endpoint is none"),
        (
            &[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318/")],
            Ok(Some("http://c:4318/v1/traces")),
            "the base endpoint gets the traces path",
        ),
        (
            &[
                ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://c/t"),
                ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://b"),
            ],
            Ok(Some("http://c/t")),
            "the traces endpoint is used as it is, before the base",
        ),
        (
            &[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c"), ("OTEL_SDK_DISABLED", "TRUE")],
            Ok(None),
            "the SDK disabled",
        ),
        (
            &[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c"), ("OTEL_TRACES_EXPORTER", "none")],
            Ok(None),
            "the traces exporter none",
        ),
        (
            &[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c"), ("OTEL_TRACES_EXPORTER", "otlp")],
            Ok(Some("http://c/v1/traces")),
            "otlp is this exporter",
        ),
        (
            &[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c"), ("OTEL_TRACES_EXPORTER", "console")],
            Err("OTEL_TRACES_EXPORTER"),
            "another exporter cannot be honoured",
        ),
        (
            &[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c"), ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")],
            Err("OTEL_EXPORTER_OTLP_PROTOCOL"),
            "gRPC is not built in",
        ),
        (
            &[
                ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c"),
                ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/json"),
            ],
            Err("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"),
            "nor JSON",
        ),
        (
            &[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c"), ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")],
            Ok(Some("http://c/v1/traces")),
            "protobuf over HTTP is",
        ),
        (
            &[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c"), ("OTEL_EXPORTER_OTLP_TRACES_COMPRESSION", "gzip")],
            Err("OTEL_EXPORTER_OTLP_TRACES_COMPRESSION"),
            "compression is not built in",
        ),
        (
            &[("OTEL_TRACES_EXPORTER", "zipkin")],
            Err("OTEL_TRACES_EXPORTER"),
            "refused even without an endpoint: the operator asked for something",
        ),
    ];
    for (vars, want, why) in rows {
        let got = endpoint(|name| vars.iter().find(|(n, _)| *n == name).map(|(_, v)| (*v).to_owned()));
        match (got, want) {
            (Ok(got), Ok(want)) => assert_eq!(got.as_deref(), *want, "{why}"),
            (Err(got), Err(var)) => assert!(got.contains(var), "{why}: {got}"),
            (got, want) => panic!("{why}: {got:?}, not {want:?}"),
        }
    }
}

/// A memory store whose sync fails when told.
#[derive(Default)]
struct Failing {
    inner: agentwarden::store::MemoryEventStore,
    fail: AtomicBool,
}

#[async_trait::async_trait]
impl EventStore for Failing {
    async fn append(&self, e: Expected, b: Vec<EventDraft>) -> Result<Appended, StoreError> {
        self.inner.append(e, b).await
    }
    async fn sync(&self) -> Result<(), StoreError> {
        if self.fail.load(Ordering::SeqCst) {
            return Err(StoreError::Unavailable { reason: "the test's disk failed".into() });
        }
        Ok(())
    }
    async fn read(&self, from: u64, limit: usize) -> Result<Vec<StoredRecord>, StoreError> {
        self.inner.read(from, limit).await
    }
    async fn head(&self) -> Result<Head, StoreError> {
        self.inner.head().await
    }
}

fn note(text: &str) -> EventDraft {
    let event = AuditEvent::OperatorNote(OperatorNote { message: text.to_owned() });
    let actor = Actor::new("test").unwrap();
    EventDraft::new(Timestamp::saturating_from_unix_millis(0), actor, Correlation::default(), &event).unwrap()
}

/// A tap on a [`Failing`] store, its queue of `capacity`, and the queue's other end.
fn tapped(capacity: usize) -> (Arc<Failing>, Tap, mpsc::Receiver<Recorded>, Arc<Counters>) {
    let store = Arc::new(Failing::default());
    let counters = Arc::new(Counters::default());
    let (send, events) = mpsc::channel(capacity);
    let queue = Arc::new(Queue { send, counters: Arc::clone(&counters) });
    (Arc::clone(&store), Tap::new(store, queue), events, counters)
}

fn run<T>(future: impl Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(future)
}

/// Nothing appended reaches the queue before a sync made it durable; a sync offers what
/// was appended before it began, at its seqs, in order; a failed sync offers nothing (V-62).
#[test]
fn the_tap_offers_events_only_once_a_sync_made_them_durable() {
    let (store, tap, mut events, counters) = tapped(16);
    run(async {
        tap.append_deferred(Expected::Any, vec![note("a"), note("b")]).await.unwrap();
        tap.append(Expected::Any, vec![note("c")]).await.unwrap();
        assert!(events.try_recv().is_err(), "nothing before the sync, a durable append's neither");
        tap.sync().await.unwrap();
        let seqs: Vec<u64> = std::iter::from_fn(|| events.try_recv().ok()).map(|r| r.seq).collect();
        assert_eq!(seqs, [1, 2, 3]);

        tap.append_deferred(Expected::Any, vec![note("d")]).await.unwrap();
        store.fail.store(true, Ordering::SeqCst);
        assert!(tap.sync().await.is_err());
        store.fail.store(false, Ordering::SeqCst);
        tap.sync().await.unwrap();
        assert!(events.try_recv().is_err(), "what a failed sync left unknown is never offered");
    });
    assert_eq!(counters.dropped.load(Ordering::Relaxed), 0, "notes are no spans: nothing counted");
    assert_eq!(run(tap.head()).unwrap().seq, 4, "every call reached the store");
}

/// A full queue never waits: the decisions past it are dropped and counted (V-61).
#[test]
fn a_full_queue_drops_and_counts_without_waiting() {
    let (_store, tap, _events, counters) = tapped(2);
    // The tap counts by event type alone: an event named as a decision is enough here.
    let decision = || {
        let actor = Actor::new("test").unwrap();
        let at = Timestamp::saturating_from_unix_millis(0);
        vec![EventDraft::new(at, actor, Correlation::default(), &Typed("hook_tool_evaluated")).unwrap()]
    };
    run(async {
        for _ in 0..5 {
            tap.append_deferred(Expected::Any, decision()).await.unwrap();
        }
        tap.sync().await.unwrap();
    });
    assert_eq!(counters.dropped.load(Ordering::Relaxed), 3, "two fit, three were dropped");
}

/// An event of any type name, with an empty payload.
struct Typed(&'static str);

impl agentwarden::observe::EventPayload for Typed {
    fn event_type(&self) -> &'static str {
        self.0
    }
    fn event_version(&self) -> u32 {
        1
    }
    fn write_payload(&self, out: &mut Vec<u8>) -> Result<(), serde_json::Error> {
        out.extend_from_slice(b"{}");
        Ok(())
    }
}

/// The envelope rebuilt from an appended draft is the event at its seq (V-62).
#[test]
fn the_envelope_of_a_recorded_draft_is_its_event_at_its_seq() {
    let recorded = Recorded { seq: 7, draft: note("hello") };
    let rebuilt = envelope(&recorded).unwrap();
    assert_eq!(rebuilt.seq, 7);
    assert_eq!(rebuilt.event_type, "operator_note");
    assert_eq!(rebuilt.payload.get(), r#"{"message":"hello"}"#);
    assert!(envelope(&Recorded { seq: 0, draft: note("x") }).is_none(), "no event at seq 0");
}

/// The delay a batch gathers for is the batch processor's standard variable, bounded (V-61).
#[test]
fn the_batch_delay_is_the_standard_variable_bounded() {
    let rows: [(Option<&str>, u64, &str); 4] = [
        (None, 500, "the default"),
        (Some("2000"), 2000, "as set"),
        (Some("soon"), 500, "not a number: the default"),
        (Some("999999999"), 60_000, "at most a minute"),
    ];
    for (value, millis, why) in rows {
        let delay = batch_delay(|_| value.map(str::to_owned));
        assert_eq!(delay, Duration::from_millis(millis), "{why}");
    }
}
