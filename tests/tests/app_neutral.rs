//! Issue 49: the application names no harness, as the domain does not (`domain_neutral.rs`).
//! Every file under `app/` (sources, examples, tests, benches) is read, and none may name a
//! harness (`claude`, `codex`, `gemini`, any case: an identifier, a string, a configuration key, a
//! comment) unless `ALLOWED` lists it with why. A harness is wired by its integration crate
//! (`harness/…`), which hands the application its decoder, its renderer and its profile (its
//! words, its configuration section and the names that section may list, U-17); a special case
//! here for one harness is what this test keeps out.
//!
//! `ALLOWED` holds what cannot move into an integration, each with why. A listed file that no
//! longer names a harness fails the test too, so that it is taken off.

use std::path::Path;

/// Files of `app/` allowed to name a harness, and why.
const ALLOWED: [(&str, &str); 3] = [
    (
        "src/human.rs",
        "the variables each harness sets in the processes its agent runs: a human verb (`Warden::seal`, …) \
         refuses inside any harness's session, whether or not the caller linked its integration (H-5, C-9)",
    ),
    (
        "src/hook/fast.rs",
        "the settings directories of every harness, held against every agent whatever harness runs it: an \
         agent of one harness must not rewrite another harness's hooks (T-19, R-33)",
    ),
    (
        "src/records.rs",
        "`RECORDS_PROJECTION`, the name the records projection is saved under in the state store: renaming it \
         would orphan every saved projection",
    ),
];

/// Case-insensitive: a harness's name in any spelling.
const HARNESSES: [&str; 3] = ["claude", "codex", "gemini"];

/// The harnesses `text` names.
fn named(text: &str) -> Vec<&'static str> {
    let lower = text.to_lowercase();
    HARNESSES.into_iter().filter(|h| lower.contains(h)).collect()
}

#[test]
fn the_application_names_no_harness() {
    let app = Path::new(env!("CARGO_MANIFEST_DIR")).join("../app");
    let all = agentwarden_tests::sources::all_files(&app);
    assert!(all.len() > 40, "the application's files were read: {}", all.len());
    let mut offending = Vec::new();
    let mut listed_but_clean = Vec::new();
    for path in &all {
        let Ok(text) = std::fs::read_to_string(path) else { continue };
        let relative = path.strip_prefix(&app).unwrap_or(path).to_string_lossy().replace('\\', "/");
        let found = named(&text);
        let listed = ALLOWED.iter().any(|(file, _)| *file == relative);
        match (found.is_empty(), listed) {
            (false, false) => offending.push(format!("{relative}: {found:?}")),
            (true, true) => listed_but_clean.push(relative),
            _ => {}
        }
    }
    assert!(
        offending.is_empty(),
        "the application names a harness (issue 49): move it into the harness's integration, or list the \
         file in `ALLOWED` with why:\n{}",
        offending.join("\n")
    );
    assert!(listed_but_clean.is_empty(), "neutral now: take these off `ALLOWED`: {listed_but_clean:?}");
}

/// The check itself: each spelling is found, and neutral text is not.
#[test]
fn each_spelling_of_a_harness_is_found() {
    let rows: [(&str, bool, &str); 6] = [
        ("// for Claude Code", true, "prose"),
        ("config.claude_code.main_persona", true, "an identifier"),
        ("\"[codex]\"", true, "a configuration key in a string"),
        ("GEMINI_CLI", true, "an upper-case variable"),
        ("config.harness(&input.harness)", false, "the neutral reading"),
        ("[some_harness]\nmain_persona = \"main\"", false, "a neutral test section"),
    ];
    for (text, expected, why) in rows {
        assert_eq!(!named(text).is_empty(), expected, "{why}: {text}");
    }
}
