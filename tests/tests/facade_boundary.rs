//! The facade has a boundary (issue 49, item 5; A-48): the crates above the application reach the
//! kernel only through the facade (`agentwarden`) and the protocol, never the domain, the ports
//! or the adapters beneath it. `cargo metadata` is read here, and each row of `ABOVE` names the
//! workspace crates its crate's normal dependencies (optional ones included) may be; any other
//! `agentwarden…` crate there fails the test. Dev-dependencies are not read: a test may build
//! what it needs from any ring.


use std::collections::BTreeSet;
use std::process::Command;

use serde_json::Value;

/// A crate above the facade and the workspace crates it may depend on.
struct Row {
    krate: &'static str,
    allowed: &'static [&'static str],
}

/// The rings beneath the facade, which no crate of `ABOVE` may name.
const BENEATH: [&str; 3] = ["agentwarden-domain", "agentwarden-ports", "agentwarden-adapters"];

/// The crates above the facade and what each may depend on.
const ABOVE: [Row; 5] = [
    Row { krate: "agentwarden-server", allowed: &["agentwarden", "agentwarden-protocol"] },
    Row {
        krate: "agentwarden-cli",
        allowed: &[
            "agentwarden",
            "agentwarden-protocol",
            "agentwarden-server",
            "agentwarden-hook-client",
            "agentwarden-claude-code",
            "agentwarden-codex",
            "agentwarden-gemini",
            "agentwarden-copilot",
            "agentwarden-doctor",
            "agentwarden-report",
            "agentwarden-witness",
        ],
    },
    // The command line's libraries (issue 49 item 5).
    Row { krate: "agentwarden-doctor", allowed: &["agentwarden", "agentwarden-protocol"] },
    Row { krate: "agentwarden-report", allowed: &["agentwarden"] },
    Row { krate: "agentwarden-witness", allowed: &["agentwarden", "agentwarden-protocol"] },
];

/// Every workspace package's name with the names of its normal dependencies, from `cargo
/// metadata` (no build, no network).
fn normal_dependencies() -> Vec<(String, BTreeSet<String>)> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let out = Command::new(cargo)
        .current_dir(root)
        .args(["metadata", "--format-version", "1", "--no-deps", "--offline", "--locked"])
        .output()
        .unwrap_or_else(|e| panic!("cargo metadata: {e}"));
    assert!(out.status.success(), "cargo metadata: {}", String::from_utf8_lossy(&out.stderr));
    let metadata: Value = serde_json::from_slice(&out.stdout).unwrap();
    metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|package| {
            let name = package["name"].as_str().unwrap().to_owned();
            let deps = package["dependencies"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|dep| dep["kind"].is_null())
                .map(|dep| dep["name"].as_str().unwrap().to_owned())
                .collect();
            (name, deps)
        })
        .collect()
}

/// The workspace crates `krate` depends on that its row does not allow.
fn beyond(row: &Row, packages: &[(String, BTreeSet<String>)]) -> Vec<String> {
    let (_, deps) = packages
        .iter()
        .find(|(name, _)| name == row.krate)
        .unwrap_or_else(|| panic!("`cargo metadata` names no package `{}`: the row is stale", row.krate));
    assert!(
        deps.contains("agentwarden"),
        "`{}` does not depend on the facade: the check would read nothing ({deps:?})",
        row.krate
    );
    deps.iter()
        .filter(|dep| dep.starts_with("agentwarden") && !row.allowed.contains(&dep.as_str()))
        .cloned()
        .collect()
}

#[test]
fn the_crates_above_the_facade_reach_the_kernel_only_through_it() {
    let packages = normal_dependencies();
    let broken: Vec<String> = ABOVE
        .iter()
        .filter_map(|row| {
            let beyond = beyond(row, &packages);
            (!beyond.is_empty()).then(|| format!("`{}` depends on {beyond:?}", row.krate))
        })
        .collect();
    assert!(
        broken.is_empty(),
        "past the facade's boundary (reach the kernel through `agentwarden` instead, A-48):\n{}",
        broken.join("\n")
    );
}

#[test]
fn the_rings_beneath_are_allowed_to_no_row() {
    for row in &ABOVE {
        for beneath in BENEATH {
            assert!(!row.allowed.contains(&beneath), "`{}` is allowed `{beneath}`", row.krate);
        }
    }
}

