//! The library a consumer adds pulls none of the command line's dependencies. `cargo tree`
//! of `agentwarden` (normal dependencies, as a consumer's build sees them) is read here and must
//! name none of them; the CLI crate's tree, the control, must name them all (so the check cannot
//! pass by reading nothing).

use std::collections::BTreeSet;
use std::process::Command;

/// What only the `warden` binary needs.
const CLI_ONLY: [&str; 3] = ["clap", "tracing-subscriber", "toml_edit"];
/// What only the PostgreSQL fleet store needs (the `postgres` feature).
const POSTGRES_ONLY: [&str; 2] = ["tokio-postgres", "postgres-protocol"];

fn tree(package: &str, features: &[&str]) -> BTreeSet<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let out = Command::new(cargo)
        .current_dir(root)
        .args(["tree", "--locked", "--offline", "-e", "normal", "--prefix", "none", "-p", package])
        .args(features)
        .output()
        .unwrap_or_else(|e| panic!("cargo tree: {e}"));
    assert!(out.status.success(), "cargo tree -p {package}: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let names: BTreeSet<String> =
        text.lines().filter_map(|line| line.split_whitespace().next()).map(str::to_owned).collect();
    assert!(names.contains(package), "the tree of {package} does not name it: {text}");
    names
}

#[test]
fn the_library_alone_pulls_neither_the_command_line_nor_postgresql() {
    let library = tree("agentwarden", &[]);
    for name in CLI_ONLY.iter().chain(&POSTGRES_ONLY) {
        assert!(!library.contains(*name), "agentwarden (default features) depends on {name}");
    }
}

#[test]
fn the_postgres_feature_adds_postgresql_and_still_no_command_line() {
    let library = tree("agentwarden", &["--features", "postgres"]);
    for name in POSTGRES_ONLY {
        assert!(library.contains(name), "agentwarden --features postgres lacks {name}");
    }
    for name in CLI_ONLY {
        assert!(!library.contains(name), "agentwarden --features postgres depends on {name}");
    }
}

#[test]
fn the_command_line_crate_has_them_all() {
    let cli = tree("agentwarden-cli", &[]);
    for name in CLI_ONLY.iter().chain(&POSTGRES_ONLY) {
        assert!(cli.contains(*name), "agentwarden-cli lacks {name}: the check would read nothing");
    }
}

/// The OpenTelemetry export is the server's `otel` feature: a consumer of the server
/// library does not build it; the `warden` command line turns it on by default (V-60).
#[test]
fn the_export_is_the_servers_otel_feature_and_the_command_lines_default() {
    const OTEL: [&str; 3] = ["opentelemetry", "opentelemetry_sdk", "opentelemetry-otlp"];
    let server = tree("agentwarden-server", &[]);
    let exporting = tree("agentwarden-server", &["--features", "otel"]);
    let cli = tree("agentwarden-cli", &[]);
    for name in OTEL {
        assert!(!server.contains(name), "agentwarden-server (default features) depends on {name}");
        assert!(exporting.contains(name), "agentwarden-server --features otel lacks {name}");
        assert!(cli.contains(name), "agentwarden-cli (default features) lacks {name}");
    }
    for name in ["tonic", "reqwest"] {
        assert!(!cli.contains(name), "the export pulls {name}: OTLP/HTTP with hyper's client is lighter");
    }
}
