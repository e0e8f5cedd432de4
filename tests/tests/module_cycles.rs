//! No two modules of a crate depend on each other, directly or around a circle. A module
//! that needs a sibling's value takes it from a module below both (the chain and the envelope
//! know no event catalogue; a doctor's finding is a module of its own that every check reports
//! in), so each crate reads bottom-up.
//!
//! How it is read: each crate's `src/` files are modules (`a/b.rs` and `a/b/mod.rs` are `a::b`;
//! `bin/` holds other crates' roots and is skipped, and so are test files and the `mod tests`
//! at a file's end). A module depends on a sibling when its code names it: `super::sibling`,
//! `crate::…::sibling`, or a name the crate root re-exports from it (`crate::Warden` is
//! `warden`'s). Between two modules of different parents, the edge is drawn between their
//! ancestors under the nearest common parent. Comments are not code (an intra-doc link is no
//! dependency). The circles not yet broken are listed in [`KNOWN`]: the test fails when a new
//! circle appears and when a listed one is gone, so the list is always the truth.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Circles still in the code, per crate (their members, sorted): each one a step to take.
const KNOWN: &[(&str, &[&str])] = &[];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every `.rs` file under `dir`, with its module path (`a::b`; the crate root is ``).
fn modules(src: &Path) -> BTreeMap<String, String> {
    let mut found = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let relative = path.strip_prefix(src).unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                if relative != "bin" {
                    stack.push(path);
                }
                continue;
            }
            let Some(stem) = relative.strip_suffix(".rs") else { continue };
            let mut parts: Vec<&str> = stem.split('/').collect();
            if parts.last().is_some_and(|last| *last == "tests" || last.ends_with("_tests")) {
                continue;
            }
            if parts.last().is_some_and(|last| matches!(*last, "mod" | "lib" | "main")) {
                parts.pop();
            }
            found.insert(parts.join("::"), std::fs::read_to_string(&path).unwrap());
        }
    }
    found
}

/// The code of a file: without its trailing `mod tests` and without comments.
fn code(text: &str) -> String {
    let text = text.find("#[cfg(test)]\nmod tests").map_or(text, |at| &text[..at]);
    text.lines().map(|line| line.find("//").map_or(line, |at| &line[..at])).collect::<Vec<_>>().join("\n")
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The identifiers of a `{ … }` group starting at `text` (nested groups flattened), or the one
/// path segment `text` starts with.
fn names_after(text: &str) -> Vec<String> {
    if text.starts_with('{') {
        // Only the first segment of each path at the group's own level names a module here.
        let (mut names, mut word, mut depth, mut expecting) = (Vec::new(), String::new(), 0, false);
        for c in text.chars() {
            if depth == 1 && expecting && is_ident(c) {
                word.push(c);
                continue;
            }
            if !word.is_empty() {
                names.push(std::mem::take(&mut word));
                expecting = false;
            }
            match c {
                '{' => {
                    depth += 1;
                    expecting = depth == 1;
                }
                '}' => depth -= 1,
                ',' if depth == 1 => expecting = true,
                c if c.is_whitespace() => {}
                _ if depth == 1 => expecting = false,
                _ => {}
            }
            if depth == 0 {
                break;
            }
        }
        names
    } else {
        let word: String = text.chars().take_while(|c| is_ident(*c)).collect();
        if word.is_empty() { Vec::new() } else { vec![word] }
    }
}

/// What `text` refers to after each occurrence of `prefix` (`super::`, `crate::`).
fn after<'a>(text: &'a str, prefix: &str) -> Vec<&'a str> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(prefix) {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + prefix.len()..];
        if before.is_none_or(|c| !is_ident(c)) {
            found.push(rest);
        }
    }
    found
}

/// The full path `crate::a::b::C` names (its module segments only, lowercase).
fn crate_path(text: &str) -> Vec<String> {
    let mut segments = Vec::new();
    let mut rest = text;
    loop {
        let word: String = rest.chars().take_while(|c| is_ident(*c)).collect();
        if word.is_empty() || !word.starts_with(|c: char| c.is_ascii_lowercase()) {
            break;
        }
        rest = &rest[word.len()..];
        segments.push(word);
        match rest.strip_prefix("::") {
            Some(next) => rest = next,
            None => break,
        }
    }
    segments
}

/// The crate root's re-exports: name → the top-level module it comes from.
fn reexports(root: &str) -> BTreeMap<String, String> {
    let mut map = BTreeMap::new();
    for statement in code(root).split(';') {
        let statement = statement.trim();
        let Some(rest) =
            statement.strip_prefix("pub use ").or_else(|| statement.strip_prefix("pub(crate) use "))
        else {
            continue;
        };
        let Some((module, names)) = rest.split_once("::") else { continue };
        for name in names.split(|c: char| !is_ident(c)).filter(|n| !n.is_empty()) {
            map.insert(name.to_owned(), module.to_owned());
        }
    }
    map
}

/// Each module's dependencies on its siblings (under the nearest common parent).
fn graph(modules: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let root_exports = reexports(modules.get("").map_or("", String::as_str));
    let exists = |path: &[String]| {
        let joined = path.join("::");
        modules.keys().any(|m| *m == joined || m.starts_with(&format!("{joined}::")))
    };
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, text) in modules {
        let here: Vec<String> =
            if module.is_empty() { Vec::new() } else { module.split("::").map(str::to_owned).collect() };
        let parent = &here[..here.len().saturating_sub(1)];
        let text = code(text);
        let mut targets: Vec<Vec<String>> = Vec::new();
        for rest in after(&text, "super::") {
            for name in names_after(rest) {
                targets.push(parent.iter().cloned().chain([name]).collect());
            }
        }
        for rest in after(&text, "crate::") {
            if rest.starts_with('{') {
                for name in names_after(rest) {
                    match root_exports.get(&name) {
                        Some(module) => targets.push(vec![module.clone()]),
                        None => targets.push(vec![name]),
                    }
                }
                continue;
            }
            let path = crate_path(rest);
            if path.is_empty() {
                let name: String = rest.chars().take_while(|c| is_ident(*c)).collect();
                if let Some(module) = root_exports.get(&name) {
                    targets.push(vec![module.clone()]);
                }
            } else {
                targets.push(path);
            }
        }
        for target in targets {
            let common = here.iter().zip(&target).take_while(|(a, b)| a == b).count();
            if common < here.len() && common < target.len() && exists(&target[..=common]) {
                let from = here[..=common].join("::");
                let to = target[..=common].join("::");
                edges.entry(from).or_default().insert(to);
            }
        }
    }
    edges
}

/// The circles of `graph`: its strongly connected components of more than one module.
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let nodes: BTreeSet<&String> = graph.keys().chain(graph.values().flatten()).collect();
    let reaches = |from: &String| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from];
        while let Some(node) = stack.pop() {
            for next in graph.get(node).into_iter().flatten() {
                if seen.insert(next) {
                    stack.push(next);
                }
            }
        }
        seen
    };
    let reach: BTreeMap<&String, BTreeSet<&String>> = nodes.iter().map(|n| (*n, reaches(n))).collect();
    let mut found = BTreeSet::new();
    for node in &nodes {
        let members: Vec<String> = nodes
            .iter()
            .filter(|other| reach[node].contains(*other) && reach[*other].contains(node))
            .map(|other| (*other).clone())
            .collect();
        if members.len() > 1 {
            found.insert(members);
        }
    }
    found.into_iter().collect()
}

/// The workspace's crates: `members` of the root manifest, with their `src/`.
fn crates() -> Vec<(String, PathBuf)> {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let line = manifest.lines().find(|l| l.starts_with("members")).unwrap();
    line.split('"').skip(1).step_by(2).map(|dir| (dir.to_owned(), root().join(dir).join("src"))).collect()
}

#[test]
fn no_two_modules_of_a_crate_depend_on_each_other() {
    let mut found = BTreeSet::new();
    for (name, src) in crates() {
        if !src.is_dir() {
            continue;
        }
        for circle in circles(&graph(&modules(&src))) {
            found.insert((name.clone(), circle));
        }
    }
    let known: BTreeSet<(String, Vec<String>)> = KNOWN
        .iter()
        .map(|(name, members)| ((*name).to_owned(), members.iter().map(|m| (*m).to_owned()).collect()))
        .collect();
    let new: Vec<_> = found.difference(&known).collect();
    let gone: Vec<_> = known.difference(&found).collect();
    assert!(new.is_empty(), "modules that depend on each other around a circle (break it, X-63): {new:?}");
    assert!(gone.is_empty(), "circles listed in KNOWN that are gone (remove them from the list): {gone:?}");
}

/// The reader finds a circle through each way of naming a sibling, and none through comments
/// or a sibling's test module.
#[test]
fn the_reader_sees_each_way_a_module_names_a_sibling() {
    let module = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
        pairs.iter().map(|(m, t)| ((*m).to_owned(), (*t).to_owned())).collect()
    };
    type Files<'a> = &'a [(&'a str, &'a str)];
    let rows: [(Files<'_>, usize, &str); 7] = [
        (&[("", "mod a; mod b;"), ("a", "use super::b::X;"), ("b", "use super::a::Y;")], 1, "super::"),
        (&[("", ""), ("a", "use crate::b::X;"), ("b", "use crate::{a::Y, c};")], 1, "crate:: and a group"),
        (
            &[("", "pub use b::Warden;"), ("a", "fn f(_: crate::Warden) {}"), ("b", "use super::a;")],
            1,
            "a re-export",
        ),
        (&[("", ""), ("a", "/// [`crate::b::X`]\nfn f() {}"), ("b", "use super::a::Y;")], 0, "a doc link"),
        (
            &[
                ("", ""),
                ("a", "use super::b::X;"),
                ("b", "fn f() {}\n#[cfg(test)]\nmod tests { use super::super::a; }"),
            ],
            0,
            "a test module",
        ),
        (
            &[("", ""), ("a", "use crate::{c::{b::Z}, d};"), ("b", "use super::a::Y;")],
            0,
            "a nested group's inner names",
        ),
        (
            &[("", ""), ("x::a", "use super::b::X;"), ("x::b", "use crate::x::a::Y;"), ("x", "")],
            1,
            "nested siblings",
        ),
    ];
    for (files, expected, why) in rows {
        assert_eq!(circles(&graph(&module(files))).len(), expected, "{why}");
    }
}
