//! A fleet host for the tests: appends to the PostgreSQL store at `URL`, `COUNT` times (0:
//! until killed), `BATCH` events each, and prints `first last` for every acknowledged append.
//!
//! `pg_appender URL COUNT BATCH LABEL`

use std::io::Write;

use agentwarden_adapters::{PgConfig, PostgresEventStore};
use agentwarden_ports::{EventStore, Expected};
use agentwarden_tests::note;

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let [_, url, count, batch, label] = args.as_slice() else {
        eprintln!("usage: pg_appender URL COUNT BATCH LABEL");
        return std::process::ExitCode::from(2);
    };
    let (count, batch): (u64, u64) = (count.parse().unwrap(), batch.parse().unwrap());
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let store = PostgresEventStore::new(PgConfig::parse(url).unwrap());
        let mut stdout = std::io::stdout().lock();
        let mut i = 0;
        while count == 0 || i < count {
            let drafts = (0..batch).map(|j| note(&format!("{label}/{i}/{j}"))).collect();
            match store.append(Expected::Any, drafts).await {
                Ok(appended) => {
                    writeln!(stdout, "{} {}", appended.first_seq, appended.head.seq).unwrap();
                    stdout.flush().unwrap();
                }
                Err(e) => {
                    eprintln!("pg_appender {label}: {e}");
                    return std::process::ExitCode::from(3);
                }
            }
            i += 1;
        }
        std::process::ExitCode::SUCCESS
    })
}
