//! `cargo xtask demo`: the README's first command. Builds `warden`, then evaluates the spec's
//! Examples 1–4 from `examples/` against a fresh embedded store under `target/demo/`, and shows
//! the resulting audit log and its verification.

use std::path::Path;
use std::process::Command;

use crate::cargo;

/// Runs warden with the example's kill switch on; `expect` is the exit code it must give.
fn warden(bin: &Path, store: &Path, args: &[&str], expect: i32) -> Result<(), String> {
    println!("\n$ CHIRALITY_ENABLE_SUBAGENTS=true warden --store {} {}", store.display(), args.join(" "));
    let status = Command::new(bin)
        .arg("--store")
        .arg(store)
        .args(args)
        .env("CHIRALITY_ENABLE_SUBAGENTS", "true")
        .status()
        .map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
    if status.code() == Some(expect) {
        Ok(())
    } else {
        Err(format!("`warden {}` exited with {status}, expected {expect}", args.join(" ")))
    }
}

pub(crate) fn run() -> Result<(), String> {
    let status = Command::new(cargo())
        .args(["build", "--quiet", "--package", "agentwarden", "--bin", "warden"])
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err("building warden failed".into());
    }
    let target = std::env::var("CARGO_TARGET_DIR").unwrap_or_else(|_| "target".into());
    let bin = Path::new(&target).join("debug").join("warden");
    let store = Path::new(&target).join("demo").join("audit");
    if store.exists() {
        std::fs::remove_dir_all(&store).map_err(|e| format!("cannot reset {}: {e}", store.display()))?;
    }
    let config = "examples/agentwarden.toml";
    for (request, expect) in [
        ("examples/requests/example-1-allow.json", 0),
        ("examples/requests/example-2-missing-metadata.json", 1),
        ("examples/requests/example-3-context-not-sealed.json", 1),
        ("examples/requests/example-4-type-coercion.json", 1),
    ] {
        warden(&bin, &store, &["gate", "--config", config, "--request", request], expect)?;
    }
    warden(&bin, &store, &["audit", "log"], 0)?;
    warden(&bin, &store, &["audit", "verify"], 0)?;
    Ok(())
}
