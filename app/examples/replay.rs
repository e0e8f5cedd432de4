//! Replaying the audit log from Rust: record a few decisions with the bundled example
//! manifests, then rebuild two projections with `Warden::replay`, which streams the store page
//! by page, verifies the hash chain and upcasts old events as it goes.
//!
//! ```sh
//! cargo run -p agentwarden --example replay
//! ```

use std::path::Path;
use std::sync::Arc;

use agentwarden::events::projections::{Denials, SpawnTrees, Timeline};
use agentwarden::lineage_rules::{LineageRequest, NoLinks, RulesAs, ToolCallRequest};
use agentwarden::store::MemoryEventStore;
use agentwarden::{Config, Warden};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let config = Config::load(Some(&examples.join("agentwarden.toml")))?;
    let warden = Warden::builder().store(Arc::new(MemoryEventStore::new())).config(config).build()?;

    // A few decisions, each recorded before it is returned.
    for lineage in ["three-levels", "mid-chain-violation"] {
        let text = std::fs::read_to_string(examples.join(format!("lineage/{lineage}.json")))?;
        let outcome = warden.check_lineage(LineageRequest::from_json(&text)).await;
        println!("lineage {lineage}: {:?}", outcome.decision);
    }
    for request in ["authorize-write", "authorize-escalation"] {
        let text = std::fs::read_to_string(examples.join(format!("lineage/{request}.json")))?;
        // These requests name their tool alone. A request with an input is read as a harness's
        // hook reads it: pass its integration's reading (`Harness::rules_as`);
        // read by name, only a rule without a specifier grants it (T-16).
        let by_name = |tool: &str, _: &serde_json::Value| RulesAs::named(tool);
        let asked = ToolCallRequest::from_json(&text, &warden.request_root(), by_name, &NoLinks);
        let outcome = warden.authorize_tool_call(asked).await;
        println!("authorize {request}: {:?}", outcome.authorization.decision);
    }

    // Investigations: each is one streaming, verified pass over the log.
    let denials = warden.replay(&Denials).await?;
    println!(
        "\n{} denials; by layer {:?}; by persona {:?}",
        denials.denials, denials.by_layer, denials.by_persona
    );

    let trees = warden.replay(&SpawnTrees).await?;
    for (session, tree) in &trees.sessions {
        println!("\nspawn tree of session {session}:");
        for (id, agent) in &tree.agents {
            let parent = agent.parent.as_deref().unwrap_or("(root)");
            println!(
                "  {id} ({}) spawned by {parent}; {} of {} checks denied",
                agent.agent_type, agent.denied, agent.checks
            );
        }
    }

    let timeline = warden.replay(&Timeline { session: "example-session".into() }).await?;
    println!("\ntimeline of example-session:");
    for entry in &timeline {
        println!("  {:>3}  {}", entry.seq, entry.summary);
    }
    Ok(())
}
