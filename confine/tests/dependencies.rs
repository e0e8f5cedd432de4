//! `warden-confine`'s dependency tree (what it links, build scripts and proc-macros included)
//! is the Landlock crate, rustix and seccompiler, and what they need: a closed list, so that a new crate in
//! the launcher every confined call runs under is a decision, not an accident (issue 50).

#![expect(clippy::unwrap_used, reason = "test code: a failure is a failed test")]

use std::collections::BTreeSet;

/// Every crate the launcher may link, and why.
const ALLOWED: [(&str, &str); 15] = [
    ("agentwarden-confine", "the launcher itself"),
    ("landlock", "the Landlock project's own crate: rulesets, rules, restrict_self"),
    ("enumflags2", "landlock's access-right flags"),
    ("enumflags2_derive", "enumflags2's derive (build time only)"),
    ("thiserror", "landlock's errors and the launcher's error enums"),
    ("thiserror-impl", "thiserror's derive (build time only)"),
    ("libc", "landlock's and seccompiler's system calls; the filter's numbers"),
    ("seccompiler", "rust-vmm's seccomp-bpf compiler: the socket filter (E-32)"),
    ("rustix", "namespaces, mounts, identity, no-new-privileges"),
    ("bitflags", "rustix's flags"),
    ("linux-raw-sys", "rustix's kernel interface"),
    ("proc-macro2", "the derives (build time only)"),
    ("quote", "the derives (build time only)"),
    ("syn", "the derives (build time only)"),
    ("unicode-ident", "the derives (build time only)"),
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
fn the_launcher_links_landlock_and_rustix_and_nothing_else() {
    let linked = tree("agentwarden-confine");
    let allowed: BTreeSet<String> = ALLOWED.iter().map(|(name, _)| (*name).to_owned()).collect();
    let extra: Vec<&String> = linked.difference(&allowed).collect();
    assert!(extra.is_empty(), "crates in warden-confine's tree that are not on the list: {extra:?}");
    assert!(linked.contains("landlock") && linked.contains("rustix"), "the check reads nothing: {linked:?}");
    // The check sees a crate that is not on the list: the domain's tree has serde.
    let domain = tree("agentwarden-domain");
    assert!(
        !domain.difference(&allowed).collect::<Vec<_>>().is_empty(),
        "the check finds nothing extra anywhere"
    );
}
