//! The PostgreSQL event store: the contract suite, imports, the append-only triggers, and a
//! server that goes away and comes back. Needs `AGENTWARDEN_TEST_PG` (see `agentwarden_tests::pg`).

use std::sync::Arc;

use agentwarden_adapters::{MemoryEventStore, PgConfig, PostgresEventStore};
use agentwarden_domain::audit::verify;
use agentwarden_ports::{EventStore, Expected, StoreError};
use agentwarden_tests::event_store::{
    append_random, kept_nodes_are_the_events_nodes, read_all, run_all, the_kept_tree_survives_reopening,
};
use agentwarden_tests::note;
use agentwarden_tests::pg::PgTest;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn postgres_store_meets_the_contract() {
    let Some(pg) = PgTest::start("contract").await else { return };
    run_all(|| pg.store()).await;
    run_all(|| -> Box<dyn EventStore> { Box::new(pg.store()) }).await;
    agentwarden_ports::conformance::state::run_all(|| pg.store()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_events_table_is_append_only() {
    let Some(pg) = PgTest::start("append_only").await else { return };
    let schema = pg.schema();
    let store = PostgresEventStore::new(PgConfig::parse(&pg.url_for(&schema)).unwrap());
    assert_eq!(store.config().schema_name(), schema);
    store.append(Expected::Any, vec![note("one"), note("two")]).await.unwrap();
    for sql in [
        format!("UPDATE \"{schema}\".agentwarden_events SET body = 'x' WHERE seq = 1"),
        format!("DELETE FROM \"{schema}\".agentwarden_events WHERE seq = 2"),
        format!("TRUNCATE \"{schema}\".agentwarden_events"),
    ] {
        let err = pg.sql(&sql).await.unwrap_err();
        assert!(format!("{err:?}").contains("append-only"), "{sql}: {err:?}");
    }
    assert_eq!(verify(&read_all(&store, 10).await).unwrap().seq, 2);
    // Migrations are idempotent: a second store on the same schema opens the same log.
    let again = PostgresEventStore::new(PgConfig::parse(&pg.url_for(&schema)).unwrap());
    assert_eq!(again.head().await.unwrap(), store.head().await.unwrap());
    let versions =
        pg.sql(&format!("SELECT count(*) FROM \"{schema}\".agentwarden_migrations")).await.unwrap();
    assert!(matches!(&versions[1], tokio_postgres::SimpleQueryMessage::Row(r) if r.get(0) == Some("3")));
    // A schema newer than this build knows is refused, never written into.
    pg.sql(&format!(
        "INSERT INTO \"{schema}\".agentwarden_migrations (version, description) VALUES (99, 'future')"
    ))
    .await
    .unwrap();
    let newer = PostgresEventStore::new(PgConfig::parse(&pg.url_for(&schema)).unwrap());
    let err = newer.append(Expected::Any, vec![note("three")]).await.unwrap_err();
    assert_eq!(err.code(), "store_corrupt", "{err}");
    assert!(err.to_string().contains("version 99, newer than this warden knows"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sealed_records_import_byte_for_byte_and_only_as_a_continuation() {
    let Some(pg) = PgTest::start("import").await else { return };
    let source = MemoryEventStore::new();
    for i in 0..7 {
        source.append(Expected::Any, vec![note(&format!("n{i}"))]).await.unwrap();
    }
    let records = read_all(&source, 100).await;
    let store = pg.store();
    let (first, rest) = records.split_at(3);
    store.append_sealed(0, first.to_vec()).await.unwrap();
    let err = store.append_sealed(0, rest.to_vec()).await.unwrap_err();
    assert_eq!(err, StoreError::Conflict { expected: 0, actual: 3 });
    let err = store.append_sealed(3, rest[1..].to_vec()).await.unwrap_err();
    assert_eq!(err.code(), "store_corrupt", "{err}");
    let appended = store.append_sealed(3, rest.to_vec()).await.unwrap();
    assert_eq!(appended.head, source.head().await.unwrap());
    assert_eq!(read_all(&store, 2).await, records, "the same bytes and hashes");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_server_fails_clearly() {
    let config = PgConfig::parse("postgres://postgres@127.0.0.1:1/test").unwrap();
    let store = PostgresEventStore::new(config);
    let err = store.append(Expected::Any, vec![note("lost")]).await.unwrap_err();
    assert_eq!(err.code(), "store_unavailable");
    let text = err.to_string();
    assert!(text.contains("PostgreSQL at `postgres@127.0.0.1:1/test`") && text.contains("connect"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_terminated_connection_fails_or_reconnects_without_a_gap() {
    let Some(pg) = PgTest::start("terminate").await else { return };
    let schema = pg.schema();
    let app = format!("aw_terminate_{}", std::process::id());
    let url = format!("{}&application_name={app}", pg.url_for(&schema));
    let store = Arc::new(PostgresEventStore::new(PgConfig::parse(&url).unwrap()));
    let mut acknowledged = 0u64;
    for round in 0..5 {
        for i in 0..10 {
            if store.append(Expected::Any, vec![note(&format!("{round}/{i}"))]).await.is_ok() {
                acknowledged += 1;
            }
        }
        pg.sql(&format!(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '{app}'"
        ))
        .await
        .unwrap();
    }
    // The first append after a termination may fail (the server's goodbye arrives first); the
    // next one reconnects.
    let mut after = Err(StoreError::EmptyBatch);
    for _ in 0..2 {
        after = store.append(Expected::Any, vec![note("after")]).await;
        if after.is_ok() {
            break;
        }
        let err = after.as_ref().unwrap_err();
        assert!(err.to_string().contains("PostgreSQL at `"), "{err}");
    }
    after.unwrap();
    let records = read_all(&*store, 100).await;
    assert_eq!(records.len() as u64, acknowledged + 1, "every acknowledged append, no other");
    assert_eq!(verify(&records).unwrap(), store.head().await.unwrap());
}

/// A TCP proxy to the test server that the test can cut and restore.
struct Proxy {
    port: u16,
    accept: Option<tokio::task::JoinHandle<()>>,
}

impl Proxy {
    async fn start(port: u16) -> Proxy {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let upstream = upstream();
        let accept = tokio::spawn(async move {
            // Dropping the set (when this task is aborted) aborts every forwarded connection.
            let mut connections = tokio::task::JoinSet::new();
            while let Ok((mut client, _)) = listener.accept().await {
                let upstream = upstream.clone();
                connections.spawn(async move {
                    if let Ok(mut server) = tokio::net::TcpStream::connect(upstream).await {
                        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                    }
                });
            }
        });
        Proxy { port, accept: Some(accept) }
    }

    async fn cut(&mut self) {
        if let Some(accept) = self.accept.take() {
            accept.abort();
            let _ = accept.await;
        }
    }
}

/// The test server's `host:port`.
fn upstream() -> String {
    let config: tokio_postgres::Config = agentwarden_tests::pg::server_url().parse().unwrap();
    let host = match config.get_hosts().first() {
        Some(tokio_postgres::config::Host::Tcp(host)) => host.clone(),
        _ => "127.0.0.1".to_owned(),
    };
    format!("{host}:{}", config.get_ports().first().copied().unwrap_or(5432))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_server_fails_appends_clearly_and_they_resume_without_a_gap() {
    let Some(pg) = PgTest::start("outage").await else { return };
    let schema = pg.schema();
    let mut proxy = Proxy::start(0).await;
    let config: tokio_postgres::Config = agentwarden_tests::pg::server_url().parse().unwrap();
    let user = config.get_user().unwrap_or("postgres");
    let db = config.get_dbname().unwrap_or(user);
    let url = format!("postgres://{user}@127.0.0.1:{}/{db}", proxy.port);
    let config =
        PgConfig::parse(&url).unwrap().schema(&schema).unwrap().timeout(std::time::Duration::from_secs(5));
    let store = PostgresEventStore::new(config);
    for i in 0..5 {
        store.append(Expected::Any, vec![note(&format!("before {i}"))]).await.unwrap();
    }
    proxy.cut().await;
    for _ in 0..3 {
        let err = store.append(Expected::Any, vec![note("during")]).await.unwrap_err();
        assert_eq!(err.code(), "store_unavailable", "{err}");
        assert!(err.to_string().contains("PostgreSQL at `"), "{err}");
        assert!(store.head().await.is_err(), "no answer from a store that cannot be reached");
    }
    let _proxy = Proxy::start(proxy.port).await;
    let appended = store.append(Expected::Any, vec![note("after")]).await.unwrap();
    assert_eq!(appended.head.seq, 6, "nothing from the outage was stored, nothing skipped");
    let records = read_all(&store, 100).await;
    assert_eq!(verify(&records).unwrap(), appended.head);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_state_is_written_once_and_projections_replace() {
    use agentwarden_domain::fanout::{ChunkOutcome, ChunkStatus, merge};
    use agentwarden_ports::{MergedStore, ProjectionStore};
    let Some(pg) = PgTest::start("state").await else { return };
    let schema = pg.schema();
    let store = PostgresEventStore::new(PgConfig::parse(&pg.url_for(&schema)).unwrap());
    let merged = merge(&[ChunkOutcome::without_result(0, ChunkStatus::TimedOut, "slow")]);
    store.write_merged("tests@1", &merged).await.unwrap();
    let again = store.write_merged("tests@1", &merged).await.unwrap_err();
    assert!(
        matches!(again, StoreError::AlreadyWritten { .. }),
        "a second writer must not overwrite: {again}"
    );
    // Another host (another store on the same schema) sees it.
    let other = PostgresEventStore::new(PgConfig::parse(&pg.url_for(&schema)).unwrap());
    assert_eq!(other.read_merged("tests@1").await.unwrap(), Some(merged));
    assert_eq!(other.read_merged("nope").await.unwrap(), None);
    store.write_projection("p", b"one".to_vec()).await.unwrap();
    store.write_projection("p", b"two".to_vec()).await.unwrap();
    assert_eq!(other.read_projection("p").await.unwrap(), Some(b"two".to_vec()));
    other.remove_projection("p").await.unwrap();
    assert_eq!(store.read_projection("p").await.unwrap(), None);
}

/// How many rows the kept tree of `size` events has: every perfect subtree, the leaves too.
fn node_rows(size: u64) -> String {
    (0..64).map(|level| size >> level).sum::<u64>().to_string()
}

async fn merkle_rows(pg: &PgTest, schema: &str) -> Option<String> {
    let rows = pg.sql(&format!("SELECT count(*) FROM \"{schema}\".agentwarden_merkle")).await.unwrap();
    rows.iter().find_map(|m| match m {
        tokio_postgres::SimpleQueryMessage::Row(r) => r.get(0).map(str::to_owned),
        _ => None,
    })
}

/// Every append's transaction writes the nodes it completes; another connection (a
/// reopened store, another host) finds the same tree and keeps growing it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_kept_tree_is_written_with_the_events_and_survives_reopening() {
    let Some(pg) = PgTest::start("merkle").await else { return };
    let schema = pg.schema();
    let open = || PostgresEventStore::new(PgConfig::parse(&pg.url_for(&schema)).unwrap());
    the_kept_tree_survives_reopening(open(), |store| {
        drop(store);
        open()
    })
    .await;
    let store = open();
    let size = store.head().await.unwrap().seq;
    assert_eq!(merkle_rows(&pg, &schema).await.as_deref(), Some(node_rows(size).as_str()));
    // Two stores appending in turn: each finds the head moved by the other.
    let other = open();
    for round in 0..5 {
        append_random(&store, 100 + round, 7).await;
        append_random(&other, 200 + round, 5).await;
    }
    kept_nodes_are_the_events_nodes(&store, 8, 9).await;
    kept_nodes_are_the_events_nodes(&other, 9, 9).await;
}

/// A log written before the tree was kept (its rows gone) gets its tree on the next
/// connection, once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_log_without_a_tree_is_upcast_on_connecting() {
    let Some(pg) = PgTest::start("merkle_upcast").await else { return };
    let schema = pg.schema();
    let open = || PostgresEventStore::new(PgConfig::parse(&pg.url_for(&schema)).unwrap());
    let store = open();
    append_random(&store, 11, 222).await;
    drop(store);
    pg.sql(&format!(
        "ALTER TABLE \"{schema}\".agentwarden_merkle DISABLE TRIGGER USER; \
         DELETE FROM \"{schema}\".agentwarden_merkle; \
         ALTER TABLE \"{schema}\".agentwarden_merkle ENABLE TRIGGER USER"
    ))
    .await
    .unwrap();
    assert_eq!(merkle_rows(&pg, &schema).await.as_deref(), Some("0"));
    let store = open();
    kept_nodes_are_the_events_nodes(&store, 11, 10).await;
    assert_eq!(merkle_rows(&pg, &schema).await.as_deref(), Some(node_rows(222).as_str()));
    // The kept tree is append-only too.
    let err = pg.sql(&format!("DELETE FROM \"{schema}\".agentwarden_merkle")).await.unwrap_err();
    assert!(format!("{err:?}").contains("append-only"), "{err:?}");
}
