//! `cargo xtask demo`: the README's first command. Builds `warden` (cargo's progress shown),
//! then evaluates the spec's Examples 1–4 from `examples/` against a fresh embedded store in
//! `target/demo/audit` of the workspace (whatever `CARGO_TARGET_DIR` says, so the README's
//! investigation commands can name it), and shows the resulting audit log and its verification.
//! Each command is printed as a line that can be copied and run from the workspace root.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::root;

/// The demo's store, relative to the workspace root.
pub(crate) const STORE: &str = "target/demo/audit";

/// Builds the debug `warden` and its hook client `warden-hook` (beside it), showing cargo's
/// progress, and returns the path of `warden`.
pub(crate) fn build_warden() -> Result<PathBuf, String> {
    println!(
        "==> building warden (cargo build --locked -p agentwarden-cli --bin warden -p agentwarden-hook-client --bin \
         warden-hook)"
    );
    crate::install::build_bins(crate::install::Profile::Debug)?;
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root().join("target"), PathBuf::from);
    Ok(root().join(target).join("debug").join("warden"))
}

/// `path` relative to `base` when it is inside it, for a line that can be copied.
fn shown(path: &Path, base: &Path) -> String {
    path.strip_prefix(base).map_or_else(|_| path.display().to_string(), |p| p.display().to_string())
}

/// Runs warden in `dir` with the example's kill switch on; `expect` is the exit code it must give.
fn warden(bin: &Path, dir: &Path, args: &[&str], expect: i32) -> Result<(), String> {
    println!("\n$ CHIRALITY_ENABLE_SUBAGENTS=true {} --store {STORE} {}", shown(bin, dir), args.join(" "));
    let status = Command::new(bin)
        .arg("--store")
        .arg(STORE)
        .args(args)
        .current_dir(dir)
        .env("CHIRALITY_ENABLE_SUBAGENTS", "true")
        .env_remove("AGENTWARDEN_STORE")
        .status()
        .map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
    if status.code() == Some(expect) {
        Ok(())
    } else {
        Err(format!("`warden {}` exited with {status}, expected {expect}", args.join(" ")))
    }
}

/// Examples 1–4 and the log, in a fresh store under `dir` (a workspace root).
pub(crate) fn examples(bin: &Path, dir: &Path) -> Result<(), String> {
    let store = dir.join(STORE);
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
        warden(bin, dir, &["gate", "--config", config, "--request", request], expect)?;
    }
    warden(bin, dir, &["audit", "log"], 0)?;
    warden(bin, dir, &["audit", "verify"], 0)?;
    println!("\nThe store is {STORE}: try `{} --store {STORE} audit explain 3`.", shown(bin, dir));
    Ok(())
}

pub(crate) fn run() -> Result<(), String> {
    let bin = build_warden()?;
    examples(&bin, &root())
}
