//! Child process of the crash test: appends to a durable sled store forever, printing each
//! acknowledged `seq` on its own line, until it is killed. With `archive`, it moves events into
//! segments of 5 once 7 more stay in sled, on the store's background thread (S-13), so kills
//! land inside moves too.

use std::io::Write;

use agentwarden_adapters::{Archiving, Durability, SledConfig, SledEventStore};
use agentwarden_ports::{EventStore, Expected};

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: crash_appender STORE_DIR [fsync] [archive]");
    let rest: Vec<String> = args.collect();
    let durability = if rest.iter().any(|a| a == "fsync") { Durability::Fsync } else { Durability::Flush };
    let mut config = SledConfig::new(path).durability(durability);
    if rest.iter().any(|a| a == "archive") {
        config = config.archive_sizes(7, 5).archiving(Archiving::Background);
    }
    let store = SledEventStore::open(&config).expect("open the store");
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).build().expect("runtime");
    let mut stdout = std::io::stdout().lock();
    runtime.block_on(async {
        for i in 0u64.. {
            // Alternate single events and small batches.
            let batch = (0..1 + i % 3).map(|j| agentwarden_tests::note(&format!("crash {i}.{j}"))).collect();
            let appended = store.append(Expected::Any, batch).await.expect("append");
            writeln!(stdout, "{}", appended.head.seq).expect("stdout");
            stdout.flush().expect("stdout");
        }
    });
}
