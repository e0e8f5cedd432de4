//! Guardrails from Rust: an agent runs in a workspace whose `okrs/` directory is protected; it
//! rewrites a protected file anyway. The guarded run kept the content first, so it names the
//! change, puts the file back, writes and records the violation, and fails the item.
//!
//! ```sh
//! cargo run -p agentwarden --example guarded_run
//! ```

use std::path::Path;
use std::sync::Arc;

use agentwarden::fact::FactError;
use agentwarden::store::MemoryEventStore;
use agentwarden::wiring::AgentRunner;
use agentwarden::{Config, GuardTarget, Warden};

/// The agent under guard: it does its work, and then touches what it must not.
struct Careless;

#[async_trait::async_trait]
impl AgentRunner for Careless {
    async fn run_agent(&self, root: &Path) -> Result<Option<i32>, FactError> {
        std::fs::write(root.join("notes.md"), "work done").map_err(|e| FactError::new(e.to_string()))?;
        std::fs::write(root.join("okrs/q4.md"), "objectives, rewritten by the agent")
            .map_err(|e| FactError::new(e.to_string()))?;
        Ok(Some(0))
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let workspace = tempfile::tempdir()?;
    let root = workspace.path();
    std::fs::create_dir_all(root.join("okrs"))?;
    std::fs::write(root.join("okrs/q4.md"), "objectives")?;
    // The default configuration protects `okrs/`.
    let config = Config::default();
    let warden = Warden::builder().store(Arc::new(MemoryEventStore::new())).config(config).build()?;

    let artifacts = root.join("artifacts");
    let target = GuardTarget { root, item: "item-1", run: "run-1", session: None, artifacts: &artifacts };
    let run = warden.guarded_run(&target, &Careless, None).await?;

    let violation = run.guard.violation.as_ref().ok_or("the change should have been found")?;
    println!("item failed: {}; agent exit {:?}", run.item_failed, run.command);
    println!(
        "violation `{}`: {:?}, reverted: {}",
        violation.violation_type, violation.details.changed_files, violation.details.reverted
    );
    println!("okrs/q4.md now: {:?}", std::fs::read_to_string(root.join("okrs/q4.md"))?);
    assert_eq!(std::fs::read_to_string(root.join("okrs/q4.md"))?, "objectives");
    assert!(warden.verify(None).await?.is_intact());
    Ok(())
}
