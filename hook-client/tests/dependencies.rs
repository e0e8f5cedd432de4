//! `warden-hook`'s dependency tree (what it links, build scripts included) holds no
//! store, no runtime, no command-line parser and not the application: `cargo tree -p
//! agentwarden-hook-client -e normal,build` (the host's platform), read line by line (V-29, V-34).

#![expect(clippy::unwrap_used, reason = "test code: a failure is a failed test")]

use std::collections::BTreeSet;

/// The crates `warden-hook` must not link, and why.
const FORBIDDEN: [(&str, &str); 7] = [
    ("sled", "the embedded store: the server holds it"),
    ("tokio-postgres", "the fleet store: the server holds it"),
    ("tokio", "a runtime: the client is synchronous (V-29)"),
    ("clap", "the command tree: the line is read by hand (V-34)"),
    ("agentwarden", "the application: the client decides nothing"),
    ("agentwarden-adapters", "the adapters: the client opens nothing"),
    (
        "agentwarden-doctor",
        "the installers and checks: the registry holds them only with the feature `doctor`, which the command \
         line turns on (X-101)",
    ),
];

/// The names of the packages in `package`'s tree, by normal and build edges.
fn tree(package: &str) -> BTreeSet<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = std::process::Command::new(cargo)
        .args(["tree", "--locked", "--offline", "-e", "normal,build", "--prefix", "none", "-p", package])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .filter_map(|line| line.split_whitespace().next().map(str::to_owned))
        .collect()
}

#[test]
fn the_hook_client_links_no_store_no_runtime_no_parser_and_no_application() {
    let linked = tree("agentwarden-hook-client");
    assert!(linked.contains("agentwarden-protocol"), "the protocol is linked: {linked:?}");
    for (name, why) in FORBIDDEN {
        assert!(!linked.contains(name), "`{name}` is in warden-hook's tree ({why}): {linked:?}");
    }
    // The check sees what it must: the command line's crate links every one of them.
    let cli = tree("agentwarden-cli");
    for (name, _) in FORBIDDEN {
        assert!(cli.contains(name), "`{name}` not found in the cli's tree: the check reads nothing");
    }
}
