//! The facade has a boundary (issue 49, item 5; A-48): the crates above the application reach the
//! kernel only through the facade (`agentwarden`) and the protocol, never the domain, the ports
//! or the adapters beneath it. `cargo metadata` is read here, and each row of `ABOVE` names the
//! workspace crates its crate's normal dependencies (optional ones included) may be; any other
//! `agentwarden…` crate there fails the test. Dev-dependencies are not read: a test may build
//! what it needs from any ring.
//!
//! The facade's own boundary: what it re-exports from beneath is named item by item, never a
//! whole module of the domain, the ports or the adapters, nor a glob (`::*`), so that what a
//! caller reaches is what the facade chose. The app's sources are read for `pub use` trees, and
//! a path that ends at a module of a crate beneath (a file of its `src`) fails the test.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
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
    Row { krate: "agentwarden-report", allowed: &["agentwarden", "agentwarden-protocol"] },
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

/// The crates beneath the facade as a source names them, with their `src` folders.
const BENEATH_SOURCES: [(&str, &str); 3] = [
    ("agentwarden_domain", "domain/src"),
    ("agentwarden_ports", "ports/src"),
    ("agentwarden_adapters", "adapters/src"),
];

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            files.push(path);
        }
    }
    files
}

/// The public module paths of a crate's source folder (`audit`, `audit::merkle`), one a file
/// (`a.rs` and `a/mod.rs` are `a`, `lib.rs` the crate itself) declared `pub mod` by its parent. A
/// private module is left out: a `use` of its name outside the crate names only the item of the
/// same name beside it (`fanout::merge` the function), never the module.
fn modules(src: &Path) -> BTreeSet<String> {
    let parent_text = |parents: &[String]| {
        let base = src.join(parents.join("/"));
        let candidates = match parents {
            [] => vec![src.join("lib.rs")],
            _ => vec![base.join("mod.rs"), base.with_extension("rs")],
        };
        candidates.iter().find_map(|file| std::fs::read_to_string(file).ok()).unwrap_or_default()
    };
    rust_files(src)
        .iter()
        .filter_map(|file| {
            let relative = file.strip_prefix(src).unwrap().with_extension("");
            let mut parts: Vec<String> =
                relative.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
            if parts.last().is_some_and(|last| last == "mod") {
                parts.pop();
            }
            let (name, parents) = parts.split_last()?;
            let declared = parent_text(parents).lines().any(|line| line.trim() == format!("pub mod {name};"));
            (parts != ["lib"] && declared).then(|| parts.join("::"))
        })
        .collect()
}

/// The paths one `use` tree names, its braces expanded and any `as` rename dropped:
/// `a::{b, c::{d as e}}` is `a::b` and `a::c::d`.
fn expand(tree: &str) -> Vec<String> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        let path = tree.split(" as ").next().unwrap_or(tree).trim();
        return if path.is_empty() { Vec::new() } else { vec![path.replace(' ', "")] };
    };
    let prefix = tree[..open].trim();
    let inner = tree[open + 1..tree.rfind('}').unwrap()].trim();
    let mut branches = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                branches.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    branches.push(&inner[start..]);
    branches.iter().flat_map(|branch| expand(branch)).map(|path| format!("{prefix}{path}")).collect()
}

/// What each `pub use` of `text` names, statement by statement (comments dropped).
fn public_uses(text: &str) -> Vec<String> {
    let code: String =
        text.lines().map(|line| line.split("//").next().unwrap_or("")).collect::<Vec<_>>().join(" ");
    code.split("pub use ").skip(1).flat_map(|rest| expand(rest.split(';').next().unwrap_or(""))).collect()
}

#[test]
fn the_facade_re_exports_named_items_never_a_whole_module_beneath() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let beneath: Vec<(&str, BTreeSet<String>)> =
        BENEATH_SOURCES.iter().map(|(name, src)| (*name, modules(&root.join(src)))).collect();
    for (name, modules) in &beneath {
        assert!(!modules.is_empty(), "`{name}` lists no modules: the source folder is stale");
    }
    let mut wholesale = Vec::new();
    for file in rust_files(&root.join("app/src")) {
        let text = std::fs::read_to_string(&file).unwrap();
        for path in public_uses(&text) {
            for (name, modules) in &beneath {
                let Some(rest) = path.strip_prefix(&format!("{name}::")) else { continue };
                let rest = rest.strip_suffix("::self").unwrap_or(rest);
                if rest == "*" || rest.ends_with("::*") || modules.contains(rest) {
                    wholesale
                        .push(format!("{}: `pub use {path}`", file.strip_prefix(root).unwrap().display()));
                }
            }
        }
    }
    assert!(
        wholesale.is_empty(),
        "the facade re-exports a whole module (or a glob) of a crate beneath it; re-export the items a \
         caller needs by name, in a facade module of the same name (issue 49 item 5, A-48):\n{}",
        wholesale.join("\n")
    );
}

/// The reader of `pub use` trees, on the shapes the facade writes.
#[test]
fn a_use_tree_expands_to_its_paths() {
    assert_eq!(
        public_uses("pub use a::{b, c as d, e::{f, g::*}};\n// pub use x::y;\npub(crate) use h::i;"),
        ["a::b", "a::c", "a::e::f", "a::e::g::*"]
    );
    assert_eq!(public_uses("pub use agentwarden_domain::code::Code;"), ["agentwarden_domain::code::Code"]);
}
