//! The decider (V-7): one thread takes the requests in the order they came and decides them one
//! at a time, in groups that share one sync (V-26, V-45), failing everything once a sync failed
//! (V-28).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, oneshot};

use agentwarden::Code;
use agentwarden::requests::Actor;
use agentwarden::{Answered, Config, Deferring, HookAnswer, HookStorage, StoreLocation};
use agentwarden_protocol::Answer;

use crate::commands::{DecideRequest, Host};

/// A request for the decider.
pub(crate) enum Job {
    Hook(HookJob),
    /// A decision command's question (V-13, V-54).
    Decide(DecideJob),
}

/// One decision command's question for the decider, and where its answer goes.
pub(crate) struct DecideJob {
    pub(crate) request: DecideRequest,
    pub(crate) reply: oneshot::Sender<Answer>,
}

/// One hook request for the decider, and where its answer goes.
pub(crate) struct HookJob {
    pub(crate) config: Option<String>,
    pub(crate) input: String,
    /// The harness the request names (`None`: the default, C-7).
    pub(crate) harness: Option<String>,
    /// Who asks (V-18).
    pub(crate) peer: Actor,
    pub(crate) reply: oneshot::Sender<HookAnswer>,
}

/// What the decider needs.
pub(crate) struct Decider {
    /// Its answers are undurable until the group's sync releases them.
    pub(crate) warden: Deferring,
    pub(crate) location: StoreLocation,
    pub(crate) config: Option<PathBuf>,
    /// The configuration last parsed, by its bytes' digest (V-36).
    pub(crate) configs: agentwarden::ConfigCache,
    /// What `decide` requests are answered with (V-13, V-54).
    pub(crate) host: Host,
    /// The harnesses whose hook events the server decides: each decodes its own (the server
    /// names no harness, X-64; C-7).
    pub(crate) harnesses: crate::Harnesses,
    /// The log's tree: its durable head moves with each group's sync (V-65, A-43).
    pub(crate) tlog: Arc<crate::tlog::Tlog>,
}

/// Starts the decider (V-7): one thread that takes the hook requests in the order they came,
/// as direct mode takes them one process at a time under the store's lock.
///
/// V-26 (group commit): it takes every request already waiting (at most [`QUEUE`]), decides
/// them one after another with its events appended deferred ([`Warden::deferring`]), makes
/// them all durable with one [`agentwarden::store::EventStore::sync`], and only then sends
/// the answers — an answer never leaves before its event is durable, and one flush serves the
/// whole group. An answer that recorded nothing waits for the same sync when it may rest on
/// the group's earlier events (the session index they rewrote); V-35: one decided before any
/// of its group was stored leaves at once.
///
/// V-28: a failed sync leaves it unknown what reached the disk: every answer of the group, and
/// every later one, is exit 2 (`store_unavailable`) until the server is restarted and the store
/// reopened and verified; nothing is decided from records that may not be on the log.
pub(crate) fn start(decider: Decider) -> Result<mpsc::Sender<Job>, String> {
    let (send, jobs) = mpsc::channel::<Job>(QUEUE);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the decider: {e}"))?;
    std::thread::Builder::new()
        .name("decider".into())
        .spawn(move || runtime.block_on(decide(&decider, jobs)))
        .map_err(|e| format!("cannot start the decider: {e}"))?;
    Ok(send)
}

/// An answer decided in the current group, sent once the group is durable (V-26).
enum Decided {
    Hook(oneshot::Sender<HookAnswer>, Answered),
    Decide(oneshot::Sender<Answer>, Answer),
}

/// The decider's loop (V-26, V-28): until every sender is gone. A served command (V-13) is
/// decided in its place in the group like a hook event; its events are appended by a Warden
/// that does not defer, and its answer, too, leaves only after the group's sync.
///
/// V-45: a group's sync and answers are left to a task of their own ([`complete`]), and the
/// decider goes on to the next group while that sync runs: the flush (a blocking thread, the
/// store's I/O) no longer holds up the decisions behind it. The groups' tasks are chained: each
/// waits for the one before it, so answers leave in group order, each after its own group's
/// sync and every earlier group's. An answer that would leave at once (V-35) waits, too, while
/// an earlier group's answers have not all left: it may rest on that group's index rewrites.
async fn decide(decider: &Decider, mut jobs: mpsc::Receiver<Job>) {
    let mut group = Vec::with_capacity(QUEUE);
    let broken = Broken::default();
    // The task completing the last group decided, while its answers have not all left.
    let mut before: Option<tokio::task::JoinHandle<()>> = None;
    let mut saved = Instant::now();
    while jobs.recv_many(&mut group, QUEUE).await > 0 {
        let mut answers = Vec::with_capacity(group.len());
        let mut stored = false;
        for job in group.drain(..) {
            let pending = before.as_ref().is_some_and(|task| !task.is_finished());
            match job {
                Job::Hook(job) if job.reply.is_closed() => {}
                Job::Decide(job) if job.reply.is_closed() => {}
                Job::Hook(job) => {
                    let answer = match broken.why() {
                        Some(why) => Answered::Plain(HookAnswer::failed(Code::StoreUnavailable, why)),
                        None => {
                            hook(decider, job.config.as_deref(), job.harness.as_deref(), &job.input, job.peer)
                                .await
                        }
                    };
                    // An answer that asked no store and comes before anything of its
                    // group was stored rests only on what earlier groups made durable: it
                    // leaves at once, without waiting for this group's sync — once every
                    // earlier group's answers have left (V-45, V-35).
                    let answer = match answer {
                        Answered::Plain(answer) if !stored && !pending => {
                            let _ = job.reply.send(answer);
                            continue;
                        }
                        answer => answer,
                    };
                    stored |= matches!(answer, Answered::Pending(_));
                    answers.push(Decided::Hook(job.reply, answer));
                }
                Job::Decide(job) => {
                    let answer = match broken.why() {
                        Some(why) => Answer::error(Code::StoreUnavailable, why),
                        None => {
                            stored = true;
                            crate::commands::answer(
                                &decider.host,
                                decider.harnesses.default_harness(),
                                job.request,
                            )
                            .await
                        }
                    };
                    answers.push(Decided::Decide(job.reply, answer));
                }
            }
            if pending {
                // The earlier group's task sends its answers as soon as its sync ends.
                tokio::task::yield_now().await;
            }
        }
        if answers.is_empty() {
            continue;
        }
        let warden = decider.warden.clone();
        let group = Group { stored, answers, tlog: Arc::clone(&decider.tlog) };
        before = Some(tokio::spawn(complete(before.take(), warden, group, broken.clone())));
        // The group's task starts its sync before the next group is decided.
        tokio::task::yield_now().await;
        if stored && saved.elapsed() >= SAVE_RECORDS_EVERY {
            // Saved once every answer decided so far has left, never on their way, and
            // never with events a sync has not made durable (V-27).
            if let Some(task) = before.take() {
                let _ = task.await;
            }
            if broken.why().is_none() {
                save_records(&decider.warden).await;
            }
            saved = Instant::now();
        }
    }
    if let Some(task) = before.take() {
        let _ = task.await;
    }
}

/// Why every decision fails once a sync failed; shared by the decider and the groups'
/// tasks. A lock poisoned by a panic fails closed, too (V-28).
#[derive(Clone, Default)]
struct Broken(Arc<std::sync::Mutex<Option<String>>>);

impl Broken {
    fn why(&self) -> Option<String> {
        match self.0.lock() {
            Ok(why) => why.clone(),
            Err(_) => Some("the server's decider failed; restart `warden serve`".to_owned()),
        }
    }

    fn set(&self, why: String) {
        if let Ok(mut broken) = self.0.lock() {
            broken.get_or_insert(why);
        }
    }
}

/// One group's answers, as its task completes them.
struct Group {
    /// Whether it appended anything (then it needs a sync).
    stored: bool,
    answers: Vec<Decided>,
    tlog: Arc<crate::tlog::Tlog>,
}

/// Completes one group (V-26, V-45): after the group before it has completed, makes the
/// group's events durable with one sync (when it stored any) and only then sends its answers.
/// A failed sync — this group's or an earlier one's — fails every answer of the group (V-28).
async fn complete(
    before: Option<tokio::task::JoinHandle<()>>,
    warden: Deferring,
    group: Group,
    broken: Broken,
) {
    let Group { stored, answers, tlog } = group;
    let started = Instant::now();
    if let Some(before) = before
        && let Err(e) = before.await
    {
        broken.set(format!("the server lost a group of answers ({e}); restart `warden serve`"));
    }
    let waited = started.elapsed();
    // Without a sync, nothing pending is released (a group that stored nothing holds
    // none; should one be there all the same, it fails).
    let mut synced = None;
    if stored && broken.why().is_none() {
        let head = tlog.before_sync().await;
        match warden.sync().await {
            Ok(done) => {
                synced = Some(done);
                // The durable head moves after the sync; the signer signs it off this path.
                if let Some(head) = head {
                    tlog.synced(head);
                }
            }
            Err(e) => {
                tracing::error!(error = %e, "the group's events could not be made durable");
                broken
                    .set(format!("the server could not make its log durable ({e}); restart `warden serve`"));
            }
        }
    }
    // `RUST_LOG=warden::groups=debug`: each group's size and its waits, alone.
    tracing::debug!(
        target: "warden::groups",
        answers = answers.len(),
        stored,
        before_us = waited.as_micros(),
        sync_us = (started.elapsed() - waited).as_micros(),
        "group completed"
    );
    let broken = broken.why();
    for decided in answers {
        match (decided, &broken) {
            (Decided::Hook(reply, _), Some(why)) => {
                let _ = reply.send(HookAnswer::failed(Code::StoreUnavailable, why.clone()));
            }
            (Decided::Hook(reply, Answered::Plain(answer)), None) => {
                let _ = reply.send(answer);
            }
            (Decided::Hook(reply, Answered::Pending(pending)), None) => {
                let answer = synced
                    .ok_or(agentwarden::NotCovered)
                    .and_then(|synced| pending.release(synced))
                    .unwrap_or_else(|e| HookAnswer::failed(e.code(), e.to_string()));
                let _ = reply.send(answer);
            }
            (Decided::Decide(reply, _), Some(why)) => {
                let _ = reply.send(Answer::error(Code::StoreUnavailable, why.clone()));
            }
            (Decided::Decide(reply, answer), None) => {
                let _ = reply.send(answer);
            }
        }
    }
}

/// How many hook requests may wait for the decider, and the largest group it commits at once.
pub(crate) const QUEUE: usize = 256;

/// How often, at most, the decider saves the records (a cache of a fold over the log,
/// rebuilt from the log when lost): a restarted server folds at most this much of the log
/// again. Saved after the group's answers are sent, never on their way (V-27).
const SAVE_RECORDS_EVERY: Duration = Duration::from_secs(1);

/// Saves the records as they stand (best effort; V-27), once their events are durable.
pub(crate) async fn save_records(warden: &Deferring) {
    match warden.records().await {
        Ok(state) => warden.save_records_now(&state).await,
        Err(e) => tracing::warn!(error = %e, "the records could not be saved"),
    }
}

/// Decides one hook event (V-1, V-3), and says whether the store was asked. V-30: what
/// `before_store` decides (a tool call nothing governs, in a session whose index covers it) is
/// answered from the hook's own files and the configuration alone: the event store is never
/// called for it, not even for the group's sync.
async fn hook(
    server: &Decider,
    config: Option<&str>,
    harness: Option<&str>,
    input: &str,
    peer: Actor,
) -> Answered {
    let theirs = config.map(PathBuf::from);
    if theirs != server.config {
        let name = |p: &Option<PathBuf>| {
            p.as_ref().map_or_else(|| "none".to_owned(), |p| format!("`{}`", p.display()))
        };
        let why = format!(
            "the hook's configuration is {} but this server decides with {}; point the hook at the \
             server of its project",
            name(&theirs),
            name(&server.config)
        );
        return Answered::Plain(HookAnswer::failed(Code::ServerConfigMismatch, why));
    }
    let config = match Config::load_with(server.config.as_deref(), Some(&server.configs)) {
        Ok(config) => config,
        Err(e) => return Answered::Plain(HookAnswer::failed(Code::ConfigInvalid, e.to_string())),
    };
    // A section no harness reads (a misspelt key) is refused, never left unread (U-19).
    if let Some(section) = config.sections_no_harness_reads(&server.harnesses.profiles()).first() {
        let why = format!(
            "`[{}]` is a section no harness reads: each harness reads its own; rename or remove it \
             (U-19)",
            section.escape_debug()
        );
        return Answered::Plain(HookAnswer::failed(Code::ConfigInvalid, why));
    }
    let storage = HookStorage::for_store(Some(&server.location), &config.root);
    // Parsed once: what `before_store` leaves to the store is decided on the same parse.
    let harness = match server.harnesses.get(harness) {
        Ok(harness) => harness,
        Err(why) => return Answered::Plain(HookAnswer::failed(why.code(), why.to_string())),
    };
    // Decoded once, answered through the hook's one entry, as direct mode answers: the
    // store the server holds, deferred, decides as the peer.
    let open = |config| Ok(crate::commands::deferring_as_peer(&server.warden, config, &peer));
    agentwarden::answer_hook(config, &storage, input, harness.decode(input), open).await
}

#[cfg(test)]
mod tests {
    use super::*;

    use agentwarden::Warden;

    use agentwarden_claude_code::wire::Rendering;

    use std::path::Path;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use agentwarden::store::{Appended, EventDraft, EventStore, Expected, Head, StoreError, StoredRecord};

    /// A store that fails every call, and counts them.
    #[derive(Default)]
    struct Refusing {
        calls: AtomicUsize,
    }

    impl Refusing {
        fn refuse<T>(&self) -> Result<T, StoreError> {
            self.calls.fetch_add(1, Ordering::SeqCst);
            Err(StoreError::Unavailable { reason: "the test's store refuses every call".into() })
        }
    }

    #[async_trait::async_trait]
    impl EventStore for Refusing {
        async fn append(&self, _: Expected, _: Vec<EventDraft>) -> Result<Appended, StoreError> {
            self.refuse()
        }
        async fn append_deferred(&self, _: Expected, _: Vec<EventDraft>) -> Result<Appended, StoreError> {
            self.refuse()
        }
        async fn sync(&self) -> Result<(), StoreError> {
            self.refuse()
        }
        async fn read(&self, _: u64, _: usize) -> Result<Vec<StoredRecord>, StoreError> {
            self.refuse()
        }
        async fn head(&self) -> Result<Head, StoreError> {
            self.refuse()
        }
    }

    /// The decider of a server on `warden`'s store deciding with `config`.
    fn test_decider(warden: &Warden, location: StoreLocation, config: &Path) -> Decider {
        let host =
            crate::Host { warden: warden.clone(), config: Some(config.to_path_buf()), guarded: Vec::new() };
        Decider {
            warden: warden.deferring(),
            location,
            config: Some(config.to_path_buf()),
            configs: agentwarden::ConfigCache::default(),
            host,
            harnesses: crate::Harnesses::new(Arc::new(agentwarden_claude_code::wire::ClaudeCode)),
            tlog: Arc::new(crate::tlog::Tlog::new(warden.clone(), None)),
        }
    }

    /// A hook request for the decider.
    fn hook_job(config: &Path, input: &serde_json::Value, reply: oneshot::Sender<HookAnswer>) -> Job {
        let peer = Actor::new("warden-serve peer uid=0 pid=1").unwrap();
        Job::Hook(HookJob {
            config: Some(config.display().to_string()),
            input: input.to_string(),
            harness: None,
            peer,
            reply,
        })
    }

    /// A project with a configuration and nothing else, and its store's location.
    fn bare_project(dir: &Path) -> (PathBuf, StoreLocation) {
        let config = dir.join("agentwarden.toml");
        std::fs::write(&config, "[claude_code]\nmain_persona = \"main\"\n").unwrap();
        (std::fs::canonicalize(config).unwrap(), StoreLocation::Embedded(dir.join("audit")))
    }

    /// A [`bare_project`] whose session `covered` has an index, naming the configuration as the
    /// store decided with it (H-49): its calls nothing governs are answered from it (H-24).
    fn covered_project(dir: &Path) -> (PathBuf, StoreLocation) {
        let (config, location) = bare_project(dir);
        let storage = HookStorage::for_store(Some(&location), dir);
        let index = agentwarden::SessionIndex {
            session: "covered".into(),
            config: Config::load(Some(&config)).unwrap().source_digest,
            ..agentwarden::SessionIndex::default()
        };
        storage.write_index(&index).unwrap();
        (config, location)
    }

    /// The requests waiting when the decider looks are decided in order, their events
    /// appended deferred, made durable by one sync, and answered only after it (V-26).
    #[test]
    fn waiting_requests_share_one_sync_and_are_answered_after_it() {
        let dir = tempfile::tempdir().unwrap();
        let (config, location) = bare_project(dir.path());
        let store = Arc::new(Held::slow());
        let warden = Warden::builder().event_store(store.clone()).without_state().build().unwrap();
        let decider = test_decider(&warden, location, &config);
        let (send, jobs) = mpsc::channel::<Job>(QUEUE);
        let answers: Vec<_> = (0..10)
            .map(|n| {
                let input = serde_json::json!({
                    "session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Task",
                    "tool_use_id": format!("toolu_{n}"), "tool_input": {"subagent_type": "planner"},
                });
                let (reply, answer) = oneshot::channel();
                let job = hook_job(&config, &input, reply);
                send.try_send(job).unwrap();
                answer
            })
            .collect();
        drop(send);
        let synced = Arc::clone(&store);
        let loop_ = std::thread::spawn(move || {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap()
                .block_on(decide(&decider, jobs));
        });
        for answer in answers {
            let answer = answer.blocking_recv().unwrap();
            assert_eq!(synced.ended.load(Ordering::SeqCst), 1, "no answer before the sync");
            assert!(answer.stdout().unwrap().contains("deny"), "no persona files: a recorded deny");
        }
        loop_.join().unwrap();
        assert_eq!(store.ended.load(Ordering::SeqCst), 1, "one sync for the group");
        assert_eq!(store.deferred.load(Ordering::SeqCst), 10, "every decision appended deferred");
        let records = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(store.inner.read(1, 100))
            .unwrap();
        let ids: Vec<String> = records
            .iter()
            .map(|r| agentwarden::observe::Envelope::parse(r).unwrap().payload.get().to_owned())
            .map(|p| {
                serde_json::from_str::<serde_json::Value>(&p).unwrap()["tool_use_id"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect();
        assert_eq!(ids, (0..10).map(|n| format!("toolu_{n}")).collect::<Vec<_>>(), "in arrival order");
    }

    /// A call nothing governs that comes first in its group leaves before the group's
    /// sync; one that comes after a recorded decision of the group waits for it (V-35).
    #[test]
    fn a_call_nothing_governs_waits_for_no_sync_unless_it_follows_a_recorded_one() {
        let dir = tempfile::tempdir().unwrap();
        let (config, location) = covered_project(dir.path());
        let store = Arc::new(Held::slow());
        let warden = Warden::builder().event_store(store.clone()).without_state().build().unwrap();
        let decider = test_decider(&warden, location, &config);
        let (send, jobs) = mpsc::channel::<Job>(QUEUE);
        let bash = serde_json::json!({
            "session_id": "covered", "hook_event_name": "PreToolUse", "cwd": dir.path(),
            "tool_name": "Bash", "tool_use_id": "toolu_b", "tool_input": {"command": "ls"},
        });
        let spawn = serde_json::json!({
            "session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Task",
            "tool_use_id": "toolu_s", "tool_input": {"subagent_type": "planner"},
        });
        let mut answers = Vec::new();
        for input in [&bash, &spawn, &bash] {
            let (reply, answer) = oneshot::channel();
            send.try_send(hook_job(&config, input, reply)).unwrap();
            answers.push(answer);
        }
        drop(send);
        let loop_ = std::thread::spawn(move || {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap()
                .block_on(decide(&decider, jobs));
        });
        let mut answers = answers.into_iter();
        let first = answers.next().unwrap().blocking_recv().unwrap();
        assert_eq!(first, HookAnswer::silent());
        assert_eq!(
            store.ended.load(Ordering::SeqCst),
            0,
            "the first call nothing governs left before the sync"
        );
        for answer in answers {
            answer.blocking_recv().unwrap();
            assert_eq!(store.ended.load(Ordering::SeqCst), 1, "after a recorded decision: after the sync");
        }
        loop_.join().unwrap();
    }

    /// A memory store that counts its deferred appends and its syncs, each sync held: for a
    /// while, or until the test lets it end (and failing, when told).
    struct Held {
        inner: agentwarden::store::MemoryEventStore,
        deferred: AtomicUsize,
        begun: AtomicUsize,
        ended: AtomicUsize,
        hold: Hold,
        fail: std::sync::atomic::AtomicBool,
    }

    /// How long a [`Held`] store's sync takes.
    enum Hold {
        For(Duration),
        /// Until the test adds a permit ([`Held::release`]).
        Gate(tokio::sync::Semaphore),
    }

    impl Held {
        fn new(hold: Hold) -> Self {
            Held {
                inner: agentwarden::store::MemoryEventStore::default(),
                deferred: AtomicUsize::new(0),
                begun: AtomicUsize::new(0),
                ended: AtomicUsize::new(0),
                hold,
                fail: std::sync::atomic::AtomicBool::new(false),
            }
        }

        /// Each sync takes 50 ms.
        fn slow() -> Self {
            Held::new(Hold::For(Duration::from_millis(50)))
        }

        /// Each sync waits for [`Held::release`].
        fn gated() -> Self {
            Held::new(Hold::Gate(tokio::sync::Semaphore::new(0)))
        }

        /// Lets one held sync end.
        fn release(&self) {
            if let Hold::Gate(gate) = &self.hold {
                gate.add_permits(1);
            }
        }
    }

    #[async_trait::async_trait]
    impl EventStore for Held {
        async fn append(&self, e: Expected, b: Vec<EventDraft>) -> Result<Appended, StoreError> {
            self.inner.append(e, b).await
        }
        async fn append_deferred(&self, e: Expected, b: Vec<EventDraft>) -> Result<Appended, StoreError> {
            self.deferred.fetch_add(1, Ordering::SeqCst);
            self.inner.append(e, b).await
        }
        async fn sync(&self) -> Result<(), StoreError> {
            self.begun.fetch_add(1, Ordering::SeqCst);
            match &self.hold {
                Hold::For(wait) => tokio::time::sleep(*wait).await,
                Hold::Gate(gate) => gate.acquire().await.unwrap().forget(),
            }
            self.ended.fetch_add(1, Ordering::SeqCst);
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

    /// Waits (at most 10 s) until `count` reaches `n`.
    fn wait_for(count: &AtomicUsize, n: usize, what: &str) {
        let started = Instant::now();
        while count.load(Ordering::SeqCst) < n {
            assert!(started.elapsed() < Duration::from_secs(10), "{what}: never reached {n}");
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// A decider on a gated [`Held`] store in a covered session's project, and the inputs the tests
    /// send it: a spawn (recorded) and a `Bash` call nothing governs (answered from the index).
    fn gated_decider(dir: &Path) -> (Arc<Held>, mpsc::Sender<Job>, PathBuf, [serde_json::Value; 3]) {
        let (config, location) = covered_project(dir);
        let store = Arc::new(Held::gated());
        let warden = Warden::builder().event_store(store.clone()).without_state().build().unwrap();
        let decide = start(test_decider(&warden, location, &config)).unwrap_or_else(|f| panic!("{f}"));
        let spawn = |n: u32| {
            serde_json::json!({
                "session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Task",
                "tool_use_id": format!("toolu_{n}"), "tool_input": {"subagent_type": "planner"},
            })
        };
        let bash = serde_json::json!({
            "session_id": "covered", "hook_event_name": "PreToolUse", "cwd": dir,
            "tool_name": "Bash", "tool_use_id": "toolu_b", "tool_input": {"command": "ls"},
        });
        (store, decide, config, [spawn(1), spawn(2), bash])
    }

    fn ask(
        decide: &mpsc::Sender<Job>,
        config: &Path,
        input: &serde_json::Value,
    ) -> oneshot::Receiver<HookAnswer> {
        let (reply, answer) = oneshot::channel();
        decide.blocking_send(hook_job(config, input, reply)).unwrap();
        answer
    }

    /// The next group is decided while the one before it syncs; its answers, and an
    /// answer from the index that would otherwise leave at once (V-35), wait for the earlier
    /// group's sync and then for their own, in order (V-45).
    #[test]
    fn a_group_is_decided_while_the_one_before_syncs_and_answered_after_it() {
        let dir = tempfile::tempdir().unwrap();
        let (store, decide, config, [first, second, bash]) = gated_decider(dir.path());
        let mut a = ask(&decide, &config, &first);
        wait_for(&store.begun, 1, "the first group's sync");
        let mut c = ask(&decide, &config, &bash);
        let mut b = ask(&decide, &config, &second);
        wait_for(&store.deferred, 2, "the second spawn decided while the first sync runs");
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(store.ended.load(Ordering::SeqCst), 0);
        for answer in [&mut a, &mut b, &mut c] {
            assert!(answer.try_recv().is_err(), "no answer before the first sync ends");
        }
        store.release();
        let a = a.blocking_recv().unwrap();
        assert!(a.stdout().unwrap().contains("deny"), "{a:?}");
        wait_for(&store.begun, 2, "the second group's sync");
        std::thread::sleep(Duration::from_millis(50));
        assert!(b.try_recv().is_err(), "the second spawn waits for its own group's sync");
        store.release();
        assert!(b.blocking_recv().unwrap().stdout().unwrap().contains("deny"));
        assert_eq!(c.blocking_recv().unwrap(), HookAnswer::Proceed);
        assert_eq!(store.ended.load(Ordering::SeqCst), 2);
        // With nothing in flight, a call nothing governs leaves at once again (V-35).
        assert_eq!(ask(&decide, &config, &bash).blocking_recv().unwrap(), HookAnswer::Proceed);
        assert_eq!(store.begun.load(Ordering::SeqCst), 2, "and asks for no sync");
    }

    /// When a sync fails, the group decided behind it while it ran fails too, and
    /// so does every later request (V-45, V-28).
    #[test]
    fn a_failed_sync_fails_the_group_decided_behind_it() {
        let dir = tempfile::tempdir().unwrap();
        let (store, decide, config, [first, second, bash]) = gated_decider(dir.path());
        store.fail.store(true, Ordering::SeqCst);
        let a = ask(&decide, &config, &first);
        wait_for(&store.begun, 1, "the first group's sync");
        let b = ask(&decide, &config, &second);
        let c = ask(&decide, &config, &bash);
        wait_for(&store.deferred, 2, "the second spawn decided while the first sync runs");
        store.release();
        for answer in [a, b, c] {
            let answer = answer.blocking_recv().unwrap();
            assert_eq!(answer.exit_code(), agentwarden_claude_code::wire::HOOK_FAILED, "{answer:?}");
            assert!(answer.stderr().unwrap().contains("store_unavailable"), "{answer:?}");
        }
        let later = ask(&decide, &config, &bash).blocking_recv().unwrap();
        assert_eq!(later.exit_code(), agentwarden_claude_code::wire::HOOK_FAILED, "{later:?}");
        assert_eq!(store.begun.load(Ordering::SeqCst), 1, "no sync after the failed one");
    }

    /// Item 6, V-30: through the decider (the group loop included), a tool call nothing governs
    /// in a session its index covers is answered without one call to the event store; the same
    /// call in a session without an index goes to the store (here: exit 2).
    #[test]
    fn a_tool_call_nothing_governs_is_answered_without_the_store() {
        let dir = tempfile::tempdir().unwrap();
        let (config, location) = covered_project(dir.path());
        let store = Arc::new(Refusing::default());
        let warden = Warden::builder().event_store(store.clone()).without_state().build().unwrap();
        let decide = start(test_decider(&warden, location, &config)).unwrap_or_else(|f| panic!("{f}"));
        let ask = |session: &str| {
            let input = serde_json::json!({
                "session_id": session, "hook_event_name": "PreToolUse", "cwd": dir.path(),
                "tool_name": "Bash", "tool_use_id": "toolu_1", "tool_input": {"command": "ls"},
            });
            let (reply, answer) = oneshot::channel();
            let job = hook_job(&config, &input, reply);
            decide.blocking_send(job).unwrap();
            answer.blocking_recv().unwrap()
        };
        for _ in 0..3 {
            assert_eq!(ask("covered"), HookAnswer::Proceed);
        }
        assert_eq!(store.calls.load(Ordering::SeqCst), 0, "the store was never called");
        let uncovered = ask("uncovered");
        assert_eq!(uncovered.exit_code(), agentwarden_claude_code::wire::HOOK_FAILED, "{uncovered:?}");
        assert!(store.calls.load(Ordering::SeqCst) > 0, "without an index the store decides");
    }
}
