//! `cargo xtask demo`: the README's first command. Builds `warden`, then runs it against a
//! fresh embedded store under `target/demo/`, printing each command before its output.

use std::path::Path;
use std::process::Command;

fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())
}

fn warden(bin: &Path, store: &Path, args: &[&str]) -> Result<(), String> {
    println!("\n$ warden --store {} {}", store.display(), args.join(" "));
    let status = Command::new(bin)
        .arg("--store")
        .arg(store)
        .args(args)
        .status()
        .map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
    if status.success() { Ok(()) } else { Err(format!("`warden {}` failed ({status})", args.join(" "))) }
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
    warden(&bin, &store, &["audit", "note", "session started", "--session", "demo-1", "--actor", "harness"])?;
    warden(&bin, &store, &["audit", "note", "approval GATE-2026-02-21-001 noted", "--session", "demo-1"])?;
    warden(&bin, &store, &["audit", "note", "session ended", "--session", "demo-1", "--actor", "harness"])?;
    warden(&bin, &store, &["audit", "log"])?;
    warden(&bin, &store, &["audit", "verify"])?;
    warden(&bin, &store, &["audit", "checkpoint"])?;
    Ok(())
}
