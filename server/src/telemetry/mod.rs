//! OpenTelemetry export (issue 39, feature `otel`): every decision the server records becomes a
//! span (`spans`, V-62), sent over OTLP/HTTP with protobuf to the endpoint the standard
//! `OTEL_EXPORTER_OTLP_*` variables name, by the `opentelemetry-otlp` exporter on a thread of
//! its own.
//!
//! V-60: export is on when `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT`
//! is set (and neither `OTEL_SDK_DISABLED=true` nor `OTEL_TRACES_EXPORTER=none` turns it off);
//! the headers, timeout and the rest are the exporter's own reading of the variables. A setting
//! this build cannot honour — another exporter than `otlp`, another protocol than
//! `http/protobuf`, compression, an endpoint that is no URL — refuses to start the server,
//! rather than serve with an export that silently sends nothing.
//!
//! V-61: export never delays or changes a decision. The spans come from the events after they
//! are durable (`tap`, V-62), are offered to a bounded queue without waiting ([`QUEUE`] events),
//! and are derived and sent on the exporter's thread; a full queue, a failed export, or spans
//! still queued when the stop's deadline passes are dropped and counted, and `warden status`
//! shows the counts (`export` in its answer).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use opentelemetry_sdk::trace::{SpanData, SpanExporter as _};
use tokio::sync::{mpsc, oneshot};

use agentwarden::Warden;
use agentwarden::observe::{Envelope, Hash, credentials, seal};
use agentwarden::store::{EventDraft, Head};
use agentwarden_protocol::SpanExport;

mod spans;
mod tap;

use spans::Lineage;
use tap::{Recorded, Tap};

/// How many durable events may wait for the exporter; past it they are dropped (V-61).
pub(crate) const QUEUE: usize = 4096;

/// The most spans one export request carries.
const BATCH: usize = 512;

/// How long, by default, the exporter gathers spans into one request after the first (V-61).
const DELAY: Duration = Duration::from_millis(500);

/// The event types that become spans: the decisions (V-62).
const DECISIONS: &[&str] = &[
    "subagent_spawn_evaluated",
    "delegation_evaluated",
    "hook_tool_evaluated",
    "tool_call_authorized",
    "subagent_stopped",
    "session_stopped",
    "session_ended",
    "config_change_blocked",
    "lineage_checked",
];

/// What V-60 reads from the environment: whether to export, and where (for `warden status`;
/// the exporter resolves the endpoint itself from the same variables).
fn endpoint(var: impl Fn(&str) -> Option<String>) -> Result<Option<String>, String> {
    let set = |name: &str| var(name).filter(|v| !v.trim().is_empty());
    if set("OTEL_SDK_DISABLED").is_some_and(|v| v.trim().eq_ignore_ascii_case("true")) {
        return Ok(None);
    }
    match set("OTEL_TRACES_EXPORTER").map(|v| v.trim().to_ascii_lowercase()).as_deref() {
        None | Some("otlp") => {}
        Some("none") => return Ok(None),
        Some(other) => {
            return Err(format!(
                "`OTEL_TRACES_EXPORTER={other}`: `warden serve` exports traces over OTLP only (`otlp`, or `none`)"
            ));
        }
    }
    let endpoint = match (set("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"), set("OTEL_EXPORTER_OTLP_ENDPOINT")) {
        (Some(traces), _) => traces,
        (None, Some(base)) => format!("{}/v1/traces", base.trim_end_matches('/')),
        (None, None) => return Ok(None),
    };
    for name in ["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"] {
        if let Some(protocol) = set(name)
            && protocol.trim() != "http/protobuf"
        {
            return Err(format!(
                "`{name}={protocol}`: `warden serve` exports over `http/protobuf` only; unset it or set that"
            ));
        }
    }
    for name in ["OTEL_EXPORTER_OTLP_TRACES_COMPRESSION", "OTEL_EXPORTER_OTLP_COMPRESSION"] {
        if let Some(compression) = set(name)
            && !compression.trim().eq_ignore_ascii_case("none")
        {
            return Err(format!("`{name}={compression}`: `warden serve` sends spans uncompressed; unset it"));
        }
    }
    Ok(Some(endpoint))
}

/// The export's counts (V-61).
#[derive(Debug, Default)]
struct Counters {
    exported: AtomicU64,
    dropped: AtomicU64,
    /// Spans in the export request on its way.
    sending: AtomicU64,
    /// Why the last export failed, while the last one failed.
    last_error: Mutex<Option<String>>,
}

impl Counters {
    fn failed(&self, why: Option<String>) {
        // An exporter's error may name the endpoint as given.
        let why = why.map(|why| credentials(&why));
        let was = match self.last_error.lock() {
            Ok(mut last) => std::mem::replace(&mut *last, why.clone()),
            Err(_) => None,
        };
        match (was, why) {
            (None, Some(why)) => {
                tracing::warn!(error = %why, "spans could not be exported; they are dropped and counted")
            }
            (Some(_), None) => tracing::info!("spans are exported again"),
            _ => {}
        }
    }
}

/// The bounded queue from the tap to the exporter (V-61).
#[derive(Debug)]
pub(crate) struct Queue {
    send: mpsc::Sender<Recorded>,
    counters: Arc<Counters>,
}

impl Queue {
    /// Offers `recorded` to the exporter, without waiting: dropped (and counted, when it is a
    /// decision) when the queue is full or the exporter has stopped.
    fn offer(&self, recorded: Recorded) {
        if let Err(e) = self.send.try_send(recorded) {
            let recorded = match e {
                mpsc::error::TrySendError::Full(r) | mpsc::error::TrySendError::Closed(r) => r,
            };
            self.count_dropped(&recorded.draft);
        }
    }

    fn count_dropped(&self, draft: &EventDraft) {
        if DECISIONS.contains(&draft.event_type()) {
            self.counters.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// The running export: its counts, and how to stop it.
#[derive(Debug)]
pub(crate) struct Telemetry {
    endpoint: String,
    queue: Arc<Queue>,
    stop: Mutex<Option<oneshot::Sender<Instant>>>,
    done: Mutex<std::sync::mpsc::Receiver<()>>,
}

/// When the environment asks for export, `warden` recording through a [`Tap`] and the
/// running export; otherwise `warden` as it is. `store` (the log's description) salts the ids (V-60).
pub(crate) fn start(warden: Warden, store: &str) -> Result<(Warden, Option<Telemetry>), String> {
    let Some(endpoint) = endpoint(|name| std::env::var(name).ok())? else {
        return Ok((warden, None));
    };
    // What is shown — `warden status`, the log, an error — never holds the endpoint's
    // credentials; the exporter reads the variables itself.
    let endpoint = credentials(&endpoint);
    let mut exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .build()
        .map_err(|e| format!("cannot export to `{endpoint}`: {e}"))?;
    exporter.set_resource(&resource());
    let counters = Arc::new(Counters::default());
    let (send, events) = mpsc::channel(QUEUE);
    let queue = Arc::new(Queue { send, counters: Arc::clone(&counters) });
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the exporter: {e}"))?;
    let (stop, stopped) = oneshot::channel();
    let (finished, done) = std::sync::mpsc::channel();
    let lineage = Lineage::new(store.to_owned());
    let delay = batch_delay(|name| std::env::var(name).ok());
    std::thread::Builder::new()
        .name("otel-export".into())
        .spawn(move || {
            runtime.block_on(export(events, exporter, lineage, counters, stopped, delay));
            let _ = finished.send(());
        })
        .map_err(|e| format!("cannot start the exporter: {e}"))?;
    tracing::info!(endpoint = %endpoint, "exporting decisions as OpenTelemetry spans");
    let tapped =
        warden.with_event_store(Arc::new(Tap::new(Arc::clone(warden.event_store()), Arc::clone(&queue))));
    Ok((tapped, Some(Telemetry { endpoint, queue, stop: Mutex::new(Some(stop)), done: Mutex::new(done) })))
}

/// How long the exporter gathers spans into one request (V-61): `OTEL_BSP_SCHEDULE_DELAY`
/// milliseconds, the batch processor's standard variable, else [`DELAY`]; at most a minute.
fn batch_delay(var: impl Fn(&str) -> Option<String>) -> Duration {
    var("OTEL_BSP_SCHEDULE_DELAY")
        .and_then(|ms| ms.trim().parse::<u64>().ok())
        .map_or(DELAY, |ms| Duration::from_millis(ms.min(60_000)))
}

/// The service's resource: the variables' (`OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`),
/// named `agent-warden` when they name no service.
fn resource() -> opentelemetry_sdk::Resource {
    let named = std::env::var_os("OTEL_SERVICE_NAME").is_some()
        || std::env::var("OTEL_RESOURCE_ATTRIBUTES").is_ok_and(|a| a.contains("service.name="));
    let builder = opentelemetry_sdk::Resource::builder()
        .with_attribute(opentelemetry::KeyValue::new("service.version", env!("CARGO_PKG_VERSION")));
    if named { builder.build() } else { builder.with_service_name("agent-warden").build() }
}

impl Telemetry {
    /// What `warden status` shows (V-61).
    pub(crate) fn status(&self) -> SpanExport {
        let counters = &self.queue.counters;
        let waiting = self.queue.send.max_capacity().saturating_sub(self.queue.send.capacity());
        SpanExport {
            endpoint: self.endpoint.clone(),
            exported: counters.exported.load(Ordering::Relaxed),
            dropped: counters.dropped.load(Ordering::Relaxed),
            queued: u64::try_from(waiting).unwrap_or(u64::MAX) + counters.sending.load(Ordering::Relaxed),
            last_error: counters.last_error.lock().ok().and_then(|e| e.clone()),
        }
    }

    /// Stops the export (V-61): what is queued gets one export within `within`; what is not sent
    /// by then is dropped and counted. Returns the final counts.
    pub(crate) fn stop(&self, within: Duration) -> SpanExport {
        if let Some(stop) = self.stop.lock().ok().and_then(|mut stop| stop.take()) {
            let _ = stop.send(Instant::now() + within);
            // The exporter ends at the deadline; a little more for its thread to return.
            if let Ok(done) = self.done.lock() {
                let _ = done.recv_timeout(within + Duration::from_millis(500));
            }
        }
        self.status()
    }
}

/// The exporter's loop: events in, spans out, until the stop (V-61).
async fn export(
    mut events: mpsc::Receiver<Recorded>,
    exporter: opentelemetry_otlp::SpanExporter,
    mut lineage: Lineage,
    counters: Arc<Counters>,
    mut stop: oneshot::Receiver<Instant>,
    delay: Duration,
) {
    let mut buffer = Vec::with_capacity(BATCH);
    // Set once the stop came (or every sender is gone): its deadline.
    let mut stopped = None;
    while stopped.is_none() {
        tokio::select! {
            biased;
            at = &mut stop => stopped = Some(at.unwrap_or_else(|_| Instant::now())),
            n = events.recv_many(&mut buffer, BATCH) => if n == 0 { stopped = Some(Instant::now()) },
        }
        // One request per batch: what arrives within the delay after the first event, at most
        // [`BATCH`] events (a request per group would cost the machine more than the spans).
        let flush = tokio::time::Instant::now() + delay;
        while stopped.is_none() && !buffer.is_empty() && buffer.len() < BATCH {
            let room = BATCH - buffer.len();
            tokio::select! {
                biased;
                at = &mut stop => stopped = Some(at.unwrap_or_else(|_| Instant::now())),
                () = tokio::time::sleep_until(flush) => break,
                n = events.recv_many(&mut buffer, room) => if n == 0 { stopped = Some(Instant::now()) },
            }
        }
        let spans = derive(&mut lineage, buffer.drain(..));
        send(&exporter, &counters, spans, stopped).await;
    }
    let deadline = stopped.unwrap_or_else(Instant::now);
    events.close();
    let mut late = false;
    loop {
        buffer.clear();
        while buffer.len() < BATCH
            && let Ok(recorded) = events.try_recv()
        {
            buffer.push(recorded);
        }
        if buffer.is_empty() {
            break;
        }
        let spans = derive(&mut lineage, buffer.drain(..));
        if late || Instant::now() >= deadline {
            late = true;
            counters.dropped.fetch_add(u64::try_from(spans.len()).unwrap_or(u64::MAX), Ordering::Relaxed);
            continue;
        }
        send(&exporter, &counters, spans, Some(deadline)).await;
    }
    let _ = exporter.shutdown();
}

/// The spans of `recorded` events, in log order.
fn derive(lineage: &mut Lineage, recorded: impl Iterator<Item = Recorded>) -> Vec<SpanData> {
    recorded.filter_map(|r| envelope(&r)).filter_map(|e| lineage.span(&e)).collect()
}

/// The envelope of an appended draft at its seq: the body the store wrote (its chain fields
/// aside, which no span uses).
fn envelope(recorded: &Recorded) -> Option<Envelope> {
    let prev = Head { seq: recorded.seq.checked_sub(1)?, hash: Hash::GENESIS };
    let record = seal(&prev, &recorded.draft).ok()?;
    Envelope::parse(&record).ok()
}

/// Sends `spans` in one request (before `deadline`, when given), and counts them.
async fn send(
    exporter: &opentelemetry_otlp::SpanExporter,
    counters: &Counters,
    spans: Vec<SpanData>,
    deadline: Option<Instant>,
) {
    if spans.is_empty() {
        return;
    }
    let count = u64::try_from(spans.len()).unwrap_or(u64::MAX);
    counters.sending.store(count, Ordering::Relaxed);
    let sent = exporter.export(spans);
    let result = match deadline {
        None => sent.await.map_err(|e| e.to_string()),
        Some(at) => match tokio::time::timeout_at(at.into(), sent).await {
            Ok(result) => result.map_err(|e| e.to_string()),
            Err(_) => Err("the stop's deadline passed".to_owned()),
        },
    };
    counters.sending.store(0, Ordering::Relaxed);
    match result {
        Ok(()) => {
            counters.exported.fetch_add(count, Ordering::Relaxed);
            counters.failed(None);
        }
        Err(why) => {
            counters.dropped.fetch_add(count, Ordering::Relaxed);
            counters.failed(Some(why));
        }
    }
}

#[cfg(test)]
mod tests;
