//! Every ruling id the code and the documentation cite (`A-11`, `H-24`, `N-1`, …: a capital
//! letter, a hyphen, a number) is defined in `docs/rulings.md`, as the first cell of a table row.
//! The ids are found in every `.rs` and `.md` file of the repository, so a citation of a ruling
//! that was never written fails here, naming the file.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The ids cited in `text`: `X-N` not inside a longer word (`UTF-8` and `SHA-256` are not ids).
fn ids_in(text: &str) -> BTreeSet<String> {
    let bytes = text.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut ids = BTreeSet::new();
    for (at, _) in text.match_indices('-') {
        let Some(letter_at) = at.checked_sub(1) else { continue };
        let letter = bytes[letter_at];
        if !letter.is_ascii_uppercase() || letter_at.checked_sub(1).is_some_and(|i| word(bytes[i])) {
            continue;
        }
        let digits = bytes[at + 1..].iter().take_while(|b| b.is_ascii_digit()).count();
        let end = at + 1 + digits;
        if digits == 0 || bytes.get(end).is_some_and(|b| word(*b)) {
            continue;
        }
        ids.insert(text[letter_at..end].to_owned());
    }
    ids
}

/// The ids `rulings.md` defines: the first cell of its table rows.
fn defined_in(rulings: &str) -> BTreeSet<String> {
    rulings
        .lines()
        .filter_map(|line| line.strip_prefix("| ")?.split_once(" |").map(|(id, _)| id.trim().to_owned()))
        .filter(|id| ids_in(id).contains(id))
        .collect()
}

fn sources(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            if !matches!(name.as_str(), "target" | ".git" | "node_modules" | "corpus" | "artifacts") {
                sources(&path, found);
            }
        } else if name.ends_with(".rs") || name.ends_with(".md") {
            found.push(path);
        }
    }
}

#[test]
fn every_cited_ruling_is_in_docs_rulings_md() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let defined = defined_in(&std::fs::read_to_string(root.join("docs/rulings.md")).unwrap());
    let mut files = Vec::new();
    sources(&root, &mut files);
    let mut missing: BTreeMap<String, PathBuf> = BTreeMap::new();
    let mut cited = 0;
    for file in files {
        let Ok(text) = std::fs::read_to_string(&file) else { continue };
        for id in ids_in(&text) {
            cited += 1;
            if !defined.contains(&id) {
                missing.entry(id).or_insert_with(|| file.strip_prefix(&root).unwrap_or(&file).to_path_buf());
            }
        }
    }
    let named: Vec<String> =
        missing.iter().map(|(id, file)| format!("{id} (cited in {})", file.display())).collect();
    assert!(named.is_empty(), "rulings cited but not in docs/rulings.md: {}", named.join(", "));
    assert!(
        defined.len() > 150 && cited > 300,
        "the scan is broken: {} defined, {cited} cited",
        defined.len()
    );
}

#[test]
fn ids_are_found_only_as_whole_words() {
    let ids = ids_in("A-11 and (H-24), V-1 … V-12; UTF-8, SHA-256, X-1x, a-1, H-");
    assert_eq!(ids.into_iter().collect::<Vec<_>>(), ["A-11", "H-24", "V-1", "V-12"]);
    let defined = defined_in("| # | q |\n| --- | --- |\n| N-1 | why | rule |\n| not | a | row |\n");
    assert_eq!(defined.into_iter().collect::<Vec<_>>(), ["N-1"]);
}
