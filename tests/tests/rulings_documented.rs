//! Every ruling id the code and the documentation cite (`A-11`, `H-24`, `N-1`, …: a capital
//! letter, a hyphen, a number) is defined in `docs/rulings.md`, as the first cell of a table row.
//! The ids are found in every `.rs` and `.md` file of the repository, so a citation of a ruling
//! that was never written fails here, naming the file.
//!
//! `docs/rulings.md` is an index (issue 38): each row is exactly `| id | rule | status | record |`,
//! the status `in force` or `superseded by ID` of a ruling the index defines, and a record link,
//! when there is one, is `decisions/ID.md` of the row's own id and exists. Every file of
//! `docs/decisions/` is linked from its row, opens with `# ID: title` and has the sections
//! `## Context`, `## Decision` and `## Consequences`.

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

/// The cells of a table row, split at `|` not escaped as `\|`; `None` for a line that is no row.
fn cells(line: &str) -> Option<Vec<String>> {
    let inner = line.strip_prefix("| ")?.strip_suffix(" |")?;
    let mut found = Vec::new();
    let mut cell = String::new();
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                cell.push_str("\\|");
                chars.next();
            }
            '|' => found.push(std::mem::take(&mut cell).trim().to_owned()),
            c => cell.push(c),
        }
    }
    found.push(cell.trim().to_owned());
    Some(found)
}

/// What is wrong with the index `rulings` and the records `decisions` (file name, text): one line
/// per problem. `decisions` are the files of `docs/decisions/`.
fn index_problems(rulings: &str, decisions: &[(String, String)]) -> Vec<String> {
    let defined = defined_in(rulings);
    let files: BTreeSet<&str> = decisions.iter().map(|(name, _)| name.as_str()).collect();
    let mut problems = Vec::new();
    let mut linked = BTreeSet::new();
    for line in rulings.lines() {
        let Some(row) = cells(line) else { continue };
        let Some(id) = row.first().filter(|id| ids_in(id).contains(*id)) else { continue };
        if row.len() != 4 {
            problems.push(format!("{id}: {} cells, not `| id | rule | status | record |`", row.len()));
            continue;
        }
        let status = &row[2];
        let superseded_by = status.strip_prefix("superseded by ");
        if status != "in force" && !superseded_by.is_some_and(|by| defined.contains(by) && by != id) {
            problems.push(format!(
                "{id}: status `{status}` is neither `in force` nor `superseded by` a defined id"
            ));
        }
        let record = &row[3];
        for (at, _) in record.match_indices("](") {
            let target = record[at + 2..].split(')').next().unwrap_or("");
            let Some(name) = target.strip_prefix("decisions/") else { continue };
            if name != format!("{id}.md") {
                problems.push(format!("{id}: links the record `{target}`, not `decisions/{id}.md`"));
            } else if !files.contains(name) {
                problems.push(format!("{id}: its record `{target}` does not exist"));
            }
            linked.insert(name.to_owned());
        }
    }
    for (name, text) in decisions {
        if !linked.contains(name) {
            problems.push(format!("docs/decisions/{name} is linked from no row of the index"));
        }
        let id = name.strip_suffix(".md").unwrap_or(name);
        if !text.lines().next().is_some_and(|title| title.starts_with(&format!("# {id}: "))) {
            problems.push(format!("docs/decisions/{name} does not open with `# {id}: title`"));
        }
        for section in ["## Context", "## Decision", "## Consequences"] {
            if !text.lines().any(|line| line == section) {
                problems.push(format!("docs/decisions/{name} has no `{section}`"));
            }
        }
    }
    problems
}

#[test]
fn the_index_rows_and_the_decision_records_agree() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let rulings = std::fs::read_to_string(root.join("docs/rulings.md")).unwrap();
    let mut decisions = Vec::new();
    for entry in std::fs::read_dir(root.join("docs/decisions")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.ends_with(".md") {
            decisions.push((name, std::fs::read_to_string(&path).unwrap()));
        }
    }
    let problems = index_problems(&rulings, &decisions);
    assert!(problems.is_empty(), "docs/rulings.md and docs/decisions/ disagree:\n{}", problems.join("\n"));
    assert!(decisions.len() > 100, "the scan is broken: {} records", decisions.len());
}

#[test]
fn index_problems_are_found() {
    let record = |id: &str| {
        (format!("{id}.md"), format!("# {id}: t\n\n## Context\n\n## Decision\n\n## Consequences\n"))
    };
    let good = "| id | rule | status | record |\n| --- | --- | --- | --- |\n\
                | A-1 | a rule, `a\\|b` | in force | [record](decisions/A-1.md) |\n\
                | A-2 | a rule | superseded by A-1 | `app/src/x.rs` |\n";
    assert_eq!(index_problems(good, &[record("A-1")]), Vec::<String>::new());
    let table = [
        ("| A-1 | a question | a ruling | `where` | more |\n", vec![], "five cells"),
        ("| A-1 | a rule | replaced | — |\n", vec![], "an unknown status"),
        ("| A-1 | a rule | superseded by A-9 | — |\n", vec![], "superseded by an undefined id"),
        ("| A-1 | a rule | superseded by A-1 | — |\n", vec![], "superseded by itself"),
        ("| A-1 | a rule | in force | [record](decisions/A-1.md) |\n", vec![], "a missing record"),
        (
            "| A-1 | a rule | in force | [record](decisions/A-2.md) |\n| A-2 | r | in force | — |\n",
            vec![record("A-2")],
            "another id's record",
        ),
        ("| A-1 | a rule | in force | — |\n", vec![record("A-1")], "a record linked from no row"),
        (
            "| A-1 | a rule | in force | [record](decisions/A-1.md) |\n",
            vec![(
                "A-1.md".to_owned(),
                "# A-2: t\n\n## Context\n\n## Decision\n\n## Consequences\n".to_owned(),
            )],
            "a record whose title names another id",
        ),
        (
            "| A-1 | a rule | in force | [record](decisions/A-1.md) |\n",
            vec![("A-1.md".to_owned(), "# A-1: t\n\n## Decision\n".to_owned())],
            "a record without its sections",
        ),
    ];
    for (index, decisions, why) in table {
        assert!(!index_problems(index, &decisions).is_empty(), "not found: {why}");
    }
}
