//! The `Warden` facade and its builder: the composition root of the library.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use agentwarden_adapters::{
    GitRestorer, LocalFileSystem, ProcessEnvironment, SledConfig, SledEventStore, SystemClock,
};
use agentwarden_domain::audit::{Actor, Correlation, EventDraft, InvalidText};
use agentwarden_domain::code::Code;
use agentwarden_domain::events::{AuditEvent, OperatorNote};
use agentwarden_ports::{
    Appended, Clock, Environment, EventStore, Expected, FileSystem, MergedStore, ProjectionStore, Restorer,
    SnapshotStore, StateStore, StoreError,
};

use crate::config::Config;

/// Where the embedded store lives when nothing else is configured.
pub const DEFAULT_STORE: &str = ".agentwarden/audit";

/// Why a use case could not complete. Decisions never surface these as allows: a caller that
/// gets an error must treat it as a deny.
#[derive(Debug, thiserror::Error)]
pub enum WardenError {
    /// The event store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// An event could not be built.
    #[error("cannot build the event: {0}")]
    Event(String),
    /// An input was not acceptable.
    #[error("{0}")]
    Invalid(#[from] InvalidText),
    /// The configuration file cannot be used.
    #[error("{0}")]
    Config(String),
    /// The hash chain does not verify: an investigation refuses to answer from it (A-11).
    #[error(transparent)]
    Broken(agentwarden_domain::audit::ChainBreak),
    /// An event an investigation needs cannot be read as today's type (A-12).
    #[error("event {seq} cannot be read: {error}")]
    Undecodable {
        /// Its position.
        seq: u64,
        /// Why.
        error: agentwarden_domain::events::DecodeError,
    },
    /// The builder was given an event store but not every state port, and was not told
    /// to go without them (X-21).
    #[error(
        "the Warden has no {missing}: give it (`.state_store(..)`, or `.store(..)` for an adapter that is \
         both), or build without state (`.without_state()`)"
    )]
    Incomplete {
        /// The ports missing, named.
        missing: String,
    },
}

/// A configuration that cannot be used is an error of the facade's too, so a consumer's `?`
/// carries `Config::load`'s error (with its file and line) into [`WardenError`].
impl From<crate::ConfigError> for WardenError {
    fn from(error: crate::ConfigError) -> Self {
        WardenError::Config(error.to_string())
    }
}

impl WardenError {
    /// The stable snake_case code (X-1).
    pub fn code(&self) -> Code {
        match self {
            WardenError::Store(e) => e.code(),
            WardenError::Event(_) => Code::InternalError,
            WardenError::Invalid(_) | WardenError::Config(_) => Code::InvalidInput,
            WardenError::Broken(_) => Code::ChainBroken,
            WardenError::Undecodable { .. } => Code::EventUndecodable,
            WardenError::Incomplete { .. } => Code::AdaptersIncomplete,
        }
    }
}

/// The log's position through which a deferring Warden (and its clones) has appended, shared.
#[derive(Debug, Default)]
pub(crate) struct AppendedThrough(AtomicU64);

impl AppendedThrough {
    /// An append reached `seq`.
    pub(crate) fn reached(&self, seq: u64) {
        self.0.fetch_max(seq, Ordering::SeqCst);
    }

    pub(crate) fn now(&self) -> u64 {
        self.0.load(Ordering::SeqCst)
    }
}

/// The one object a library consumer holds: the adapters it was built with, and the use cases.
#[derive(Clone)]
pub struct Warden {
    pub(crate) store: Arc<dyn EventStore>,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) environment: Arc<dyn Environment>,
    pub(crate) files: Arc<dyn FileSystem>,
    pub(crate) restorer: Arc<dyn Restorer>,
    pub(crate) merged: Option<Arc<dyn MergedStore>>,
    pub(crate) projections: Option<Arc<dyn ProjectionStore>>,
    pub(crate) snapshots: Option<Arc<dyn SnapshotStore>>,
    pub(crate) config: Arc<Config>,
    /// The records as last caught up (see `records.rs`), shared by clones.
    pub(crate) records: Arc<std::sync::Mutex<Option<agentwarden_domain::sessions::SessionRecords>>>,
    /// Signature verifications already made (K-5), shared by clones.
    pub(crate) verified: Arc<crate::signing::VerifiedCache>,
    /// The manifests last parsed, by the digest of their bytes (V-36), shared by clones.
    pub(crate) parsed_manifests: Arc<crate::manifests::ParsedManifests>,
    /// Whether the saved projection may be the records' starting point (else they are
    /// folded from the log's first event when this process holds none in memory) (K-15).
    pub(crate) saved_start: bool,
    /// Events are appended deferred and the records not saved; whoever set this makes
    /// them durable ([`EventStore::sync`]) before anyone relies on them (V-25).
    pub(crate) deferred: bool,
    /// Where a deferring Warden notes how far it appended (its clones share it) (X-66).
    pub(crate) appended: Option<Arc<AppendedThrough>>,
    /// The confinement launcher the builder named; `None`: the one installed beside the running
    /// executable (H-63).
    pub(crate) launcher: Option<Arc<PathBuf>>,
    actor: Actor,
}

impl std::fmt::Debug for Warden {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Warden").field("actor", &self.actor).finish_non_exhaustive()
    }
}

/// Builds a [`Warden`]. Without an event store it opens the embedded sled store at
/// [`DEFAULT_STORE`]; the other defaults are the system clock, the process environment, the
/// local file system, the default [`Config`], and the actor `warden`.
#[derive(Default)]
pub struct WardenBuilder {
    store: Option<Arc<dyn EventStore>>,
    sled: Option<SledConfig>,
    clock: Option<Arc<dyn Clock>>,
    environment: Option<Arc<dyn Environment>>,
    files: Option<Arc<dyn FileSystem>>,
    restorer: Option<Arc<dyn Restorer>>,
    merged: Option<Arc<dyn MergedStore>>,
    projections: Option<Arc<dyn ProjectionStore>>,
    snapshots: Option<Arc<dyn SnapshotStore>>,
    without_state: bool,
    config: Option<Config>,
    actor: Option<Actor>,
    launcher: Option<PathBuf>,
}

impl std::fmt::Debug for WardenBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WardenBuilder")
            .field("sled", &self.sled)
            .field("actor", &self.actor)
            .finish_non_exhaustive()
    }
}

impl WardenBuilder {
    /// Runs confined shell calls under this launcher instead of the `warden-confine` installed
    /// beside the running executable (H-63): for an embedding application that installs it
    /// elsewhere, and for tests. Named by the code that builds the facade, never by a file or a
    /// variable the agent can write.
    pub fn confine_launcher(mut self, launcher: impl Into<PathBuf>) -> Self {
        self.launcher = Some(launcher.into());
        self
    }

    /// Uses this event store.
    pub fn event_store(mut self, store: Arc<dyn EventStore>) -> Self {
        self.store = Some(store);
        self
    }

    /// Uses the embedded sled store with this configuration (ignored if
    /// [`WardenBuilder::event_store`] is set).
    pub fn embedded(mut self, config: SledConfig) -> Self {
        self.sled = Some(config);
        self
    }

    /// Records into the PostgreSQL fleet store at `config` (connected on first use).
    #[cfg(feature = "postgres")]
    /// It also keeps the single writer's state there, unless a state store is already set.
    pub fn postgres(self, config: agentwarden_adapters::PgConfig) -> Self {
        self.store(Arc::new(agentwarden_adapters::PostgresEventStore::new(config)))
    }

    /// Records into `store` and keeps there each state port not already set: for an adapter
    /// that is both (the embedded, PostgreSQL and in-memory stores are).
    pub fn store<S: EventStore + StateStore + 'static>(mut self, store: Arc<S>) -> Self {
        self.merged.get_or_insert_with(|| store.clone());
        self.projections.get_or_insert_with(|| store.clone());
        self.snapshots.get_or_insert_with(|| store.clone());
        self.store = Some(store);
        self
    }

    /// Uses the store at `location`: the embedded store there (with `sled`'s settings), or
    /// PostgreSQL.
    pub fn location(self, location: &crate::StoreLocation, sled: SledConfig) -> Self {
        match location {
            crate::StoreLocation::Embedded(path) => self.embedded(SledConfig { path: path.clone(), ..sled }),
            #[cfg(feature = "postgres")]
            crate::StoreLocation::Postgres(config) => self.postgres((**config).clone()),
        }
    }

    /// Uses this clock.
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = Some(clock);
        self
    }

    /// Reads environment variables through this port.
    pub fn environment(mut self, environment: Arc<dyn Environment>) -> Self {
        self.environment = Some(environment);
        self
    }

    /// Reads files through this port.
    pub fn file_system(mut self, files: Arc<dyn FileSystem>) -> Self {
        self.files = Some(files);
        self
    }

    /// Reverts protected paths through this port (default: git).
    pub fn restorer(mut self, restorer: Arc<dyn Restorer>) -> Self {
        self.restorer = Some(restorer);
        self
    }

    /// Keeps every state port here (default: the embedded store, when it is used).
    pub fn state_store(mut self, state: Arc<dyn StateStore>) -> Self {
        self.merged = Some(state.clone());
        self.projections = Some(state.clone());
        self.snapshots = Some(state);
        self
    }

    /// Keeps merged fan-out results here.
    pub fn merged_store(mut self, merged: Arc<dyn MergedStore>) -> Self {
        self.merged = Some(merged);
        self
    }

    /// Keeps projections' saved states here.
    pub fn projection_store(mut self, projections: Arc<dyn ProjectionStore>) -> Self {
        self.projections = Some(projections);
        self
    }

    /// Keeps the hook's content snapshots here.
    pub fn snapshot_store(mut self, snapshots: Arc<dyn SnapshotStore>) -> Self {
        self.snapshots = Some(snapshots);
        self
    }

    /// Builds without the state ports not given, deliberately (X-21): every decision is still
    /// made and recorded; a fan-out's merged result cannot be written (an error), the hook's
    /// subagent stops find no snapshot (a block, fail closed), and the records are folded from
    /// the log by each process.
    pub fn without_state(mut self) -> Self {
        self.without_state = true;
        self
    }

    /// Uses this configuration.
    pub fn config(mut self, config: Config) -> Self {
        self.config = Some(config);
        self
    }

    /// Records events as this actor.
    pub fn actor(mut self, actor: Actor) -> Self {
        self.actor = Some(actor);
        self
    }

    /// Opens what is not given. Opening the embedded store may wait for another process's lock
    /// (bounded by [`SledConfig::lock_timeout`]), so call this outside latency-critical paths.
    ///
    /// X-21: given an event store, it refuses to build without every state port unless told
    /// [`WardenBuilder::without_state`]: a missing adapter is an error here, not at first use.
    pub fn build(self) -> Result<Warden, WardenError> {
        let (mut merged, mut projections, mut snapshots) = (self.merged, self.projections, self.snapshots);
        let store: Arc<dyn EventStore> = match self.store {
            Some(store) => store,
            None => {
                let config = self.sled.unwrap_or_else(|| SledConfig::new(PathBuf::from(DEFAULT_STORE)));
                let sled = Arc::new(SledEventStore::open(&config)?);
                merged.get_or_insert_with(|| sled.clone());
                projections.get_or_insert_with(|| sled.clone());
                snapshots.get_or_insert_with(|| sled.clone());
                sled
            }
        };
        let missing: Vec<&str> = [
            (merged.is_none(), "merged-result store"),
            (projections.is_none(), "projection store"),
            (snapshots.is_none(), "snapshot store"),
        ]
        .into_iter()
        .filter_map(|(missing, name)| missing.then_some(name))
        .collect();
        if !missing.is_empty() && !self.without_state {
            return Err(WardenError::Incomplete { missing: missing.join(", ") });
        }
        let actor = match self.actor {
            Some(actor) => actor,
            None => Actor::new("warden")?,
        };
        Ok(Warden {
            store,
            clock: self.clock.unwrap_or_else(|| Arc::new(SystemClock)),
            environment: self.environment.unwrap_or_else(|| Arc::new(ProcessEnvironment)),
            files: match self.files {
                Some(files) => files,
                None => Arc::new(LocalFileSystem::beneath(
                    self.config.as_ref().map_or_else(|| PathBuf::from("."), |c| c.root.clone()),
                )),
            },
            restorer: self.restorer.unwrap_or_else(|| Arc::new(GitRestorer::default())),
            merged,
            projections,
            snapshots,
            config: Arc::new(self.config.unwrap_or_default()),
            records: Arc::default(),
            verified: Arc::default(),
            parsed_manifests: Arc::default(),
            saved_start: true,
            deferred: false,
            appended: None,
            launcher: self.launcher.map(Arc::new),
            actor,
        })
    }
}

impl Warden {
    /// Starts a builder.
    pub fn builder() -> WardenBuilder {
        WardenBuilder::default()
    }

    /// The time now, by this Warden's clock (relative times like `--since 2h` count back from it).
    pub fn now(&self) -> agentwarden_domain::audit::Timestamp {
        self.clock.now()
    }

    /// The event store this Warden records into.
    pub fn event_store(&self) -> &Arc<dyn EventStore> {
        &self.store
    }

    /// Writes a fan-out's merged result once (F-10). Without a state store it is an error.
    pub async fn write_merged(
        &self,
        key: &str,
        merged: &agentwarden_domain::fanout::Merged,
    ) -> Result<(), WardenError> {
        match &self.merged {
            Some(state) => Ok(state.write_merged(key, merged).await?),
            None => Err(WardenError::Store(StoreError::Unavailable {
                reason: "no state store is configured".into(),
            })),
        }
    }

    /// The same Warden, never starting its records from the saved projection: it folds
    /// the log from its first event when it holds none in memory (what `warden serve` uses) (K-15).
    pub fn folding_from_log(self) -> Warden {
        Warden { saved_start: false, ..self }
    }

    /// The same Warden (same stores, same records cache) deciding with `config`: the resident
    /// service reads its configuration again for each request, as each direct hook process does.
    pub fn with_config(&self, config: Config) -> Warden {
        let files: Arc<dyn FileSystem> = Arc::new(LocalFileSystem::beneath(config.root.clone()));
        Warden { files, config: Arc::new(config), ..self.clone() }
    }

    /// The same Warden (same stores, files and records cache) deciding with the rules of
    /// `config`, read from the same root: the sealed configuration (H-49).
    pub(crate) fn with_rules(&self, config: Config) -> Warden {
        Warden { config: Arc::new(config), ..self.clone() }
    }

    /// The same Warden recording into `store`: a decorator of its own event store that passes
    /// every call on unchanged, such as the resident service's telemetry tap (V-60), which sees
    /// what is appended and when it is durable. Another log would not match the records cache.
    pub fn with_event_store(&self, store: Arc<dyn EventStore>) -> Warden {
        Warden { store, ..self.clone() }
    }

    /// The same Warden, recording as another actor.
    pub fn with_actor(&self, actor: Actor) -> Warden {
        Warden { actor, ..self.clone() }
    }

    /// The configuration this Warden decides with.
    pub fn configuration(&self) -> &Config {
        &self.config
    }

    /// Records an operator's note (`operator_note`), timed by the clock and signed by this
    /// Warden's actor; returns once it is durable.
    ///
    /// X-20: a note is the only event a consumer records directly. Every other event is the
    /// record of a decision or of a human act, appended by the use case that makes it — the
    /// gate, the lineage and tool checks, the guard, fan-out, seal/approve/revoke/release — so
    /// the facade offers no way to write a `delegation_evaluated` no gate made or an
    /// `approval_granted` no human gave:
    ///
    /// ```compile_fail
    /// # async fn forge(warden: agentwarden::Warden, event: agentwarden::events::AuditEvent) {
    /// warden.record(agentwarden::audit::Correlation::default(), &event).await;
    /// # }
    /// ```
    pub async fn record(
        &self,
        correlation: Correlation,
        note: &OperatorNote,
    ) -> Result<Appended, WardenError> {
        self.record_event(correlation, &AuditEvent::OperatorNote(note.clone())).await
    }

    /// Appends one event, timed by the clock and signed by this Warden's actor. Returns once
    /// the event is durable (deferring, as the resident service's decider: once it is written).
    pub(crate) async fn record_event(
        &self,
        correlation: Correlation,
        event: &AuditEvent,
    ) -> Result<Appended, WardenError> {
        self.record_expected(correlation, event, Expected::Any).await
    }

    /// Records `event` only where `expected` says (a signed record at the head it names, K-7).
    pub(crate) async fn record_expected(
        &self,
        correlation: Correlation,
        event: &AuditEvent,
        expected: Expected,
    ) -> Result<Appended, WardenError> {
        let draft = EventDraft::new(self.clock.now(), self.actor.clone(), correlation, event)
            .map_err(|e| WardenError::Event(e.to_string()))?;
        let appended = if self.deferred {
            let appended = self.store.append_deferred(expected, vec![draft]).await?;
            if let Some(through) = &self.appended {
                through.reached(appended.head.seq);
            }
            appended
        } else {
            self.store.append(expected, vec![draft]).await?
        };
        tracing::debug!(seq = appended.head.seq, event_type = event.event_type(), "recorded");
        Ok(appended)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentwarden_domain::audit::{Head, Timestamp};
    use agentwarden_domain::events::OperatorNote;
    use agentwarden_ports::{MockClock, MockEventStore};

    fn note() -> OperatorNote {
        OperatorNote { message: "m".into() }
    }

    /// `Config::load`'s error carries into `WardenError` with `?`, file and line kept.
    #[test]
    fn a_configuration_error_converts_with_its_place() {
        fn load(path: &std::path::Path) -> Result<Config, WardenError> {
            Ok(Config::load(Some(path))?)
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("agentwarden.toml");
        std::fs::write(&path, "[subagents]\nenable_env = 3\n").unwrap();
        let err = load(&path).unwrap_err();
        assert_eq!(err.code(), "invalid_input");
        assert!(err.to_string().contains("agentwarden.toml") && err.to_string().contains(":2"), "{err}");
    }

    /// A builder given an event store and not every state port refuses to build,
    /// naming what is missing; given them (or told to go without), it builds (X-21).
    #[test]
    fn an_incomplete_set_of_adapters_is_refused_when_it_builds() {
        let memory = || Arc::new(crate::store::MemoryEventStore::new());
        let missing = |builder: WardenBuilder| match builder.build() {
            Err(WardenError::Incomplete { missing }) => missing,
            other => panic!("built: {other:?}"),
        };
        let all = missing(Warden::builder().event_store(memory()));
        assert_eq!(all, "merged-result store, projection store, snapshot store");
        let err = Warden::builder().event_store(memory()).build().unwrap_err();
        assert_eq!(err.code(), "adapters_incomplete");
        assert!(err.to_string().contains(".without_state()"), "{err}");
        let store = memory();
        let some = missing(Warden::builder().event_store(store.clone()).merged_store(store.clone()));
        assert_eq!(some, "projection store, snapshot store");
        let builds = [
            Warden::builder().store(memory()),
            Warden::builder().event_store(memory()).state_store(memory()),
            Warden::builder()
                .event_store(store.clone())
                .merged_store(store.clone())
                .projection_store(store.clone())
                .snapshot_store(store),
            Warden::builder().event_store(memory()).without_state(),
        ];
        for builder in builds {
            builder.build().unwrap();
        }
    }

    #[tokio::test]
    async fn record_appends_one_event_with_the_clocks_time_and_the_actor() {
        let mut clock = MockClock::new();
        clock.expect_now().times(1).returning(|| Timestamp::from_unix_millis(1_000).unwrap());
        let mut store = MockEventStore::new();
        store
            .expect_append()
            .withf(|expected, batch| *expected == Expected::Any && batch.len() == 1)
            .times(1)
            .returning(|_, batch| {
                let (records, head) = agentwarden_domain::audit::seal_batch(&Head::EMPTY, &batch).unwrap();
                let body = String::from_utf8(records[0].body.clone()).unwrap();
                assert!(
                    body.contains(r#""recorded_at":"1970-01-01T00:00:01.000Z","actor":"auditor""#),
                    "{body}"
                );
                Ok(Appended { first_seq: 1, head })
            });
        let warden = Warden::builder()
            .event_store(Arc::new(store))
            .without_state()
            .clock(Arc::new(clock))
            .actor(Actor::new("auditor").unwrap())
            .build()
            .unwrap();
        assert_eq!(warden.record(Correlation::default(), &note()).await.unwrap().head.seq, 1);
    }

    #[tokio::test]
    async fn a_store_failure_is_an_error_never_a_silent_success() {
        let mut store = MockEventStore::new();
        store.expect_append().returning(|_, _| Err(StoreError::Unavailable { reason: "disk full".into() }));
        store.expect_read().returning(|_, _| Err(StoreError::Unavailable { reason: "gone".into() }));
        store.expect_read_page().returning(|_, _, _| Err(StoreError::Unavailable { reason: "gone".into() }));
        let warden = Warden::builder().event_store(Arc::new(store)).without_state().build().unwrap();
        let err = warden.record(Correlation::default(), &note()).await.unwrap_err();
        assert_eq!(err.code(), "store_unavailable");
        assert!(warden.verify(None).await.is_err(), "an unreadable log is not a verdict");
    }
}
