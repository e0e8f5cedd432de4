//! The subagent gate from Rust: may the MANAGER persona inject its specialists? The bundled
//! example project (`examples/agentwarden.toml`) is read through the ports, the domain decides,
//! the decision is recorded, and only then is a `DelegationGrant` handed out — the one value
//! that permits the injection (X-20). A request without the human approval metadata is denied
//! and no grant exists.
//!
//! ```sh
//! cargo run -p agentwarden --example gate
//! ```

use std::path::Path;
use std::sync::Arc;

use agentwarden::governance::Request;
use agentwarden::store::MemoryEventStore;
use agentwarden::wiring::FixedEnvironment;
use agentwarden::{Config, Warden};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let config = Config::load(Some(&examples.join("agentwarden.toml")))?;
    let warden = Warden::builder()
        .store(Arc::new(MemoryEventStore::new()))
        .config(config)
        // The kill switch the example project names: injection is off unless it says `true`.
        .environment(Arc::new(FixedEnvironment::with("CHIRALITY_ENABLE_SUBAGENTS", "true")))
        .build()?;

    let read = |name: &str| std::fs::read_to_string(examples.join("requests").join(name));
    let allowed = warden.evaluate_delegation(Request::from_json(&read("example-1-allow.json")?)).await;
    println!("example-1: {:?}", allowed.report.decision);
    let grant = allowed.grant.ok_or("example-1 should be allowed")?;
    let injected: Vec<&str> = grant.subagents().iter().map(|name| name.as_str()).collect();
    println!(
        "  grant: {} may inject {injected:?} (approval {}), recorded at seq {}",
        grant.persona().as_str(),
        grant.approval_ref(),
        grant.audit().seq
    );

    let denied =
        warden.evaluate_delegation(Request::from_json(&read("example-2-missing-metadata.json")?)).await;
    let first = denied.report.first_failure.as_ref().ok_or("example-2 should be denied")?;
    println!(
        "example-2: {:?} at {:?}: {} ({})",
        denied.report.decision, first.gate, first.code, first.reason
    );
    assert!(denied.grant.is_none(), "a denial carries no grant");

    // Both decisions are on the hash chain before they were returned.
    assert!(warden.verify(None).await?.is_intact());
    Ok(())
}
