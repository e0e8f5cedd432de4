//! Builds an event log of N events for measurements: `cargo run --release -p agentwarden-adapters
//! --example build_log -- N PATH`. Used by `cargo xtask bench` to measure `warden audit verify`'s
//! peak memory on logs of different lengths.

use agentwarden_adapters::{SledConfig, SledEventStore};
use agentwarden_domain::audit::{Actor, Correlation, EventDraft, Timestamp};
use agentwarden_domain::events::{AuditEvent, OperatorNote};
use agentwarden_ports::{EventStore, Expected};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: build_log N PATH";
    let events: u64 = args.next().ok_or(usage)?.parse()?;
    let path = args.next().ok_or(usage)?;
    let store = SledEventStore::open(&SledConfig::new(path))?;
    let actor = Actor::new("bench")?;
    let at = Timestamp::from_unix_millis(1_771_666_200_000)?;
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).build()?;
    runtime.block_on(async {
        let mut written = 0;
        while written < events {
            let size = (events - written).min(1000);
            let batch = (written..written + size)
                .map(|i| {
                    let event = AuditEvent::OperatorNote(OperatorNote {
                        message: format!("{i:08} {}", "x".repeat(190)),
                    });
                    EventDraft::new(at, actor.clone(), Correlation::default(), &event)
                })
                .collect::<Result<Vec<_>, _>>()?;
            store.append(Expected::Any, batch).await?;
            written += size;
        }
        Ok::<_, Box<dyn std::error::Error>>(())
    })
}
