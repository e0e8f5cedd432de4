//! `docs/architecture.md` lists every crate of the workspace and every top-level module of
//! each, and nothing that no longer exists; its dependency table names, for each crate, exactly
//! the workspace crates its manifest depends on.
//!
//! The convention (stated in the file itself): a crate is a heading `### crate `NAME``; each of
//! its top-level modules is a list item `- `MODULE` — …` under that heading. A top-level module
//! is a `mod NAME;` line (any visibility) of `src/lib.rs` or `src/main.rs` not under
//! `#[cfg(test)]`; for `fuzz`, which has neither, the items are its `[[bin]]` targets.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read `{}`: {e}", path.display()))
}

/// The quoted strings of the array `key = [ … ]` in `manifest` (may span lines).
fn string_array(manifest: &str, key: &str) -> Vec<String> {
    let Some(start) = manifest.lines().position(|l| l.trim_start().starts_with(&format!("{key} ="))) else {
        return Vec::new();
    };
    let text: String = manifest.lines().skip(start).collect::<Vec<_>>().join("\n");
    let array = &text[text.find('[').unwrap()..=text.find(']').unwrap()];
    array.split('"').skip(1).step_by(2).map(str::to_owned).collect()
}

/// The lines of `[section]` (up to the next header) of a manifest.
fn section<'a>(manifest: &'a str, header: &str) -> Vec<&'a str> {
    let mut lines = manifest.lines().skip_while(|l| l.trim() != header);
    lines.next();
    lines.take_while(|l| !l.trim_start().starts_with('[')).collect()
}

/// `name = "…"`'s value in the given lines.
fn name_in<'a>(lines: impl IntoIterator<Item = &'a str>) -> Option<String> {
    lines.into_iter().find_map(|l| {
        let value = l.trim().strip_prefix("name")?.trim_start().strip_prefix('=')?;
        Some(value.trim().trim_matches('"').to_owned())
    })
}

/// The top-level `mod` items of a crate root's text, skipping those under `#[cfg(test)]`.
fn modules_of(source: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut test_only = false;
    for line in source.lines() {
        if line.starts_with("#[") {
            test_only |= line.replace(' ', "") == "#[cfg(test)]";
            continue;
        }
        let item = line.strip_prefix("pub ").map_or(line, str::trim_start);
        let item = match item.strip_prefix("pub(") {
            Some(rest) => rest.split_once(')').map_or(item, |(_, after)| after.trim_start()),
            None => item,
        };
        if let Some(name) = item.strip_prefix("mod ").and_then(|rest| rest.strip_suffix(';'))
            && !test_only
        {
            found.insert(name.trim().to_owned());
        }
        if !line.trim().is_empty() {
            test_only = false;
        }
    }
    found
}

/// What the code has: crate name → (its top-level items, the workspace crates it depends on).
fn in_the_code() -> BTreeMap<String, (BTreeSet<String>, BTreeSet<String>)> {
    let workspace = read(&root().join("Cargo.toml"));
    let dirs: Vec<String> =
        string_array(&workspace, "members").into_iter().chain(string_array(&workspace, "exclude")).collect();
    assert!(dirs.len() >= 7, "the root manifest's members and exclude: {dirs:?}");
    let mut crates = BTreeMap::new();
    for dir in dirs {
        let dir = root().join(dir);
        let manifest = read(&dir.join("Cargo.toml"));
        let name = name_in(section(&manifest, "[package]")).expect("a [package] name");
        let mut items = BTreeSet::new();
        for file in ["src/lib.rs", "src/main.rs"] {
            if let Ok(source) = std::fs::read_to_string(dir.join(file)) {
                items.extend(modules_of(&source));
            }
        }
        // The fuzz crate, which has no `src/`: its targets.
        if !dir.join("src").exists() {
            items.extend(manifest.split("[[bin]]").skip(1).filter_map(|b| name_in(b.lines())));
        }
        let depends: BTreeSet<String> = section(&manifest, "[dependencies]")
            .iter()
            .filter_map(|l| l.split(['=', '.']).next().map(str::trim))
            .filter(|key| key.starts_with("agentwarden"))
            .map(str::to_owned)
            .collect();
        crates.insert(name, (items, depends));
    }
    crates
}

/// What the file lists: crate name → its listed items.
fn listed(doc: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut crates: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in doc.lines() {
        if line.starts_with('#') {
            current =
                line.strip_prefix("### crate `").and_then(|rest| rest.strip_suffix('`')).map(str::to_owned);
            if let Some(name) = &current {
                assert!(
                    crates.insert(name.clone(), BTreeSet::new()).is_none(),
                    "crate `{name}` listed twice"
                );
            }
            continue;
        }
        let Some((name, _)) = line.strip_prefix("- `").and_then(|rest| rest.split_once("` — ")) else {
            continue;
        };
        let crate_name = current.as_ref().unwrap_or_else(|| panic!("`{name}` is listed under no crate"));
        let items = crates.entry(crate_name.clone()).or_default();
        assert!(items.insert(name.to_owned()), "`{name}` listed twice under crate `{crate_name}`");
    }
    crates
}

/// The dependency table: crate → the `agentwarden…` names of its second cell.
fn dependency_rows(doc: &str) -> BTreeMap<String, BTreeSet<String>> {
    doc.lines()
        .filter_map(|line| {
            let mut cells = line.strip_prefix("| `")?.splitn(2, "` | ");
            let name = cells.next()?.to_owned();
            let rest = cells.next()?;
            let names = rest
                .split('`')
                .skip(1)
                .step_by(2)
                .filter(|n| n.starts_with("agentwarden"))
                .map(str::to_owned)
                .collect();
            Some((name, names))
        })
        .collect()
}

fn doc() -> String {
    read(&root().join("docs/architecture.md"))
}

#[test]
fn every_crate_and_top_level_module_is_listed_and_nothing_else() {
    let code = in_the_code();
    let listed = listed(&doc());
    let mut wrong = Vec::new();
    for (name, (items, _)) in &code {
        match listed.get(name) {
            None => wrong.push(format!("crate `{name}` has no `### crate `{name}`` heading")),
            Some(documented) => {
                for item in items.difference(documented) {
                    wrong.push(format!("crate `{name}`: module `{item}` is not listed"));
                }
                for item in documented.difference(items) {
                    wrong.push(format!("crate `{name}`: `{item}` is listed but does not exist"));
                }
            }
        }
    }
    for name in listed.keys().filter(|n| !code.contains_key(*n)) {
        wrong.push(format!("crate `{name}` is listed but is not in the workspace"));
    }
    assert!(wrong.is_empty(), "docs/architecture.md is out of date (X-3):\n{}", wrong.join("\n"));
}

#[test]
fn the_dependency_table_names_what_each_manifest_depends_on() {
    let code = in_the_code();
    let rows = dependency_rows(&doc());
    let mut wrong = Vec::new();
    for (name, (_, depends)) in &code {
        match rows.get(name) {
            None => wrong.push(format!("crate `{name}` has no row in the dependency table")),
            Some(row) if row != depends => {
                wrong.push(format!("crate `{name}`: the table says {row:?}, the manifest {depends:?}"))
            }
            Some(_) => {}
        }
    }
    assert!(
        wrong.is_empty(),
        "docs/architecture.md's dependencies are out of date (X-3):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_parsers_read_what_the_convention_says() {
    let source = "//! doc\nmod a;\npub mod b;\npub(crate) mod c;\n#[cfg(test)]\nmod tests;\n#[cfg(test)]\nmod t {\n}\n\
                  #[path = \"x.rs\"]\nmod d;\n    mod inner;\nmod e {\n}\n";
    assert_eq!(modules_of(source), ["a", "b", "c", "d"].map(String::from).into());
    let doc = "### crate `one`\n\n- `a` — does a\n- not an item\n- `b` — does b\n### crate `two`\n- `c` — c\n\
               ## Other\n- `x`: not an item\n";
    let listed = listed(doc);
    assert_eq!(listed["one"], ["a", "b"].map(String::from).into());
    assert_eq!(listed["two"], ["c"].map(String::from).into());
    assert_eq!(listed.len(), 2);
}
