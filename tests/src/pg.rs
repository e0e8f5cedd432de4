//! A PostgreSQL server for the tests: `AGENTWARDEN_TEST_PG` (default
//! `postgres://postgres@127.0.0.1:5432/test`), each test in schemas of its own, dropped at the
//! end. When no server answers, a test fails under `CI=true` and is skipped (saying why)
//! elsewhere.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use agentwarden_adapters::{PgConfig, PostgresEventStore};

/// The default test server.
pub const DEFAULT_URL: &str = "postgres://postgres@127.0.0.1:5432/test";

/// The test server's URL.
pub fn server_url() -> String {
    std::env::var("AGENTWARDEN_TEST_PG").unwrap_or_else(|_| DEFAULT_URL.to_owned())
}

/// The schemas one test made; dropped when it is dropped.
#[derive(Debug, Clone)]
pub struct PgTest {
    prefix: String,
    schemas: Arc<Mutex<Vec<String>>>,
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

impl PgTest {
    /// Checks the server answers; `None` (after saying so) when it does not, outside CI.
    pub async fn start(test: &str) -> Option<PgTest> {
        let url = server_url();
        let reachable = match tokio_postgres::connect(&url, tokio_postgres::NoTls).await {
            Ok((client, connection)) => {
                tokio::spawn(connection);
                client.simple_query("SELECT 1").await.map(|_| ()).map_err(|e| e.to_string())
            }
            Err(e) => {
                Err(std::error::Error::source(&e).map_or_else(|| e.to_string(), |s| format!("{e}: {s}")))
            }
        };
        match reachable {
            Ok(()) => Some(PgTest { prefix: test.to_owned(), schemas: Arc::default() }),
            Err(e) if std::env::var("CI").is_ok_and(|v| v == "true") => {
                panic!("PostgreSQL test `{test}`: no server at AGENTWARDEN_TEST_PG `{url}`: {e}")
            }
            Err(e) => {
                eprintln!(
                    "SKIPPED PostgreSQL test `{test}`: no server at AGENTWARDEN_TEST_PG `{url}` ({e}); \
                     set AGENTWARDEN_TEST_PG to a server to run it"
                );
                None
            }
        }
    }

    /// A new schema name, owned by this test.
    pub fn schema(&self) -> String {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let name = format!("aw_{}_{}_{n}_{nanos}", self.prefix, std::process::id());
        self.schemas.lock().unwrap().push(name.clone());
        name
    }

    /// A URL that selects `schema` through the connection options.
    pub fn url_for(&self, schema: &str) -> String {
        let url = server_url();
        let sep = if url.contains('?') { '&' } else { '?' };
        format!("{url}{sep}options=-csearch_path%3D{schema}")
    }

    /// A store in a new schema of its own.
    pub fn store(&self) -> PostgresEventStore {
        let schema = self.schema();
        PostgresEventStore::new(PgConfig::parse(&server_url()).unwrap().schema(&schema).unwrap())
    }

    /// Runs SQL on the test server as a plain client (for what a store would never do).
    pub async fn sql(
        &self,
        sql: &str,
    ) -> Result<Vec<tokio_postgres::SimpleQueryMessage>, tokio_postgres::Error> {
        let (client, connection) = tokio_postgres::connect(&server_url(), tokio_postgres::NoTls).await?;
        tokio::spawn(connection);
        client.simple_query(sql).await
    }
}

impl Drop for PgTest {
    fn drop(&mut self) {
        if Arc::strong_count(&self.schemas) > 1 {
            return;
        }
        let schemas = std::mem::take(&mut *self.schemas.lock().unwrap_or_else(|e| e.into_inner()));
        if schemas.is_empty() {
            return;
        }
        // Dropped inside a runtime or not: a thread of its own with its own runtime.
        let _ = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            runtime.block_on(async {
                if let Ok((client, connection)) =
                    tokio_postgres::connect(&server_url(), tokio_postgres::NoTls).await
                {
                    tokio::spawn(connection);
                    for schema in schemas {
                        let _ = client
                            .batch_execute(&format!("DROP SCHEMA IF EXISTS \"{schema}\" CASCADE"))
                            .await;
                    }
                }
            });
        })
        .join();
    }
}
